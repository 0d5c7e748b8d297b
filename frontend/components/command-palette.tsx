"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useEffect, useId, useState } from "react";
import type { Session } from "@/lib/auth-store";
import { type SearchHit, useSearch } from "@/lib/use-search";
import { hitOptionId, SearchHits } from "./search-hits";

interface Props {
  session: Session;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Open a conversation, at a message when one was found. */
  onOpen: (conversationId: number, messageId: number | null) => void;
}

/** ⌘K on a Mac, Ctrl+K elsewhere: the palette's shortcut, taken from anywhere on the page. */
export function usePaletteShortcut(onToggle: () => void) {
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if ((e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        onToggle();
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onToggle]);
}

/**
 * A search dialog over everything (Radix Dialog: focus stays inside, Escape closes, focus goes
 * back where it was): type to search, ↑/↓ to choose a conversation, Enter to open it.
 */
export function CommandPalette({ session, open, onOpenChange, onOpen }: Props) {
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const { result, error, searching } = useSearch(session, open ? query : "");
  const hits: readonly SearchHit[] = result?.conversations ?? [];
  const current = Math.min(active, Math.max(0, hits.length - 1));
  const listId = useId();

  useEffect(() => {
    if (hits.length > 0) document.getElementById(hitOptionId(listId, current))?.scrollIntoView({ block: "nearest" });
  }, [current, hits.length, listId]);

  function change(value: boolean) {
    if (!value) {
      setQuery("");
      setActive(0);
    }
    onOpenChange(value);
  }

  function choose(hit: SearchHit | undefined) {
    if (!hit) return;
    change(false);
    onOpen(hit.id, hit.message?.id ?? null);
  }

  return (
    <Dialog.Root open={open} onOpenChange={change}>
      <Dialog.Portal>
        <Dialog.Overlay className="palette-overlay" />
        <Dialog.Content className="palette" data-testid="command-palette" aria-describedby={undefined}>
          <Dialog.Title className="sr-only">Search conversations</Dialog.Title>
          <input
            className="palette-input"
            type="text"
            role="combobox"
            aria-label="Search conversations"
            aria-expanded={hits.length > 0}
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={hits.length > 0 ? hitOptionId(listId, current) : undefined}
            placeholder="Search conversations…"
            value={query}
            maxLength={200}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => {
              setQuery(e.target.value);
              setActive(0);
            }}
            onKeyDown={(e) => {
              if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                e.preventDefault();
                if (hits.length === 0) return;
                const step = e.key === "ArrowDown" ? 1 : -1;
                setActive((current + step + hits.length) % hits.length);
              } else if (e.key === "Enter" && !e.nativeEvent.isComposing) {
                e.preventDefault();
                choose(hits[current]);
              }
            }}
            data-testid="palette-input"
          />
          <div className="palette-results" data-testid="palette-results" aria-live="polite" aria-busy={searching}>
            {error && (
              <p className="error-text small" role="alert">
                {error}
              </p>
            )}
            {query.trim() && result && hits.length === 0 && !searching && <p className="muted small pad">Nothing found.</p>}
            <SearchHits hits={hits} onOpen={choose} listbox={{ id: listId, active: current, onActive: setActive }} />
          </div>
          <p className="palette-help muted small" aria-hidden="true">
            ↑ ↓ to choose · Enter to open · Esc to close
          </p>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
