import { metaType } from "@/lib/agent-types";
import type { Message } from "@/lib/types";
import { ToolDiff } from "./tool-diff";

function meta(message: Message): Record<string, unknown> {
  return (message.meta as Record<string, unknown> | null) ?? {};
}

function pretty(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** What the server's permission hook answers when the person denies a tool call. */
const DENIED_BY_PERSON = "The person denied this tool call.";

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}

/**
 * One event of a work session that is not plain text: a tool use (its command readable in the
 * summary, the whole input when opened), a tool result (collapsed, first line shown), the
 * prompt's result (time, turns, cost), an error or a status line. Null for text.
 */
export function WorkOutput({ message }: { message: Message }) {
  const type = metaType(message);
  const m = meta(message);
  if (type === "tool_use") {
    return (
      <details className="work-event work-tool-use" data-testid="work-tool-use" data-message-id={message.id}>
        <summary>
          <span className="tool-icon" aria-hidden="true">
            ›
          </span>
          <code data-testid="work-tool-summary">{message.content}</code>
        </summary>
        <ToolDiff input={m.input} />
        <pre className="work-pre" data-testid="work-tool-input">
          {pretty(m.input ?? {})}
        </pre>
      </details>
    );
  }
  if (type === "tool_result") {
    const failed = m.is_error === true || m.error === true;
    // The person's own "Deny" comes back as a hook error: it reads as what it was.
    const denied = failed && message.content.includes(DENIED_BY_PERSON);
    return (
      <details className={`work-event work-tool-result${failed ? " failed" : ""}`} data-testid="work-tool-result" data-message-id={message.id}>
        <summary>
          <span className="tool-icon" aria-hidden="true">
            {failed ? "✕" : "✓"}
          </span>
          {denied ? (
            <span data-testid="work-denied">Denied by you</span>
          ) : (
            <>
              <span>{failed ? "Failed: " : "Output: "}</span>
              <span className="muted">{firstLine(message.content) || "(no output)"}</span>
            </>
          )}
        </summary>
        <pre className="work-pre" data-testid="work-tool-output">
          {message.content}
        </pre>
      </details>
    );
  }
  if (type === "result") {
    return (
      <p className="work-event work-result muted small" data-testid="work-result" data-message-id={message.id}>
        {message.content}
      </p>
    );
  }
  if (type === "error" || (message.error && type !== "text")) {
    return (
      <p className="work-event work-error" role="alert" data-testid="work-error" data-message-id={message.id}>
        {message.content}
      </p>
    );
  }
  if (type === "status" || message.role === "system") {
    return (
      <p className="work-event muted small" data-testid="work-status-line" data-message-id={message.id}>
        {message.content}
      </p>
    );
  }
  return null;
}
