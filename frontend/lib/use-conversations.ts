"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { apiJson, userPath } from "./api-client";
import { describeError } from "./api-error";
import type { Session } from "./auth-store";
import type { Conversation } from "./types";
import { useRefreshTriggers } from "./use-refresh-triggers";

export interface ConversationsApi {
  conversations: Conversation[] | null;
  error: string | null;
  refresh: () => void;
  create: (mode: "chat" | "work") => Promise<Conversation>;
  rename: (id: number, title: string) => Promise<void>;
  remove: (id: number) => Promise<void>;
}

function byActivity(a: Conversation, b: Conversation): number {
  const at = a.last_message_at ?? a.updated_at ?? a.created_at;
  const bt = b.last_message_at ?? b.updated_at ?? b.created_at;
  return bt.localeCompare(at) || b.id - a.id;
}

/** The conversation list, newest activity first. */
export function useConversations(session: Session): ConversationsApi {
  const [conversations, setConversations] = useState<Conversation[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const controller = new AbortController();
    const ticket = ++latest.current;
    apiJson<Conversation[]>(session, userPath(session, "/conversations"), { signal: controller.signal })
      .then((list) => {
        if (ticket !== latest.current) return;
        setConversations([...list].sort(byActivity));
        setError(null);
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted || ticket !== latest.current) return;
        setError(describeError(err));
      });
    return () => controller.abort();
  }, [session, generation]);

  const refresh = useCallback(() => setGeneration((n) => n + 1), []);
  useRefreshTriggers(refresh, 30_000);

  const create = useCallback(
    async (mode: "chat" | "work") => {
      const conversation = await apiJson<Conversation>(session, userPath(session, "/conversations"), {
        method: "POST",
        body: { mode },
      });
      setConversations((list) => [conversation, ...(list ?? []).filter((c) => c.id !== conversation.id)]);
      refresh();
      return conversation;
    },
    [session, refresh],
  );

  const rename = useCallback(
    async (id: number, title: string) => {
      const updated = await apiJson<Conversation>(session, userPath(session, `/conversations/${id}`), {
        method: "PATCH",
        body: { title },
      });
      setConversations((list) => list?.map((c) => (c.id === id ? { ...c, ...updated } : c)) ?? list);
    },
    [session],
  );

  const remove = useCallback(
    async (id: number) => {
      await apiJson<void>(session, userPath(session, `/conversations/${id}`), { method: "DELETE" });
      setConversations((list) => list?.filter((c) => c.id !== id) ?? list);
    },
    [session],
  );

  return { conversations, error, refresh, create, rename, remove };
}
