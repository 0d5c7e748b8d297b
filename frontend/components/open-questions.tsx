"use client";

import { permissionOf } from "@/lib/agent-types";
import { answerQuestion, type QuestionReply } from "@/lib/answer-question";
import type { Session } from "@/lib/auth-store";
import { useOpenQuestions } from "@/lib/use-open-questions";
import { PermissionCard } from "./permission-card";
import { QuestionAnswer } from "./question-answer";

interface Props {
  session: Session;
  /** The inbox: its own questions show in place among its messages, not here. */
  inboxId: number;
  /** Moves whenever a question opens or closes anywhere (the person's event stream). */
  version: number;
}

/**
 * At the top of the inbox: the questions asked elsewhere (a run, a thread, a work session's
 * permission request) that wait on the person, each answerable right here.
 */
export function OpenQuestions({ session, inboxId, version }: Props) {
  const { questions, refresh } = useOpenQuestions(session, version);
  const elsewhere = (questions ?? []).filter((q) => q.question.conversation_id !== inboxId);
  if (elsewhere.length === 0) return null;

  async function answer(questionId: number, reply: QuestionReply) {
    try {
      await answerQuestion(session, questionId, reply);
    } finally {
      refresh();
    }
  }

  return (
    <section className="open-questions" aria-label="Waiting on you" data-testid="open-questions">
      <h3 className="open-questions-title">
        Waiting on you <span className="muted">({elsewhere.length})</span>
      </h3>
      <ul className="open-questions-list">
        {elsewhere.map(({ question, asked_by }) => {
          const permission = permissionOf(question);
          return (
            <li key={question.id} className="question-block open" data-testid="waiting-question" data-message-id={question.id}>
              {permission ? (
                <PermissionCard question={question} input={permission.input} open answer={null} onAnswer={answer} />
              ) : (
                <>
                  <p className="open-question-text">
                    <strong>{asked_by || "An agent"}</strong> asks: {question.content}
                  </p>
                  <QuestionAnswer questionId={question.id} asker={asked_by || "the agent"} onAnswer={answer} />
                </>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
