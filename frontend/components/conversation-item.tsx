"use client";

import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { fullTime, shortTime } from "@/lib/format-time";
import type { Conversation } from "@/lib/types";
import { RowMenu } from "./row-menu";

interface Props {
  conversation: Conversation;
  current: boolean;
  onSelect: () => void;
  onRename: (title: string) => Promise<void>;
  onDelete: () => Promise<void>;
  /** Nothing in this conversation notifies (undefined: not known, no mute item). */
  muted?: boolean;
  onMute?: (muted: boolean) => Promise<void>;
  /** Archive/restore and pin/unpin (absent: no such items). */
  onArchive?: (archived: boolean) => Promise<void>;
  onPin?: (pinned: boolean) => Promise<void>;
  /** Where its export downloads from, per format. */
  exportHref?: (format: "markdown" | "json") => string;
}

/** Starts a download of `href` (a same-origin API route that answers as an attachment). */
function download(href: string) {
  const link = document.createElement("a");
  link.href = href;
  link.download = "";
  document.body.append(link);
  link.click();
  link.remove();
}

/** The API's placeholder for a conversation nobody has named yet. */
const PLACEHOLDER_TITLE = "new conversation";

export function hasRealTitle(conversation: Conversation): boolean {
  const title = conversation.title?.trim() ?? "";
  return title !== "" && title.toLowerCase() !== PLACEHOLDER_TITLE;
}

/** A reply's first words without Markdown marks ("- **first** item" → "first item"). */
export function plainPreview(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s*(?:[-+*]|\d+\.|#{1,6}|>)\s+/gm, "")
    .replace(/(^|\s)[-+*](?=\s)/g, "$1")
    .replace(/[*`~|]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

export function conversationTitle(conversation: Conversation): string {
  return hasRealTitle(conversation) ? (conversation.title ?? "").trim() : `Untitled ${conversation.mode} #${conversation.id}`;
}

type Mode = "view" | "rename" | "confirm-delete";

export function ConversationItem({ conversation, current, onSelect, onRename, onDelete, muted, onMute, onArchive, onPin, exportHref }: Props) {
  const archived = conversation.archived_at != null;
  const pinned = conversation.pinned_at != null;
  const [mode, setMode] = useState<Mode>("view");
  const [draft, setDraft] = useState("");
  const title = conversationTitle(conversation);
  const when = conversation.last_message_at ?? conversation.updated_at;
  const titleId = `conversation-title-${conversation.id}`;
  // Leaving the rename box (Enter, Save, Cancel, Escape) puts focus back on the conversation.
  const openButton = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (mode !== "view" || !refocus.current) return;
    refocus.current = false;
    openButton.current?.focus();
  }, [mode]);

  function endRename() {
    refocus.current = true;
    setMode("view");
  }

  function beginRename() {
    setDraft(hasRealTitle(conversation) ? (conversation.title ?? "") : "");
    setMode("rename");
  }

  async function submitRename(event: FormEvent) {
    event.preventDefault();
    const next = draft.trim();
    if (next && next !== conversation.title) await onRename(next);
    endRename();
  }

  function onRenameKey(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Escape") endRename();
  }

  return (
    <li
      className={`conversation-item${current ? " current" : ""}`}
      data-testid="conversation-item"
      data-conversation-id={conversation.id}
    >
      {mode === "rename" ? (
        <form className="rename-form" onSubmit={(e) => void submitRename(e)}>
          <label className="sr-only" htmlFor={`rename-${conversation.id}`}>
            Conversation title
          </label>
          <input
            id={`rename-${conversation.id}`}
            data-testid="rename-input"
            value={draft}
            maxLength={200}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={onRenameKey}
            autoFocus
          />
          <button type="submit" className="button small primary">
            Save
          </button>
          <button type="button" className="button small" onClick={endRename}>
            Cancel
          </button>
        </form>
      ) : (
        <button
          ref={openButton}
          type="button"
          className="conversation-open"
          aria-current={current ? "true" : undefined}
          onClick={onSelect}
          data-testid="conversation-open"
        >
          <span className="conversation-title" id={titleId}>
            {pinned && !archived && (
              <span className="pin-mark" title="Pinned" data-testid="conversation-pinned">
                <span aria-hidden="true">📌</span>
                <span className="sr-only">Pinned: </span>
              </span>
            )}
            {conversation.mode !== "chat" && <span className="mode-tag">{conversation.mode}</span>}
            {title}
          </span>
          {muted && (
            <span className="muted-mark" title="Notifications muted" data-testid="conversation-muted">
              <span aria-hidden="true">🔕</span>
              <span className="sr-only">Muted</span>
            </span>
          )}
          {conversation.unread > 0 && !current && (
            <span className="count-badge unread-badge" data-testid="conversation-unread">
              <span className="sr-only">Unread: </span>
              {conversation.unread > 999 ? "999+" : conversation.unread}
            </span>
          )}
          {conversation.preview && <span className="conversation-preview muted">{plainPreview(conversation.preview)}</span>}
          {when && (
            <time className="conversation-time muted" dateTime={when} title={fullTime(when)}>
              {shortTime(when)}
            </time>
          )}
        </button>
      )}
      {mode === "view" && (
        <RowMenu
          label={`Actions for ${title}`}
          testId="conversation-menu"
          actions={[
            { label: "Rename", onSelect: beginRename, testId: "conversation-rename" },
            ...(onMute && muted !== undefined
              ? [
                  {
                    label: muted ? "Unmute notifications" : "Mute notifications",
                    onSelect: () => void onMute(!muted),
                    testId: "conversation-mute",
                  },
                ]
              : []),
            ...(onPin && !archived
              ? [{ label: pinned ? "Unpin" : "Pin to top", onSelect: () => void onPin(!pinned), testId: "conversation-pin" }]
              : []),
            ...(onArchive
              ? [{ label: archived ? "Restore" : "Archive", onSelect: () => void onArchive(!archived), testId: "conversation-archive" }]
              : []),
            ...(exportHref
              ? [
                  { label: "Export as Markdown", onSelect: () => download(exportHref("markdown")), testId: "conversation-export-markdown" },
                  { label: "Export as JSON", onSelect: () => download(exportHref("json")), testId: "conversation-export-json" },
                ]
              : []),
            { label: "Delete", onSelect: () => setMode("confirm-delete"), danger: true, testId: "conversation-delete" },
          ]}
        />
      )}
      {mode === "confirm-delete" && (
        <div className="confirm" role="group" aria-label={`Delete ${title}?`}>
          <span>Delete “{title}” and its messages?</span>
          <button
            type="button"
            className="button tiny danger"
            onClick={() => void onDelete().finally(() => setMode("view"))}
            data-testid="conversation-delete-confirm"
            autoFocus
          >
            Delete
          </button>
          <button type="button" className="button tiny" onClick={() => setMode("view")}>
            Cancel
          </button>
        </div>
      )}
    </li>
  );
}
