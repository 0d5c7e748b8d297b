"use client";

import { useAction } from "@/lib/use-action";
import type { Message } from "@/lib/types";
import { ToolDiff } from "./tool-diff";

interface Props {
  question: Message;
  input: unknown;
  open: boolean;
  /** The person's answer, once given ("allow", "allow always", "deny"). */
  answer: string | null;
  onAnswer: (text: string, replyTo: number) => Promise<void>;
}

const CHOICES = [
  { text: "allow", label: "Allow", testId: "permission-allow", primary: true },
  { text: "allow always", label: "Allow for this session", testId: "permission-allow-always", primary: false },
  { text: "deny", label: "Deny", testId: "permission-deny", primary: false },
] as const;

/** Claude Code asks before it edits or runs something: the person allows or denies it here. */
export function PermissionCard({ question, input, open, answer, onAnswer }: Props) {
  const { busy, error, run } = useAction();
  const choose = (text: string) => run(() => onAnswer(text, question.id));

  return (
    <section
      className={`permission-card${open ? " open" : ""}`}
      data-testid="permission-question"
      data-message-id={question.id}
      data-open={open}
      aria-label="Permission request"
    >
      <p className="permission-text">{question.content}</p>
      <ToolDiff input={input} />
      {input !== undefined && (
        <details className="permission-input">
          <summary>Details</summary>
          <pre className="work-pre">{typeof input === "string" ? input : JSON.stringify(input, null, 2)}</pre>
        </details>
      )}
      {open ? (
        <div className="permission-actions">
          {CHOICES.map((choice) => (
            <button
              key={choice.text}
              type="button"
              className={`button small${choice.primary ? " primary" : ""}${choice.text === "deny" ? " danger" : ""}`}
              disabled={busy}
              onClick={() => void choose(choice.text)}
              data-testid={choice.testId}
            >
              {choice.label}
            </button>
          ))}
        </div>
      ) : (
        <p className="muted small" data-testid="permission-answer">
          {answer ? `Answered: ${answer}` : "No longer waiting for an answer."}
        </p>
      )}
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
