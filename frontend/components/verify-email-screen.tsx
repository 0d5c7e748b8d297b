"use client";

import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import type { EmailState } from "@/lib/account-types";
import { apiJson } from "@/lib/api-client";
import { ApiError, describeError } from "@/lib/api-error";
import { refreshAuth, signOut, type Session } from "@/lib/auth-store";
import { useAuth } from "@/lib/use-auth";
import { SignInScreen } from "./sign-in-screen";

type Outcome =
  | { status: "verifying" }
  | { status: "verified"; email: string | null }
  | { status: "wrong-account" }
  | { status: "failed"; text: string };

/**
 * Where an emailed verification link lands. The link works only for the account that asked for
 * it, so the person signs in first if they are not (then this page shows itself again).
 */
export function VerifyEmailScreen({ token }: { token: string }) {
  const auth = useAuth();
  if (auth.status === "loading") {
    return (
      <main className="center-screen">
        <p className="muted">Loading…</p>
      </main>
    );
  }
  if (auth.status !== "signed-in") return <SignInScreen />;
  return <Verify session={auth.session} token={token} />;
}

function Verify({ session, token }: { session: Session; token: string }) {
  const [outcome, setOutcome] = useState<Outcome>({ status: "verifying" });
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current) return; // the link works once: never post it twice
    sent.current = true;
    apiJson<EmailState>(session, "/auth/email/verify", { method: "POST", body: { token } }).then(
      (state) => {
        setOutcome({ status: "verified", email: state.email ?? null });
        void refreshAuth();
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.code === "wrong_account") setOutcome({ status: "wrong-account" });
        else if (err instanceof ApiError && (err.code === "link_expired" || err.status === 422))
          setOutcome({ status: "failed", text: "This link was used already or has expired. Send a new one from Account." });
        else setOutcome({ status: "failed", text: describeError(err) });
      },
    );
  }, [session, token]);

  return (
    <main className="center-screen">
      <section className="card sign-in" aria-labelledby="verify-email-title" data-testid="verify-email-screen">
        <h1 id="verify-email-title">Verify your email</h1>
        {outcome.status === "verifying" && <p className="muted">Verifying…</p>}
        {outcome.status === "verified" && (
          <p className="ok-text" role="status" data-testid="verify-email-result">
            Your email {outcome.email} is verified: you can sign in with it.
          </p>
        )}
        {outcome.status === "wrong-account" && (
          <>
            <p className="error-text" role="alert" data-testid="verify-email-result">
              This link verifies the email of another account, not {session.userId}&apos;s. Nothing changed. If that
              account is yours, sign out, sign in to it, and open the link again.
            </p>
            <button type="button" className="button small" onClick={() => void signOut()} data-testid="verify-email-sign-out">
              Sign out
            </button>
          </>
        )}
        {outcome.status === "failed" && (
          <p className="error-text" role="alert" data-testid="verify-email-result">
            {outcome.text}
          </p>
        )}
        <p className="muted small">
          <Link href="/">Back to Parley</Link>
        </p>
      </section>
    </main>
  );
}
