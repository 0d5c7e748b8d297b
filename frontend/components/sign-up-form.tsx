"use client";

import { useState, type FormEvent } from "react";
import { describeAuthError, signUp, USER_NAME_PATTERN, USER_NAME_RULE } from "@/lib/auth-api";

interface Props {
  /** The one-time invite this sign-up redeems, and the email it was sent to. */
  invite?: { token: string; email: string | null; userId: string | null };
  /** Called once the account exists and its session cookie is set. */
  onSignedUp?: () => void;
}

/** New account: a user name (its `user_id`), a password, and an email to sign in with too. */
export function SignUpForm({ invite, onSignedUp }: Props) {
  const [userId, setUserId] = useState(invite?.userId ?? "");
  const [email, setEmail] = useState(invite?.email ?? "");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const name = userId.trim();
    if (!USER_NAME_PATTERN.test(name)) {
      setError(USER_NAME_RULE);
      return;
    }
    if (!password) {
      setError("Choose a password.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await signUp({
        user_id: name,
        password,
        ...(email.trim() ? { email: email.trim() } : {}),
        ...(invite ? { invite: invite.token } : {}),
      });
      onSignedUp?.();
    } catch (err) {
      setError(describeAuthError(err));
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="stack" noValidate data-testid="sign-up-form">
      <label htmlFor="sign-up-user">User name</label>
      <input
        id="sign-up-user"
        data-testid="sign-up-user"
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        value={userId}
        onChange={(e) => setUserId(e.target.value)}
        readOnly={Boolean(invite?.userId)}
        required
        autoFocus
      />
      <label htmlFor="sign-up-email">
        Email <span className="muted">{invite?.email ? "(from your invite)" : "(optional)"}</span>
      </label>
      <input
        id="sign-up-email"
        data-testid="sign-up-email"
        type="email"
        autoComplete="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        readOnly={Boolean(invite?.email)}
      />
      <label htmlFor="sign-up-password">Password</label>
      <input
        id="sign-up-password"
        data-testid="sign-up-password"
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        required
      />
      <button type="submit" className="button primary" disabled={busy} data-testid="sign-up-submit">
        {busy ? "Creating your account…" : "Create account"}
      </button>
      {error && (
        <p className="error-text" role="alert" data-testid="sign-up-error">
          {error}
        </p>
      )}
    </form>
  );
}
