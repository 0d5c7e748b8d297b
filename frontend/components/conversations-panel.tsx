"use client";

import { useState, type ReactNode } from "react";
import { describeError } from "@/lib/api-error";
import type { Conversation, NewConversationMode } from "@/lib/types";
import { groupByDay } from "@/lib/format-time";
import { ConversationItem } from "./conversation-item";

interface Props {
  conversations: Conversation[] | null;
  error: string | null;
  currentId: number | null;
  onSelect: (id: number | null) => void;
  onNew: (mode: NewConversationMode) => Promise<void>;
  onRename: (id: number, title: string) => Promise<void>;
  onDelete: (id: number) => Promise<void>;
  onRetry: () => void;
  /** Conversations whose notifications are muted (null: not known yet). */
  muted?: ReadonlySet<number> | null;
  onMute?: (id: number, muted: boolean) => Promise<void>;
  /** Pinned above the list (the inbox). */
  pinned?: ReactNode;
  /** The search box, above everything else in the list. */
  search?: ReactNode;
  /** Archive/restore, pin/unpin (see `useConversations`). */
  onFlag?: (id: number, flag: "archived" | "pinned", on: boolean) => Promise<void>;
  /** Where a conversation's export downloads from. */
  exportHref?: (id: number, format: "markdown" | "json") => string;
}

/** The list holds what the person talks in; runs and threads live in the Runs panel. */
const LISTED_MODES = new Set(["chat", "work"]);

/** The list of conversations, newest activity first, with new/switch/rename/delete. */
export function ConversationsPanel(props: Props) {
  const { error, currentId, onMute, onFlag, exportHref } = props;
  const all = props.conversations?.filter((c) => LISTED_MODES.has(c.mode)) ?? null;
  // Archived ones leave the list for their own view; pinned ones head it.
  const [showArchived, setShowArchived] = useState(false);
  const archivedCount = all?.filter((c) => c.archived_at != null).length ?? 0;
  const viewing = showArchived && archivedCount > 0;
  const shown = all?.filter((c) => (c.archived_at != null) === viewing) ?? null;
  const pinnedList = viewing ? [] : (shown?.filter((c) => c.pinned_at != null) ?? []);
  const conversations = viewing ? shown : (shown?.filter((c) => c.pinned_at == null) ?? null);
  const [mode, setMode] = useState<NewConversationMode>("chat");
  const [actionError, setActionError] = useState<string | null>(null);

  async function run(action: () => Promise<void>) {
    setActionError(null);
    try {
      await action();
    } catch (err) {
      setActionError(describeError(err));
    }
  }

  const item = (conversation: Conversation) => (
    <ConversationItem
      key={conversation.id}
      conversation={conversation}
      current={conversation.id === currentId}
      onSelect={() => props.onSelect(conversation.id)}
      onRename={(title) => run(() => props.onRename(conversation.id, title))}
      onDelete={() => run(() => props.onDelete(conversation.id))}
      muted={props.muted ? props.muted.has(conversation.id) : undefined}
      onMute={onMute ? (value) => run(() => onMute(conversation.id, value)) : undefined}
      onArchive={
        onFlag
          ? (value) =>
              run(async () => {
                await onFlag(conversation.id, "archived", value);
                // The last one restored: back to the list, not to an empty Archived view later.
                if (!value && archivedCount <= 1) setShowArchived(false);
              })
          : undefined
      }
      onPin={onFlag ? (value) => run(() => onFlag(conversation.id, "pinned", value)) : undefined}
      exportHref={exportHref ? (format) => exportHref(conversation.id, format) : undefined}
    />
  );

  return (
    <section className="panel conversations-panel" aria-label="Conversations" data-testid="conversations-panel">
      <div className="panel-head">
        <h2>Conversations</h2>
      </div>
      <div className="new-conversation">
        <button
          type="button"
          className="button primary"
          data-testid="new-conversation"
          onClick={() => void run(() => props.onNew(mode))}
        >
          New conversation
        </button>
        <label className="mode-select">
          <span className="sr-only">Type of the next conversation</span>
          <select value={mode} onChange={(e) => setMode(e.target.value === "work" ? "work" : "chat")} data-testid="new-conversation-mode">
            <option value="chat">Chat (task assistant)</option>
            <option value="work">Work (coding session)</option>
          </select>
        </label>
      </div>
      {props.search}
      {props.pinned}
      {(actionError || error) && (
        <p className="error-text" role="alert">
          {actionError ?? error}{" "}
          <button type="button" className="link-button" onClick={props.onRetry}>
            Reload list
          </button>
        </p>
      )}
      {conversations === null && !error && <p className="muted pad">Loading…</p>}
      {conversations?.length === 0 && pinnedList.length === 0 && currentId !== null && (
        <p className="muted pad">No conversations yet. Say hello to start one.</p>
      )}
      <div className="conversation-list" data-testid="conversation-list">
        {currentId === null && (
          <ul className="conversation-group">
            <li className="conversation-item current draft" data-testid="conversation-draft">
              <span className="conversation-open" aria-current="true">
                <span className="conversation-title">Draft — not started yet</span>
                <span className="conversation-preview muted">Your first message starts it</span>
              </span>
            </li>
          </ul>
        )}
        {pinnedList.length > 0 && (
          <div>
            <h3 className="group-title">Pinned</h3>
            <ul className="conversation-group" aria-label="Pinned" data-testid="pinned-conversations">
              {pinnedList.map(item)}
            </ul>
          </div>
        )}
        {viewing && <h3 className="group-title">Archived</h3>}
        {groupByDay(conversations ?? []).map(({ label, items }) => (
          <div key={label}>
            <h3 className="group-title">{label}</h3>
            <ul className="conversation-group" aria-label={label}>
              {items.map(item)}
            </ul>
          </div>
        ))}
      </div>
      {archivedCount > 0 && (
        <button
          type="button"
          className="link-button small archived-toggle"
          onClick={() => setShowArchived(!viewing)}
          aria-pressed={viewing}
          data-testid="show-archived"
        >
          {viewing ? "Back to conversations" : `Archived (${archivedCount})`}
        </button>
      )}
    </section>
  );
}
