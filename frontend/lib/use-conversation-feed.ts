"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { apiJson, userPath } from "./api-client";
import { describeError } from "./api-error";
import type { Session } from "./auth-store";
import type { Message } from "./types";
import { useConversationEvents } from "./use-conversation-events";

export interface ConversationFeed {
  messages: Message[];
  loading: boolean;
  error: string | null;
  /** Adds messages this tab stored itself (the stream brings them too; ids deduplicate). */
  add: (messages: Message[]) => void;
}

function merge(existing: Message[], incoming: Message[]): Message[] {
  const byId = new Map(existing.map((m) => [m.id, m]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** A conversation shown beside the chat (a run, a thread): its history, then live messages. */
export function useConversationFeed(session: Session, conversationId: number | null): ConversationFeed {
  const [state, setState] = useState<{ id: number | null; messages: Message[]; loading: boolean; error: string | null }>({
    id: conversationId,
    messages: [],
    loading: conversationId !== null,
    error: null,
  });
  const latest = useRef(state);
  useEffect(() => {
    latest.current = state;
  });

  if (state.id !== conversationId) {
    setState({ id: conversationId, messages: [], loading: conversationId !== null, error: null });
  }

  const add = useCallback((messages: Message[]) => {
    setState((s) => {
      const mine = messages.filter((m) => m.conversation_id === s.id);
      return mine.length ? { ...s, messages: merge(s.messages, mine) } : s;
    });
  }, []);

  useEffect(() => {
    if (conversationId === null) return;
    const controller = new AbortController();
    apiJson<Message[]>(session, userPath(session, `/conversations/${conversationId}/messages?limit=200`), {
      signal: controller.signal,
    })
      .then((messages) => {
        setState((s) => (s.id === conversationId ? { ...s, loading: false, messages: merge(s.messages, messages) } : s));
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setState((s) => (s.id === conversationId ? { ...s, loading: false, error: describeError(error) } : s));
      });
    return () => controller.abort();
  }, [session, conversationId]);

  useConversationEvents(session, conversationId, {
    lastMessageId: () => latest.current.messages.at(-1)?.id ?? null,
    onMessage: (_id, message) => add([message]),
  });

  return { messages: state.messages, loading: state.loading, error: state.error, add };
}
