import { ApiError } from "./api-error";
import { apiJson } from "./api-client";
import { devLogIn } from "./auth-api";
import type { Me } from "./account-types";
import { signedIn, type Session } from "./auth-store";
import { signInWithPasskey } from "./passkeys";

/** How a person can sign in again to confirm it is them (the API's `methods`). */
export type ReauthMethod = "password" | "passkey" | "sso" | "dev";

const KNOWN: readonly ReauthMethod[] = ["password", "passkey", "sso", "dev"];

/**
 * The API refused because the sign-in is not recent (`403 reauth_required`): the methods it
 * names, else null. What a stolen session must not do (make a key, add a passkey, connect an
 * app…) needs a sign-in from the last few minutes; signing in again is the confirmation.
 */
export function reauthMethods(error: unknown): ReauthMethod[] | null {
  if (!(error instanceof ApiError) || error.code !== "reauth_required") return null;
  const listed = Array.isArray(error.extra.methods) ? error.extra.methods : [];
  return KNOWN.filter((method) => listed.includes(method));
}

/** Signs this person in again with their password (a new session replaces this one). */
export async function confirmWithPassword(session: Session, password: string): Promise<void> {
  // No session here: a wrong password (401) must not read as this session ending.
  await apiJson<unknown>(null, "/auth/login", { method: "POST", body: { login: session.userId, password } });
  signedIn(await apiJson<Me>(null, "/auth/me"));
}

export function confirmWithPasskey(): Promise<void> {
  return signInWithPasskey();
}

export function confirmWithDevSignIn(session: Session): Promise<void> {
  return devLogIn(session.userId);
}

/** The identity provider signs the person in afresh, then sends the browser back here. */
export function reauthSsoUrl(): string {
  const next = `${window.location.pathname}${window.location.search}`;
  return `/api/auth/oidc/login?${new URLSearchParams({ next, reauth: "true" }).toString()}`;
}
