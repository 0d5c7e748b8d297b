"use client";

import { useEffect, useRef, useState } from "react";
import { DIRECT_MODES, permissionOf, questionOpen } from "@/lib/agent-types";
import { answerQuestion, type QuestionReply } from "@/lib/answer-question";
import { ApiError, describeError } from "@/lib/api-error";
import { replying } from "@/lib/chat-reducer";
import type { Session } from "@/lib/auth-store";
import { postMessage } from "@/lib/post-message";
import { sendRoute } from "@/lib/send-route";
import type { ChatApi, SendOutcome } from "@/lib/use-chat";
import type { Conversation } from "@/lib/types";
import { useKeptDraft } from "@/lib/use-kept-draft";
import { useComposerAttachments, type PendingFile } from "@/lib/use-attachments";
import { useMarkRead } from "@/lib/use-mark-read";
import { useVoiceMode } from "@/lib/use-voice-mode";
import { useWorkState } from "@/lib/use-work-state";
import { agentMessageRenderer } from "./agent-messages";
import { ChangedFiles } from "./changed-files";
import { ChatNotice } from "./chat-notice";
import { Composer } from "./composer";
import { conversationTitle } from "./conversation-item";
import { MessageList } from "./message-list";
import { ModelPicker } from "./model-picker";
import { OpenQuestions } from "./open-questions";
import { QueuedMessages } from "./queued-messages";
import { VoiceModeBar } from "./voice-mode-bar";
import { WorkBar } from "./work-bar";

const PLACEHOLDERS: Record<string, string> = {
  inbox: "Write to your agents (a plain message answers the oldest open question)",
  work: "Tell Claude Code what to do (Enter to send, Shift+Enter for a new line)",
  run: "Write to this run",
  delegation: "Write into this thread",
};

const EMPTY_HINTS: Record<string, string> = {
  inbox: "Nothing here yet. Messages and questions from your agents arrive here, even while Parley is closed.",
  work: "A coding session with Claude Code in your workspace. Say what to do; it asks before it edits files or runs commands.",
  run: "This run has no messages yet.",
  delegation: "This thread has no messages yet.",
};

/** Puts text back into the message box without losing what is already there. */
export function joinDraft(current: string, text: string): string {
  if (!text.trim() || current.includes(text)) return current;
  return current.trim() ? `${current.replace(/\s+$/, "")}\n\n${text}` : text;
}

/** The open conversation: title, messages, streamed reply, errors and the message box. */
interface Props {
  session: Session;
  chat: ChatApi;
  conversation: Conversation | null;
  /** Questions answered or timed out (from the person's event stream). */
  closedQuestions?: ReadonlySet<number>;
  /** Why work sessions can't run here, if they can't (from the health check). */
  workUnavailable?: string | null;
  /** A message a search led to: scrolled into view and marked. */
  foundMessage?: number | null;
  /** Moves whenever a question opens or closes anywhere (for the inbox's "Waiting on you"). */
  questionsVersion?: number;
  /** The person's event stream is live: it keeps `conversation` (and its work state) current. */
  eventsLive?: boolean;
  /** Sets the chat's model (a new chat is made first); the picker shows when given. */
  onChooseModel?: (model: string | null) => Promise<void>;
  /** Why nothing can be written here (a run that has ended), in place of the message box. */
  closedReason?: string | null;
}

