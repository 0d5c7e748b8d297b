"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import useSWR from "swr";
import type { WorkState } from "./agent-types";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import type { Conversation } from "./types";

/** What this tab knows of an End it asked for before the session's own state says so. */
interface Ending {
  phase: "ending" | "ended";
  conversationId: number | null;
  /** The session's state as it was when this phase began: any newer one replaces the guess. */
  from: WorkState | null;
}

/**
 * A work conversation's session state (status, cost so far, a waiting permission request).
 * With the person's event stream live, it is the conversation's own `work`, which that stream
 * sends again whenever the session's state changes; only without the stream is it polled.
 * End shows at once: "ending" from the click until the server answers, then "ended" until the
 * session's own state (from the stream or a poll) moves on.
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
  // A session that never started has no workspace yet: it reads "Not started", not "Idle".
  const listed = conversation?.work?.workspace ? conversation.work : null;
  const known = !enabled ? null : eventsLive ? listed : (data ?? listed);
  const [ending, setEnding] = useState<Ending | null>(null);
  const latest = useRef(known);
  useEffect(() => {
    latest.current = known;
  }, [known]);
  const end = useCallback(async () => {
    setEnding({ phase: "ending", conversationId, from: latest.current });
    try {
      await apiJson(session, `${path}/end`, { method: "POST", body: {} });
    } catch (error) {
      setEnding(null);
      throw error;
    }
    setEnding({ phase: "ended", conversationId, from: latest.current });
    refresh();
  }, [session, path, refresh, conversationId]);
  const stop = useCallback(async () => {
    await apiJson(session, userPath(session, `/conversations/${conversationId}/stop`), { method: "POST", body: {} });
    refresh();
  }, [session, conversationId, refresh]);
  // What End shows, in this conversation, until the session's own state says ended too or,
  // once End has answered, moves on at all (a new session started by the next prompt).
  const shown =
    ending !== null &&
    ending.conversationId === conversationId &&
    known?.status !== "ended" &&
    (ending.phase === "ending" || known === ending.from);
  const shownEnding = shown ? ending.phase : null;
  return { work: known, ending: shownEnding, refresh, end, stop };
}
