"use client";

import { useEffect, useState, type FormEvent } from "react";
import { authErrorFromUrl, clearAuthErrorFromUrl, describeAuthError, logIn, logInWithCode, oidcLoginUrl } from "@/lib/auth-api";
import { lastUserName } from "@/lib/auth-store";
import { cancelledByPerson, passkeysSupported, signInWithPasskey } from "@/lib/passkeys";
import { secondFactorChallenge } from "@/lib/second-factor";
import { useAuthConfig } from "@/lib/use-auth-config";
import { DevSignIn } from "./dev-sign-in";
import { PasskeyHostNote } from "./passkey-host-note";
import { SecondFactorForm } from "./second-factor-form";
import { SignUpForm } from "./sign-up-form";

/** Sign-in (name or email + password, a passkey, the team's identity provider) and open sign-up. */
export function SignInScreen() {
  const { config, error: configError } = useAuthConfig();
  const [mode, setMode] = useState<"sign-in" | "sign-up">("sign-in");
  const [login, setLogin] = useState(lastUserName);
  const [password, setPassword] = useState("");
  // Only rendered in the browser (after the auth state is read), so the address is there.
  const [error, setError] = useState<string | null>(authErrorFromUrl);
  const [busy, setBusy] = useState(false);
  /** The password was right and the account has an authenticator app: its code comes next. */
  const [challenge, setChallenge] = useState<string | null>(null);
  useEffect(clearAuthErrorFromUrl, []);

  async function attempt(action: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      const next = secondFactorChallenge(err);
      if (next) {
        setChallenge(next);
        setPassword("");
      } else if (!cancelledByPerson(err)) setError(describeAuthError(err));
      setBusy(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!login.trim() || !password) {
      setError("Enter your user name or email, and your password.");
      return;
    }
    void attempt(() => logIn(login.trim(), password));
  }

  const here = typeof window === "undefined" ? "/" : window.location.pathname + window.location.search;
  const open = config?.signup === "open";

  if (challenge) {
    return (
      <main className="center-screen">
        <section className="card sign-in" aria-labelledby="sign-in-code-title" data-testid="sign-in-code-screen">
          <h1 id="sign-in-code-title">Enter your code</h1>
          <SecondFactorForm
            idPrefix="sign-in"
            onSubmit={(code) => logInWithCode(challenge, code)}
            onRestart={(reason) => {
              setChallenge(null);
              setError(reason ?? null);
            }}
          />
        </section>
      </main>
    );
  }

  if (mode === "sign-up" && open) {
    return (
      <main className="center-screen">
        <section className="card sign-in" aria-labelledby="sign-up-title" data-testid="sign-up-screen">
          <h1 id="sign-up-title">Create your Parley account</h1>
          <SignUpForm />
          <p className="muted">
            Already have an account?{" "}
            <button type="button" className="link-button" onClick={() => setMode("sign-in")} data-testid="show-sign-in">
              Sign in
            </button>
          </p>
        </section>
      </main>
    );
  }

  return (
    <main className="center-screen">
      <section className="card sign-in" aria-labelledby="sign-in-title" data-testid="sign-in-screen">
        <h1 id="sign-in-title">Sign in to Parley</h1>
        <p className="muted">Chat with your task assistant, and watch the agents that work for you.</p>
        <form onSubmit={submit} className="stack" noValidate>
          <label htmlFor="sign-in-login">User name or email</label>
          <input
            id="sign-in-login"
            data-testid="sign-in-login"
            autoComplete="username webauthn"
            autoCapitalize="none"
            spellCheck={false}
            value={login}
            onChange={(e) => setLogin(e.target.value)}
            aria-describedby={error ? "sign-in-error" : undefined}
            aria-invalid={error ? true : undefined}
            required
            autoFocus
          />
          <label htmlFor="sign-in-password">Password</label>
          <input
            id="sign-in-password"
            data-testid="sign-in-password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
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
        {configError && (
          <p className="error-text" role="alert" data-testid="sign-in-config-error">
            {configError}
          </p>
        )}
        {(config?.passkeys || config?.oidc) && (
          <div className="sign-in-alternatives">
            {config.passkeys && passkeysSupported() && (
              <button
                type="button"
                className="button"
                disabled={busy}
                onClick={() => void attempt(signInWithPasskey)}
                data-testid="sign-in-passkey"
              >
                Sign in with a passkey
              </button>
            )}
            {config.oidc && (
              <a className="button" href={oidcLoginUrl(here)} data-testid="sign-in-oidc">
                Sign in with {config.oidc_name || "single sign-on"}
              </a>
            )}
          </div>
        )}
        {config?.passkeys && <PasskeyHostNote />}
        {open && (
          <p className="muted">
            New here?{" "}
            <button type="button" className="link-button" onClick={() => setMode("sign-up")} data-testid="show-sign-up">
              Create an account
            </button>
          </p>
        )}
        {config?.signup === "invite" && <p className="muted small">New here? Ask your team&apos;s admin for an invite link.</p>}
        {config?.dev_login && <DevSignIn />}
      </section>
    </main>
  );
}
