"use client";

import { useCallback, useState } from "react";

/** Copies text to the clipboard; `copied` is true for a moment afterwards. */
export function useCopy(): { copied: boolean; copy: (text: string) => Promise<void> } {
  const [copied, setCopied] = useState(false);
  const copy = useCallback(async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1_500);
    } catch {
      setCopied(false);
    }
  }, []);
  return { copied, copy };
}
