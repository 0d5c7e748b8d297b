"use client";

import { useRef, useState } from "react";
import type { ChatApi } from "@/lib/use-chat";
import type { Conversation } from "@/lib/types";
import { ChatNotice } from "./chat-notice";
import { Composer } from "./composer";
import { conversationTitle } from "./conversation-item";
import { MessageList } from "./message-list";

/** The open conversation: title, messages, streamed reply, errors and the message box. */
export function ChatPanel({ chat, conversation }: { chat: ChatApi; conversation: Conversation | null }) {
  const { state } = chat;
  const [draft, setDraft] = useState("");
  const [queued, setQueued] = useState<string | null>(null);
  const queue = useRef<string | null>(null);

  function restore(text: string) {
    // Keep what was typed when a send fails, unless something new was typed meanwhile.
    setDraft((current) => (current.trim() ? current : text));
  }

  async function send(text: string): Promise<void> {
    if (chat.isSending()) {
      // One message waits for the reply in progress, then goes out by itself.
      if (queue.current) restore(queue.current);
      queue.current = text;
      setQueued(text);
      return;
    }
    const outcome = await chat.send(text);
    if (outcome === "failed") restore(text);
    const next = queue.current;
    queue.current = null;
    setQueued(null);
    if (next === null) return;
    // The queued message follows a sent one; after a failure or a switch it goes back to the box.
    if (outcome === "sent") void send(next);
    else restore(next);
  }

  async function retry() {
    const notice = state.notice;
    const text = notice?.action.type === "send" ? notice.action.text : null;
    if (text !== null && draft.trim() === text) setDraft("");
    const outcome = await chat.retry();
    if (outcome === "failed" && text !== null) setDraft((current) => (current.trim() ? current : text));
  }

  const title = state.conversationId === null ? "Start a conversation" : conversation ? conversationTitle(conversation) : "Conversation";

  return (
    <section className="panel chat-panel" aria-labelledby="chat-title" data-testid="chat-panel">
      <div className="panel-head">
        <h2 id="chat-title" data-testid="chat-title" data-conversation-id={state.conversationId ?? ""}>
          {title}
        </h2>
        {conversation && conversation.mode !== "chat" && <span className="mode-tag">{conversation.mode}</span>}
      </div>
      <MessageList state={state} />
      {queued !== null && (
        <p className="queued-note muted small" role="status" data-testid="queued-message">
          Queued: sends when the current reply finishes.
        </p>
      )}
      {state.notice && <ChatNotice notice={state.notice} onRetry={() => void retry()} onDismiss={chat.dismissNotice} />}
      <Composer draft={draft} setDraft={setDraft} sending={state.sending} onSend={send} />
    </section>
  );
}
