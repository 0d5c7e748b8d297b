"use client";

import { useEffect, useRef, useState, type FormEvent } from "react";
import { apiJson } from "@/lib/api-client";
import { ApiError, describeError } from "@/lib/api-error";
import type { ConsentRequest } from "@/lib/account-types";
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
 * person signs in first if they are not (then comes back here). The answer is a plain form post
 * to the API, whose reply is the redirect back to the client: the page itself never navigates
 * to a URL it was given (a client's `javascript:` redirect URI once ran here that way).
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

/** What the person is told about where the client runs, beyond its host. */
function KindNote({ request }: { request: ConsentRequest }) {
  if (request.redirect_kind === "web") return null;
  const where =
    request.redirect_kind === "loopback"
      ? "This is a program on your own computer."
      : `This is an app on your device (it opens ${request.client_host}: links).`;
  return (
    <p className="small" data-testid="consent-client-kind" data-kind={request.redirect_kind}>
      {where} Parley cannot tell who made it: allow it only if you just asked it to connect to Parley.
    </p>
  );
}

function Consent({ session, request }: { session: Session; request: string }) {
  const [lookup, setLookup] = useState<Lookup>(request ? { status: "loading" } : { status: "gone" });
  const [agent, setAgent] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  // One answer per page: a second click while the first is on its way is not sent.
  const sent = useRef(false);

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

  /** The browser posts the form itself; this only stops a bad agent name or a second answer. */
  function submit(event: FormEvent<HTMLFormElement>) {
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const allowing = !(submitter instanceof HTMLButtonElement && submitter.value === "deny");
    if (sent.current) {
      event.preventDefault();
      return;
    }
    if (allowing && !AGENT_PATTERN.test(agent.trim())) {
      event.preventDefault();
      setError("Name the agent with 1 to 64 letters, digits, dots, dashes, @ or underscores.");
      return;
    }
    sent.current = true;
    setError(null);
    setSending(true);
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
          <p className="error-text" role="alert" data-testid="consent-refused">
            {lookup.text}
          </p>
        )}
        {lookup.status === "found" && (
          <form method="post" action={`/api${requestPath(request)}`} onSubmit={submit} aria-busy={sending} noValidate>
            <p>
              <strong data-testid="consent-client-name">{lookup.request.client_name}</strong>{" "}
              <span className="muted">
                (from <code data-testid="consent-client-host">{lookup.request.client_host}</code>)
              </span>{" "}
              wants to use Parley as <strong>{session.userId}</strong>&apos;s agent.
            </p>
            <KindNote request={lookup.request} />
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
            <input type="hidden" name="agent" value={agent.trim()} />
            <p className="muted small">
              Sends you back to <code data-testid="consent-redirect">{lookup.request.redirect_uri}</code>
            </p>
            {error && (
              <p className="error-text" role="alert" data-testid="consent-error">
                {error}
              </p>
            )}
            {sending && (
              <p className="muted small" role="status">
                Sending your answer…
              </p>
            )}
            <span className="row-actions">
              <button type="submit" name="decision" value="allow" className="button" data-testid="consent-allow">
                Allow
              </button>
              <button type="submit" name="decision" value="deny" formNoValidate className="button ghost" data-testid="consent-deny">
                Deny
              </button>
            </span>
          </form>
        )}
      </section>
    </main>
  );
}
