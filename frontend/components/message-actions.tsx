"use client";

import { useState, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import type { Branch } from "@/lib/use-chat";
import { useCopy } from "@/lib/use-copy";

interface Props {
  /** The message's text as stored (what Copy puts on the clipboard). */
  text: string;
  /** The person's own chat message: edit it and send the new text (on a new branch here). */
  onEdit?: (text: string) => void;
  /** The last reply: ask again (on a new branch; this reply stays a switch away). */
  onRegenerate?: () => void;
  /** The message's siblings (edits of it, other replies): shown as ‹ n / m ›. */
  branch?: Branch;
  /** Show sibling `id`'s branch; absent while a reply is being written. */
  onSwitchBranch?: (id: number) => void;
  /** More buttons at the end of the group (Read aloud). */
  children?: ReactNode;
}

/** ‹ n / m ›: which of the message's versions is shown, and the way to the others. */
function BranchSwitcher({ branch, onSwitch }: { branch: Branch; onSwitch?: (id: number) => void }) {
  const { siblings, messageId } = branch;
  const index = siblings.indexOf(messageId);
  const previous = index > 0 ? siblings[index - 1] : undefined;
  const next = index >= 0 && index < siblings.length - 1 ? siblings[index + 1] : undefined;
  return (
    <span className="branch-switcher" role="group" aria-label="Versions of this message" data-testid="branch-switcher">
      <button
        type="button"
        className="button tiny ghost"
        aria-label="Previous version"
        disabled={previous === undefined || !onSwitch}
        onClick={() => previous !== undefined && onSwitch?.(previous)}
        data-testid="branch-prev"
      >
        ‹
      </button>
      <span className="small" aria-live="polite" data-testid="branch-position">
        {index + 1} / {siblings.length}
      </span>
      <button
        type="button"
        className="button tiny ghost"
        aria-label="Next version"
        disabled={next === undefined || !onSwitch}
        onClick={() => next !== undefined && onSwitch?.(next)}
        data-testid="branch-next"
      >
        ›
      </button>
    </span>
  );
}

/** Copy, Edit, Regenerate under a stored message, and its versions' switcher. */
export function MessageActions({ text, onEdit, onRegenerate, branch, onSwitchBranch, children }: Props) {
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
          <span className="muted small">Sends as a new version here; the original stays one ‹ away.</span>
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
      {branch && branch.siblings.length > 1 && <BranchSwitcher branch={branch} onSwitch={onSwitchBranch} />}
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
