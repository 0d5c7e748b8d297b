"use client";

import { useCallback } from "react";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import type { Conversation } from "./types";

/**
 * The person's inbox: the `inbox` conversation of the list when it exists (its unread count
 * comes with it and with the person's event stream); opening it creates it on first use.
 */
export function useInbox(session: Session, conversations: Conversation[] | null, onCreated: (inbox: Conversation) => void) {
  const inbox = conversations?.find((c) => c.mode === "inbox") ?? null;
  const open = useCallback(async (): Promise<number> => {
    if (inbox) return inbox.id;
    const created = await apiJson<Conversation>(session, userPath(session, "/inbox"));
    onCreated(created);
    return created.id;
  }, [session, inbox, onCreated]);
  return { inbox, open };
}
