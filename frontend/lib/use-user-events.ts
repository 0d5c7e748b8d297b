"use client";

import { useEffect, useEffectEvent, useRef, useState } from "react";
import { userPath } from "./api-client";
import type { Session } from "./auth-store";
import { followEvents } from "./event-stream";
import type { Run } from "./agent-types";
import type { Conversation, Task } from "./types";

export interface UserEventHandlers {
  onTaskChange: (change: { action: string; number: number; task: Task | null }) => void;
  onConversationChange: (change: { action: string; id: number; conversation: Conversation | null }) => void;
  /** A run started or changed (status, progress, latest status). */
  onRunChange?: (run: Run) => void;
  /** A conversation's unread count changed (a message from someone else, or a read position moved). */
  onUnread?: (conversationId: number, unread: number) => void;
  /** A question was opened, answered or timed out (wherever it was asked). */
  onQuestion?: (change: { action: string; questionId: number }) => void;
  /** The stream connected without a cursor (first, or after one was lost): anything may have
   * changed before it started, so the lists are read again. */
  onResync: () => void;
  /** The stream failed or closed (the API restarting, say): worth a health check now. */
  onDropped?: () => void;
}

/**
 * Follows the person's own event stream (GET /api/{user}/events) for task and conversation-list
 * changes from any writer. Returns whether it is live; when the server has no such stream the
 * lists keep refreshing on focus and on a timer instead. `recoveries` (the health probe's count
 * of the API coming back) ends a reconnect's backoff at once.
 */
export function useUserEvents(session: Session, handlers: UserEventHandlers, recoveries = 0): boolean {
  const onTaskChange = useEffectEvent(handlers.onTaskChange);
  const onConversationChange = useEffectEvent(handlers.onConversationChange);
  const onResync = useEffectEvent(handlers.onResync);
  const onRunChange = useEffectEvent((run: Run) => handlers.onRunChange?.(run));
  const onQuestion = useEffectEvent((change: { action: string; questionId: number }) => handlers.onQuestion?.(change));
  const onUnread = useEffectEvent((id: number, unread: number) => handlers.onUnread?.(id, unread));
  const onDropped = useEffectEvent(() => handlers.onDropped?.());
  const [live, setLive] = useState(false);
  // The API came back (`recoveries` moved): a reconnect waiting out its backoff goes now.
  const wake = useRef<(() => void) | null>(null);
  useEffect(() => {
    wake.current?.();
  }, [recoveries]);

  useEffect(() => {
    const controller = new AbortController();
    let lastId: string | null = null;
    void followEvents(session, {
      path: () => userPath(session, "/events"),
      lastEventId: () => lastId,
      onOpen: () => {
        setLive(true);
        // Without a cursor the stream starts from now: whatever changed between the lists'
        // first read and this moment (a question asked as the page opened) is read again.
        if (lastId === null) onResync();
      },
      onEvent: (event, data, id) => {
        if (id) lastId = id;
        if (event === "task" && typeof data.number === "number") {
          onTaskChange({ action: String(data.action), number: data.number, task: (data.task as Task | null) ?? null });
        }
        else if (event === "conversation" && typeof data.id === "number") {
          onConversationChange({
            action: String(data.action),
            id: data.id,
            conversation: (data.conversation as Conversation | null) ?? null,
          });
        } else if (event === "run" && data.run && typeof data.run === "object") onRunChange(data.run as Run);
        else if (event === "question" && data.question && typeof (data.question as { id?: unknown }).id === "number") {
          onQuestion({ action: String(data.action), questionId: (data.question as { id: number }).id });
        } else if (event === "unread" && typeof data.conversation_id === "number" && typeof data.unread === "number") {
          onUnread(data.conversation_id, data.unread);
        }
      },
      onUnavailable: () => setLive(false),
      onDropped: () => onDropped(),
      onWaiting: (wakeNow) => {
        wake.current = wakeNow;
      },
      signal: controller.signal,
    });
    return () => controller.abort();
  }, [session]);

  return live;
}
