"use client";

import { useCallback } from "react";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import { applyChange } from "./list-change";
import type { Conversation, NewConversationMode } from "./types";
import { useUserResource } from "./use-user-resource";

export interface ConversationsApi {
  conversations: Conversation[] | null;
  error: string | null;
  refresh: () => void;
  /** Applies a change the person's event stream reported, without a refetch. */
  apply: (change: { action: string; id: number; conversation: Conversation | null }) => void;
  /** An `unread` event: the conversation's count of messages from others after the read position. */
  setUnread: (id: number, unread: number) => void;
  create: (mode: NewConversationMode) => Promise<Conversation>;
  setModel: (id: number, model: string | null) => Promise<void>;
  rename: (id: number, title: string) => Promise<void>;
  remove: (id: number) => Promise<void>;
  /** Archive/restore or pin/unpin. */
  setFlag: (id: number, flag: ConversationFlag, on: boolean) => Promise<void>;
}

export type ConversationFlag = "archived" | "pinned";

function activity(c: Conversation): string {
  return c.last_message_at ?? c.updated_at ?? c.created_at;
}

export function sortByActivity(list: Conversation[]): Conversation[] {
  return [...list].sort((a, b) => activity(b).localeCompare(activity(a)) || b.id - a.id);
}

/** The conversation list, newest activity first (SWR: refetched on focus, every 30 s, on demand). */
export function useConversations(session: Session): ConversationsApi {
  const { data, errorText, mutate } = useUserResource<Conversation[]>(session, "/conversations", {
    refreshInterval: 30_000,
  });

  const refresh = useCallback(() => void mutate(), [mutate]);

  const apply = useCallback<ConversationsApi["apply"]>(
    ({ action, id, conversation }) => {
      void mutate((list) => sortByActivity(applyChange(list, (c) => c.id === id, conversation, action === "deleted")), {
        revalidate: false,
      });
    },
    [mutate],
  );

  const setUnread = useCallback(
    (id: number, unread: number) => {
      void mutate((list) => list?.map((c) => (c.id === id ? { ...c, unread } : c)), { revalidate: false });
    },
    [mutate],
  );

  const create = useCallback(
    async (mode: NewConversationMode) => {
      const conversation = await apiJson<Conversation>(session, userPath(session, "/conversations"), {
        method: "POST",
        body: { mode },
      });
      await mutate((list) => [conversation, ...(list ?? []).filter((c) => c.id !== conversation.id)]);
      return conversation;
    },
    [session, mutate],
  );

  const rename = useCallback(
    async (id: number, title: string) => {
      const updated = await apiJson<Conversation>(session, userPath(session, `/conversations/${id}`), {
        method: "PATCH",
        body: { title },
      });
      await mutate((list) => list?.map((c) => (c.id === id ? { ...c, ...updated } : c)), { revalidate: false });
    },
    [session, mutate],
  );

  /** The model the chat's next replies come from (null: the configured one). */
  const setModel = useCallback(
    async (id: number, model: string | null) => {
      const updated = await apiJson<Conversation>(session, userPath(session, `/conversations/${id}/model`), {
        method: "PUT",
        body: { model },
      });
      await mutate((list) => list?.map((c) => (c.id === id ? { ...c, ...updated } : c)), { revalidate: false });
    },
    [session, mutate],
  );

  const remove = useCallback(
    async (id: number) => {
      await apiJson<void>(session, userPath(session, `/conversations/${id}`), { method: "DELETE" });
      await mutate((list) => list?.filter((c) => c.id !== id), { revalidate: false });
    },
    [session, mutate],
  );

  const setFlag = useCallback(
    async (id: number, flag: ConversationFlag, on: boolean) => {
      const updated = await apiJson<Conversation>(session, userPath(session, `/conversations/${id}/${flag}`), {
        method: "PUT",
        body: { [flag]: on },
      });
      await mutate((list) => list?.map((c) => (c.id === id ? { ...c, ...updated } : c)), { revalidate: false });
    },
    [session, mutate],
  );

  return {
    setFlag,
    conversations: data ? sortByActivity(data) : null,
    error: errorText,
    refresh,
    apply,
    setUnread,
    create,
    rename,
    setModel,
    remove,
  };
}
