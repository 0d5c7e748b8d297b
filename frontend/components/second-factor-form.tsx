"use client";

import { useState, type FormEvent } from "react";
import { describeAuthError } from "@/lib/auth-api";
import { ApiError } from "@/lib/api-error";

interface Props {
  /** Prefixes the ids and test ids: the sign-in screen and the reauth dialog each have one. */
  idPrefix: string;
  /** Sends the code; throws what the API answered. */
  onSubmit: (code: string) => Promise<void>;
  /** The challenge expired (`reason` says so) or the person wants to: back to the password. */
  onRestart: (reason?: string) => void;
}

/**
 * The second step of a password sign-in for an account with an authenticator app: the 6 digits
 * it shows now, or one of the recovery codes. A wrong code counts against the sign-in limits.
 */
export function SecondFactorForm({ idPrefix, onSubmit, onRestart }: Props) {
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!code.trim()) {
      setError("Enter the code your authenticator app shows, or a recovery code.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSubmit(code.trim());
    } catch (err) {
      if (err instanceof ApiError && err.code === "challenge_expired") {
        onRestart(describeAuthError(err));
        return;
      }
      setError(describeAuthError(err));
      setCode("");
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="stack" noValidate data-testid={`${idPrefix}-code-form`}>
      <p className="small">Your account has an authenticator app: enter the 6-digit code it shows now.</p>
      <label htmlFor={`${idPrefix}-code`}>Code (or a recovery code)</label>
      <input
        id={`${idPrefix}-code`}
        data-testid={`${idPrefix}-code`}
        autoComplete="one-time-code"
        inputMode="text"
        autoCapitalize="none"
        spellCheck={false}
        maxLength={64}
        value={code}
        onChange={(e) => setCode(e.target.value)}
        aria-describedby={error ? `${idPrefix}-code-error` : undefined}
        aria-invalid={error ? true : undefined}
        autoFocus
      />
      <button type="submit" className="button primary" disabled={busy} data-testid={`${idPrefix}-code-submit`}>
        {busy ? "Checking…" : "Continue"}
      </button>
      <button type="button" className="link-button" onClick={() => onRestart()} data-testid={`${idPrefix}-code-back`}>
        Back to the password
      </button>
      {error && (
        <p id={`${idPrefix}-code-error`} className="error-text" role="alert" data-testid={`${idPrefix}-code-error`}>
          {error}
        </p>
      )}
    </form>
  );
}
