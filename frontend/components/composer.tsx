"use client";

import { useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { readLocal, STORAGE_KEYS, writeLocal } from "@/lib/local-store";
import { PHONE_QUERY, useMediaQuery } from "@/lib/use-media-query";
import { useSpeechRecognition } from "@/lib/use-speech-recognition";
import { VoiceControls, VoiceStatusLine } from "./voice-controls";

const MAX_LENGTH = 16_000;

interface Props {
  draft: string;
  setDraft: (value: string | ((current: string) => string)) => void;
  /** A reply is streaming: what is sent now is queued until it finishes. */
  sending: boolean;
  stopping: boolean;
  onSend: (text: string) => Promise<void>;
  onStop: () => void;
  /** Who the box writes to, when not the assistant ("Write to your agents…"). */
  placeholder?: string;
}

/** "… (Enter to send, Shift+Enter for a new line)" without the keys, on a phone. */
export function withoutKeys(text: string, phone: boolean): string {
  return phone ? text.replace(/\s*\(Enter to send[^)]*\)/, "") : text;
}

function joinText(base: string, addition: string): string {
  if (!addition) return base;
  if (!base.trim()) return addition;
  return `${base.replace(/\s+$/, "")} ${addition}`;
}

/** The message box: Enter sends, Shift+Enter adds a line; voice input fills it. */
export function Composer({ draft, setDraft, sending, stopping, onSend, onStop, placeholder }: Props) {
  const [autoSend, setAutoSendState] = useState(() => readLocal(STORAGE_KEYS.voiceAutoSend) !== "false");
  const voiceBase = useRef("");
  const input = useRef<HTMLTextAreaElement>(null);
  // A phone's keyboard has no Shift+Enter to speak of: its placeholder leaves the keys out.
  const phone = useMediaQuery(PHONE_QUERY);

  const speech = useSpeechRecognition({
    onInterim: (text) => setDraft(joinText(voiceBase.current, text)),
    onFinal: (text) => {
      const full = joinText(voiceBase.current, text);
      if (autoSend) {
        setDraft("");
        void onSend(full);
      } else {
        setDraft(full);
        input.current?.focus();
      }
    },
  });

  function setAutoSend(value: boolean) {
    setAutoSendState(value);
    writeLocal(STORAGE_KEYS.voiceAutoSend, String(value));
  }

  function submit(event?: FormEvent) {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || text.length > MAX_LENGTH) return;
    setDraft("");
    void onSend(text);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  }

  function toggleVoice() {
    if (speech.status === "listening") {
      speech.stop();
      return;
    }
    voiceBase.current = draft;
    speech.start();
  }

  const tooLong = draft.length > MAX_LENGTH;

  return (
    <form className="composer" onSubmit={submit} data-testid="composer">
      <label htmlFor="message-input" className="sr-only">
        Message
      </label>
      <textarea
        id="message-input"
        ref={input}
        data-testid="message-input"
        className={speech.status === "listening" ? "listening" : undefined}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={onKeyDown}
        rows={1}
        placeholder={
          speech.status === "listening"
            ? "Listening…"
            : sending
              ? "The assistant is replying… (a message sent now waits for it)"
              : withoutKeys(placeholder ?? "Message the assistant (Enter to send, Shift+Enter for a new line)", phone)
        }
        aria-describedby="composer-hint voice-status"
        aria-invalid={tooLong ? true : undefined}
      />
      <p id="composer-hint" className="sr-only">
        Enter sends. Shift plus Enter adds a new line.
      </p>
      <div className="composer-actions">
        <VoiceControls speech={speech} onToggle={toggleVoice} autoSend={autoSend} onAutoSendChange={setAutoSend} />
        <span className="composer-spacer" />
        {tooLong && (
          <span className="error-text small" role="status">
            {draft.length.toLocaleString()} / {MAX_LENGTH.toLocaleString()} characters
          </span>
        )}
        {sending && (
          <button type="button" className="button stop-button" onClick={onStop} disabled={stopping} data-testid="stop-button">
            <span className="stop-square" aria-hidden="true" />
            {stopping ? "Stopping…" : "Stop"}
          </button>
        )}
        <button type="submit" className="button primary" disabled={!draft.trim() || tooLong} data-testid="send-button">
          Send
        </button>
      </div>
      <VoiceStatusLine status={speech.status} />
    </form>
  );
}
