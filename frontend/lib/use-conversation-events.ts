"use client";

import { useEffect, useEffectEvent } from "react";
import { userPath } from "./api-client";
import type { Session } from "./auth-store";
import { followEvents } from "./event-stream";
import type { Message } from "./types";

export interface ConversationEventHandlers {
  /** Last message id already shown, sent as `Last-Event-ID` when (re)connecting. */
  lastMessageId: () => number | null;
  onMessage: (message: Message) => void;
  onDelta: (text: string) => void;
  onToolResult: () => void;
  /**
   * Each (re)connection: the stream starts after message `after` (the Last-Event-ID it sent),
   * then the text so far of a running reply.
   */
  onOpen?: (after: number | null) => void;
}

/**
 * Follows GET /conversations/{id}/events so that writes from other tabs, agents or the
 * assistant show up live.
 */
export function useConversationEvents(
  session: Session,
  conversationId: number | null,
  handlers: ConversationEventHandlers,
): void {
  const lastMessageId = useEffectEvent(handlers.lastMessageId);
  const onMessage = useEffectEvent(handlers.onMessage);
  const onDelta = useEffectEvent(handlers.onDelta);
  const onToolResult = useEffectEvent(handlers.onToolResult);
  const onOpen = useEffectEvent((after: number | null) => handlers.onOpen?.(after));

  useEffect(() => {
    if (conversationId === null) return;
    const controller = new AbortController();
    let after: number | null = null;
    void followEvents(session, {
      path: () => userPath(session, `/conversations/${conversationId}/events`),
      lastEventId: () => {
        after = lastMessageId();
        return after === null ? null : String(after);
      },
      onEvent: (event, data) => {
        if (event === "message") onMessage(data as unknown as Message);
        else if (event === "delta" && typeof data.text === "string") onDelta(data.text);
        else if (event === "tool_result") onToolResult();
      },
      onOpen: () => onOpen(after),
      signal: controller.signal,
    });
    return () => controller.abort();
  }, [session, conversationId]);
}
