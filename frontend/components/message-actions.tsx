"use client";

import { useState, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import { useCopy } from "@/lib/use-copy";

interface Props {
  /** The message's text as stored (what Copy puts on the clipboard). */
  text: string;
  /** The person's own chat message: edit it and send the new text (in a fork). */
  onEdit?: (text: string) => void;
  /** The last reply: ask again (in a fork; this reply stays where it is). */
  onRegenerate?: () => void;
  /** More buttons at the end of the group (Read aloud). */
  children?: ReactNode;
}

/** Copy, Edit, Regenerate under a stored message. */
export function MessageActions({ text, onEdit, onRegenerate, children }: Props) {
  const { copied, copy } = useCopy();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(text);

  function submit(event?: FormEvent) {
    event?.preventDefault();
    const value = draft.trim();
    if (!value || !onEdit) return;
    setEditing(false);
    onEdit(value);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    } else if (event.key === "Escape") {
      setEditing(false);
    }
  }

  if (editing) {
    return (
      <form className="message-editor" onSubmit={submit} data-testid="message-editor">
        <label className="sr-only" htmlFor="edit-message">
          Edit your message
        </label>
        <textarea id="edit-message" value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={onKeyDown} autoFocus rows={3} data-testid="edit-input" />
        <div className="message-editor-actions">
          <span className="muted small">Sends in a copy of this conversation; the original stays as it is.</span>
          <button type="button" className="button small ghost" onClick={() => setEditing(false)}>
            Cancel
          </button>
          <button type="submit" className="button small primary" disabled={!draft.trim()} data-testid="edit-send">
            Send
          </button>
        </div>
      </form>
    );
  }

  return (
    <div className="message-tools" role="group" aria-label="Message actions">
      <button type="button" className="button tiny ghost" onClick={() => void copy(text)} data-testid="copy-message">
        {copied ? "Copied" : "Copy"}
      </button>
      {onEdit && (
        <button
          type="button"
          className="button tiny ghost"
          onClick={() => {
            setDraft(text);
            setEditing(true);
          }}
          data-testid="edit-message"
        >
          Edit
        </button>
      )}
      {onRegenerate && (
        <button type="button" className="button tiny ghost" onClick={onRegenerate} data-testid="regenerate">
          Regenerate
        </button>
      )}
      {children}
    </div>
  );
}
