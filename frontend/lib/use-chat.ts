"use client";

import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { apiJson, userPath } from "./api-client";
import { ApiError, describeError } from "./api-error";
import type { Session } from "./auth-store";
import { chatReducer, endsWithFailure, initialChatState, type ChatState, type Notice } from "./chat-reducer";
import { runChatTurn, type TurnInput } from "./chat-stream";
import { conversationIdFromPath, malformedConversationPath } from "./conversation-url";
import type { Message } from "./types";
import { useConversationEvents } from "./use-conversation-events";

export interface ChatCallbacks {
  /** A turn ended (success or not): tasks and the conversation list may have changed. */
  onTurnFinished: () => void;
  /** A tool finished during a turn: tasks may have changed. */
  onToolResult: () => void;
  onUnreachable: () => void;
}

/**
 * "sent": the reply is stored. "stored-failure": the person's message is stored but the reply
 * failed (Retry runs it again). "unsent": nothing was stored, the text is the person's to keep.
 * "abandoned": the person left the conversation or stopped the turn locally.
 */
export type SendOutcome = "sent" | "stored-failure" | "unsent" | "abandoned";

/** A shown message with siblings (other edits of it, other replies to its question). */
export interface Branch {
  messageId: number;
  /** Every sibling's id, oldest first, the shown one included. */
  siblings: number[];
}

interface BranchesBody {
  branches: { message_id: number; siblings: number[] }[];
}

export interface ChatApi {
  state: ChatState;
  select: (id: number | null) => void;
  /** `attachments`: ids of uploaded files going with the message. */
  send: (text: string, attachments?: number[]) => Promise<SendOutcome>;
  retry: () => Promise<SendOutcome>;
  stop: () => Promise<void>;
  /** Edit the person's shown message `messageId`: `text` goes on a new branch in its place. */
  edit: (messageId: number, text: string) => Promise<SendOutcome>;
  /** Answer reply `messageId`'s question again, on a new branch in its place. */
  regenerate: (messageId: number) => Promise<SendOutcome>;
  /** Show the branch of `messageId` (a sibling of a shown message), here and everywhere. */
  switchBranch: (messageId: number) => Promise<void>;
  /** Where the shown branch forks, by shown message id. */
  branches: Map<number, Branch>;
  dismissNotice: () => void;
  /** True from the moment a send starts until its turn ends (not lagging behind renders). */
  isSending: () => boolean;
}

const HISTORY_LIMIT = 200;

/** The notice's own words; an unreachable API is already announced by the banner. */
function noticeText(error: unknown, what: string): string {
  if (error instanceof ApiError && error.unreachable) return `${what} Retry once the API is back.`;
  return `${what} ${describeError(error)}`;
}

function unsentNotice(error: unknown, text: string): Notice {
  const busy = error instanceof ApiError && error.code === "turn_in_progress";
  const what = text ? "Not sent; your message is back in the box." : "Retry didn't start.";
  return { kind: busy ? "busy" : "error", text: busy ? describeError(error) : noticeText(error, what), action: { type: "send", text } };
}

