import { apiJson } from "./api-client";
import { ApiError } from "./api-error";
import type { paths } from "./api-types";
import type { Session } from "./auth-store";
import type { JsonOf } from "./types";

/** Whether the authenticator app is on (or set up and waiting for its first code). */
export type SecondFactorStatus = JsonOf<paths["/api/auth/second-factor"]["get"]["responses"][200]>;
/** The app's secret and otpauth:// URI: shown only while it is being set up. */
export type SecondFactorSetup = JsonOf<paths["/api/auth/second-factor"]["post"]["responses"][201]>;
type RecoveryCodes = JsonOf<paths["/api/auth/second-factor/confirm"]["post"]["responses"][200]>;

export const SECOND_FACTOR_PATH = "/auth/second-factor";

/**
 * The password was right but the account has an authenticator app on (`401
 * second_factor_required`): the one-time challenge to send with its code, else null.
 */
export function secondFactorChallenge(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.code !== "second_factor_required") return null;
  return typeof error.extra.challenge === "string" ? error.extra.challenge : null;
}

/** The second step of a password sign-in: sets the session cookie (no session needed before). */
export async function sendSecondFactor(challenge: string, code: string): Promise<void> {
  await apiJson<unknown>(null, "/auth/login/second-factor", { method: "POST", body: { challenge, code } });
}

export function fetchSecondFactor(session: Session): Promise<SecondFactorStatus> {
  return apiJson<SecondFactorStatus>(session, SECOND_FACTOR_PATH);
}

export function beginSecondFactor(session: Session): Promise<SecondFactorSetup> {
  return apiJson<SecondFactorSetup>(session, SECOND_FACTOR_PATH, { method: "POST" });
}

export async function confirmSecondFactor(session: Session, code: string): Promise<string[]> {
  const done = await apiJson<RecoveryCodes>(session, `${SECOND_FACTOR_PATH}/confirm`, {
    method: "POST",
    body: { code },
  });
  return done.recovery_codes;
}

export async function turnOffSecondFactor(session: Session): Promise<void> {
  await apiJson<unknown>(session, SECOND_FACTOR_PATH, { method: "DELETE" });
}

/** Words for a refused code. */
export function describeCodeError(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === "invalid_code") return "That code is not right. Type the code your app shows now, or a recovery code.";
  if (error.code === "challenge_expired") return "This sign-in took too long. Enter your password again.";
  return null;
}
