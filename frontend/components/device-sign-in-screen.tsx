"use client";

import { useState, type FormEvent } from "react";
import { apiJson } from "@/lib/api-client";
import { ApiError, describeError } from "@/lib/api-error";
import type { DeviceDecision, DeviceRequest } from "@/lib/account-types";
import type { Session } from "@/lib/auth-store";
import type { ReauthMethod } from "@/lib/reauth";
import { useAuth } from "@/lib/use-auth";
import { ReauthForm } from "./reauth-form";
import { SignInScreen } from "./sign-in-screen";

type Step =
  | { status: "entering" }
  | { status: "found"; code: string; request: DeviceRequest }
  | { status: "answered"; answer: DeviceDecision };

/**
 * A terminal's sign-in (`parley connect`, RFC 8628): the person types the code it shows (or
 * arrives with it filled in), sees what asks and from which machine, and approves or denies.
 * Each code entered is a counted guess on the server; approving needs a recent sign-in.
 */
export function DeviceSignInScreen({ initialCode }: { initialCode: string }) {
  const auth = useAuth();
  if (auth.status === "loading") {
    return (
      <main className="center-screen">
        <p className="muted">Loading…</p>
      </main>
    );
  }
  if (auth.status !== "signed-in") return <SignInScreen />;
  return <DeviceSignIn session={auth.session} initialCode={initialCode} />;
}

function problem(err: unknown): string {
  if (err instanceof ApiError && err.status === 404) {
    return "This code is unknown, already answered or expired. Check it, or run the command again.";
  }
  return describeError(err);
}

function DeviceSignIn({ session, initialCode }: { session: Session; initialCode: string }) {
  const [code, setCode] = useState(initialCode.slice(0, 20));
  const [step, setStep] = useState<Step>({ status: "entering" });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function look(typed: string) {
    setBusy(true);
    setError(null);
    try {
      const request = await apiJson<DeviceRequest>(session, "/device/lookup", {
        method: "POST",
        body: { user_code: typed },
      });
      setStep({ status: "found", code: typed, request });
    } catch (err) {
      setError(problem(err));
    } finally {
      setBusy(false);
    }
  }

  function submitCode(event: FormEvent) {
    event.preventDefault();
    if (!code.trim()) {
      setError("Enter the code your terminal shows.");
      return;
    }
    void look(code.trim());
  }

  async function answer(decision: "allow" | "deny") {
    if (step.status !== "found" || busy) return;
    setBusy(true);
    setError(null);
    try {
      const answered = await apiJson<DeviceDecision>(session, "/device/decision", {
        method: "POST",
        body: { user_code: step.code, decision },
      });
      setStep({ status: "answered", answer: answered });
    } catch (err) {
      setError(problem(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="center-screen">
      <section className="card sign-in" aria-labelledby="device-title" data-testid="device-sign-in">
        <h1 id="device-title">Connect a device</h1>
        {step.status === "entering" && (
          <form onSubmit={submitCode} aria-busy={busy} noValidate>
            <p className="muted small">Enter the code your terminal shows after <code>parley connect</code>.</p>
            <label htmlFor="device-code">Code</label>
            <input
              id="device-code"
              data-testid="device-code"
              autoCapitalize="characters"
              autoComplete="one-time-code"
              spellCheck={false}
              placeholder="XXXX-XXXX"
              maxLength={20}
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
            <span className="row-actions">
              <button type="submit" className="button" disabled={busy} data-testid="device-continue">
                Continue
              </button>
            </span>
          </form>
        )}
        {step.status === "found" && (
          <div data-testid="device-request">
            <p data-testid="device-asks">
              <strong data-testid="device-application">{step.request.application}</strong> on{" "}
              <strong data-testid="device-machine">{step.request.machine}</strong> wants to act for you (
              <strong>{session.userId}</strong>).
            </p>
            <p className="muted small">
              Approve only if you just ran <code>parley connect</code> on that machine yourself. It gets an agent key
              of its own, listed under Account → Agent keys, where you can revoke it any time.
            </p>
            {step.request.reauth_required && (
              <div data-testid="device-reauth">
                <ReauthForm
                  session={session}
                  methods={(step.request.reauth_methods ?? []) as ReauthMethod[]}
                  onConfirmed={() => void look(step.code)}
                />
              </div>
            )}
            <span className="row-actions">
              <button
                type="button"
                className="button"
                disabled={busy || step.request.reauth_required}
                onClick={() => void answer("allow")}
                data-testid="device-approve"
              >
                Approve
              </button>
              <button
                type="button"
                className="button ghost"
                disabled={busy}
                onClick={() => void answer("deny")}
                data-testid="device-deny"
              >
                Deny
              </button>
            </span>
          </div>
        )}
        {step.status === "answered" && (
          <p role="status" data-testid="device-answered" data-decision={step.answer.decision}>
            {step.answer.decision === "allow"
              ? `${step.answer.application} on ${step.answer.machine} is connected. You can go back to your terminal.`
              : `Denied: ${step.answer.application} on ${step.answer.machine} was not connected.`}
          </p>
        )}
        {error && (
          <p className="error-text" role="alert" data-testid="device-error">
            {error}
          </p>
        )}
      </section>
    </main>
  );
}
