"use client";

import { useState, type FormEvent } from "react";
import { apiJson } from "@/lib/api-client";
import { ApiError, describeError } from "@/lib/api-error";
import { signIn, subjectOf } from "@/lib/auth-store";
import { readLocal, STORAGE_KEYS } from "@/lib/local-store";

const NAME_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;

function signInError(error: unknown): string {
  if (error instanceof ApiError && error.status === 404) {
    return "Name sign-in is turned off on this server (start the API with PARLEY_DEV_LOGIN=1), or use an access token below.";
  }
  if (error instanceof ApiError && error.status === 422) {
    return "Use 1 to 64 letters, digits, dots, dashes, underscores or @.";
  }
  return describeError(error);
}

/** Dev sign-in: a name is enough when the API runs with PARLEY_DEV_LOGIN=1; a token works always. */
export function SignInScreen() {
  // The sign-in screen only renders in the browser (after the auth state is read), so this is safe.
  const [name, setName] = useState(() => readLocal(STORAGE_KEYS.lastUser) ?? "");
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submitName(event: FormEvent) {
    event.preventDefault();
    const userId = name.trim();
    if (!NAME_PATTERN.test(userId)) {
      setError("Use 1 to 64 letters, digits, dots, dashes, underscores or @ (no spaces).");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const answer = await apiJson<{ token: string; user_id: string }>(null, "/auth/dev-login", {
        method: "POST",
        body: { user_id: userId },
      });
      signIn({ token: answer.token, userId: answer.user_id || userId });
    } catch (err) {
      setError(signInError(err));
      setBusy(false);
    }
  }

  function submitToken(event: FormEvent) {
    event.preventDefault();
    const value = token.trim();
    const userId = subjectOf(value);
    if (!userId) {
      setError("That doesn't look like a Parley token (mint one with: parley token --user NAME).");
      return;
    }
    signIn({ token: value, userId });
  }

  return (
    <main className="center-screen">
      <section className="card sign-in" aria-labelledby="sign-in-title" data-testid="sign-in-screen">
        <h1 id="sign-in-title">Sign in to Parley</h1>
        <p className="muted">Chat with your task assistant, and watch the agents that work for you.</p>
        <form onSubmit={submitName} className="stack" noValidate>
          <label htmlFor="sign-in-name">Name</label>
          <input
            id="sign-in-name"
            data-testid="sign-in-name"
            name="name"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-describedby={error ? "sign-in-error" : undefined}
            aria-invalid={error ? true : undefined}
            required
            autoFocus
          />
          <button type="submit" className="button primary" disabled={busy} data-testid="sign-in-submit">
            {busy ? "Signing in…" : "Sign in"}
          </button>
        </form>
        {error && (
          <p id="sign-in-error" className="error-text" role="alert" data-testid="sign-in-error">
            {error}
          </p>
        )}
        <details className="token-sign-in">
          <summary>Use an access token instead</summary>
          <form onSubmit={submitToken} className="stack">
            <label htmlFor="sign-in-token">Access token</label>
            <input
              id="sign-in-token"
              value={token}
              onChange={(e) => setToken(e.target.value)}
              autoComplete="off"
              spellCheck={false}
            />
            <button type="submit" className="button">
              Use token
            </button>
          </form>
        </details>
      </section>
    </main>
  );
}
