import { apiJson } from "./api-client";
import { ApiError, describeError } from "./api-error";
import type { AuthConfig, Invite, Me } from "./account-types";
import { signedIn } from "./auth-store";

/** What this server's sign-in screen offers (`GET /api/auth/config`). */
export function fetchAuthConfig(): Promise<AuthConfig> {
  return apiJson<AuthConfig>(null, "/auth/config");
}

/**
 * Each sign-in answer sets the session cookie; who it belongs to is then read from `/me`, so
 * nothing in a body (dev sign-in's script token, say) is ever kept by the page.
 */
async function signInWith(path: string, body: unknown): Promise<void> {
  await apiJson<unknown>(null, path, { method: "POST", body });
  signedIn(await apiJson<Me>(null, "/auth/me"));
}

export function logIn(login: string, password: string): Promise<void> {
  return signInWith("/auth/login", { login, password });
}

export function signUp(fields: { user_id: string; password: string; email?: string; invite?: string }): Promise<void> {
  return signInWith("/auth/signup", fields);
}

export function devLogIn(userId: string): Promise<void> {
  return signInWith("/auth/dev-login", { user_id: userId });
}

/** Where the identity provider's sign-in starts; the API sends the browser back to `next`. */
export function oidcLoginUrl(next: string, invite?: string): string {
  const query = new URLSearchParams({ next, ...(invite ? { invite } : {}) });
  return `/api/auth/oidc/login?${query.toString()}`;
}

const OIDC_ERRORS: Record<string, string> = {
  oidc_no_account: "Your identity provider signed you in, but there is no Parley account for you here. Ask an admin for an invite.",
  account_disabled: "This account is disabled. Ask an admin.",
};

/** The identity provider's sign-in came back without a session (`/?auth_error=<code>`): what to say. */
export function authErrorFromUrl(): string | null {
  const code = new URL(window.location.href).searchParams.get("auth_error");
  if (!code) return null;
  return OIDC_ERRORS[code] ?? "Signing in with your identity provider did not work. Try again, or use your password.";
}

/** Drops `auth_error` from the address, so a reload does not say it again. */
export function clearAuthErrorFromUrl(): void {
  const url = new URL(window.location.href);
  if (!url.searchParams.has("auth_error")) return;
  url.searchParams.delete("auth_error");
  window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
}

export function fetchInvite(token: string): Promise<Invite> {
  return apiJson<Invite>(null, `/auth/invites/${encodeURIComponent(token)}`);
}

export const USER_NAME_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;
export const USER_NAME_RULE = "Use 1 to 64 letters, digits, dots, dashes, underscores or @ (no spaces).";

/** Human words for a refused sign-in or sign-up: one message for any wrong name or password. */
export function describeAuthError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429) return `Too many attempts, try again in ${error.retryAfter ?? 60} s.`;
    if (error.code === "invalid_credentials" || error.status === 401) return "Wrong user name, email or password.";
  }
  return describeError(error);
}
