"use client";

import { useState } from "react";
import type { Session } from "@/lib/auth-store";
import { shortTime } from "@/lib/format-time";
import { useSearch } from "@/lib/use-search";

interface Props {
  session: Session;
  /** Open a conversation, at a message when one was found. */
  onOpen: (conversationId: number, messageId: number | null) => void;
}

/** Finds conversations by title and messages by their words; results open where they are. */
export function SearchBox({ session, onOpen }: Props) {
  const [query, setQuery] = useState("");
  const { result, error, searching } = useSearch(session, query);
  const empty = result !== null && result.conversations.length === 0 && result.messages.length === 0;

  function open(conversationId: number, messageId: number | null) {
    onOpen(conversationId, messageId);
  }

  return (
    <div className="search" role="search">
      <label htmlFor="search-input" className="sr-only">
        Search conversations
      </label>
      <input
        id="search-input"
        type="search"
        placeholder="Search conversations…"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") setQuery("");
        }}
        maxLength={200}
        data-testid="search-input"
      />
      {query.trim() && (
        <div className="search-results" data-testid="search-results" aria-live="polite" aria-busy={searching}>
          {error && (
            <p className="error-text small" role="alert">
              {error}
            </p>
          )}
          {empty && !searching && <p className="muted small pad">Nothing found.</p>}
          {result && result.conversations.length > 0 && (
            <ul aria-label="Conversations found">
              {result.conversations.map((c) => (
                <li key={`c${c.id}`}>
                  <button type="button" className="search-hit" onClick={() => open(c.id, null)} data-testid="search-conversation">
                    <span className="search-title">{c.title}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {result && result.messages.length > 0 && (
            <ul aria-label="Messages found">
              {result.messages.map((m) => (
                <li key={`m${m.id}`}>
                  <button
                    type="button"
                    className="search-hit"
                    onClick={() => open(m.conversation_id, m.id)}
                    data-testid="search-message"
                    data-message-id={m.id}
                  >
                    <span className="search-title">
                      {m.conversation_title} <span className="muted small">{shortTime(m.created_at)}</span>
                    </span>
                    <span className="search-snippet muted small">
                      {m.role === "user" ? "You: " : ""}
                      {m.snippet}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
