"use client";

import { useState, type FormEvent } from "react";
import type { AuthConfig, EmailState } from "@/lib/account-types";
import { apiJson } from "@/lib/api-client";
import { ApiError, describeError } from "@/lib/api-error";
import { refreshAuth, type Session } from "@/lib/auth-store";

type Message = { ok: boolean; text: string };

/**
 * The account's email and whether it is verified: only a verified one signs in by email or lets
 * single sign-on with the same email open this account. Verifying mails a one-time link (when the
 * server has a mail server); changing the email makes it unverified again.
 */
export function AccountEmail({ session, config }: { session: Session; config: AuthConfig | null }) {
  const [draft, setDraft] = useState("");
  const [busy, setBusy] = useState<"send" | "change" | null>(null);
  const [message, setMessage] = useState<Message | null>(null);
  const { email, emailVerified } = session;

  async function send() {
    setBusy("send");
    setMessage(null);
    try {
      await apiJson<EmailState>(session, "/auth/email/verification", { method: "POST" });
      setMessage({
        ok: true,
        text: `A link is on its way to ${email ?? "your email"}. Open it in a browser signed in as ${session.userId}; it works once.`,
      });
    } catch (err) {
      const wait = err instanceof ApiError && err.status === 429;
      setMessage({ ok: false, text: wait ? "A link was sent less than a minute ago. Check your mail, or try again in a minute." : describeError(err) });
    } finally {
      setBusy(null);
    }
  }

  async function change(event: FormEvent) {
    event.preventDefault();
    setBusy("change");
    setMessage(null);
    try {
      const next = draft.trim() || null;
      const state = await apiJson<EmailState>(session, "/auth/email", { method: "PUT", body: { email: next } });
      setDraft("");
      setMessage({
        ok: true,
        text: state.email ? `Your email is now ${state.email}${state.email_verified ? "." : " (not verified yet)."}` : "Your email was removed.",
      });
      await refreshAuth();
    } catch (err) {
      const taken = err instanceof ApiError && err.code === "email_taken";
      setMessage({ ok: false, text: taken ? "Another account has verified that email." : describeError(err) });
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="account-section" aria-labelledby="account-email-title" data-testid="email-section">
      <h2 id="account-email-title">Email</h2>
      {email ? (
        <p>
          <strong data-testid="account-email">{email}</strong>
          <span className="chip" data-testid="email-status">
            {emailVerified ? "verified" : "not verified"}
          </span>
        </p>
      ) : (
        <p className="muted" data-testid="account-email-none">
          No email yet.
        </p>
      )}
      <p className="muted small">
        Only a verified email signs you in by email, and lets single sign-on with the same email open this account.
      </p>
      {email && !emailVerified && config?.email_verification && (
        <button type="button" className="button small" disabled={busy !== null} onClick={() => void send()} data-testid="send-verification">
          {busy === "send" ? "Sending…" : "Send verification link"}
        </button>
      )}
      {email && !emailVerified && config && !config.email_verification && (
        <p className="muted small" data-testid="email-no-mail-server">
          This server has no mail server configured, so it cannot send a verification link. Ask your admin to set one up
          {config.oidc ? ", or link single sign-on below." : "."}
        </p>
      )}
      <form onSubmit={change} className="inline-form" noValidate>
        <label htmlFor="account-new-email" className="sr-only">
          New email
        </label>
        <input
          id="account-new-email"
          data-testid="email-input"
          type="email"
          autoComplete="email"
          placeholder={email ? "A new email (empty removes it)" : "Your email"}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
        />
        <button type="submit" className="button" disabled={busy !== null} data-testid="change-email">
          {busy === "change" ? "Saving…" : email ? "Change email" : "Add email"}
        </button>
      </form>
      {email && <p className="muted small">A changed email is not verified until you verify it again.</p>}
      {message && (
        <p className={message.ok ? "ok-text" : "error-text"} role={message.ok ? "status" : "alert"} data-testid="email-message">
          {message.text}
        </p>
      )}
    </section>
  );
}