export function ChatPanel({
  session,
  chat,
  conversation,
  closedQuestions,
  workUnavailable,
  foundMessage,
  questionsVersion = 0,
  eventsLive = false,
  onChooseModel,
  closedReason = null,
}: Props) {
  const { state } = chat;
  const mode = state.conversationId === null ? "chat" : (conversation?.mode ?? "chat");
  const direct = DIRECT_MODES.has(mode);
  const workApi = useWorkState(session, state.conversationId === null ? null : conversation, mode === "work", eventsLive);
  const [postError, setPostError] = useState<string | null>(null);
  // The server said this conversation is closed to writes (a run ended since the list was read).
  const [refusedAs, setRefusedAs] = useState<{ id: number; text: string } | null>(null);
  const closed = closedReason ?? (refusedAs !== null && refusedAs.id === state.conversationId ? refusedAs.text : null);
  useMarkRead(session, state.conversationId, state.messages, conversation?.unread ?? 0);

  async function post(text: string): Promise<void> {
    if (state.conversationId === null) return;
    await postMessage(session, state.conversationId, { text });
    workApi.refresh();
  }

  async function answer(questionId: number, reply: QuestionReply): Promise<void> {
    await answerQuestion(session, questionId, reply);
    workApi.refresh();
  }

  const [draft, setDraft] = useKeptDraft(session.userId);
  // Files go with chat messages only (the API refuses them elsewhere).
  const attachments = useComposerAttachments(session, mode === "chat");
  // Messages sent while a reply runs: each waits, shown as its own bubble, and goes out in
  // order, one turn each.
  const [queued, setQueued] = useState<readonly string[]>([]);
  const [queueNote, setQueueNote] = useState<string | null>(null);
  const queue = useRef<string[]>([]);

  // A reply is being written (this tab's, another tab's, or one from before a reload): the
  // composer shows Stop, and what is sent meanwhile waits for it.
  const replyRunning = replying(state, mode === "chat");
  const replyRunningRef = useRef(replyRunning);
  // A work session waits on one of its questions (asked while its turn still streams): what
  // is typed then is sent at once, as the answer, never queued behind that turn.
  const questionWaiting = mode === "work" && state.messages.some((m) => questionOpen(m, state.messages, closedQuestions));
  const questionWaitingRef = useRef(questionWaiting);
  // This tab's turn has not said how it ended yet: its queue waits for that (a failure puts
  // the queued text back in the box).
  const outcomePending = useRef(false);
  useEffect(() => {
    replyRunningRef.current = replyRunning;
    questionWaitingRef.current = questionWaiting;
  });
  // What was queued goes out once the reply before it is over on screen.
  useEffect(() => {
    if (replyRunning || outcomePending.current) return;
    releaseQueue();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs when the reply ends
  }, [replyRunning]);

  const restore = (text: string) => setDraft((current) => joinDraft(current, text));

  /** Everything still queued, taken off the queue (joined, to go back in the box). */
  function takeQueue(): string | null {
    const all = queue.current;
    queue.current = [];
    setQueued([]);
    return all.length ? all.join("\n\n") : null;
  }

  /** The first queued message goes out; the next waits for its reply. */
  function releaseQueue() {
    if (replyRunningRef.current || outcomePending.current || chat.isSending()) return;
    const [next, ...rest] = queue.current;
    if (next === undefined) return;
    queue.current = rest;
    setQueued(rest);
    void send(next);
  }

  function unqueue(index: number) {
    const text = queue.current[index];
    if (text === undefined) return;
    queue.current = queue.current.filter((_, i) => i !== index);
    setQueued(queue.current);
    restore(text);
  }

  /** Runs one of this tab's turns (send, retry, edit, regenerate) and settles its queue. */
  async function ownTurn(turn: () => Promise<SendOutcome>): Promise<SendOutcome> {
    outcomePending.current = true;
    let outcome: SendOutcome = "abandoned";
    try {
      outcome = await turn();
    } finally {
      outcomePending.current = false;
    }
    if (outcome === "sent") {
      releaseQueue(); // now, or when the reply's stored copy has arrived
      return outcome;
    }
    const next = takeQueue();
    if (next !== null) {
      // The reply it waited for did not succeed: the queued text goes back to the box, never lost.
      restore(next);
      setQueueNote("Your queued message wasn't sent because the reply before it didn't finish. It's back in the message box.");
    }
    return outcome;
  }

  async function send(typed: string, files: PendingFile[] = []): Promise<void> {
    setQueueNote(null);
    setPostError(null);
    const busy = chat.isSending() || replyRunningRef.current || outcomePending.current;
    const route = sendRoute({ direct, questionWaiting: questionWaitingRef.current, busy });
    if (files.length > 0 && route !== "turn") {
      // Files are not queued: they stay in the box until the reply is over.
      restore(typed);
      attachments.restore(files);
      setPostError("Files can be sent once the current reply finishes: they're still attached.");
      return;
    }
    // A message of files alone still says something (a message is never empty).
    const text = typed || `Attached ${files.map((f) => f.name).join(", ")}`;
    const ids = files.flatMap((f) => (f.id === undefined ? [] : [f.id]));
    if (route === "post") {
      // Inbox, runs and threads have no assistant turn: the message is stored and the
      // conversation's event stream shows it (and whatever the agents answer). A work
      // session's open question takes its answer the same way, not behind the turn that asked.
      try {
        await post(text);
      } catch (error) {
        restore(text);
        if (error instanceof ApiError && error.code === "run_finished" && state.conversationId !== null) {
          setRefusedAs({ id: state.conversationId, text: `${error.message}. It takes no more messages.` });
          return;
        }
        setPostError(`Not sent; your message is back in the box. ${describeError(error)}`);
      }
      return;
    }
    if (route === "queue") {
      // Messages typed while a reply runs wait for it, then go out by themselves.
      queue.current = [...queue.current, text];
      setQueued(queue.current);
      return;
    }
    await ownTurn(async () => {
      const outcome = await chat.send(text, ids);
      if (outcome === "unsent") {
        restore(typed);
        attachments.restore(files);
      }
      return outcome;
    });
  }

  /** Another answer to the reply's question, on a new branch: this one stays a switch away. */
  function regenerate(replyId: number) {
    void ownTurn(() => chat.regenerate(replyId));
  }

  /** The edited text goes on a new branch in place of the message; the original stays a switch away. */
  function editMessage(messageId: number, text: string) {
    void ownTurn(async () => {
      const outcome = await chat.edit(messageId, text);
      if (outcome === "unsent") restore(text);
      return outcome;
    });
  }

  async function retry() {
    const notice = state.notice;
    const text = notice?.action.type === "send" ? notice.action.text : null;
    if (text !== null) setDraft((current) => (current.trim() === text ? "" : current));
    await ownTurn(async () => {
      const outcome = await chat.retry();
      if (outcome === "unsent" && text !== null) restore(text);
      return outcome;
    });
  }

  // Hands-free: speak, hear the reply, speak again (chat conversations, where replies come).
  const voice = useVoiceMode({ messages: state.messages, replying: replyRunning, send });

  // A copy made by an edit before edits branched in place names its original.
  const copiedFrom = state.messages[0]?.meta?.copied_from as { conversation_id?: unknown } | undefined;
  const origin = typeof copiedFrom?.conversation_id === "number" ? copiedFrom.conversation_id : null;
  const title = state.conversationId === null ? "New chat" : conversation ? conversationTitle(conversation) : "Conversation";

  return (
    <section className="panel chat-panel" aria-labelledby="chat-title" data-testid="chat-panel">
      <div className="panel-head chat-head">
        <h2 id="chat-title" data-testid="chat-title" data-conversation-id={state.conversationId ?? ""}>
          {title}
        </h2>
        {conversation && conversation.mode !== "chat" && <span className="mode-tag">{conversation.mode}</span>}
        {mode === "chat" && onChooseModel && (
          <ModelPicker session={session} conversation={state.conversationId === null ? null : conversation} onChoose={onChooseModel} />
        )}
      </div>
      {origin !== null && (
        <p className="fork-note muted small" data-testid="fork-note">
          An edited copy: the original conversation is unchanged.{" "}
          <a href={`/c/${origin}`} data-testid="fork-origin">
            Open the original
          </a>
        </p>
      )}
      {mode === "work" && (
        <WorkBar
          work={workApi.work}
          ending={workApi.ending}
          permissionWaiting={state.messages.some((m) => permissionOf(m) !== null && questionOpen(m, state.messages, closedQuestions))}
          sending={state.sending}
          onStop={workApi.stop}
          onEnd={workApi.end}
          unavailable={workUnavailable}
        />
      )}
      {mode === "work" && <ChangedFiles messages={state.messages} />}
      {mode === "inbox" && state.conversationId !== null && (
        <OpenQuestions session={session} inboxId={state.conversationId} version={questionsVersion} />
      )}
      <MessageList
        state={state}
        onRetry={() => void retry()}
        onExample={(text) => void send(text)}
        emptyHint={EMPTY_HINTS[mode]}
        chat={mode === "chat"}
        focusId={foundMessage ?? null}
        replyAuthor={mode === "work" ? "claude" : null}
        onEdit={mode === "chat" ? editMessage : undefined}
        onRegenerate={mode === "chat" ? regenerate : undefined}
        branches={chat.branches}
        onSwitchBranch={(id) => void chat.switchBranch(id)}
        renderMessage={mode === "chat" ? undefined : agentMessageRenderer({ messages: state.messages, onAnswer: answer, writable: true, closed: closedQuestions })}
      />
      {postError && (
        <p className="queued-note small error-text" role="alert" data-testid="post-error">
          {postError}
        </p>
      )}
      <QueuedMessages queued={queued} onUnqueue={unqueue} />
      {queueNote && (
        <p className="queued-note small" role="status" data-testid="queued-returned">
          {queueNote}
        </p>
      )}
      {mode === "chat" && <VoiceModeBar voice={voice} />}
      {state.notice && <ChatNotice notice={state.notice} onRetry={() => void retry()} onDismiss={chat.dismissNotice} />}
      {closed !== null ? (
        <p className="queued-note muted small" role="status" data-testid="composer-closed">
          {closed}
        </p>
      ) : (
      <Composer
        draft={draft}
        setDraft={setDraft}
        sending={replyRunning}
        stopping={state.stopping}
        onSend={send}
        onStop={() => void chat.stop()}
        placeholder={PLACEHOLDERS[mode]}
        attachments={mode === "chat" ? attachments : undefined}
      />
      )}
    </section>
  );
}
