"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { authNoticeFromUrl, clearFromUrl, ssoLinkResultFromUrl } from "@/lib/auth-api";
import { userPath } from "@/lib/api-client";
import type { Session } from "@/lib/auth-store";
import { initialConversationId, questionFromUrl, useConversationUrl } from "@/lib/conversation-url";
import type { NewConversationMode } from "@/lib/types";
import { useChat } from "@/lib/use-chat";
import { useConversations } from "@/lib/use-conversations";
import { useHealth } from "@/lib/use-health";
import { PHONE_QUERY, useMediaQuery } from "@/lib/use-media-query";
import { useTasks } from "@/lib/use-tasks";
import { useUserEvents } from "@/lib/use-user-events";
import { useInbox } from "@/lib/use-inbox";
import { useMutes } from "@/lib/use-mutes";
import { useRuns } from "@/lib/use-runs";
import { idleWorkRuns } from "@/lib/idle-runs";
import { useSessionCheck } from "@/lib/use-session-check";
import { AccountPanel } from "./account-panel";
import { AppHeader } from "./app-header";
import { InboxEntry } from "./inbox-entry";
import { RunSheet } from "./run-sheet";
import { RunsButton } from "./runs-button";
import { RunsPanel } from "./runs-panel";
import { ChatPanel } from "./chat-panel";
import { CommandPalette, usePaletteShortcut } from "./command-palette";
import { ConversationsPanel } from "./conversations-panel";
import { Drawer } from "./drawer";
import { SearchBox } from "./search-box";
import { StatusBanners } from "./status-banners";
import { TasksPanel } from "./tasks-panel";

const ENDED_RUNS = new Set(["completed", "failed", "cancelled", "timed_out"]);

const DRAWERS = [
  { name: "conversations", side: "left", title: "Conversations" },
  { name: "tasks", side: "right", title: "Tasks" },
] as const;

/**
 * The signed-in screen: conversations | chat | tasks side by side on wide screens; at phone
 * width the chat alone, with conversations and tasks in drawers.
 */
