import type { Message, ToolCallRecord } from "./types";

export interface LiveToolCall {
  callId: string;
  tool: string;
  parameters: Record<string, unknown> | null;
  result: unknown;
  done: boolean;
}

export interface LiveReply {
  text: string;
  toolCalls: LiveToolCall[];
}

/**
 * What Retry does: send text that never reached the API again, run the failed turn again on its
 * stored message, or load the conversation again; "none": nothing to retry (only Dismiss).
 */
export type NoticeAction = { type: "send"; text: string } | { type: "retry-turn" } | { type: "reload" } | { type: "none" };

export interface Notice {
  kind: "error" | "busy";
  text: string;
  action: NoticeAction;
}

export interface ChatState {
  conversationId: number | null;
  loading: boolean;
  messages: Message[];
  /** Text of the user's message until the stored copy arrives. */
  pendingUser: string | null;
  /** This tab's in-flight reply. */
  live: LiveReply | null;
  /** An in-flight reply seen on the conversation's event stream (another tab or agent). */
  remoteLive: string | null;
  sending: boolean;
  /** When this tab's turn started (ms since epoch), for the elapsed time. */
  startedAt: number | null;
  /** Stop was pressed for this tab's turn. */
  stopping: boolean;
  notice: Notice | null;
  /** The conversation this one was forked from in this tab (edit, regenerate). */
  origin: number | null;
  /** The newest message id this tab's own turn stream delivered. */
  ownLast: number;
  /**
   * The newest message id the conversation's event stream has delivered (or started after).
   * While it is behind `ownLast`, what the event stream sends is this tab's own turn again,
   * already applied from the turn's stream: its deltas are dropped, so each turn shows once.
   */
  remoteSeen: number;
}

export type ChatAction =
  | { type: "select"; id: number | null }
  | { type: "loaded"; id: number; messages: Message[] }
  | { type: "load-failed"; notice: Notice }
  | { type: "upsert"; messages: Message[] }
  | { type: "adopt"; id: number }
  | { type: "send-start"; text: string | null; at: number }
  | { type: "stop-requested" }
  | { type: "delta"; text: string }
  | { type: "tool-call"; callId: string; tool: string; parameters: Record<string, unknown> | null }
  | { type: "tool-result"; callId: string; tool: string; result: unknown }
  | { type: "send-end"; notice: Notice | null }
  | { type: "remote-delta"; text: string }
  /** Messages stored, as the conversation's event stream delivers them. */
  | { type: "remote-message"; messages: Message[] }
  /**
   * The conversation's event stream (re)connected after message `after` (its Last-Event-ID):
   * it starts again with the text so far.
   */
  | { type: "remote-open"; after: number | null }
  | { type: "dismiss-notice" }
  /** This tab forked `from` into a new conversation and opens it. */
  | { type: "forked"; from: number; id: number };

export function initialChatState(conversationId: number | null): ChatState {
  return {
    conversationId,
    loading: conversationId !== null,
    messages: [],
    pendingUser: null,
    live: null,
    remoteLive: null,
    sending: false,
    startedAt: null,
    stopping: false,
    notice: null,
    origin: null,
    ownLast: 0,
    remoteSeen: 0,
  };
}

