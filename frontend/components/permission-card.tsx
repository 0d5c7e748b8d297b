"use client";

import type { Decision, QuestionReply } from "@/lib/answer-question";
import { useState } from "react";
import { useAction } from "@/lib/use-action";
import type { Message } from "@/lib/types";
import { spokenDecision } from "@/lib/voice-answer";
import { ToolDiff } from "./tool-diff";
import { VoiceAnswerButton } from "./voice-answer-button";

interface Props {
  question: Message;
  input: unknown;
  open: boolean;
  /** The person's answer, once given: a decision, or the words that decided it. */
  answer: string | null;
  onAnswer: (questionId: number, reply: QuestionReply) => Promise<void>;
}

const CHOICES: { decision: Decision; label: string; testId: string; primary: boolean }[] = [
  { decision: "allow", label: "Allow", testId: "permission-allow", primary: true },
  { decision: "allow_session", label: "Allow for this session", testId: "permission-allow-always", primary: false },
  { decision: "deny", label: "Deny", testId: "permission-deny", primary: false },
];

const ANSWERED: Record<string, string> = {
  allow: "Allowed",
  allow_session: "Allowed for this session",
  "allow always": "Allowed for this session",
  deny: "Denied",
};

/** How an answered (or closed) request reads under its card. */
export function answerText(answer: string | null): string {
  if (!answer) return "No longer waiting for an answer.";
  return `Answered: ${ANSWERED[answer] ?? answer}`;
}

/** Claude Code asks before it edits or runs something: the person allows or denies it here. */
export function PermissionCard({ question, input, open, answer, onAnswer }: Props) {
  const { busy, error, run } = useAction();
  const choose = (decision: Decision) => run(() => onAnswer(question.id, { decision }));
  const always = () => run(() => onAnswer(question.id, { always: true }));
  const [heard, setHeard] = useState<string | null>(null);
  // Saying "allow" / "deny" (or "yes" / "no") decides, as the buttons do; anything else is repeated back.
  function decideBySpeech(text: string) {
    const decision = spokenDecision(text);
    setHeard(decision ? null : `Heard “${text}”. Say allow or deny.`);
    if (decision) void choose(decision);
  }

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
              key={choice.decision}
              type="button"
              className={`button small${choice.primary ? " primary" : ""}${choice.decision === "deny" ? " danger" : ""}`}
              disabled={busy}
              onClick={() => void choose(choice.decision)}
              data-testid={choice.testId}
            >
              {choice.label}
            </button>
          ))}
          <button
            type="button"
            className="button small"
            disabled={busy}
            onClick={() => void always()}
            title="Allow, and make a rule (Account → Rules) that allows this same call without asking"
            data-testid="permission-always-allow"
          >
            Always allow this
          </button>
          <VoiceAnswerButton label="Allow or deny by voice" onFinal={decideBySpeech} disabled={busy} note={heard} />
        </div>
      ) : (
        <p className="muted small" data-testid="permission-answer">
          {answerText(answer)}
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
