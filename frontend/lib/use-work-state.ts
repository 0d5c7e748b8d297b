"use client";

import { useCallback } from "react";
import useSWR from "swr";
import type { WorkState } from "./agent-types";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import type { Conversation } from "./types";

/**
 * A work conversation's session state (status, cost so far, a waiting permission request).
 * With the person's event stream live, it is the conversation's own `work`, which that stream
 * sends again whenever the session's state changes; only without the stream is it polled.
 */
export function useWorkState(session: Session, conversation: Conversation | null, enabled: boolean, eventsLive: boolean) {
  const conversationId = conversation?.id ?? null;
  const path = userPath(session, `/conversations/${conversationId}/work`);
  const { data, mutate } = useSWR<WorkState | null>(
    enabled && !eventsLive && conversationId !== null ? ["parley", session.epoch, path] : null,
    () => apiJson<WorkState | null>(session, path),
    { refreshInterval: 1_500, dedupingInterval: 0 },
  );
  const refresh = useCallback(() => {
    if (!eventsLive) void mutate();
  }, [eventsLive, mutate]);
  const end = useCallback(async () => {
    await apiJson(session, `${path}/end`, { method: "POST", body: {} });
    refresh();
  }, [session, path, refresh]);
  const stop = useCallback(async () => {
    await apiJson(session, userPath(session, `/conversations/${conversationId}/stop`), { method: "POST", body: {} });
    refresh();
  }, [session, conversationId, refresh]);
  // A session that never started has no workspace yet: it reads "Not started", not "Idle".
  const listed = conversation?.work?.workspace ? conversation.work : null;
  const work = !enabled ? null : eventsLive ? listed : (data ?? listed);
  return { work, refresh, end, stop };
}
