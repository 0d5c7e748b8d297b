import { apiJson } from "./api-client";
import { ApiError, describeError } from "./api-error";
import type { AuthConfig, Invite, Me } from "./account-types";
import { signedIn, type Session } from "./auth-store";
import { describeCodeError } from "./second-factor";

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

/** The second step when the account has an authenticator app on (lib/second-factor.ts). */
export function logInWithCode(challenge: string, code: string): Promise<void> {
  return signInWith("/auth/login/second-factor", { challenge, code });
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

/** How to get single sign-on into an account that already exists here. */
const HOW_TO_LINK =
  "If you already have an account here, sign in to it with its password and choose \"Link single sign-on\" under Account, or verify its email there first.";

const OIDC_ERRORS: Record<string, string> = {
  oidc_no_account: `Your identity provider signed you in, but no Parley account here is linked to you. ${HOW_TO_LINK} Otherwise, ask an admin for an invite.`,
  account_disabled: "This account is disabled. Ask an admin.",
  user_id_taken: "The user name your invite names already has an account. Ask an admin for a new invite.",
};

/** The identity provider's sign-in came back without a session (`/?auth_error=<code>`): what to say. */
export function authErrorFromUrl(): string | null {
  const code = new URL(window.location.href).searchParams.get("auth_error");
  if (!code) return null;
  return OIDC_ERRORS[code] ?? "Signing in with your identity provider did not work. Try again, or use your password.";
}

/** Drops `auth_error` from the address, so a reload does not say it again. */
export function clearAuthErrorFromUrl(): void {
  clearFromUrl("auth_error");
}

/** Drops a one-time query parameter (a sign-in's notice, say) from the address. */
export function clearFromUrl(name: string): void {
  const url = new URL(window.location.href);
  if (!url.searchParams.has(name)) return;
  url.searchParams.delete(name);
  window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
}

/**
 * Single sign-on signed the person in to a new account although one here has their user name or
 * email (`?auth_notice=sso_new_account`): that account was not joined, and why.
 */
export function authNoticeFromUrl(userId: string): string | null {
  if (new URL(window.location.href).searchParams.get("auth_notice") !== "sso_new_account") return null;
  return (
    `Single sign-on opened a new account, ${userId}: an account here with your user name or email was not joined, ` +
    "because it is not linked to your sign-in and its email is not verified. If that account is yours, sign in to it " +
    'with its password and choose "Link single sign-on" under Account.'
  );
}

const SSO_LINK_RESULTS: Record<string, string> = {
  sso_taken: "That single sign-on identity is already linked to another Parley account, so it was not linked here.",
  sso_already_linked: "This account is already linked to a single sign-on identity.",
  sso_link_signed_out: "You were signed out before the identity provider answered, so nothing was linked. Try again.",
  account_disabled: "This account is disabled. Ask an admin.",
};

/** The result of "Link single sign-on" (`?sso_link=linked|<code>`), in words; null when there is none. */
export function ssoLinkResultFromUrl(): { ok: boolean; text: string } | null {
  const code = new URL(window.location.href).searchParams.get("sso_link");
  if (!code) return null;
  if (code === "linked") return { ok: true, text: "Single sign-on is linked: you can now sign in to this account with it." };
  return { ok: false, text: SSO_LINK_RESULTS[code] ?? "Linking single sign-on did not work. Try again." };
}

/** Starts linking the identity provider to the signed-in account: the browser goes to the provider next. */
export async function startSsoLink(session: Session): Promise<string> {
  const started = await apiJson<{ redirect_to: string }>(session, "/auth/oidc/link", { method: "POST", body: { next: "/" } });
  return started.redirect_to;
}

export function fetchInvite(token: string): Promise<Invite> {
  return apiJson<Invite>(null, `/auth/invites/${encodeURIComponent(token)}`);
}

/** A user name is never an email (no @): the email is a field of its own. */
export const USER_NAME_PATTERN = /^(?!\.+$)[A-Za-z0-9_.-]{1,64}$/;
export const USER_NAME_RULE = "Use 1 to 64 letters, digits, dots, dashes or underscores (no spaces, no @: your email goes in its own field).";

/** Human words for a refused sign-in or sign-up: one message for any wrong name or password. */
export function describeAuthError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429) return `Too many attempts, try again in ${error.retryAfter ?? 60} s.`;
    const code = describeCodeError(error);
    if (code) return code;
    if (error.code === "invalid_credentials" || error.status === 401) return "Wrong user name, email or password.";
  }
  return describeError(error);
}
