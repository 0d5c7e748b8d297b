"use client";

import type { VoiceMode } from "@/lib/use-voice-mode";

const PHASE_TEXT = {
  off: "",
  listening: "Listening… speak, and it sends when you stop.",
  waiting: "Sent. Waiting for the reply…",
  speaking: "Reading the reply aloud…",
} as const;

/** The hands-free voice mode switch and what it is doing now (announced to screen readers). */
export function VoiceModeBar({ voice }: { voice: VoiceMode }) {
  if (!voice.supported) return null;
  const on = voice.phase !== "off";
  return (
    <div className="voice-mode-bar" data-testid="voice-mode-bar">
      <button
        type="button"
        className={`button small${on ? " primary" : ""}`}
        aria-pressed={on}
        onClick={voice.toggle}
        data-testid="voice-mode"
        data-phase={voice.phase}
        title="Talk hands-free: speak, hear the reply, speak again"
      >
        {on ? "Voice mode on" : "Voice mode"}
      </button>
      <span className="muted small" role="status" data-testid="voice-mode-status">
        {voice.problem ?? PHASE_TEXT[voice.phase]}
        {voice.phase === "listening" && voice.heard ? ` “${voice.heard}”` : ""}
      </span>
    </div>
  );
}