/** The open conversation: its messages, the streamed reply, sending, stop, errors and retry. */
export function useChat(session: Session, initialId: number | null, callbacks: ChatCallbacks): ChatApi {
  const [state, dispatch] = useReducer(chatReducer, initialId, initialChatState);
  const [reloadNonce, setReloadNonce] = useState(0);
  const [forks, setForks] = useState<{ id: number; branches: Map<number, Branch> } | null>(null);
  const stateRef = useRef(state);
  const streamRef = useRef<AbortController | null>(null);
  const sendingRef = useRef(false);
  const callbacksRef = useRef(callbacks);
  // This tab's running turn: the conversation it writes to as soon as its id is known (not
  // when the state has caught up, which lags a render behind), and whether Stop was pressed
  // before that id arrived (it is sent the moment the id does).
  const turnRef = useRef<{ conversationId: number | null; stopPending: boolean } | null>(null);
  // A new chat this tab's turn has just made: it has no history to load (its event stream
  // starts at its beginning).
  const adoptedRef = useRef<number | null>(null);
  // The conversation named by the address the page was opened at (`/c/<id>`), until it loads.
  const addressedRef = useRef(typeof window === "undefined" ? null : conversationIdFromPath(window.location.pathname));

  // `/c/abc` names no conversation: say so instead of quietly showing a new chat.
  useEffect(() => {
    const malformed = malformedConversationPath(window.location.pathname);
    if (malformed === null) return;
    dispatch({ type: "load-failed", notice: { kind: "error", text: `"${malformed}" is not a conversation address. This is a new chat.`, action: { type: "none" } } });
  }, []);

  useEffect(() => {
    stateRef.current = state;
    callbacksRef.current = callbacks;
  });

  // Load the history whenever the open conversation changes (or Retry asks to reload it).
  useEffect(() => {
    const id = state.conversationId;
    if (id === null) return;
    if (adoptedRef.current === id) {
      adoptedRef.current = null;
      return;
    }
    const controller = new AbortController();
    apiJson<Message[]>(session, userPath(session, `/conversations/${id}/messages?limit=${HISTORY_LIMIT}`), {
      signal: controller.signal,
    })
      .then((messages) => {
        addressedRef.current = null;
        dispatch({ type: "loaded", id, messages });
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.status === 404) {
          // The conversation is gone (deleted elsewhere): start a new one, no error page. One
          // the address named is said to be missing; a remembered one just falls back.
          const addressed = addressedRef.current === id;
          addressedRef.current = null;
          dispatch({ type: "select", id: null });
          if (addressed) {
            const text = `Conversation ${id} was not found: it does not exist or was deleted. This is a new chat.`;
            dispatch({ type: "load-failed", notice: { kind: "error", text, action: { type: "none" } } });
          }
          return;
        }
        if (error instanceof ApiError && error.unreachable) callbacksRef.current.onUnreachable();
        dispatch({
          type: "load-failed",
          notice: { kind: "error", text: noticeText(error, "Couldn't load this conversation."), action: { type: "reload" } },
        });
      });
    return () => controller.abort();
  }, [session, state.conversationId, reloadNonce]);

  // Everything written in the conversation reaches the screen this way, this tab's own turn
  // included. It follows on from the history (or, for a chat this tab's turn just made, from
  // its beginning), so nothing stored between the two is missed.
  const reconnectEvents = useConversationEvents(session, state.ready ? state.conversationId : null, {
    lastMessageId: () => stateRef.current.messages.at(-1)?.id ?? 0,
    onOpen: (id) => dispatch({ type: "stream-open", id }),
    onMessage: (id, message) => {
      dispatch({ type: "stream-message", id, message });
      if (message.role !== "user" && !sendingRef.current) callbacksRef.current.onTurnFinished();
    },
    onDelta: (id, text) => dispatch({ type: "stream-delta", id, text }),
    onToolCall: (id, call) => dispatch({ type: "stream-tool-call", id, callId: call.call_id, tool: call.tool, parameters: call.parameters }),
    onToolResult: (id, result) => {
      dispatch({ type: "stream-tool-result", id, callId: result.call_id, tool: result.tool, result: result.result });
      callbacksRef.current.onToolResult();
    },
    onReplyEnd: (id, messageId) => dispatch({ type: "stream-reply-end", id, messageId }),
  });

  const select = useCallback((id: number | null) => {
    if (id === stateRef.current.conversationId) return;
    streamRef.current?.abort();
    streamRef.current = null;
    sendingRef.current = false;
    adoptedRef.current = null;
    dispatch({ type: "select", id });
  }, []);

  const runTurn = useCallback(
    async (input: TurnInput, into?: number): Promise<SendOutcome> => {
      if (sendingRef.current) return "unsent";
      sendingRef.current = true;
      const controller = new AbortController();
      streamRef.current = controller;
      let conversationId = into ?? stateRef.current.conversationId;
      let stored = false;
      const turn = { conversationId, stopPending: false };
      turnRef.current = turn;
      const adopt = (id: number | undefined) => {
        if (id === undefined || id === conversationId || controller.signal.aborted) return;
        conversationId = id;
        turn.conversationId = id;
        adoptedRef.current = id;
        dispatch({ type: "adopt", id });
        if (turn.stopPending) {
          turn.stopPending = false;
          void apiJson(session, userPath(session, `/conversations/${id}/stop`), { method: "POST", body: {} }).catch(() => undefined);
        }
      };
      dispatch({ type: "send-start", text: "message" in input ? input.message : null, at: Date.now() });
      try {
        const onStored = (id: number, messageId: number) => {
          stored = true;
          adopt(id);
          if (controller.signal.aborted) return;
          dispatch({ type: "send-stored", messageId });
          reconnectEvents(); // the API is up: a stream waiting out a backoff (an outage) goes now
        };
        const result = await runChatTurn(session, conversationId, input, { onStored }, controller.signal);
        adopt(result.conversation_id);
        reconnectEvents();
        if (!controller.signal.aborted) dispatch({ type: "send-end", notice: null, stored: true });
        return "sent";
      } catch (error) {
        if (controller.signal.aborted) return "abandoned";
        const text = "message" in input ? input.message : "";
        if (error instanceof ApiError) {
          adopt(error.conversationId);
          if (error.unreachable) callbacksRef.current.onUnreachable();
          if (error.status === 404 && error.code === "not_found" && "message" in input) {
            dispatch({ type: "select", id: null });
            dispatch({
              type: "send-end",
              stored: false,
              notice: { kind: "error", text: "That conversation no longer exists. Retry to send it in a new one.", action: { type: "send", text } },
            });
            return "unsent";
          }
        }
        const failed = error instanceof ApiError && (error.code === "model_error" || error.status === 500);
        if (failed && (stored || error.conversationId !== undefined)) {
          // A stored failure shows once: as the failed reply (the event stream brings it), with
          // its own Retry button.
          dispatch({ type: "send-end", notice: null, stored: true });
          return "stored-failure";
        }
        if (stored) {
          // The message is stored but this request lost track of the reply (its connection
          // broke): the event stream still shows whatever the reply does; Retry reloads.
          const notice: Notice = { kind: "error", text: noticeText(error, "The reply was cut off."), action: { type: "reload" } };
          dispatch({ type: "send-end", notice, stored: true });
          return "stored-failure";
        }
        const notice = unsentNotice(error, text);
        if ("replaces" in input) notice.action = { type: "reload" };
        else if (!("message" in input)) notice.action = { type: "retry-turn" };
        dispatch({ type: "send-end", notice, stored: false });
        return "unsent";
      } finally {
        if (streamRef.current === controller) {
          streamRef.current = null;
          sendingRef.current = false;
        }
        if (turnRef.current === turn) turnRef.current = null;
        if (!controller.signal.aborted) callbacksRef.current.onTurnFinished();
      }
    },
    [session, reconnectEvents],
  );

  const send = useCallback(
    (raw: string, attachments: number[] = []) => {
      const text = raw.trim();
      if (!text) return Promise.resolve<SendOutcome>("unsent");
      return runTurn(attachments.length ? { message: text, attachments } : { message: text });
    },
    [runTurn],
  );

  const retry = useCallback(async (): Promise<SendOutcome> => {
    const current = stateRef.current;
    const notice = current.notice;
    if (notice?.action.type === "reload") {
      dispatch({ type: "dismiss-notice" });
      setReloadNonce((n) => n + 1);
      return "sent";
    }
    if (notice?.action.type === "send") return send(notice.action.text);
    if (notice?.action.type === "none") return "unsent";
    if (notice?.action.type !== "retry-turn" && !endsWithFailure(current)) return "unsent";
    return runTurn({ retry: true });
  }, [send, runTurn]);

  const stop = useCallback(async () => {
    const controller = streamRef.current;
    if (!controller) {
      // A reply started elsewhere (another tab, before a reload): the server stops it, and the
      // event stream brings the stored partial reply.
      const id = stateRef.current.conversationId;
      if (id === null) return;
      try {
        await apiJson(session, userPath(session, `/conversations/${id}/stop`), { method: "POST", body: {} });
      } catch (error) {
        dispatch({ type: "load-failed", notice: { kind: "error", text: noticeText(error, "Couldn't stop the reply."), action: { type: "reload" } } });
      }
      return;
    }
    if (stateRef.current.stopping) return;
    dispatch({ type: "stop-requested" });
    const turn = turnRef.current;
    const id = turn ? turn.conversationId : stateRef.current.conversationId;
    if (id === null) {
      // A new chat whose id has not arrived yet: the stop is sent the moment it does.
      if (turn) turn.stopPending = true;
      return;
    }
    if (id !== null) {
      try {
        // The server ends the turn: the event stream brings the partial reply, and the turn's
        // request its `done`.
        await apiJson(session, userPath(session, `/conversations/${id}/stop`), { method: "POST", body: {} });
        return;
      } catch {
        // No stop on this server, or it failed: stop listening here at least.
      }
    }
    controller.abort();
    streamRef.current = null;
    sendingRef.current = false;
    dispatch({
      type: "send-end",
      stored: false,
      notice: { kind: "busy", text: "Stopped waiting. The assistant may still finish this reply.", action: { type: "reload" } },
    });
  }, [session]);

  // Where the shown branch forks: read again whenever the messages on screen settle.
  const shownKey = state.messages.map((m) => m.id).join(",");
  const settled = state.ready && !state.sending && state.conversationId !== null;
  useEffect(() => {
    const id = stateRef.current.conversationId;
    if (!settled || id === null) return;
    const controller = new AbortController();
    apiJson<BranchesBody>(session, userPath(session, `/conversations/${id}/branches`), { signal: controller.signal })
      .then((body) => setForks({ id, branches: branchMap(body) }))
      .catch(() => undefined); // no switchers this time; the messages are shown all the same
    return () => controller.abort();
  }, [session, settled, shownKey]);

  /** The shown branch again, whole (after a switch, or an edit that did not start). */
  const reloadShown = useCallback(
    async (id: number) => {
      const messages = await apiJson<Message[]>(session, userPath(session, `/conversations/${id}/messages?limit=${HISTORY_LIMIT}`));
      dispatch({ type: "branched", id, messages });
    },
    [session],
  );

  const branchTurn = useCallback(
    async (messageId: number, input: TurnInput): Promise<SendOutcome> => {
      const id = stateRef.current.conversationId;
      if (id === null || sendingRef.current) return "unsent";
      dispatch({ type: "branch-start", from: messageId });
      const outcome = await runTurn(input);
      // Nothing started (refused, or another tab moved the branch first): show what is stored.
      if (outcome === "unsent") await reloadShown(id).catch(() => undefined);
      return outcome;
    },
    [runTurn, reloadShown],
  );

  const edit = useCallback((messageId: number, text: string) => branchTurn(messageId, { message: text, replaces: messageId }), [branchTurn]);
  const regenerate = useCallback((messageId: number) => branchTurn(messageId, { replaces: messageId }), [branchTurn]);

  const switchBranch = useCallback(
    async (messageId: number) => {
      const id = stateRef.current.conversationId;
      if (id === null || sendingRef.current) return;
      try {
        const body = await apiJson<BranchesBody>(session, userPath(session, `/conversations/${id}/branch`), {
          method: "POST",
          body: { message_id: messageId },
        });
        setForks({ id, branches: branchMap(body) });
        await reloadShown(id);
      } catch (error) {
        if (error instanceof ApiError && error.unreachable) callbacksRef.current.onUnreachable();
        dispatch({ type: "load-failed", notice: { kind: "error", text: noticeText(error, "Couldn't switch the branch."), action: { type: "reload" } } });
      }
    },
    [session, reloadShown],
  );

  const branches = forks !== null && forks.id === state.conversationId ? forks.branches : NO_BRANCHES;

  const dismissNotice = useCallback(() => dispatch({ type: "dismiss-notice" }), []);

  const isSending = useCallback(() => sendingRef.current, []);

  return { state, select, send, retry, stop, edit, regenerate, switchBranch, branches, dismissNotice, isSending };
}

const NO_BRANCHES = new Map<number, Branch>();

function branchMap(body: BranchesBody): Map<number, Branch> {
  return new Map(body.branches.map((b) => [b.message_id, { messageId: b.message_id, siblings: b.siblings }]));
}
