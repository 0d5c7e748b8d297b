"use client";

import { useState, type FormEvent } from "react";
import useSWR from "swr";
import type { Session } from "@/lib/auth-store";
import { describeError } from "@/lib/api-error";
import {
  beginSecondFactor,
  confirmSecondFactor,
  fetchSecondFactor,
  SECOND_FACTOR_PATH,
  turnOffSecondFactor,
  type SecondFactorSetup,
} from "@/lib/second-factor";
import { useAction } from "@/lib/use-action";
import { CopyButton } from "./copy-button";
import { useReauth } from "./reauth-provider";

/**
 * "Authenticator app": a code from an app on the phone after the password (a second factor).
 * Turning it on shows the secret (and its otpauth:// link) once, takes one code to confirm, and
 * then shows the recovery codes once; turning it on or off needs a recent sign-in.
 */
export function AccountSecondFactor({ session }: { session: Session }) {
  const { data, error: loadError, mutate } = useSWR(["parley", session.epoch, SECOND_FACTOR_PATH], () =>
    fetchSecondFactor(session),
  );
  const reauth = useReauth();
  const action = useAction();
  const [setup, setSetup] = useState<SecondFactorSetup | null>(null);
  const [code, setCode] = useState("");
  const [recovery, setRecovery] = useState<string[] | null>(null);

  async function begin() {
    const ok = await action.run(async () => {
      setRecovery(null);
      setSetup(await reauth(() => beginSecondFactor(session)));
    });
    if (ok) setCode("");
  }

  async function confirm(event: FormEvent) {
    event.preventDefault();
    const ok = await action.run(async () => {
      setRecovery(await reauth(() => confirmSecondFactor(session, code.trim())));
    });
    if (ok) {
      setSetup(null);
      setCode("");
      await mutate();
    }
  }

  async function turnOff() {
    const ok = await action.run(() => reauth(() => turnOffSecondFactor(session)));
    if (ok) {
      setRecovery(null);
      await mutate();
    }
  }

  const enabled = Boolean(data?.enabled);
  return (
    <section className="account-section" aria-labelledby="account-2fa-title" data-testid="second-factor-section">
      <h2 id="account-2fa-title">Authenticator app</h2>
      <p className="muted small">
        After your password, also ask for a code from an authenticator app on your phone. Passkeys and single sign-on
        are not asked for it.
      </p>
      {loadError && (
        <p className="error-text" role="alert">
          {describeError(loadError)}
        </p>
      )}
      {data && (
        <p data-testid="second-factor-state">
          {enabled
            ? `On · ${data.recovery_codes_left} recovery code${data.recovery_codes_left === 1 ? "" : "s"} left`
            : "Off"}
        </p>
      )}
      {recovery && (
        <div className="stack" data-testid="second-factor-recovery">
          <p className="small">
            <strong>Recovery codes</strong>, shown only now: keep them somewhere safe. Each signs you in once if you
            lose your phone.
          </p>
          <pre data-testid="second-factor-recovery-codes">
            {recovery.join("\n")}
          </pre>
          <CopyButton value={recovery.join("\n")} label="Copy recovery codes" testId="copy-recovery-codes" />
        </div>
      )}
      {setup && !enabled && (
        <form onSubmit={confirm} className="stack" noValidate data-testid="second-factor-setup">
          <p className="small">
            Add this account to your authenticator app with the key below (or open the link on your phone), then type
            the 6-digit code it shows.
          </p>
          <p className="small">
            Key: <code data-testid="second-factor-secret">{setup.secret}</code>
          </p>
          <p className="small" style={{ wordBreak: "break-all" }}>
            Link: <code data-testid="second-factor-uri">{setup.otpauth_uri}</code>
          </p>
          <label htmlFor="second-factor-code">Code</label>
          <input
            id="second-factor-code"
            data-testid="second-factor-code"
            autoComplete="one-time-code"
            inputMode="numeric"
            maxLength={6}
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
          <button type="submit" className="button" disabled={action.busy || !code.trim()} data-testid="second-factor-confirm">
            Turn on
          </button>
        </form>
      )}
      {data && !enabled && !setup && (
        <button type="button" className="button" disabled={action.busy} onClick={() => void begin()} data-testid="second-factor-begin">
          Set up an authenticator app
        </button>
      )}
      {enabled && (
        <button
          type="button"
          className="button small danger"
          disabled={action.busy}
          onClick={() => void turnOff()}
          data-testid="second-factor-off"
        >
          Turn off
        </button>
      )}
      {action.error && (
        <p className="error-text" role="alert" data-testid="second-factor-error">
          {action.error}
        </p>
      )}
    </section>
  );
}
