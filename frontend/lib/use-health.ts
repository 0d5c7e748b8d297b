"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { apiJson } from "./api-client";
import type { Health } from "./types";

const OK_INTERVAL_MS = 20_000;
const DOWN_INTERVAL_MS = 2_000;

export interface HealthState {
  health: Health | null;
  /** null until the first answer. */
  reachable: boolean | null;
  /** Increases every time the API comes back after being unreachable. */
  recoveries: number;
  recheck: () => void;
  reportUnreachable: () => void;
}

/** Polls GET /api/health: fast while the API is down, slowly while it is up. */
export function useHealth(): HealthState {
  const [health, setHealth] = useState<Health | null>(null);
  const [reachable, setReachable] = useState<boolean | null>(null);
  const [recoveries, setRecoveries] = useState(0);
  const [kick, setKick] = useState(0);
  const wasDown = useRef(false);

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();

    const poll = async () => {
      let up = false;
      try {
        const answer = await apiJson<Health>(null, "/health", { signal: controller.signal });
        if (cancelled) return;
        setHealth(answer);
        up = true;
      } catch {
        if (cancelled) return;
      }
      setReachable(up);
      if (up && wasDown.current) setRecoveries((n) => n + 1);
      wasDown.current = !up;
      timer = setTimeout(poll, up ? OK_INTERVAL_MS : DOWN_INTERVAL_MS);
    };
    void poll();
    return () => {
      cancelled = true;
      controller.abort();
      if (timer) clearTimeout(timer);
    };
  }, [kick]);

  const recheck = useCallback(() => setKick((n) => n + 1), []);
  const reportUnreachable = useCallback(() => {
    if (!wasDown.current) {
      wasDown.current = true;
      setReachable(false);
      setKick((n) => n + 1);
    }
  }, []);

  return { health, reachable, recoveries, recheck, reportUnreachable };
}
