"use client";

import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { apiJson, userPath } from "./api-client";
import { ApiError, describeError } from "./api-error";
import type { Session } from "./auth-store";
import { chatReducer, initialChatState, type ChatState, type Notice } from "./chat-reducer";
import { streamChat } from "./chat-stream";
import { readLocal, STORAGE_KEYS, writeLocal } from "./local-store";
import type { Message } from "./types";
import { useConversationEvents } from "./use-conversation-events";

export interface ChatCallbacks {
  /** A turn ended (success or not): tasks and the conversation list may have changed. */
  onTurnFinished: () => void;
  /** A tool finished during a turn: tasks may have changed. */
  onToolResult: () => void;
  onUnreachable: () => void;
}

/** "abandoned": the user left the conversation while it was sending (the server still answers it). */
export type SendOutcome = "sent" | "failed" | "abandoned";

export interface ChatApi {
  state: ChatState;
  select: (id: number | null) => void;
  send: (text: string) => Promise<SendOutcome>;
  retry: () => Promise<SendOutcome>;
  dismissNotice: () => void;
  /** True from the moment a send starts until its turn ends (not lagging behind renders). */
  isSending: () => boolean;
}

const HISTORY_LIMIT = 200;

function storedConversationId(userId: string): number | null {
  const raw = readLocal(STORAGE_KEYS.conversation(userId));
  const id = raw === null ? NaN : Number(raw);
  return Number.isInteger(id) && id > 0 ? id : null;
}

function noticeFor(error: unknown, text: string): Notice {
  const busy = error instanceof ApiError && error.code === "turn_in_progress";
  let message = describeError(error);
  if (error instanceof ApiError && error.code === "model_error") message = `The assistant couldn't answer: ${error.message}`;
  return { kind: busy ? "busy" : "error", text: message, action: { type: "send", text } };
}

/** The open conversation: its messages, the streamed reply, sending, errors and retry. */
export function useChat(session: Session, callbacks: ChatCallbacks): ChatApi {
  const [state, dispatch] = useReducer(chatReducer, session.userId, (userId) =>
    initialChatState(storedConversationId(userId)),
  );
  const [reloadNonce, setReloadNonce] = useState(0);
  const stateRef = useRef(state);
  const streamRef = useRef<AbortController | null>(null);
  const sendingRef = useRef(false);
  const callbacksRef = useRef(callbacks);

  useEffect(() => {
    stateRef.current = state;
    callbacksRef.current = callbacks;
  });

  // Remember the open conversation and load its history whenever it changes.
  useEffect(() => {
    const id = state.conversationId;
    writeLocal(STORAGE_KEYS.conversation(session.userId), id === null ? null : String(id));
    if (id === null) return;
    const controller = new AbortController();
    apiJson<Message[]>(session, userPath(session, `/conversations/${id}/messages?limit=${HISTORY_LIMIT}`), {
      signal: controller.signal,
    })
      .then((messages) => dispatch({ type: "loaded", id, messages }))
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.status === 404) {
          // The conversation is gone (deleted elsewhere): start a new one, no error page.
          dispatch({ type: "select", id: null });
          return;
        }
        if (error instanceof ApiError && error.unreachable) callbacksRef.current.onUnreachable();
        dispatch({
          type: "load-failed",
          notice: { kind: "error", text: `Couldn't load this conversation. ${describeError(error)}`, action: { type: "reload" } },
        });
      });
    return () => controller.abort();
  }, [session, state.conversationId, reloadNonce]);

  useConversationEvents(session, state.conversationId, {
    lastMessageId: () => stateRef.current.messages.at(-1)?.id ?? null,
    onMessage: (message) => {
      dispatch({ type: "upsert", messages: [message] });
      if (message.role !== "user" && !stateRef.current.sending) callbacksRef.current.onTurnFinished();
    },
    onDelta: (text) => dispatch({ type: "remote-delta", text }),
    onToolResult: () => callbacksRef.current.onToolResult(),
  });

  const select = useCallback((id: number | null) => {
    streamRef.current?.abort();
    streamRef.current = null;
    sendingRef.current = false;
    dispatch({ type: "select", id });
  }, []);

  const send = useCallback(
    async (raw: string): Promise<SendOutcome> => {
      const text = raw.trim();
      if (!text || sendingRef.current) return "failed";
      sendingRef.current = true;
      const controller = new AbortController();
      streamRef.current = controller;
      let conversationId = stateRef.current.conversationId;
      const adopt = (id: number | undefined) => {
        if (id === undefined || id === conversationId || controller.signal.aborted) return;
        conversationId = id;
        dispatch({ type: "adopt", id });
      };
      const reconcile = async () => {
        if (conversationId === null || controller.signal.aborted) return;
        try {
          const path = userPath(session, `/conversations/${conversationId}/messages?limit=50`);
          dispatch({ type: "upsert", messages: await apiJson<Message[]>(session, path) });
        } catch {
          // The event stream or the next load will catch up.
        }
      };

      dispatch({ type: "send-start", text });
      try {
        const result = await streamChat(
          session,
          conversationId,
          text,
          {
            onMessage: (message) => {
              adopt(message.conversation_id);
              dispatch({ type: "upsert", messages: [message] });
            },
            onDelta: (chunk) => dispatch({ type: "delta", text: chunk }),
            onToolCall: (call) =>
              dispatch({ type: "tool-call", callId: call.call_id, tool: call.tool, parameters: call.parameters }),
            onToolResult: (result) => {
              dispatch({ type: "tool-result", callId: result.call_id, tool: result.tool, result: result.result });
              callbacksRef.current.onToolResult();
            },
          },
          controller.signal,
        );
        adopt(result.conversation_id);
        if (!controller.signal.aborted) dispatch({ type: "send-end", notice: null });
        void reconcile();
        return "sent";
      } catch (error) {
        if (controller.signal.aborted) return "abandoned";
        if (error instanceof ApiError) {
          adopt(error.conversationId);
          if (error.unreachable) callbacksRef.current.onUnreachable();
          if (error.status === 404 && error.code === "not_found") {
            dispatch({ type: "select", id: null });
            dispatch({
              type: "send-end",
              notice: { kind: "error", text: "That conversation no longer exists. Retry to send it in a new one.", action: { type: "send", text } },
            });
            return "failed";
          }
        }
        await reconcile();
        dispatch({ type: "send-end", notice: noticeFor(error, text) });
        return "failed";
      } finally {
        if (streamRef.current === controller) {
          streamRef.current = null;
          sendingRef.current = false;
        }
        if (!controller.signal.aborted) callbacksRef.current.onTurnFinished();
      }
    },
    [session],
  );

  const retry = useCallback(async () => {
    const notice = stateRef.current.notice;
    if (!notice) return "failed";
    if (notice.action.type === "reload") {
      dispatch({ type: "dismiss-notice" });
      setReloadNonce((n) => n + 1);
      return "sent";
    }
    return send(notice.action.text);
  }, [send]);

  const dismissNotice = useCallback(() => dispatch({ type: "dismiss-notice" }), []);

  const isSending = useCallback(() => sendingRef.current, []);

  return { state, select, send, retry, dismissNotice, isSending };
}
