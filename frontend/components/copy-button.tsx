"use client";

import { useState } from "react";

/** Copies a value to the clipboard and says so for a moment. */
export function CopyButton({ value, label = "Copy", testId }: { value: string; label?: string; testId?: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
    setTimeout(() => setCopied(null), 2_000);
  }
  return (
    <button type="button" className="button small" onClick={() => void copy()} data-testid={testId}>
      <span aria-live="polite">{copied === true ? "Copied" : copied === false ? "Select and copy it" : label}</span>
    </button>
  );
}
