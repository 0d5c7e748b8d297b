"use client";

import { useRef, useState, type ClipboardEvent, type DragEvent, type FormEvent, type KeyboardEvent } from "react";
import { readLocal, STORAGE_KEYS, writeLocal } from "@/lib/local-store";
import { PHONE_QUERY, useMediaQuery } from "@/lib/use-media-query";
import { useSpeechRecognition } from "@/lib/use-speech-recognition";
import type { ComposerAttachments, PendingFile } from "@/lib/use-attachments";
import { PaperclipIcon, PendingAttachments } from "./attachment-chips";
import { VoiceControls, VoiceStatusLine } from "./voice-controls";

const MAX_LENGTH = 16_000;

interface Props {
  draft: string;
  setDraft: (value: string | ((current: string) => string)) => void;
  /** A reply is streaming: what is sent now is queued until it finishes. */
  sending: boolean;
  stopping: boolean;
  /** `files`: the uploaded attachments going with it (chat only). */
  onSend: (text: string, files?: PendingFile[]) => Promise<void>;
  onStop: () => void;
  /** Who the box writes to, when not the assistant ("Write to your agents…"). */
  placeholder?: string;
  /** Files dropped, pasted or picked into the box (chat only; absent elsewhere). */
  attachments?: ComposerAttachments;
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
export function Composer({ draft, setDraft, sending, stopping, onSend, onStop, placeholder, attachments }: Props) {
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
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

  const files = attachments?.files ?? [];
  const uploading = files.some((f) => f.status === "uploading");
  const readyFiles = files.filter((f) => f.status === "ready").length;

  function submit(event?: FormEvent) {
    event?.preventDefault();
    const text = draft.trim();
    if ((!text && readyFiles === 0) || text.length > MAX_LENGTH || uploading) return;
    const taken = attachments ? attachments.take() : [];
    if (taken === null) return;
    setDraft("");
    void onSend(text, taken);
  }

  function onDragOver(event: DragEvent<HTMLFormElement>) {
    if (!attachments || !event.dataTransfer.types.includes("Files")) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    setDragging(true);
  }

  function onDrop(event: DragEvent<HTMLFormElement>) {
    setDragging(false);
    if (!attachments || event.dataTransfer.files.length === 0) return;
    event.preventDefault();
    attachments.add(Array.from(event.dataTransfer.files));
    input.current?.focus();
  }

  function onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
    if (!attachments) return;
    const pasted = Array.from(event.clipboardData.files);
    // Text pasted from an app that also offers a picture of it stays text.
    if (pasted.length === 0 || event.clipboardData.getData("text/plain")) return;
    event.preventDefault();
    attachments.add(pasted);
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
    <form
      className={`composer${dragging ? " is-dragging" : ""}`}
      onSubmit={submit}
      data-testid="composer"
      onDragOver={onDragOver}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      {attachments && <PendingAttachments files={files} onRemove={attachments.remove} />}
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
        onPaste={onPaste}
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
        {attachments && (
          <>
            <button
              type="button"
              className="button icon attach-button"
              onClick={() => picker.current?.click()}
              aria-label="Attach files"
              title="Attach text, code or image files (or drop or paste them here)"
              data-testid="attach-button"
            >
              <PaperclipIcon />
            </button>
            <input
              ref={picker}
              type="file"
              multiple
              hidden
              data-testid="attach-input"
              onChange={(e) => {
                if (e.target.files) attachments.add(Array.from(e.target.files));
                e.target.value = "";
              }}
            />
          </>
        )}
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
        <button
          type="submit"
          className="button primary"
          disabled={(!draft.trim() && readyFiles === 0) || tooLong || uploading}
          title={uploading ? "Waiting for the files to upload" : undefined}
          data-testid="send-button"
        >
          Send
        </button>
      </div>
      <VoiceStatusLine status={speech.status} />
    </form>
  );
}
