import type { ReactNode } from "react";
import { fullTime, shortTime } from "@/lib/format-time";
import type { Role, ToolCallRecord } from "@/lib/types";
import { Elapsed } from "./elapsed";
import { Markdown } from "./markdown";
import { ToolCallLine } from "./tool-call-line";

interface Props {
  role: Role | string;
  author?: string | null;
  kind?: string;
  content: string;
  toolCalls?: ToolCallRecord[] | null;
  error?: boolean;
  /** The reply was stopped by the person before it finished. */
  stopped?: boolean;
  createdAt?: string;
  /** Still being written (streaming) or not yet stored. */
  live?: boolean;
  /** When the live reply started, for the elapsed time. */
  since?: number | null;
  pendingToolCalls?: boolean[];
  testId?: string;
  messageId?: number;
  /** Shown on the last failed reply: runs the turn again. */
  onRetry?: () => void;
  /** The model that wrote this reply (from its meta). */
  model?: string | null;
  /** The files sent with it (stored messages only). */
  attachments?: ReactNode;
  /** Copy, edit, regenerate (stored messages only). */
  actions?: ReactNode;
  /** The message a search led to: marked. */
  found?: boolean;
}

/** What the server stores for a reply stopped before any text (chat/turn.py). */
export const STOPPED_PLACEHOLDER = "(Stopped.)";

function speaker(role: string, author: string | null | undefined): string {
  if (role === "user") return "You";
  // A work session's output is written by Claude Code (author "claude"), not the task assistant.
  if (role === "assistant") return author === "claude" ? "Claude Code" : "Assistant";
  if (role === "system") return "System";
  return author || "Agent";
}

/**
 * One message. A person's text is shown literally; assistant and agent text as Markdown
 * (never as HTML). A failed reply shows one human sentence: the upstream's own error is
 * in the server log.
 */
export function MessageBubble(props: Props) {
  const { role, content, toolCalls, live, error } = props;
  const who = speaker(role, props.author);
  const classes = ["message", `role-${role}`, error ? "is-error" : "", live ? "is-live" : "", props.found ? "is-found" : ""].filter(Boolean).join(" ");
  const markdown = role === "assistant" || role === "agent";
  // A reply stopped before its first word is stored with a placeholder; the marker says it all.
  const shown = props.stopped && content.trim() === STOPPED_PLACEHOLDER ? "" : content;
  return (
    <article
      className={classes}
      data-testid={props.testId ?? "message"}
      data-role={role}
      data-message-id={props.messageId}
      aria-busy={live ? true : undefined}
      aria-label={`${who}${props.kind && props.kind !== "message" ? ` (${props.kind})` : ""}`}
    >
      <header className="message-meta">
        <span className="message-author">{who}</span>
        {props.kind && props.kind !== "message" && <span className="kind-tag">{props.kind}</span>}
        {props.createdAt && (
          <time className="muted" dateTime={props.createdAt} title={fullTime(props.createdAt)}>
            {shortTime(props.createdAt)}
          </time>
        )}
        {props.model && (
          <span className="muted small message-model" data-testid="message-model" title="The model that wrote this reply">
            {props.model}
          </span>
        )}
        {live && props.since ? <Elapsed since={props.since} /> : null}
      </header>
      {toolCalls && toolCalls.length > 0 && (
        <div className="tool-calls">
          {toolCalls.map((call, index) => (
            <ToolCallLine key={call.call_id ?? index} call={call} pending={props.pendingToolCalls?.[index] ?? false} />
          ))}
        </div>
      )}
      {error ? (
        // The stored words (what went wrong, in a person's terms; the list's preview says the same).
        <div className="message-text" data-testid="message-text">
          <p>{content || "The assistant couldn't answer this time."}</p>
        </div>
      ) : shown ? (
        <div className={`message-text${markdown ? " markdown" : ""}`} data-testid="message-text">
          {markdown ? <Markdown text={shown} /> : shown}
        </div>
      ) : (
        live && (
          <div className="message-text typing muted">
            <span className="sr-only">The assistant is writing…</span>
            <span className="dot" />
            <span className="dot" />
            <span className="dot" />
          </div>
        )
      )}
      {props.attachments}
      {props.stopped && (
        <p className="stopped-note" data-testid="stopped-note">
          <span className="stop-square" aria-hidden="true" /> Stopped
        </p>
      )}
      {props.actions}
      {props.onRetry && (
        <div className="message-actions">
          <button type="button" className="button small primary" onClick={props.onRetry} data-testid="chat-retry">
            Retry
          </button>
        </div>
      )}
    </article>
  );
}
