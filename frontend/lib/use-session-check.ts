"use client";

import { useEffect } from "react";
import { apiFetch } from "./api-client";
import type { Session } from "./auth-store";

/** At most one check per this long, however often the tab gains focus. */
const MIN_GAP_MS = 2_000;

/**
 * A tab left open while its session was ended elsewhere (signed out on another device, ended
 * in Account, expired) finds out when the person comes back to it (focus, or the tab shown
 * again), not at its next send: `/auth/me` refusing the session (401) shows the session-ended
 * screen (`apiFetch`), the typed draft kept for after sign-in (`useKeptDraft`).
 */
export function useSessionCheck(session: Session): void {
  useEffect(() => {
    let last = 0;
    const check = () => {
      if (document.visibilityState !== "visible" || Date.now() - last < MIN_GAP_MS) return;
      last = Date.now();
      // Anything but a refusal (the API away, say) is the banner's business, not this check's.
      apiFetch(session, "/auth/me").catch(() => undefined);
    };
    window.addEventListener("focus", check);
    document.addEventListener("visibilitychange", check);
    return () => {
      window.removeEventListener("focus", check);
      document.removeEventListener("visibilitychange", check);
    };
  }, [session]);
}
