"use client";

import { useEffect, useState } from "react";

/** After SHOW_AFTER_S seconds of waiting, how long it has been ("12 s", "1 min 5 s"). */
const SHOW_AFTER_S = 3;

export function formatElapsed(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(since);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.max(0, Math.floor((now - since) / 1_000));
  if (seconds < SHOW_AFTER_S) return null;
  return (
    <span className="elapsed muted small" data-testid="elapsed">
      {formatElapsed(seconds)}
    </span>
  );
}
