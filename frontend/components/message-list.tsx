"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";
import { endsWithFailure, liveToolCalls, replying, replyInFlight, type ChatState } from "@/lib/chat-reducer";
import type { Message } from "@/lib/types";
import type { Branch } from "@/lib/use-chat";
import { MessageBubble } from "./message-bubble";
import { StoredMessage } from "./stored-message";

const NEAR_BOTTOM_PX = 120;

export const EXAMPLES = ["add a task to buy milk", "show my pending tasks", "mark task 1 as done"];

interface Props {
  state: ChatState;
  onRetry: () => void;
  /** An example from the empty state was chosen: send it. */
  onExample: (text: string) => void;
  /** Replaces the empty state's task examples (an inbox or a work session is not the assistant). */
  emptyHint?: ReactNode;
  /** Lets a conversation of agents or a work session show a message its own way. */
  renderMessage?: (message: Message, bubble: ReactNode) => ReactNode;
  /** The assistant's own chat (a reply is pending while the person's message is the newest). */
  chat?: boolean;
  /** Who writes the replies here ("Claude Code" in a work session). */
  replyAuthor?: string | null;
  /** Send an edited version of the person's message `id` (chat only). */
  onEdit?: (id: number, text: string) => void;
  /** Ask for the last reply `id` again (chat only), on a new branch. */
  onRegenerate?: (id: number) => void;
  /** Where the shown branch forks, by shown message id: a switcher on each. */
  branches?: Map<number, Branch>;
  /** Show the branch of message `id`. */
  onSwitchBranch?: (id: number) => void;
  /** A message to bring into view and mark (a search result). */
  focusId?: number | null;
}

/** A failed reply followed by another answer to the same message (a retry's). */
export function replacedFailure(messages: Message[], index: number): boolean {
  const message = messages[index];
  if (!message?.error || message.role === "user") return false;
  for (const later of messages.slice(index + 1)) {
    if (later.role === "user") return false;
    if (later.role === "assistant") return true;
  }
  return false;
}

/** The conversation's messages plus the reply being streamed; keeps the newest in view. */
export function MessageList({
  state,
  onRetry,
  onExample,
  emptyHint,
  renderMessage,
  chat = true,
  replyAuthor,
  onEdit,
  onRegenerate,
  branches,
  onSwitchBranch,
  focusId = null,
}: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const size = useRef({ width: 0, height: 0 });
  const [awayFromEnd, setAwayFromEnd] = useState(false);
  const { messages, pendingUser, loading, ended } = state;
  const reply = replyInFlight(state, chat);

  useEffect(() => {
    const element = scroller.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [messages, pendingUser, reply, ended]);

  // A resize (a phone turned, a window narrowed) re-wraps every line: keep the newest in view.
  useEffect(() => {
    const element = scroller.current;
    if (!element || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => {
      size.current = { width: element.clientWidth, height: element.clientHeight };
      if (pinned.current) element.scrollTop = element.scrollHeight;
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // A search result: once its message is here, show it (and stop following the newest).
  const focusShown = focusId !== null && messages.some((m) => m.id === focusId);
  useEffect(() => {
    if (!focusShown) return;
    const element = scroller.current?.querySelector<HTMLElement>(`[data-message-id="${focusId}"]`);
    if (!element) return;
    pinned.current = false;
    element.scrollIntoView({ block: "center" });
  }, [focusShown, focusId]);

  function onScroll() {
    const element = scroller.current;
    if (!element) return;
    if (element.clientWidth !== size.current.width || element.clientHeight !== size.current.height) {
      // Scrolled by a resize, not by the person: where they were reading still holds.
      size.current = { width: element.clientWidth, height: element.clientHeight };
      if (pinned.current) element.scrollTop = element.scrollHeight;
      return;
    }
    pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < NEAR_BOTTOM_PX;
    setAwayFromEnd(!pinned.current);
  }

  function toEnd() {
    const element = scroller.current;
    if (!element) return;
    pinned.current = true;
    setAwayFromEnd(false);
    element.scrollTo({ top: element.scrollHeight, behavior: "smooth" });
  }

  // Retry replaces a failed reply: the attempt before it stays stored (the history is honest)
  // but only the newest answer to a message is shown.
  const shownMessages = chat ? messages.filter((m, i) => !replacedFailure(messages, i)) : messages;
  const empty = !loading && messages.length === 0 && !pendingUser && reply === null && ended.length === 0;
  const retryable = endsWithFailure(state);
  const idle = !replying(state, chat);
  // This tab's own turn, or a reply written elsewhere (another tab, before a reload).
  const replyTestId = state.sending ? "streaming-message" : "remote-streaming-message";

  return (
    <div className="message-list-frame">
      <div
        className="message-list"
        ref={scroller}
        onScroll={onScroll}
        role="log"
        aria-label="Messages"
        aria-live="polite"
        data-testid="message-list"
        tabIndex={0}
      >
        {loading && <p className="muted pad">Loading messages…</p>}
        {empty && emptyHint && (
          <div className="empty-chat" data-testid="empty-chat">
            {emptyHint}
          </div>
        )}
        {empty && !emptyHint && (
          <div className="empty-chat" data-testid="empty-chat">
            <p>Ask the assistant to manage your tasks, for example:</p>
            <ul>
              {EXAMPLES.map((example) => (
                <li key={example}>
                  <button type="button" className="example" onClick={() => onExample(example)} data-testid="example">
                    {example}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
        {shownMessages.map((message, index) => {
          const bubble = (
            <StoredMessage
              key={message.id}
              message={message}
              found={message.id === focusId}
              onRetry={retryable && index === shownMessages.length - 1 ? onRetry : undefined}
              onEdit={idle && onEdit && message.role === "user" ? (text) => onEdit(message.id, text) : undefined}
              // A failed reply offers Retry alone (in place); a good one, Regenerate.
              onRegenerate={
                idle && onRegenerate && index === shownMessages.length - 1 && message.role === "assistant" && !message.error
                  ? () => onRegenerate(message.id)
                  : undefined
              }
              branch={branches?.get(message.id)}
              onSwitchBranch={onSwitchBranch}
              switchable={idle}
            />
          );
          return renderMessage ? renderMessage(message, bubble) : bubble;
        })}
        {/* Written, and stored as a message that is on its way: the same text until it arrives. */}
        {ended.map((done) => (
          <MessageBubble
            key={`ended-${done.messageId}`}
            role="assistant"
            author={replyAuthor}
            content={done.text}
            toolCalls={liveToolCalls(done)}
            live
            testId={replyTestId}
          />
        ))}
        {pendingUser !== null && <MessageBubble role="user" content={pendingUser} live testId="pending-message" />}
        {reply && (
          <MessageBubble
            role="assistant"
            author={replyAuthor}
            content={reply.text}
            toolCalls={liveToolCalls(reply)}
            pendingToolCalls={reply.toolCalls.map((call) => !call.done)}
            live
            since={state.sending ? state.startedAt : null}
            testId={replyTestId}
          />
        )}
      </div>
      {awayFromEnd && (
        <button type="button" className="button small to-end" onClick={toEnd} data-testid="scroll-to-end">
          ↓ Newest
        </button>
      )}
    </div>
  );
}
