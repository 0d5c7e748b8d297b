"use client";

import { speak, stopSpeaking, useSpeaking, useSynthesisSupported } from "@/lib/read-aloud";

/** "Read aloud" under a reply (the browser's speech synthesis); "Stop reading" while it reads. */
export function ReadAloudButton({ messageId, text }: { messageId: number; text: string }) {
  const supported = useSynthesisSupported();
  const speaking = useSpeaking();
  const key = `message-${messageId}`;
  if (!supported || !text.trim()) return null;
  const reading = speaking === key;
  return (
    <button
      type="button"
      className="button tiny ghost"
      aria-pressed={reading}
      onClick={() => (reading ? stopSpeaking() : speak(key, text))}
      data-testid="read-aloud"
      data-state={reading ? "speaking" : "idle"}
    >
      {reading ? "Stop reading" : "Read aloud"}
    </button>
  );
}
