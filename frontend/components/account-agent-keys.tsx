"use client";

import { useState, type FormEvent } from "react";
import { apiFetch, apiJson, userPath } from "@/lib/api-client";
import type { AgentKey, NewAgentKey } from "@/lib/account-types";
import type { Session } from "@/lib/auth-store";
import { fullTime, shortTime } from "@/lib/format-time";
import { useAction } from "@/lib/use-action";
import { useUserResource } from "@/lib/use-user-resource";
import { CopyButton } from "./copy-button";
import { useReauth } from "./reauth-provider";

const AGENT_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

function keyPath(session: Session, id?: number): string {
  return userPath(session, id === undefined ? "/agent-keys" : `/agent-keys/${id}`);
}

/** The secret of a key just made: shown here once, never again. */
function NewSecret({ created, onDone }: { created: NewAgentKey; onDone: () => void }) {
  return (
    <div className="new-secret" role="status" data-testid="agent-key-secret-box">
      <p>
        Key for <strong>{created.agent}</strong>. Copy it now: <strong>you won&apos;t see it again.</strong>
      </p>
      <code className="secret" data-testid="agent-key-secret">
        {created.secret}
      </code>
      <span className="row-actions">
        <CopyButton value={created.secret} label="Copy key" testId="copy-agent-key" />
        <button type="button" className="button small ghost" onClick={onDone} data-testid="agent-key-done">
          Done
        </button>
      </span>
    </div>
  );
}

/** Keys this person gives their agents: made here, listed with use, revoked in one click. */
export function AccountAgentKeys({ session }: { session: Session }) {
  const { data, errorText, mutate } = useUserResource<AgentKey[]>(session, "/agent-keys");
  const [agent, setAgent] = useState("");
  const [expires, setExpires] = useState("");
  const [formError, setFormError] = useState<string | null>(null);
  const [created, setCreated] = useState<NewAgentKey | null>(null);
  const create = useAction();
  const revoke = useAction();
  const reauth = useReauth();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const name = agent.trim();
    if (!AGENT_PATTERN.test(name)) {
      setFormError("Name the agent with 1 to 64 letters, digits, dots, dashes or underscores.");
      return;
    }
    setFormError(null);
    // The date picker gives a day; the key lasts to the end of it, local time.
    const expiresAt = expires ? new Date(`${expires}T23:59:59`).toISOString() : undefined;
    await create.run(async () => {
      const key = await reauth(() =>
        apiJson<NewAgentKey>(session, keyPath(session), {
          method: "POST",
          body: { agent: name, ...(expiresAt ? { expires_at: expiresAt } : {}) },
        }),
      );
      setCreated(key);
      setAgent("");
      setExpires("");
      await mutate();
    });
  }

  async function revokeKey(key: AgentKey) {
    if (await revoke.run(() => apiFetch(session, keyPath(session, key.id), { method: "DELETE" }))) {
      if (created?.id === key.id) setCreated(null);
      await mutate();
    }
  }

  return (
    <section className="account-section" aria-labelledby="account-keys-title" data-testid="agent-keys-section">
      <h2 id="account-keys-title">Agent keys</h2>
      <p className="muted small">
        An agent sends its key as <code>Authorization: Bearer …</code> (REST, events, MCP) or as <code>PARLEY_TOKEN</code>; what it
        writes carries its name.
      </p>
      {created && <NewSecret created={created} onDone={() => setCreated(null)} />}
      <form onSubmit={submit} className="key-form" noValidate>
        <label htmlFor="agent-key-agent">Agent name</label>
        <input
          id="agent-key-agent"
          data-testid="agent-key-agent"
          placeholder="e.g. ci-bot"
          autoCapitalize="none"
          spellCheck={false}
          value={agent}
          onChange={(e) => setAgent(e.target.value)}
        />
        <label htmlFor="agent-key-expires">
          Expires <span className="muted">(optional)</span>
        </label>
        <input
          id="agent-key-expires"
          data-testid="agent-key-expires"
          type="date"
          value={expires}
          onChange={(e) => setExpires(e.target.value)}
        />
        <button type="submit" className="button" disabled={create.busy} data-testid="create-agent-key">
          {create.busy ? "Creating…" : "Create key"}
        </button>
      </form>
      {(formError || create.error) && (
        <p className="error-text" role="alert" data-testid="agent-key-error">
          {formError || create.error}
        </p>
      )}
      {errorText && <p className="error-text" role="alert">{errorText}</p>}
      {data && data.length === 0 && <p className="muted small" data-testid="agent-keys-empty">No agent keys yet.</p>}
      {data && data.length > 0 && (
        <ul className="account-list">
          {data.map((key) => (
            <li key={key.id} className="account-row" data-testid="agent-key-row" data-agent={key.agent}>
              <span className="account-row-main">
                <strong>{key.agent}</strong> <code className="muted">{key.prefix}…</code>
                <span className="muted small" title={fullTime(key.created_at)}>
                  Created {shortTime(key.created_at)} · {key.last_used_at ? `last used ${shortTime(key.last_used_at)}` : "never used"}
                  {key.expires_at ? ` · expires ${shortTime(key.expires_at)}` : ""}
                </span>
              </span>
              <button
                type="button"
                className="button small danger"
                disabled={revoke.busy}
                onClick={() => void revokeKey(key)}
                aria-label={`Revoke the key of ${key.agent}`}
                data-testid="revoke-agent-key"
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      {revoke.error && <p className="error-text" role="alert">{revoke.error}</p>}
    </section>
  );
}
