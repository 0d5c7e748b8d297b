import { fullTime, shortTime } from "@/lib/format-time";
import type { Message, ToolCallRecord } from "@/lib/types";
import { ToolCallLine } from "./tool-call-line";

interface Props {
  role: Message["role"];
  author?: string | null;
  kind?: string;
  content: string;
  toolCalls?: ToolCallRecord[] | null;
  error?: boolean;
  createdAt?: string;
  /** Still being written (streaming) or not yet stored. */
  live?: boolean;
  pendingToolCalls?: boolean[];
  testId?: string;
  messageId?: number;
}

function speaker(role: Message["role"], author: string | null | undefined): string {
  if (role === "user") return "You";
  if (role === "assistant") return "Assistant";
  if (role === "system") return "System";
  return author || "Agent";
}

/** One message. Content is always rendered as text, never as HTML. */
export function MessageBubble(props: Props) {
  const { role, content, toolCalls, live, error } = props;
  const who = speaker(role, props.author);
  const classes = ["message", `role-${role}`, error ? "is-error" : "", live ? "is-live" : ""].filter(Boolean).join(" ");
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
      </header>
      {toolCalls && toolCalls.length > 0 && (
        <div className="tool-calls">
          {toolCalls.map((call, index) => (
            <ToolCallLine key={call.call_id ?? index} call={call} pending={props.pendingToolCalls?.[index] ?? false} />
          ))}
        </div>
      )}
      {content ? (
        <div className="message-text" data-testid="message-text">
          {content}
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
    </article>
  );
}
