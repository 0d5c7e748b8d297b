"use client";

import { useCallback } from "react";
import useSWR from "swr";
import type { WorkState } from "./agent-types";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";

/** A work conversation's session state (status, cost so far), polled while it is open. */
export function useWorkState(session: Session, conversationId: number | null, enabled: boolean) {
  const path = userPath(session, `/conversations/${conversationId}/work`);
  const { data, mutate } = useSWR<WorkState | null>(
    enabled && conversationId !== null ? ["parley", session.epoch, path] : null,
    () => apiJson<WorkState | null>(session, path),
    { refreshInterval: 1_500, dedupingInterval: 0 },
  );
  const refresh = useCallback(() => void mutate(), [mutate]);
  const end = useCallback(async () => {
    await apiJson(session, `${path}/end`, { method: "POST", body: {} });
    void mutate();
  }, [session, path, mutate]);
  const stop = useCallback(async () => {
    await apiJson(session, userPath(session, `/conversations/${conversationId}/stop`), { method: "POST", body: {} });
    void mutate();
  }, [session, conversationId, mutate]);
  return { work: enabled ? (data ?? null) : null, refresh, end, stop };
}
