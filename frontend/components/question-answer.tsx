"use client";

import { useState, type FormEvent } from "react";
import type { QuestionReply } from "@/lib/answer-question";
import { readLocal, STORAGE_KEYS } from "@/lib/local-store";
import { useAction } from "@/lib/use-action";
import { VoiceAnswerButton } from "./voice-answer-button";

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

  async function send(value: string) {
    const answer = value.trim();
    if (!answer || busy) return;
    if (await run(() => onAnswer(questionId, { text: answer }))) setText("");
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    void send(text);
  }

  // A spoken answer is sent as if typed ("yes", "no", or words), unless the person chose to review
  // voice input before sending (the message box's "Send when I stop speaking").
  function spoken(value: string) {
    setText(value);
    if (readLocal(STORAGE_KEYS.voiceAutoSend) !== "false") void send(value);
  }

  const inputId = `answer-${questionId}`;
  return (
    <form className="question-answer" onSubmit={submit} data-testid="question-answer">
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
      <VoiceAnswerButton label={`Answer ${asker} by voice`} onInterim={setText} onFinal={spoken} disabled={busy} />
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
