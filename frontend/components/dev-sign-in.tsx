"use client";

import { useState, type FormEvent } from "react";
import { describeAuthError, devLogIn, USER_NAME_PATTERN, USER_NAME_RULE } from "@/lib/auth-api";
import { lastUserName } from "@/lib/auth-store";

/** `./dev.sh` only (the API says so in its config): sign in as any name, no password. */
export function DevSignIn() {
  const [name, setName] = useState(lastUserName);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const userId = name.trim();
    if (!USER_NAME_PATTERN.test(userId)) {
      setError(USER_NAME_RULE);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await devLogIn(userId);
    } catch (err) {
      setError(describeAuthError(err));
      setBusy(false);
    }
  }

  return (
    <section className="dev-sign-in" aria-labelledby="dev-sign-in-title" data-testid="dev-sign-in">
      <h2 id="dev-sign-in-title">Development sign-in</h2>
      <p className="muted small">This server runs in development mode: any name signs in, without a password.</p>
      <form onSubmit={submit} className="inline-form" noValidate>
        <label htmlFor="dev-sign-in-name" className="sr-only">
          Development user name
        </label>
        <input
          id="dev-sign-in-name"
          data-testid="dev-sign-in-name"
          placeholder="Any name"
          autoCapitalize="none"
          spellCheck={false}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit" className="button" disabled={busy} data-testid="dev-sign-in-submit">
          {busy ? "Signing in…" : "Sign in as this name"}
        </button>
      </form>
      {error && (
        <p className="error-text" role="alert" data-testid="dev-sign-in-error">
          {error}
        </p>
      )}
    </section>
  );
}
