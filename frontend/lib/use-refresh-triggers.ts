"use client";

import { useEffect } from "react";

/**
 * Calls `refresh` when the window regains focus, when the tab becomes visible, and every
 * `intervalMs` while it is visible — so changes made elsewhere (other tabs, agents over MCP)
 * show up without a reload.
 */
export function useRefreshTriggers(refresh: () => void, intervalMs: number): void {
  useEffect(() => {
    const onFocus = () => refresh();
    const onVisible = () => {
      if (document.visibilityState === "visible") refresh();
    };
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") refresh();
    }, intervalMs);
    window.addEventListener("focus", onFocus);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      clearInterval(timer);
      window.removeEventListener("focus", onFocus);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [refresh, intervalMs]);
}
