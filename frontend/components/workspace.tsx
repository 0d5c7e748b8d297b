"use client";

import { useCallback, useEffect, useMemo, useRef } from "react";
import type { Session } from "@/lib/auth-store";
import { useChat } from "@/lib/use-chat";
import { useConversations } from "@/lib/use-conversations";
import { useHealth } from "@/lib/use-health";
import { useTasks } from "@/lib/use-tasks";
import { AppHeader } from "./app-header";
import { ChatPanel } from "./chat-panel";
import { ConversationsPanel } from "./conversations-panel";
import { StatusBanners } from "./status-banners";
import { TasksPanel } from "./tasks-panel";

/** The signed-in screen: conversations | chat | tasks, kept in sync with each other. */
export function Workspace({ session }: { session: Session }) {
  const health = useHealth();
  const tasks = useTasks(session);
  const conversations = useConversations(session);
  const { refresh: refreshTasks } = tasks;
  const { refresh: refreshConversations } = conversations;
  const { reportUnreachable } = health;

  const callbacks = useMemo(
    () => ({
      onTurnFinished: () => {
        refreshTasks();
        refreshConversations();
      },
      onToolResult: refreshTasks,
      onUnreachable: reportUnreachable,
    }),
    [refreshTasks, refreshConversations, reportUnreachable],
  );
  const chat = useChat(session, callbacks);

  // When the API comes back after an outage, reload everything that may be stale.
  const seenRecoveries = useRef(health.recoveries);
  const { retry: retryChat } = chat;
  const chatNeedsReload = chat.state.notice?.action.type === "reload";
  useEffect(() => {
    if (health.recoveries === seenRecoveries.current) return;
    seenRecoveries.current = health.recoveries;
    refreshTasks();
    refreshConversations();
    if (chatNeedsReload) void retryChat();
  }, [health.recoveries, refreshTasks, refreshConversations, chatNeedsReload, retryChat]);

  const { select } = chat;
  const startNew = useCallback(
    async (mode: "chat" | "work") => {
      // A chat starts with its first message (the API creates it); a work session is created now.
      if (mode === "chat") select(null);
      else select((await conversations.create(mode)).id);
      document.getElementById("message-input")?.focus();
    },
    [conversations, select],
  );

  const removeConversation = useCallback(
    async (id: number) => {
      await conversations.remove(id);
      if (chat.state.conversationId === id) select(null);
    },
    [conversations, chat.state.conversationId, select],
  );

  const current = conversations.conversations?.find((c) => c.id === chat.state.conversationId) ?? null;

  return (
    <div className="app">
      <AppHeader userId={session.userId} />
      <StatusBanners health={health} />
      <main className="workspace" id="main">
        <ConversationsPanel
          conversations={conversations.conversations}
          error={conversations.error}
          currentId={chat.state.conversationId}
          onSelect={select}
          onNew={startNew}
          onRename={conversations.rename}
          onDelete={removeConversation}
          onRetry={conversations.refresh}
        />
        <ChatPanel chat={chat} conversation={current} />
        <TasksPanel tasks={tasks} />
      </main>
    </div>
  );
}
