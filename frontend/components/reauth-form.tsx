"use client";

import { useState, type FormEvent } from "react";
import { describeAuthError } from "@/lib/auth-api";
import type { Session } from "@/lib/auth-store";
import { cancelledByPerson, passkeysSupported } from "@/lib/passkeys";
import { PasskeyHostNote } from "./passkey-host-note";
import { secondFactorChallenge } from "@/lib/second-factor";
import {
  confirmWithCode,
  confirmWithDevSignIn,
  confirmWithPasskey,
  confirmWithPassword,
  reauthSsoUrl,
  type ReauthMethod,
} from "@/lib/reauth";
import { useAuthConfig } from "@/lib/use-auth-config";
import { SecondFactorForm } from "./second-factor-form";

interface Props {
  session: Session;
  methods: ReauthMethod[];
  /** Signed in again: the caller goes on with what it was doing. */
  onConfirmed: () => void;
}

/**
 * "Confirm it's you": the ways this person can sign in again (their password, a passkey, their
 * identity provider asked to authenticate afresh, dev sign-in). Each makes a new session that
 * replaces this one, so what needed a recent sign-in can go ahead.
 */
export function ReauthForm({ session, methods, onConfirmed }: Props) {
  const { config } = useAuthConfig();
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** The password was right; the account's authenticator app code comes next. */
  const [challenge, setChallenge] = useState<string | null>(null);

  async function confirm(action: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await action();
      onConfirmed();
    } catch (err) {
      const next = secondFactorChallenge(err);
      if (next) {
        setChallenge(next);
        setPassword("");
      } else setError(cancelledByPerson(err) ? "The passkey prompt was closed." : describeAuthError(err));
    } finally {
      setBusy(false);
    }
  }

  function submitPassword(event: FormEvent) {
    event.preventDefault();
    if (!password) {
      setError("Enter your password.");
      return;
    }
    void confirm(() => confirmWithPassword(session, password));
  }

  if (challenge) {
    return (
      <div className="stack" data-testid="reauth-form">
        <SecondFactorForm
          idPrefix="reauth"
          onSubmit={async (code) => {
            await confirmWithCode(session, challenge, code);
            onConfirmed();
          }}
          onRestart={(reason) => {
            setChallenge(null);
            setError(reason ?? null);
          }}
        />
      </div>
    );
  }

  return (
    <div className="stack" data-testid="reauth-form">
      <p className="small">
        This needs a recent sign-in, so that nobody who finds you signed in can do it. Sign in again as{" "}
        <strong>{session.userId}</strong> to go on.
      </p>
      {methods.includes("password") && (
        <form onSubmit={submitPassword} className="stack" noValidate>
          {/* For password managers: the account this password is for. */}
          <input type="text" name="username" autoComplete="username" value={session.userId} readOnly hidden />
          <label htmlFor="reauth-password">Password</label>
          <input
            id="reauth-password"
            data-testid="reauth-password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <button type="submit" className="button" disabled={busy} data-testid="reauth-password-submit">
            Confirm with password
          </button>
        </form>
      )}
      {methods.includes("passkey") && passkeysSupported() && (
        <button
          type="button"
          className="button ghost"
          disabled={busy}
          onClick={() => void confirm(() => confirmWithPasskey(session))}
          data-testid="reauth-passkey"
        >
          Confirm with a passkey
        </button>
      )}
      {methods.includes("passkey") && <PasskeyHostNote />}
      {methods.includes("sso") && (
        <button
          type="button"
          className="button ghost"
          disabled={busy}
          onClick={() => window.location.assign(reauthSsoUrl())}
          data-testid="reauth-sso"
        >
          Sign in again with {config?.oidc_name || "single sign-on"}
        </button>
      )}
      {methods.includes("dev") && config?.dev_login && (
        <button
          type="button"
          className="button ghost"
          disabled={busy}
          onClick={() => void confirm(() => confirmWithDevSignIn(session))}
          data-testid="reauth-dev"
        >
          Dev sign-in again
        </button>
      )}
      {methods.length === 0 && (
        <p className="small">Sign out and sign in again, then try once more.</p>
      )}
      {error && (
        <p className="error-text" role="alert" data-testid="reauth-error">
          {error}
        </p>
      )}
    </div>
  );
}
