"use client";

import { shortTime } from "@/lib/format-time";
import type { SearchHit } from "@/lib/use-search";
import { MarkedText } from "./marked-text";

interface Props {
  hits: readonly SearchHit[];
  onOpen: (hit: SearchHit) => void;
  /** The palette's list: options of a listbox, one of them active (arrow keys); else buttons. */
  listbox?: { id: string; active: number; onActive: (index: number) => void };
}

export function hitOptionId(listId: string, index: number): string {
  return `${listId}-${index}`;
}

function HitBody({ hit }: { hit: SearchHit }) {
  const message = hit.message;
  return (
    <>
      <span className="search-title">
        <MarkedText text={hit.title} marks={hit.title_marks} />
        {message && <span className="muted small"> {shortTime(message.created_at)}</span>}
      </span>
      {message && (
        <span className="search-snippet muted small" data-testid="search-snippet">
          {message.role === "user" ? "You: " : ""}
          <MarkedText text={message.snippet} marks={message.marks} />
        </span>
      )}
      {hit.similar && <span className="search-similar muted small">similar words</span>}
    </>
  );
}

/** One row per conversation found, its title and best message with the found words marked. */
export function SearchHits({ hits, onOpen, listbox }: Props) {
  if (listbox) {
    return (
      <ul id={listbox.id} role="listbox" aria-label="Conversations found" className="search-hits">
        {hits.map((hit, i) => (
          <li
            key={hit.id}
            id={hitOptionId(listbox.id, i)}
            role="option"
            aria-selected={i === listbox.active}
            className={`search-hit${i === listbox.active ? " is-active" : ""}`}
            onClick={() => onOpen(hit)}
            onMouseMove={() => {
              if (i !== listbox.active) listbox.onActive(i);
            }}
            data-testid="search-hit"
            data-conversation-id={hit.id}
            data-message-id={hit.message?.id ?? ""}
          >
            <HitBody hit={hit} />
          </li>
        ))}
      </ul>
    );
  }
  return (
    <ul aria-label="Conversations found" className="search-hits">
      {hits.map((hit) => (
        <li key={hit.id}>
          <button
            type="button"
            className="search-hit"
            onClick={() => onOpen(hit)}
            data-testid="search-hit"
            data-conversation-id={hit.id}
            data-message-id={hit.message?.id ?? ""}
          >
            <HitBody hit={hit} />
          </button>
        </li>
      ))}
    </ul>
  );
}
