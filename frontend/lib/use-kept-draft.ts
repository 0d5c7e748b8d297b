"use client";

import { useCallback, useRef, useState } from "react";

function key(userId: string): string {
  return `parley.draft.${userId}`;
}

function readDraft(userId: string): string {
  try {
    return typeof window === "undefined" ? "" : (window.sessionStorage.getItem(key(userId)) ?? "");
  } catch {
    return "";
  }
}

function writeDraft(userId: string, value: string): void {
  try {
    if (value) window.sessionStorage.setItem(key(userId), value);
    else window.sessionStorage.removeItem(key(userId));
  } catch {
    // Storage unavailable: the draft lives as long as the screen.
  }
}

type Update = string | ((current: string) => string);

/**
 * The message box's text, kept in this tab's sessionStorage as it changes: a session ended
 * elsewhere (the sign-in screen replaces the workspace) or a reload does not lose what was
 * typed; signing in again as the same person brings it back. Written at once, not in an
 * effect, so text put back after a refused send is kept even as the workspace goes.
 */
export function useKeptDraft(userId: string): [string, (update: Update) => void] {
  const [draft, setDraftState] = useState(() => readDraft(userId));
  const latest = useRef(draft);
  const setDraft = useCallback(
    (update: Update) => {
      const next = typeof update === "function" ? update(latest.current) : update;
      latest.current = next;
      writeDraft(userId, next);
      setDraftState(next);
    },
    [userId],
  );
  return [draft, setDraft];
}
