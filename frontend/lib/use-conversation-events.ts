"use client";

import { useEffect, useEffectEvent } from "react";
import { apiFetch, userPath } from "./api-client";
import { ApiError } from "./api-error";
import type { Session } from "./auth-store";
import { parseJson, readSse } from "./sse";
import type { Message } from "./types";

export interface ConversationEventHandlers {
  /** Last message id already shown, used as `after=` when (re)connecting. */
  lastMessageId: () => number | null;
  onMessage: (message: Message) => void;
  onDelta: (text: string) => void;
  onToolResult: () => void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Follows GET /conversations/{id}/events so that writes from other tabs, agents or the
 * assistant show up live. Reconnects with backoff; gives up quietly on 401/403/404
 * (the conversation is gone, or this server has no event stream).
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

  useEffect(() => {
    if (conversationId === null) return;
    const controller = new AbortController();
    const { signal } = controller;

    const run = async () => {
      let failures = 0;
      while (!signal.aborted) {
        try {
          const after = lastMessageId();
          const query = after !== null ? `?after=${after}` : "";
          const response = await apiFetch(session, userPath(session, `/conversations/${conversationId}/events${query}`), {
            accept: "text/event-stream",
            signal,
          });
          if (!response.body || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) return;
          failures = 0;
          for await (const event of readSse(response.body, signal)) {
            const data = parseJson<Record<string, unknown>>(event.data);
            if (data === null) continue;
            if (event.event === "message") onMessage(data as unknown as Message);
            else if (event.event === "delta" && typeof data.text === "string") onDelta(data.text);
            else if (event.event === "tool_result") onToolResult();
          }
        } catch (error) {
          if (signal.aborted) return;
          if (error instanceof ApiError && (error.status === 404 || error.status === 405 || error.unauthorized)) return;
        }
        failures += 1;
        await sleep(Math.min(30_000, 1_000 * 2 ** Math.min(failures, 5)), signal);
      }
    };
    void run();
    return () => controller.abort();
  }, [session, conversationId]);
}
