"use client";

import { useSpeechRecognition } from "@/lib/use-speech-recognition";
import type { VoiceStatus } from "@/lib/speech";

interface Props {
  /** Who is being answered, for the button's name ("Answer coder by voice"). */
  label: string;
  onInterim?: (text: string) => void;
  onFinal: (text: string) => void;
  disabled?: boolean;
  /** Said under the button after something was heard (e.g. what it decided, or that it didn't). */
  note?: string | null;
}

const PROBLEM: Partial<Record<VoiceStatus, string>> = {
  denied: "Microphone permission was denied.",
  "no-speech": "No speech was heard. Try again.",
  "no-microphone": "No microphone was found.",
  error: "Voice input stopped because of an error.",
};

/**
 * A question's own microphone: what the person says answers it the way typing would (the same
 * Web Speech input as the message box, one utterance per press). Hidden where the browser has no
 * speech recognition.
 */
export function VoiceAnswerButton({ label, onInterim, onFinal, disabled, note }: Props) {
  const speech = useSpeechRecognition({ onInterim: onInterim ?? (() => undefined), onFinal });
  if (!speech.supported) return null;
  const listening = speech.status === "listening";
  const message = listening ? "Listening…" : (PROBLEM[speech.status] ?? note ?? "");
  return (
    <span className="voice-answer">
      <button
        type="button"
        className={`button icon small voice-button${listening ? " listening" : ""}`}
        aria-label={label}
        aria-pressed={listening}
        disabled={disabled}
        title={listening ? "Stop listening" : label}
        onClick={() => (listening ? speech.stop() : speech.start())}
        data-testid="voice-answer"
        data-state={speech.status}
      >
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
          <path
            fill="currentColor"
            d="M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.93V21h2v-3.07A7 7 0 0 0 19 11h-2z"
          />
        </svg>
      </button>
      <span className="muted small voice-answer-status" role="status" data-testid="voice-answer-status">
        {message}
      </span>
    </span>
  );
}
