import { ApiError } from "./api-error";
import { apiJson } from "./api-client";
import type { Me } from "./account-types";
import { signedInAgain, type Session } from "./auth-store";
import { passkeySignIn } from "./passkeys";
import { sendSecondFactor } from "./second-factor";

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

/** Another account signed in instead (a passkey of someone else's): nothing was confirmed. */
export const SOMEONE_ELSE = new ApiError(403, "reauth_someone_else", "That signed in another account: nothing was changed.");

/** The new session is this person's (the workspace stays as it is), else SOMEONE_ELSE. */
async function confirmed(session: Session): Promise<void> {
  if (!signedInAgain(await apiJson<Me>(null, "/auth/me"), session.userId)) throw SOMEONE_ELSE;
}

/** Signs this person in again with their password (a new session replaces this one). */
export async function confirmWithPassword(session: Session, password: string): Promise<void> {
  // No session here: a wrong password (401) must not read as this session ending.
  await apiJson<unknown>(null, "/auth/login", { method: "POST", body: { login: session.userId, password } });
  await confirmed(session);
}

/** The password was right and an authenticator app is on: its code (or a recovery code) too. */
export async function confirmWithCode(session: Session, challenge: string, code: string): Promise<void> {
  await sendSecondFactor(challenge, code);
  await confirmed(session);
}

export async function confirmWithPasskey(session: Session): Promise<void> {
  const me = await passkeySignIn();
  if (!signedInAgain(me, session.userId)) throw SOMEONE_ELSE;
}

export async function confirmWithDevSignIn(session: Session): Promise<void> {
  await apiJson<unknown>(null, "/auth/dev-login", { method: "POST", body: { user_id: session.userId } });
  await confirmed(session);
}

/** The identity provider signs the person in afresh, then sends the browser back here. */
export function reauthSsoUrl(): string {
  const next = `${window.location.pathname}${window.location.search}`;
  return `/api/auth/oidc/login?${new URLSearchParams({ next, reauth: "true" }).toString()}`;
}
