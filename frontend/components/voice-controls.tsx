"use client";

import type { VoiceStatus } from "@/lib/speech";
import type { SpeechApi } from "@/lib/use-speech-recognition";

const STATUS_TEXT: Record<VoiceStatus, string> = {
  // Said by the disabled mic's tooltip only: nothing went wrong, there is just no voice here.
  unsupported: "",
  idle: "",
  listening: "Listening… speak now. Press the microphone again to stop.",
  denied: "Microphone permission was denied. Allow microphone access in the browser's site settings, then try again.",
  "no-speech": "No speech was heard. Press the microphone and try again.",
  "no-microphone": "No microphone was found. Connect one and try again.",
  error: "Voice input stopped because of an error. Try again, or type instead.",
};

const QUIET = new Set<VoiceStatus>(["idle", "listening", "unsupported"]);

interface Props {
  speech: SpeechApi;
  onToggle: () => void;
  autoSend: boolean;
  onAutoSendChange: (value: boolean) => void;
}

function MicIcon() {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.93V21h2v-3.07A7 7 0 0 0 19 11h-2z"
      />
    </svg>
  );
}

/** The voice status line: listening, denied, no speech, unsupported… (announced to screen readers). */
export function VoiceStatusLine({ status }: { status: VoiceStatus }) {
  return (
    <p
      id="voice-status"
      className={`voice-status small${QUIET.has(status) ? "" : " problem"}`}
      role="status"
      data-testid="voice-status"
      data-state={status}
    >
      {STATUS_TEXT[status]}
    </p>
  );
}

/**
 * Mic button (with its listening state) and the "send when I stop speaking" setting. A
 * browser without the Web Speech API gets neither: no control that can do nothing.
 */
export function VoiceControls({ speech, onToggle, autoSend, onAutoSendChange }: Props) {
  const { status, supported } = speech;
  const listening = status === "listening";
  if (!supported) return null;
  return (
    <div className="voice-controls">
      <button
        type="button"
        className={`button icon voice-button${listening ? " listening" : ""}`}
        aria-label="Voice input"
        aria-pressed={listening}
        title={listening ? "Stop listening" : "Speak your message"}
        onClick={onToggle}
        data-testid="voice-button"
        data-state={status}
      >
        <MicIcon />
        {listening && <span className="listening-dot" aria-hidden="true" />}
      </button>
      <label className="auto-send small">
        <input type="checkbox" checked={autoSend} onChange={(e) => onAutoSendChange(e.target.checked)} data-testid="voice-auto-send" />
        Send when I stop speaking
      </label>
    </div>
  );
}
