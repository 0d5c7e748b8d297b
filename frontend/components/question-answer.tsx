"use client";

import { useState, type FormEvent } from "react";
import type { QuestionReply } from "@/lib/answer-question";
import { useAction } from "@/lib/use-action";

interface Props {
  questionId: number;
  /** Who asked, for the field's label. */
  asker: string;
  onAnswer: (questionId: number, reply: QuestionReply) => Promise<void>;
}

/** Answers one question in place, through the question's own answer route. */
export function QuestionAnswer({ questionId, asker, onAnswer }: Props) {
  const [text, setText] = useState("");
  const { busy, error, run } = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const answer = text.trim();
    if (!answer || busy) return;
    if (await run(() => onAnswer(questionId, { text: answer }))) setText("");
  }

  const inputId = `answer-${questionId}`;
  return (
    <form className="question-answer" onSubmit={(e) => void submit(e)} data-testid="question-answer">
      <label htmlFor={inputId} className="sr-only">
        Answer {asker}
      </label>
      <input
        id={inputId}
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder={`Answer ${asker}…`}
        data-testid="question-answer-input"
        maxLength={16_000}
        autoComplete="off"
      />
      <button type="submit" className="button small primary" disabled={!text.trim() || busy} data-testid="question-answer-send">
        Answer
      </button>
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
