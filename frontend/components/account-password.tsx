"use client";

import { useState, type FormEvent } from "react";
import { apiJson } from "@/lib/api-client";
import { ApiError } from "@/lib/api-error";
import { describeAuthError } from "@/lib/auth-api";
import { useReauth } from "./reauth-provider";

/** Change password; the API then ends this person's other sessions. */
export function AccountPassword({ onChanged }: { onChanged: () => void }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const reauth = useReauth();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!next) {
      setMessage({ ok: false, text: "Choose a new password." });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      // No session here: a wrong current password (401) must not read as the session ending.
      // An account without a password sets its first one only just after signing in.
      await reauth(() =>
        apiJson<unknown>(null, "/auth/password", {
          method: "POST",
          body: { current_password: current, new_password: next },
        }),
      );
      setCurrent("");
      setNext("");
      setMessage({ ok: true, text: "Password changed. Your other sessions were signed out." });
      onChanged();
    } catch (err) {
      const wrong = err instanceof ApiError && err.status === 401;
      setMessage({ ok: false, text: wrong ? "The current password is not right." : describeAuthError(err) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="account-section" aria-labelledby="account-password-title">
      <h2 id="account-password-title">Password</h2>
      <form onSubmit={submit} className="stack" noValidate data-testid="password-form">
        <label htmlFor="current-password">Current password</label>
        <input
          id="current-password"
          data-testid="current-password"
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
        />
        <label htmlFor="new-password">New password</label>
        <input
          id="new-password"
          data-testid="new-password"
          type="password"
          autoComplete="new-password"
          value={next}
          onChange={(e) => setNext(e.target.value)}
        />
        <button type="submit" className="button" disabled={busy} data-testid="change-password">
          {busy ? "Changing…" : "Change password"}
        </button>
      </form>
      {message && (
        <p className={message.ok ? "ok-text" : "error-text"} role={message.ok ? "status" : "alert"} data-testid="password-message">
          {message.text}
        </p>
      )}
    </section>
  );
}
