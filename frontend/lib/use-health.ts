"use client";

import { useCallback, useRef } from "react";
import useSWR from "swr";
import { apiJson } from "./api-client";
import { HEALTH_KEY } from "./outage";
import type { Health } from "./types";

const OK_INTERVAL_MS = 20_000;
const DOWN_INTERVAL_MS = 2_000;

interface Probe {
  reachable: boolean;
  health: Health | null;
  recoveries: number;
}

export interface HealthState {
  health: Health | null;
  /** null until the first answer. */
  reachable: boolean | null;
  /** Increases every time the API comes back after being unreachable. */
  recoveries: number;
  recheck: () => void;
  reportUnreachable: () => void;
}

/** GET /api/health through SWR: polled every 2 s while the API is down, every 20 s while it is up. */
export function useHealth(): HealthState {
  const last = useRef<Probe>({ reachable: true, health: null, recoveries: 0 });
  const { data, mutate } = useSWR<Probe>(
    HEALTH_KEY,
    async () => {
      const before = last.current;
      try {
        const health = await apiJson<Health>(null, "/health");
        last.current = { reachable: true, health, recoveries: before.recoveries + (before.reachable ? 0 : 1) };
      } catch {
        last.current = { ...before, reachable: false };
      }
      return last.current;
    },
    { refreshInterval: (probe) => (probe?.reachable === false ? DOWN_INTERVAL_MS : OK_INTERVAL_MS), dedupingInterval: 500 },
  );

  const recheck = useCallback(() => void mutate(), [mutate]);
  const reportUnreachable = useCallback(() => {
    if (!last.current.reachable) return;
    last.current = { ...last.current, reachable: false };
    void mutate(last.current, { revalidate: true });
  }, [mutate]);

  return {
    health: data?.health ?? null,
    reachable: data ? data.reachable : null,
    recoveries: data?.recoveries ?? 0,
    recheck,
    reportUnreachable,
  };
}
