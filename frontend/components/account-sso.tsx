"use client";

import { useState } from "react";
import type { AuthConfig } from "@/lib/account-types";
import { describeError } from "@/lib/api-error";
import { startSsoLink } from "@/lib/auth-api";
import type { Session } from "@/lib/auth-store";

/**
 * Single sign-on for this account: linked or not, and "Link single sign-on", which goes through
 * the identity provider and comes back here (`result`: how it went). Linking while signed in is
 * how an existing account gets single sign-on without a verified email.
 */
export function AccountSso({
  session,
  config,
  result,
}: {
  session: Session;
  config: AuthConfig;
  result: { ok: boolean; text: string } | null;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const name = config.oidc_name || "single sign-on";

  async function link() {
    setBusy(true);
    setError(null);
    try {
      window.location.assign(await startSsoLink(session));
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  const message = error ? { ok: false, text: error } : result;
  return (
    <section className="account-section" aria-labelledby="account-sso-title" data-testid="sso-section">
      <h2 id="account-sso-title">Single sign-on</h2>
      {session.ssoLinked ? (
        <p data-testid="sso-status">Linked: signing in with {name} opens this account.</p>
      ) : (
        <>
          <p className="muted small" data-testid="sso-status">
            Not linked. Link your {name} identity to sign in to this account with it.
          </p>
          <button type="button" className="button small" disabled={busy} onClick={() => void link()} data-testid="link-sso">
            {busy ? "Going to your identity provider…" : "Link single sign-on"}
          </button>
        </>
      )}
      {message && (
        <p className={message.ok ? "ok-text" : "error-text"} role={message.ok ? "status" : "alert"} data-testid="sso-message">
          {message.text}
        </p>
      )}
    </section>
  );
}
