"use client";

import { useState, type FormEvent } from "react";
import { apiFetch, apiJson } from "@/lib/api-client";
import type { CreatedInvite } from "@/lib/account-types";
import type { Session } from "@/lib/auth-store";
import { fullTime } from "@/lib/format-time";
import { useAction } from "@/lib/use-action";
import { CopyButton } from "./copy-button";

/** The invite URL as this browser reaches the UI (the API may only know a relative path). */
function absolute(url: string): string {
  try {
    return new URL(url, window.location.origin).toString();
  } catch {
    return url;
  }
}

/** Admins only: one-time invite links, and disabling an account. */
export function AccountAdmin({ session }: { session: Session }) {
  const [email, setEmail] = useState("");
  const [invite, setInvite] = useState<CreatedInvite | null>(null);
  const [target, setTarget] = useState("");
  const [disabled, setDisabled] = useState<string | null>(null);
  const inviting = useAction();
  const disabling = useAction();

  async function createInvite(event: FormEvent) {
    event.preventDefault();
    await inviting.run(async () => {
      const body = email.trim() ? { email: email.trim() } : {};
      setInvite(await apiJson<CreatedInvite>(session, "/admin/invites", { method: "POST", body }));
      setEmail("");
    });
  }

  async function disable(event: FormEvent) {
    event.preventDefault();
    const userId = target.trim();
    if (!userId) return;
    setDisabled(null);
    const done = await disabling.run(() =>
      apiFetch(session, `/admin/users/${encodeURIComponent(userId)}/disable`, { method: "POST", body: {} }),
    );
    if (done) {
      setDisabled(userId);
      setTarget("");
    }
  }

  return (
    <section className="account-section" aria-labelledby="account-admin-title" data-testid="admin-section">
      <h2 id="account-admin-title">Team (admin)</h2>
      <form onSubmit={createInvite} className="stack" noValidate>
        <label htmlFor="invite-email">
          Invite someone <span className="muted">(email optional)</span>
        </label>
        <span className="inline-form">
          <input
            id="invite-email"
            data-testid="invite-email"
            type="email"
            placeholder="name@example.com"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <button type="submit" className="button" disabled={inviting.busy} data-testid="create-invite">
            Create invite link
          </button>
        </span>
      </form>
      {invite && (
        <div className="new-secret" role="status" data-testid="invite-link-box">
          <p>One-time link{invite.expires_at ? `, valid until ${fullTime(invite.expires_at)}` : ""}:</p>
          <code className="secret" data-testid="invite-link">
            {absolute(invite.url)}
          </code>
          <span className="row-actions">
            <CopyButton value={absolute(invite.url)} label="Copy link" testId="copy-invite" />
          </span>
        </div>
      )}
      {inviting.error && <p className="error-text" role="alert">{inviting.error}</p>}
      <form onSubmit={disable} className="stack" noValidate>
        <label htmlFor="disable-user">Disable an account (signs it out everywhere)</label>
        <span className="inline-form">
          <input
            id="disable-user"
            data-testid="disable-user"
            autoCapitalize="none"
            spellCheck={false}
            placeholder="user name"
            value={target}
            onChange={(e) => setTarget(e.target.value)}
          />
          <button type="submit" className="button danger" disabled={disabling.busy} data-testid="disable-user-submit">
            Disable
          </button>
        </span>
      </form>
      {disabled && (
        <p className="ok-text" role="status" data-testid="disable-user-done">
          {disabled} is disabled.
        </p>
      )}
      {disabling.error && <p className="error-text" role="alert">{disabling.error}</p>}
    </section>
  );
}
