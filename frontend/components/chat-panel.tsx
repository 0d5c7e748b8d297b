"use client";

import { useState } from "react";
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

  async function send(text: string): Promise<boolean> {
    const ok = await chat.send(text);
    // Keep what was typed when the send failed, unless something new was typed meanwhile.
    if (!ok) setDraft((current) => (current.trim() ? current : text));
    return ok;
  }

  async function retry() {
    const notice = state.notice;
    const text = notice?.action.type === "send" ? notice.action.text : null;
    if (text !== null && draft.trim() === text) setDraft("");
    const ok = await chat.retry();
    if (!ok && text !== null) setDraft((current) => (current.trim() ? current : text));
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
      {state.notice && <ChatNotice notice={state.notice} onRetry={() => void retry()} onDismiss={chat.dismissNotice} />}
      <Composer draft={draft} setDraft={setDraft} sending={state.sending} onSend={send} />
    </section>
  );
}