export function Workspace({ session }: { session: Session }) {
  const health = useHealth();
  const tasks = useTasks(session);
  const conversations = useConversations(session);
  const phone = useMediaQuery(PHONE_QUERY);
  const [drawer, setDrawer] = useState<"conversations" | "tasks" | "runs" | null>(null);
  const runs = useRuns(session);
  const [openRunId, setOpenRunId] = useState<number | null>(null);
  // Back from "Link single sign-on": the account dialog opens with how it went.
  const [ssoResult] = useState(ssoLinkResultFromUrl);
  const [accountOpen, setAccountOpen] = useState(ssoResult !== null);
  // Single sign-on made a new account although one here has the person's name or email: say why.
  const [ssoNotice, setSsoNotice] = useState(() => authNoticeFromUrl(session.userId));
  useEffect(() => {
    clearFromUrl("sso_link");
    clearFromUrl("auth_notice");
  }, []);
  // The message a search result pointed at, shown and marked when its conversation opens.
  // (A notification opens `/c/<id>?question=<id>`: the conversation at its question.)
  const [foundMessage, setFoundMessage] = useState<number | null>(questionFromUrl);
  const [closedQuestions, setClosedQuestions] = useState<ReadonlySet<number>>(() => new Set());
  const [questionsVersion, setQuestionsVersion] = useState(0);
  const mutes = useMutes(session);
  const { refresh: refreshTasks } = tasks;
  const { refresh: refreshConversations, apply: applyConversation } = conversations;
  const { reportUnreachable } = health;

  // With the person's event stream live, it brings every change a turn makes to tasks and
  // the conversation list: the turn itself does not fetch them again.
  const eventsLiveRef = useRef(false);
  const callbacks = useMemo(
    () => ({
      onTurnFinished: () => {
        if (eventsLiveRef.current) return;
        refreshTasks();
        refreshConversations();
      },
      onToolResult: () => {
        if (!eventsLiveRef.current) refreshTasks();
      },
      onUnreachable: reportUnreachable,
    }),
    [refreshTasks, refreshConversations, reportUnreachable],
  );
  const [initialId] = useState(() => initialConversationId(session.userId));
  const chat = useChat(session, initialId, callbacks);
  const { select } = chat;
  useConversationUrl(session.userId, chat.state.conversationId, select);

  const eventsLive = useUserEvents(session, {
    onTaskChange: tasks.apply,
    onConversationChange: applyConversation,
    onRunChange: runs.apply,
    onUnread: conversations.setUnread,
    onQuestion: ({ action, questionId }) => {
      setQuestionsVersion((n) => n + 1);
      if (action === "opened") return;
      setClosedQuestions((set) => (set.has(questionId) ? set : new Set(set).add(questionId)));
    },
    onResync: () => {
      refreshTasks();
      refreshConversations();
      runs.refresh();
      setQuestionsVersion((n) => n + 1);
    },
    // The stream dropping is often the first sign of an API restart: the banner, at once.
    onDropped: health.recheck,
  }, health.recoveries);
  useSessionCheck(session);

  useEffect(() => {
    eventsLiveRef.current = eventsLive;
  }, [eventsLive]);

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

  const open = useCallback(
    (id: number | null) => {
      select(id);
      setDrawer(null);
    },
    [select],
  );

  // The ⌘K / Ctrl+K search palette, over whatever is open (a phone's drawer closes for it).
  const [paletteOpen, setPaletteOpen] = useState(false);
  const openFound = useCallback(
    (id: number, messageId: number | null) => {
      setFoundMessage(messageId);
      open(id);
    },
    [open],
  );
  const togglePalette = useCallback(() => {
    setDrawer(null);
    setPaletteOpen((value) => !value);
  }, []);
  usePaletteShortcut(togglePalette);

  const startNew = useCallback(
    async (mode: NewConversationMode) => {
      // A chat starts with its first message (the API creates it); a work session is created now.
      if (mode === "chat") open(null);
      else open((await conversations.create(mode)).id);
      document.getElementById("message-input")?.focus();
    },
    [conversations, open],
  );

  // A new chat has no conversation yet: choosing its model makes one, empty, and opens it.
  const chooseModel = useCallback(
    async (model: string | null) => {
      const id = chat.state.conversationId;
      if (id !== null) return conversations.setModel(id, model);
      const created = await conversations.create("chat");
      await conversations.setModel(created.id, model);
      select(created.id);
    },
    [chat.state.conversationId, conversations, select],
  );

  const inbox = useInbox(session, conversations.conversations, (created) =>
    applyConversation({ action: "created", id: created.id, conversation: created }),
  );
  const openInbox = useCallback(async () => {
    open(await inbox.open());
  }, [inbox, open]);

  const removeConversation = useCallback(
    async (id: number) => {
      await conversations.remove(id);
      if (chat.state.conversationId === id) select(null);
    },
    [conversations, chat.state.conversationId, select],
  );

  const current = conversations.conversations?.find((c) => c.id === chat.state.conversationId) ?? null;
  // A run that has ended takes no more messages: its conversation is read-only.
  const endedRun = current?.mode === "run" ? runs.runs?.find((r) => r.conversation_id === current.id && ENDED_RUNS.has(r.status)) : undefined;
  const openTasks = tasks.tasks?.filter((t) => !t.completed).length ?? null;

  const conversationsPanel = (
    <ConversationsPanel
      conversations={conversations.conversations}
      error={health.reachable === false ? null : conversations.error}
      currentId={chat.state.conversationId}
      onSelect={open}
      onNew={startNew}
      onRename={conversations.rename}
      onDelete={removeConversation}
      onRetry={conversations.refresh}
      muted={mutes.known ? mutes.muted : null}
      onMute={mutes.setMuted}
      onFlag={conversations.setFlag}
      exportHref={(id, format) => `/api${userPath(session, `/conversations/${id}/export`)}?format=${format}`}
      search={
        <SearchBox session={session} onOpen={openFound} onPalette={togglePalette} />
      }
      pinned={
        <InboxEntry
          unread={inbox.inbox?.unread ?? 0}
          current={inbox.inbox !== null && inbox.inbox.id === chat.state.conversationId}
          onOpen={() => void openInbox()}
        />
      }
    />
  );
  const openRun = runs.runs?.find((r) => r.id === openRunId) ?? null;
  const idleRuns = idleWorkRuns(conversations.conversations);
  const workHealth = health.health?.work;
  const workUnavailable = workHealth && !workHealth.available ? (workHealth.reason ?? "work mode is off") : null;
  const tasksPanel = <TasksPanel tasks={tasks} apiDown={health.reachable === false} onUnreachable={reportUnreachable} />;

  return (
    <div className={`app${phone ? " phone" : ""}`}>
      <AppHeader
        userId={session.userId}
        phone={phone}
        openTasks={openTasks}
        onOpenConversations={() => setDrawer("conversations")}
        onOpenTasks={() => setDrawer("tasks")}
        onOpenAccount={() => setAccountOpen(true)}
        extra={<RunsButton runs={runs.runs} idle={idleRuns} onOpen={() => setDrawer("runs")} />}
      />
      <StatusBanners health={health} work={current?.mode === "work"} />
      {ssoNotice && (
        <div className="banner info" role="status" data-testid="sso-notice">
          <p>{ssoNotice}</p>
          <button type="button" className="button small" onClick={() => setSsoNotice(null)} data-testid="sso-notice-dismiss">
            Got it
          </button>
        </div>
      )}
      <main className={`workspace${openRun && !phone ? " with-run" : ""}${!openRun && current?.mode === "work" ? " no-side" : ""}`} id="main">
        {!phone && conversationsPanel}
        <ChatPanel
          session={session}
          chat={chat}
          conversation={current}
          closedQuestions={closedQuestions}
          questionsVersion={questionsVersion}
          workUnavailable={workUnavailable}
          foundMessage={foundMessage}
          eventsLive={eventsLive}
          onChooseModel={chooseModel}
          closedReason={endedRun ? `This run has ended (${endedRun.status.replace("_", " ")}): it takes no more messages.` : null}
        />
        {/* A run opens beside the chat: in the tasks column on wide screens, over the chat on phones. */}
        {openRun ? (
          <RunSheet key={openRun.id} session={session} run={openRun} onClose={() => setOpenRunId(null)} closedQuestions={closedQuestions} />
        ) : (
          // A work session is about files and commands: the task list stays out of its way.
          !phone && current?.mode !== "work" && tasksPanel
        )}
      </main>
      <Drawer open={drawer === "runs"} onOpenChange={(value) => setDrawer(value ? "runs" : null)} side="right" title="Runs" testId="runs-drawer">
        <RunsPanel
          session={session}
          runs={runs.runs}
          error={runs.error}
          openRunId={openRunId}
          idle={idleRuns}
          onOpen={(run) => {
            setOpenRunId(run.id);
            setDrawer(null);
          }}
        />
      </Drawer>
      {phone &&
        DRAWERS.map(({ name, side, title }) => (
          <Drawer
            key={name}
            open={drawer === name}
            onOpenChange={(value) => setDrawer(value ? name : null)}
            side={side}
            title={title}
            testId={`${name}-drawer`}
          >
            {name === "conversations" ? conversationsPanel : tasksPanel}
          </Drawer>
        ))}
      <AccountPanel session={session} open={accountOpen} onOpenChange={setAccountOpen} ssoResult={ssoResult} />
      <CommandPalette session={session} open={paletteOpen} onOpenChange={setPaletteOpen} onOpen={openFound} />
    </div>
  );
}
