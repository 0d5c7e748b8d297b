import type { ReactNode } from "react";
import { metaType, permissionOf, questionOpen } from "@/lib/agent-types";
import type { QuestionReply } from "@/lib/answer-question";
import type { Message } from "@/lib/types";
import { PermissionCard } from "./permission-card";
import { QuestionAnswer } from "./question-answer";
import { WorkOutput } from "./work-output";

export interface RenderContext {
  messages: Message[];
  /** Answers a question through its answer route; rejects with the API's error. */
  onAnswer: (questionId: number, reply: QuestionReply) => Promise<void>;
  /** Writing is possible here (a finished run is read-only). */
  writable: boolean;
  /** Questions the person's stream reported answered or timed out. */
  closed?: ReadonlySet<number>;
}

export type MessageRenderer = (message: Message, bubble: ReactNode) => ReactNode;

function answerTo(question: Message, messages: Message[]): string | null {
  const decided = (question.meta as Record<string, unknown> | null)?.answer;
  if (typeof decided === "string") return decided;
  const answer = messages.find((m) => m.reply_to === question.id && m.kind === "answer");
  if (!answer) return null;
  const decision = (answer.meta as Record<string, unknown> | null)?.decision;
  return typeof decision === "string" ? decision : answer.content;
}

/**
 * How messages from agents and work sessions show in a conversation: questions stand out and
 * take an answer in place, permission requests get Allow / Deny, work output reads as tool
 * lines. Anything else keeps its usual bubble.
 */
export function agentMessageRenderer({ messages, onAnswer, writable, closed }: RenderContext): MessageRenderer {
  return function render(message, bubble) {
    const permission = permissionOf(message);
    if (permission) {
      return (
        <PermissionCard
          key={message.id}
          question={message}
          input={permission.input}
          open={writable && questionOpen(message, messages, closed)}
          answer={answerTo(message, messages)}
          onAnswer={onAnswer}
        />
      );
    }
    if (message.kind === "question") {
      const open = questionOpen(message, messages, closed);
      return (
        <div key={message.id} className={`question-block${open ? " open" : ""}`} data-testid="question" data-open={open} data-message-id={message.id}>
          {bubble}
          {open && writable && <QuestionAnswer questionId={message.id} asker={message.author || "the agent"} onAnswer={onAnswer} />}
          {!open && <p className="muted small question-state">{answerTo(message, messages) !== null ? "Answered" : "Closed"}</p>}
        </div>
      );
    }
    if (message.kind === "output" && metaType(message) !== "text") {
      return <WorkOutput key={message.id} message={message} />;
    }
    return bubble;
  };
}
