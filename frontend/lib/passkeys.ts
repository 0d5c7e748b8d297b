import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  WebAuthnError,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import { apiJson, userPath } from "./api-client";
import type { Me } from "./account-types";
import { signedIn, type Session } from "./auth-store";
import { passkeyHostProblemHere } from "./passkey-host";


/** The API may send the options bare (py_webauthn's JSON) or under `publicKey`/`options`. */
function unwrap<T>(answer: unknown): T {
  if (typeof answer === "object" && answer !== null) {
    const record = answer as Record<string, unknown>;
    if (typeof record.publicKey === "object" && record.publicKey !== null) return record.publicKey as T;
    if (typeof record.options === "object" && record.options !== null) return record.options as T;
  }
  return answer as T;
}

/** This browser can make and use passkeys, and at this address (a name, not an IP). */
export function passkeysSupported(): boolean {
  return browserSupportsWebAuthn() && passkeyHostProblemHere() === null;
}

/** Creates a passkey on this device (the browser asks the person) and stores it with the API. */
export async function addPasskey(session: Session, name: string): Promise<void> {
  const options = await apiJson<unknown>(session, "/auth/passkeys/register/options", { method: "POST", body: {} });
  const credential = await startRegistration({ optionsJSON: unwrap<PublicKeyCredentialCreationOptionsJSON>(options) });
  await apiJson<unknown>(session, "/auth/passkeys/register/verify", { method: "POST", body: { credential, name } });
}

/** Signs in with a passkey alone: the authenticator offers the ones it holds for this site. */
export async function signInWithPasskey(): Promise<void> {
  signedIn(await passkeySignIn());
}

/** The passkey ceremony: the session cookie is set, and `/me` says whose passkey it was. */
export async function passkeySignIn(): Promise<Me> {
  const options = await apiJson<unknown>(null, "/auth/passkeys/login/options", { method: "POST", body: {} });
  const credential = await startAuthentication({ optionsJSON: unwrap<PublicKeyCredentialRequestOptionsJSON>(options) });
  await apiJson<unknown>(null, "/auth/passkeys/login/verify", { method: "POST", body: { credential } });
  return apiJson<Me>(null, "/auth/me");
}

export function passkeysPath(session: Session, id?: number): string {
  return userPath(session, id === undefined ? "/passkeys" : `/passkeys/${id}`);
}

/** The person closed the browser's prompt (or it timed out): not an error worth a red line. */
export function cancelledByPerson(error: unknown): boolean {
  if (error instanceof WebAuthnError) return error.code === "ERROR_CEREMONY_ABORTED";
  return error instanceof Error && error.name === "NotAllowedError";
}
