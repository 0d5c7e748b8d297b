"use client";

import { useCallback } from "react";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import type { Conversation } from "./types";
import { useRemoteList } from "./use-remote-list";

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

function sortByActivity(list: Conversation[]): Conversation[] {
  return [...list].sort(byActivity);
}

/** The conversation list, newest activity first. */
export function useConversations(session: Session): ConversationsApi {
  const {
    items: conversations,
    setItems: setConversations,
    error,
    refresh,
  } = useRemoteList<Conversation>(session, "/conversations", 30_000, sortByActivity);

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
    [session, refresh, setConversations],
  );

  const rename = useCallback(
    async (id: number, title: string) => {
      const updated = await apiJson<Conversation>(session, userPath(session, `/conversations/${id}`), {
        method: "PATCH",
        body: { title },
      });
      setConversations((list) => list?.map((c) => (c.id === id ? { ...c, ...updated } : c)) ?? list);
    },
    [session, setConversations],
  );

  const remove = useCallback(
    async (id: number) => {
      await apiJson<void>(session, userPath(session, `/conversations/${id}`), { method: "DELETE" });
      setConversations((list) => list?.filter((c) => c.id !== id) ?? list);
    },
    [session, setConversations],
  );

  return { conversations, error, refresh, create, rename, remove };
}
