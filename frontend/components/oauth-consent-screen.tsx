"use client";

import { useEffect, useState, type FormEvent } from "react";
import { apiJson } from "@/lib/api-client";
import { ApiError, describeError } from "@/lib/api-error";
import type { ConsentRequest, ConsentResult } from "@/lib/account-types";
import type { Session } from "@/lib/auth-store";
import { useAuth } from "@/lib/use-auth";
import { SignInScreen } from "./sign-in-screen";

const AGENT_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;

type Lookup =
  | { status: "loading" }
  | { status: "found"; request: ConsentRequest }
  | { status: "gone" }
  | { status: "error"; text: string };

/**
 * The authorize step's question to the person: may this client act as one of your agents? The
 * person signs in first if they are not (then comes back here); the answer sends their browser
 * back to the client.
 */
export function OAuthConsentScreen({ request }: { request: string }) {
  const auth = useAuth();
  if (auth.status === "loading") {
    return (
      <main className="center-screen">
        <p className="muted">Loading…</p>
      </main>
    );
  }
  if (auth.status !== "signed-in") return <SignInScreen />;
  return <Consent session={auth.session} request={request} />;
}

function requestPath(request: string): string {
  return `/oauth/requests/${encodeURIComponent(request)}`;
}

function Consent({ session, request }: { session: Session; request: string }) {
  const [lookup, setLookup] = useState<Lookup>(request ? { status: "loading" } : { status: "gone" });
  const [agent, setAgent] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    if (!request) return;
    apiJson<ConsentRequest>(session, requestPath(request)).then(
      (found) => {
        if (!live) return;
        setLookup({ status: "found", request: found });
        setAgent(found.agent);
      },
      (err: unknown) => {
        if (!live) return;
        if (err instanceof ApiError && err.status === 404) setLookup({ status: "gone" });
        else setLookup({ status: "error", text: describeError(err) });
      },
    );
    return () => {
      live = false;
    };
  }, [session, request]);

  async function decide(allow: boolean) {
    const name = agent.trim();
    if (allow && !AGENT_PATTERN.test(name)) {
      setError("Name the agent with 1 to 64 letters, digits, dots, dashes, @ or underscores.");
      return;
    }
    setError(null);
    setBusy(true);
    try {
      const result = await apiJson<ConsentResult>(session, requestPath(request), {
        method: "POST",
        body: allow ? { allow: true, agent: name } : { allow: false },
      });
      window.location.assign(result.redirect_to);
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  function allow(event: FormEvent) {
    event.preventDefault();
    void decide(true);
  }

  return (
    <main className="center-screen">
      <section className="card sign-in" aria-labelledby="consent-title" data-testid="oauth-consent">
        <h1 id="consent-title">Connect an app</h1>
        {lookup.status === "loading" && <p className="muted">Loading the request…</p>}
        {lookup.status === "gone" && (
          <p role="alert" data-testid="consent-gone">
            This request is unknown, already answered, or expired. Start connecting again from the app.
          </p>
        )}
        {lookup.status === "error" && (
          <p className="error-text" role="alert">
            {lookup.text}
          </p>
        )}
        {lookup.status === "found" && (
          <form onSubmit={allow} noValidate>
            <p>
              <strong data-testid="consent-client-name">{lookup.request.client_name}</strong>{" "}
              <span className="muted">
                (from <code data-testid="consent-client-host">{lookup.request.client_host}</code>)
              </span>{" "}
              wants to use Parley as <strong>{session.userId}</strong>&apos;s agent.
            </p>
            <p className="muted small">
              It will act as an agent, never as you: what it writes is signed with the agent name below, it can ask you
              questions and work on your tasks, and you can disconnect it any time under Account → Connected apps.
            </p>
            <label htmlFor="consent-agent">Agent name</label>
            <input
              id="consent-agent"
              data-testid="consent-agent"
              autoCapitalize="none"
              spellCheck={false}
              value={agent}
              onChange={(e) => setAgent(e.target.value)}
            />
            <p className="muted small">
              Sends you back to <code data-testid="consent-redirect">{lookup.request.redirect_uri}</code>
            </p>
            {error && (
              <p className="error-text" role="alert" data-testid="consent-error">
                {error}
              </p>
            )}
            <span className="row-actions">
              <button type="submit" className="button" disabled={busy} data-testid="consent-allow">
                Allow
              </button>
              <button type="button" className="button ghost" disabled={busy} onClick={() => void decide(false)} data-testid="consent-deny">
                Deny
              </button>
            </span>
          </form>
        )}
      </section>
    </main>
  );
}