function merge(existing: Message[], incoming: Message[]): Message[] {
  const byId = new Map(existing.map((m) => [m.id, m]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "select":
      // Choosing the conversation that is already open changes nothing (it must not empty it).
      return action.id === state.conversationId ? state : initialChatState(action.id);
    case "loaded":
      if (action.id !== state.conversationId) return state;
      return { ...state, loading: false, messages: merge(state.messages, action.messages) };
    case "load-failed":
      return { ...state, loading: false, notice: action.notice };
    case "upsert": {
      // Only messages of the open conversation: late answers for one the user left are dropped.
      const mine = action.messages.filter((m) => m.conversation_id === state.conversationId);
      if (mine.length === 0) return state;
      const ownLast = state.sending ? Math.max(state.ownLast, ...mine.map((m) => m.id)) : state.ownLast;
      return { ...stored(state, mine), ownLast };
    }
    case "adopt":
      return state.conversationId === action.id ? state : { ...state, conversationId: action.id };
    case "send-start":
      return {
        ...state,
        sending: true,
        startedAt: action.at,
        stopping: false,
        pendingUser: action.text,
        live: { text: "", toolCalls: [] },
        notice: null,
      };
    case "stop-requested":
      return state.sending ? { ...state, stopping: true } : state;
    case "delta": {
      // A work session stores each step as it goes, which ends the live bubble; the next
      // step's text starts a new one. But when the event stream brought a step stored before
      // this tab's own stream got to it, the own stream's last deltas are that step's text,
      // already on screen as the stored message: they start no bubble.
      if (state.live === null && ownStreamBehind(state)) return state;
      const live = state.live ?? (state.sending ? { text: "", toolCalls: [] } : null);
      return live ? { ...state, live: { ...live, text: live.text + action.text } } : state;
    }
    case "tool-call":
      if (!state.live) return state;
      return {
        ...state,
        live: {
          ...state.live,
          toolCalls: [
            ...state.live.toolCalls,
            { callId: action.callId, tool: action.tool, parameters: action.parameters, result: undefined, done: false },
          ],
        },
      };
    case "tool-result":
      if (!state.live) return state;
      return {
        ...state,
        live: {
          ...state.live,
          toolCalls: state.live.toolCalls.map((call) =>
            call.callId === action.callId ? { ...call, result: action.result, done: true } : call,
          ),
        },
      };
    case "send-end":
      return {
        ...state,
        sending: false,
        startedAt: null,
        stopping: false,
        live: null,
        pendingUser: null,
        notice: action.notice,
      };
    case "remote-delta":
      // This tab's own turn, echoed: it was applied from the turn's stream already.
      if (state.sending || echoPending(state)) return state;
      return { ...state, remoteLive: (state.remoteLive ?? "") + action.text };
    case "remote-message": {
      const mine = action.messages.filter((m) => m.conversation_id === state.conversationId);
      if (mine.length === 0) return state;
      const remoteSeen = Math.max(state.remoteSeen, ...mine.map((m) => m.id));
      // An echo of what this tab's own stream delivered changes nothing else. Judged message by
      // message, not by id: the turn's own stream does not carry every message of the turn (a
      // work session's permission question is stored beside it), so one with a lower id than
      // what the own stream already brought can still be new here.
      const known = new Set(state.messages.map((m) => m.id));
      const fresh = mine.filter((m) => !known.has(m.id));
      if (fresh.length === 0) return remoteSeen === state.remoteSeen ? state : { ...state, remoteSeen };
      // `ownLast` stays what the own stream delivered: that is how its late deltas are known.
      return { ...stored(state, fresh), remoteSeen };
    }
    case "remote-open": {
      const remoteSeen = Math.max(state.remoteSeen, action.after ?? 0);
      return state.remoteLive === null && remoteSeen === state.remoteSeen ? state : { ...state, remoteLive: null, remoteSeen };
    }
    case "dismiss-notice":
      return { ...state, notice: null };
    case "forked":
      return { ...initialChatState(action.id), origin: action.from };
  }
}

/** Stored messages of the open conversation merged in, ending the bubbles they complete. */
function stored(state: ChatState, mine: Message[]): ChatState {
  // Only messages not seen before end the pending/live bubbles: a late reload of earlier
  // messages must not hide the reply being written now.
  const known = new Set(state.messages.map((m) => m.id));
  const fresh = mine.filter((m) => !known.has(m.id));
  const storedUser = fresh.some((m) => m.role === "user");
  const storedReply = fresh.some((m) => m.role === "assistant");
  // A reply written elsewhere ends when its stored copy arrives, even if this tab already
  // had that copy (from its own turn's stream): the event stream's deltas can lag behind it.
  const newest = state.messages.at(-1)?.id ?? 0;
  const replyStored = mine.some((m) => m.role !== "user" && m.id >= newest);
  // A new message from the person starts a new reply: text held from before it is stale.
  const newTurn = storedUser && state.messages.at(-1)?.role !== "user";
  return {
    ...state,
    messages: merge(state.messages, mine),
    pendingUser: storedUser ? null : state.pendingUser,
    live: storedReply ? null : state.live,
    remoteLive: replyStored || newTurn ? null : state.remoteLive,
  };
}

/**
 * While sending: the newest stored message is a step of the reply that the event stream brought
 * and this tab's own turn stream has not delivered yet (it lags behind under load).
 */
function ownStreamBehind(state: ChatState): boolean {
  const last = state.messages.at(-1);
  return state.sending && last !== undefined && last.role !== "user" && last.id > state.ownLast;
}

/** The event stream has not yet caught up with what this tab's own turn stream delivered. */
function echoPending(state: ChatState): boolean {
  return state.ownLast > state.remoteSeen;
}

export function liveToolCalls(live: LiveReply): ToolCallRecord[] {
  return live.toolCalls.map((call) => ({ tool: call.tool, parameters: call.parameters, result: call.result, call_id: call.callId }));
}

/**
 * The reply being written elsewhere (another tab, before a reload), as far as it has come; null
 * when none is. In a chat a reply is pending exactly while the newest stored message is the
 * person's: deltas that arrive after the reply is stored (a late or replayed snapshot) are not
 * shown, so they can never become a second copy of it.
 */
export function remoteReply(state: ChatState, chat: boolean): string | null {
  if (state.sending || state.loading) return null;
  if (!chat) return state.remoteLive;
  const last = state.messages.at(-1);
  if (last === undefined || last.role !== "user") return null;
  return state.remoteLive ?? "";
}

/** The conversation ends with a failed reply that Retry can run again (on the stored message). */
export function endsWithFailure(state: ChatState): boolean {
  const last = state.messages.at(-1);
  return !state.sending && last !== undefined && last.role !== "user" && last.error;
}
