"use client";

import { useEffect, useRef } from "react";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import type { Message } from "./types";

/**
 * Moves the person's stored read position to the newest message of the open conversation, so
 * unread badges clear here and on every other device. Only when something from someone else
 * is new (the person's own messages move it on the server already).
 */
export function useMarkRead(session: Session, conversationId: number | null, messages: Message[], unread: number): void {
  const posted = useRef(new Map<number, number>());
  const lastId = messages.at(-1)?.id ?? null;
  const lastFromOthers = messages.findLast((m) => m.role !== "user")?.id ?? 0;

  useEffect(() => {
    if (conversationId === null || lastId === null) return;
    if ((posted.current.get(conversationId) ?? 0) >= lastId) return;
    const seen = posted.current.get(conversationId) ?? 0;
    if (lastFromOthers <= seen && unread === 0) return;
    posted.current.set(conversationId, lastId);
    apiJson(session, userPath(session, `/conversations/${conversationId}/read`), {
      method: "POST",
      body: { message_id: lastId },
    }).catch(() => posted.current.delete(conversationId));
  }, [session, conversationId, lastId, lastFromOthers, unread]);
}
