"use client";

import { useState } from "react";
import type { Session } from "@/lib/auth-store";
import { useSearch } from "@/lib/use-search";
import { SearchHits } from "./search-hits";

interface Props {
  session: Session;
  /** Open a conversation, at a message when one was found. */
  onOpen: (conversationId: number, messageId: number | null) => void;
  /** Open the ⌘K / Ctrl+K palette (the way to it without a keyboard). */
  onPalette: () => void;
}

/** Finds conversations by title and by the words of their messages: one row each, words marked. */
export function SearchBox({ session, onOpen, onPalette }: Props) {
  const [query, setQuery] = useState("");
  const { result, error, searching } = useSearch(session, query);
  const empty = result !== null && result.conversations.length === 0;

  return (
    <div className="search" role="search">
      <label htmlFor="search-input" className="sr-only">
        Search conversations
      </label>
      <div className="search-row">
        <input
          id="search-input"
          type="search"
          placeholder="Search…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") setQuery("");
          }}
          maxLength={200}
          data-testid="search-input"
        />
        <button
          type="button"
          className="button small ghost"
          onClick={onPalette}
          aria-label="Search everywhere (Ctrl+K)"
          title="Search everywhere (⌘K / Ctrl+K)"
          data-testid="search-palette-open"
        >
          <kbd aria-hidden="true">⌘K</kbd>
        </button>
      </div>
      {query.trim() && (
        <div className="search-results" data-testid="search-results" aria-live="polite" aria-busy={searching}>
          {error && (
            <p className="error-text small" role="alert">
              {error}
            </p>
          )}
          {empty && !searching && <p className="muted small pad">Nothing found.</p>}
          {result && result.conversations.length > 0 && (
            <SearchHits hits={result.conversations} onOpen={(hit) => onOpen(hit.id, hit.message?.id ?? null)} />
          )}
        </div>
      )}
    </div>
  );
}
