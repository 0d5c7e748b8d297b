"use client";

import { useCallback, useEffect, useEffectEvent, useRef } from "react";
import { userPath } from "./api-client";
import type { Session } from "./auth-store";
import { followEvents } from "./event-stream";
import type { Message } from "./types";

export interface LiveToolCallEvent {
  call_id: string;
  tool: string;
  parameters: Record<string, unknown> | null;
}

export interface LiveToolResultEvent {
  call_id: string;
  tool: string;
  result: unknown;
}

/** Each handler is told the conversation whose stream delivered the event. */
export interface ConversationEventHandlers {
  /**
   * The newest message already shown, sent as `Last-Event-ID` on each (re)connect so the
   * server sends exactly what follows it (0: from the start); null: from now on.
   */
  lastMessageId: () => number | null;
  onMessage: (conversationId: number, message: Message) => void;
  onDelta?: (conversationId: number, text: string) => void;
  onToolCall?: (conversationId: number, call: LiveToolCallEvent) => void;
  onToolResult?: (conversationId: number, result: LiveToolResultEvent) => void;
  /** The reply being written is over: stored as `messageId` (it follows), or null. */
  onReplyEnd?: (conversationId: number, messageId: number | null) => void;
  /** Each (re)connection: the stream starts again, with the text so far of a running reply. */
  onOpen?: (conversationId: number) => void;
}

/**
 * Follows GET /conversations/{id}/events: every message stored in the conversation and the
 * reply being written (this tab's, another tab's, an agent's), live. Returns `reconnectNow`:
 * a stream waiting to reconnect (its backoff grows to 30 s while the API is away) connects
 * at once, for when the API is known to be back (it has just stored this tab's message).
 */
export function useConversationEvents(
  session: Session,
  conversationId: number | null,
  handlers: ConversationEventHandlers,
): () => void {
  const wake = useRef<(() => void) | null>(null);
  const lastMessageId = useEffectEvent(handlers.lastMessageId);
  const onEvent = useEffectEvent((id: number, event: string, data: Record<string, unknown>) => {
    switch (event) {
      case "message":
        handlers.onMessage(id, data as unknown as Message);
        break;
      case "delta":
        if (typeof data.text === "string") handlers.onDelta?.(id, data.text);
        break;
      case "tool_call":
        if (typeof data.call_id === "string") handlers.onToolCall?.(id, data as unknown as LiveToolCallEvent);
        break;
      case "tool_result":
        if (typeof data.call_id === "string") handlers.onToolResult?.(id, data as unknown as LiveToolResultEvent);
        break;
      case "reply_end":
        handlers.onReplyEnd?.(id, typeof data.message_id === "number" ? data.message_id : null);
        break;
      default:
        break;
    }
  });
  const onOpen = useEffectEvent((id: number) => handlers.onOpen?.(id));

  useEffect(() => {
    if (conversationId === null) return;
    const controller = new AbortController();
    void followEvents(session, {
      path: () => userPath(session, `/conversations/${conversationId}/events`),
      lastEventId: () => {
        const after = lastMessageId();
        return after === null ? null : String(after);
      },
      onEvent: (event, data) => {
        if (!controller.signal.aborted) onEvent(conversationId, event, data);
      },
      onOpen: () => onOpen(conversationId),
      onWaiting: (next) => {
        wake.current = next;
      },
      signal: controller.signal,
    });
    return () => {
      controller.abort();
      wake.current = null;
    };
  }, [session, conversationId]);

  return useCallback(() => wake.current?.(), []);
}
