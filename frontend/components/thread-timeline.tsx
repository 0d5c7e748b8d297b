import type { Delegation } from "@/lib/agent-types";
import type { Message } from "@/lib/types";
import { Markdown } from "./markdown";

const TAGS: Record<string, string> = {
  question: "question",
  answer: "answer",
  completion: "completed",
  error: "failed",
  escalation: "escalated",
};

function metaOf(message: Message): Record<string, unknown> {
  return (message.meta as Record<string, unknown> | null) ?? {};
}

function who(message: Message): string {
  if (message.role === "user") return "You";
  if (message.role === "system") return "Parley";
  return message.author || "agent";
}

/** "architect → coder", "coder → architect", "You → coder, architect": who wrote to whom. */
function route(message: Message, thread: Delegation | null): string {
  const from = who(message);
  const to = metaOf(message).to;
  if (typeof to === "string" && to) return `${from} → ${to}`;
  if (!thread) return from;
  if (message.role === "user") return `${from} → ${thread.parent_agent}, ${thread.child_agent}`;
  if (message.author === thread.child_agent && ["question", "message"].includes(message.kind)) return `${from} → ${thread.parent_agent}`;
  if (message.author === thread.parent_agent && ["delegation", "answer", "message"].includes(message.kind)) return `${from} → ${thread.child_agent}`;
  return from;
}

export function threadTag(message: Message): string | null {
  if (message.kind === "status") {
    const progress = metaOf(message).progress;
    const outcome = metaOf(message).outcome ?? metaOf(message).run_status;
    if (typeof outcome === "string" && outcome !== "running") return outcome.replace(/_/g, " ");
    return typeof progress === "number" ? `status ${progress}%` : "status";
  }
  return TAGS[message.kind] ?? null;
}

/** A delegation thread as a timeline: one line per typed message, newest last. */
export function ThreadTimeline({ messages, thread }: { messages: Message[]; thread: Delegation | null }) {
  return (
    <ol className="thread-timeline" data-testid="thread-timeline">
      {messages.map((message) => {
        const tag = threadTag(message);
        return (
          <li key={message.id} className={`thread-line kind-${message.kind}`} data-testid="thread-line" data-kind={message.kind} data-message-id={message.id}>
            <span className="thread-route" data-testid="thread-route">
              {route(message, thread)}
              {tag && <span className="thread-tag"> [{tag}]</span>}:
            </span>
            {message.role === "user" ? (
              <div className="thread-text" data-testid="thread-text">{message.content}</div>
            ) : (
              <div className="thread-text markdown" data-testid="thread-text">
                <Markdown text={message.content} />
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
