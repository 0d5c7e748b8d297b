"use client";

import { useState, type FormEvent } from "react";
import { apiJson, userPath } from "@/lib/api-client";
import type { AuditEvent, AuditPage } from "@/lib/account-types";
import type { Session } from "@/lib/auth-store";
import { describeError } from "@/lib/api-error";
import { fullTime, shortTime } from "@/lib/format-time";
import { useUserResource } from "@/lib/use-user-resource";

const DECISIONS = ["allow", "allow_session", "deny", "answer", "timed_out", "withdrawn"] as const;

interface Filters {
  agent: string;
  decision: string;
  since: string; // a datetime-local value, the browser's time zone
}

const NONE: Filters = { agent: "", decision: "", since: "" };

function query(filters: Filters): string {
  const params = new URLSearchParams();
  if (filters.agent.trim()) params.set("agent", filters.agent.trim());
  if (filters.decision) params.set("decision", filters.decision);
  if (filters.since) params.set("since", new Date(filters.since).toISOString());
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** Who or what decided, in words. */
function decider(event: AuditEvent): string {
  if (event.decided_by === "rule") return `rule ${event.rule_pattern ?? `#${event.rule_id}`}`;
  if (event.decided_by === "agent") return `agent ${event.decider ?? ""}`.trim();
  if (event.decided_by === "timeout_default") return "timeout";
  return "you";
}

function outcome(event: AuditEvent): string {
  if (event.decision === "answer") return event.answer ? `answered “${event.answer}”` : "answered";
  return event.decision.replace("_", " ");
}

function waited(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** Account → Audit: every decision on the person's questions and permission requests. */
export function AccountAudit({ session }: { session: Session }) {
  const [draft, setDraft] = useState<Filters>(NONE);
  const [filters, setFilters] = useState<Filters>(NONE);
  const [older, setOlder] = useState<AuditEvent[]>([]);
  const [cursor, setCursor] = useState<number | null | undefined>(undefined);
  const [olderError, setOlderError] = useState<string | null>(null);
  const { data, errorText, mutate } = useUserResource<AuditPage>(session, `/audit${query(filters)}`);
  const events = [...(data?.events ?? []), ...older];
  const next = cursor === undefined ? data?.next_cursor ?? null : cursor;

  function apply(event: FormEvent) {
    event.preventDefault();
    setOlder([]);
    setCursor(undefined);
    setFilters(draft);
  }

  async function loadOlder() {
    if (next === null) return;
    const sep = query(filters) ? "&" : "?";
    try {
      const page = await apiJson<AuditPage>(session, userPath(session, `/audit${query(filters)}${sep}cursor=${next}`));
      setOlder((current) => [...current, ...page.events]);
      setCursor(page.next_cursor);
      setOlderError(null);
    } catch (error) {
      setOlderError(describeError(error));
    }
  }

  return (
    <section className="account-section" aria-labelledby="account-audit-title" data-testid="audit-section">
      <h2 id="account-audit-title">Audit</h2>
      <p className="muted">Every answer to an agent’s question or permission request: who or what decided, how, and when.</p>
      <form onSubmit={apply} className="key-form" noValidate data-testid="audit-filters">
        <label htmlFor="audit-agent">Agent</label>
        <input id="audit-agent" data-testid="audit-agent" value={draft.agent} maxLength={100} onChange={(e) => setDraft({ ...draft, agent: e.target.value })} />
        <label htmlFor="audit-decision">Decision</label>
        <select id="audit-decision" data-testid="audit-decision" value={draft.decision} onChange={(e) => setDraft({ ...draft, decision: e.target.value })}>
          <option value="">any</option>
          {DECISIONS.map((d) => (
            <option key={d} value={d}>
              {d.replace("_", " ")}
            </option>
          ))}
        </select>
        <label htmlFor="audit-since">Since</label>
        <input id="audit-since" type="datetime-local" data-testid="audit-since" value={draft.since} onChange={(e) => setDraft({ ...draft, since: e.target.value })} />
        <button type="submit" className="button small" data-testid="audit-apply">
          Filter
        </button>
        <a className="button small ghost" href={`/api${userPath(session, `/audit.jsonl${query(filters)}`)}`} download data-testid="audit-export">
          Export (JSON Lines)
        </a>
        <button type="button" className="button small ghost" onClick={() => void mutate()} data-testid="audit-refresh">
          Refresh
        </button>
      </form>
      {errorText && (
        <p role="alert" className="error" data-testid="audit-error">
          {errorText}
        </p>
      )}
      {data && events.length === 0 && <p data-testid="audit-empty">No decisions yet.</p>}
      <ul className="key-list" data-testid="audit-list">
        {events.map((event) => (
          <li key={event.id} data-testid="audit-event" data-decision={event.decision} data-via={event.via}>
            <div>
              <strong data-testid="audit-asked">{event.tool ? `${event.tool}: ${event.asked}` : event.asked}</strong>
            </div>
            <div className="muted">
              <span data-testid="audit-outcome">{outcome(event)}</span> by <span data-testid="audit-decider">{decider(event)}</span> via{" "}
              <span data-testid="audit-via">{event.via.replace("_", " ")}</span> · asked by {event.agent ?? "an agent"}
              {event.machine ? ` on ${event.machine}` : ""} · waited {waited(event.waited_ms)} ·{" "}
              <time dateTime={event.decided_at} title={fullTime(event.decided_at)}>
                {shortTime(event.decided_at)}
              </time>
            </div>
          </li>
        ))}
      </ul>
      {olderError && <p role="alert" className="error">{olderError}</p>}
      {next !== null && events.length > 0 && (
        <button type="button" className="button small" onClick={() => void loadOlder()} data-testid="audit-older">
          Older
        </button>
      )}
    </section>
  );
}
