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

/** A reply the event stream ended, stored as message `messageId`, which has not arrived yet. */
export interface EndedReply extends LiveReply {
  messageId: number;
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

/**
 * The open conversation. Everything in it that was written (stored messages, the reply being
 * written, its tool calls) comes from one place: the history load, then the conversation's
 * event stream. This tab's own turn only says when it is running, and how it ended.
 */
export interface ChatState {
  conversationId: number | null;
  loading: boolean;
  /** The history is in hand: the event stream may follow on from its newest message. */
  ready: boolean;
  messages: Message[];
  /** Text of this tab's message until its stored copy is here. */
  pendingUser: string | null;
  /** The id of that stored copy, once this tab's turn has said it. */
  pendingId: number | null;
  /** The reply being written (by this tab's turn or anyone's), as the event stream shows it. */
  live: LiveReply | null;
  /**
   * The event stream reconnected: `live` is what was shown before, kept on screen until the
   * server's replay of the reply so far replaces it (or its stored copy ends it).
   */
  liveStale: boolean;
  /** Replies the event stream ended whose stored copies are still on their way. */
  ended: EndedReply[];
  /** This tab's turn is running (its request has not answered yet). */
  sending: boolean;
  /**
   * A reply stored after this id is this tab's turn's: the newest message when the turn
   * started, then the person's stored message once the turn says its id.
   */
  sentAfter: number;
  /** When this tab's turn started (ms since epoch), for the elapsed time. */
  startedAt: number | null;
  /** Stop was pressed for this tab's turn. */
  stopping: boolean;
  notice: Notice | null;
}

/** What the conversation's event stream delivered, for the conversation `id` it follows. */
export type StreamAction =
  /** (Re)connected after the newest message shown: a reply in flight is sent again, whole. */
  | { type: "stream-open"; id: number }
  | { type: "stream-message"; id: number; message: Message }
  | { type: "stream-delta"; id: number; text: string }
  | { type: "stream-tool-call"; id: number; callId: string; tool: string; parameters: Record<string, unknown> | null }
  | { type: "stream-tool-result"; id: number; callId: string; tool: string; result: unknown }
  /** The reply being written is over: stored as `messageId` (on its way), or not stored. */
  | { type: "stream-reply-end"; id: number; messageId: number | null };

export type ChatAction =
  | { type: "select"; id: number | null }
  | { type: "loaded"; id: number; messages: Message[] }
  | { type: "load-failed"; notice: Notice }
  /** This tab's turn made the new chat `id`: nothing to load, its stream starts at the beginning. */
  | { type: "adopt"; id: number }
  | { type: "send-start"; text: string | null; at: number }
  /** This tab's turn stored the person's message as `messageId`. */
  | { type: "send-stored"; messageId: number }
  | { type: "stop-requested" }
  /** This tab's turn answered. `stored`: its message is stored (the stream brings it, if it has not). */
  | { type: "send-end"; notice: Notice | null; stored: boolean }
  | StreamAction
  | { type: "dismiss-notice" }
  /** This tab's edit or regenerate replaces message `from`: it and what follows leave the screen. */
  | { type: "branch-start"; from: number }
  /** The shown branch moved (a switch): the conversation's messages are these now. */
  | { type: "branched"; id: number; messages: Message[] };

export function initialChatState(conversationId: number | null): ChatState {
  return {
    conversationId,
    loading: conversationId !== null,
    ready: false,
    messages: [],
    pendingUser: null,
    pendingId: null,
    live: null,
    liveStale: false,
    ended: [],
    sending: false,
    sentAfter: 0,
    startedAt: null,
    stopping: false,
    notice: null,
  };
}

const EMPTY: LiveReply = { text: "", toolCalls: [] };

function merge(existing: Message[], incoming: Message[]): Message[] {
  const byId = new Map(existing.map((m) => [m.id, m]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

function newestId(messages: Message[]): number {
  return messages.at(-1)?.id ?? 0;
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "select":
      // Choosing the conversation that is already open changes nothing (it must not empty it).
      return action.id === state.conversationId ? state : initialChatState(action.id);
    case "loaded":
      if (action.id !== state.conversationId) return state;
      return withMessages({ ...state, loading: false, ready: true }, action.messages);
    case "load-failed":
      return { ...state, loading: false, notice: action.notice };
    case "adopt":
      if (state.conversationId !== null) return state;
      return { ...state, conversationId: action.id, loading: false, ready: true };
    case "send-start":
      return {
        ...state,
        sending: true,
        sentAfter: newestId(state.messages),
        startedAt: action.at,
        stopping: false,
        pendingUser: action.text,
        pendingId: null,
        notice: null,
      };
    case "send-stored": {
      const here = state.messages.some((m) => m.id === action.messageId);
      return { ...state, sentAfter: action.messageId, pendingId: action.messageId, pendingUser: here ? null : state.pendingUser };
    }
    case "stop-requested":
      return state.sending ? { ...state, stopping: true } : state;
    case "send-end":
      return {
        ...state,
        sending: false,
        startedAt: null,
        stopping: false,
        // A stored message stays as it was typed until the event stream brings its copy.
        pendingUser: action.stored ? state.pendingUser : null,
        notice: action.notice,
      };
    case "dismiss-notice":
      return { ...state, notice: null };
    case "branch-start":
      return { ...state, messages: state.messages.filter((m) => m.id < action.from), ended: [], live: null, liveStale: false };
    case "branched":
      if (action.id !== state.conversationId) return state;
      return { ...state, messages: action.messages, ended: [], loading: false, ready: true };
    default:
      return action.id === state.conversationId ? streamed(state, action) : state;
  }
}

/** An event of the open conversation's stream applied: the one way anything written shows. */
function streamed(state: ChatState, action: StreamAction): ChatState {
  switch (action.type) {
    case "stream-open":
      return state.live === null ? state : { ...state, liveStale: true };
    case "stream-message": {
      const { message } = action;
      const fresh = !state.messages.some((m) => m.id === message.id);
      const next = withMessages(onBranchOf(state, message), [message]);
      if (!fresh) return next;
      // The person's message is stored: this tab's copy of it goes. Another message while the
      // live reply waits for its replay: that reply ended while the stream was away.
      if (message.role === "user") return { ...next, pendingUser: null };
      return state.liveStale ? { ...next, live: null, liveStale: false } : next;
    }
    case "stream-delta": {
      const live = current(state);
      return { ...state, live: { ...live, text: live.text + action.text }, liveStale: false };
    }
    case "stream-tool-call": {
      const live = current(state);
      const call = { callId: action.callId, tool: action.tool, parameters: action.parameters, result: undefined, done: false };
      return { ...state, live: { ...live, toolCalls: [...live.toolCalls, call] }, liveStale: false };
    }
    case "stream-tool-result": {
      const live = current(state);
      const toolCalls = live.toolCalls.map((call) => (call.callId === action.callId ? { ...call, result: action.result, done: true } : call));
      return { ...state, live: { ...live, toolCalls }, liveStale: false };
    }
    case "stream-reply-end": {
      if (state.live === null) return state;
      const { messageId } = action;
      // Its stored copy is on its way: the text stays until it arrives (never a gap, never two).
      const keep = messageId !== null && !state.liveStale && !state.messages.some((m) => m.id === messageId);
      const ended = keep ? [...state.ended, { ...state.live, messageId }] : state.ended;
      return { ...state, live: null, liveStale: false, ended };
    }
  }
}

/**
 * A new message on another branch than the one on screen (another tab edited or regenerated):
 * what followed its parent leaves the screen, as the server no longer shows it either.
 */
function onBranchOf(state: ChatState, message: Message): ChatState {
  const parent = message.parent_id;
  const newest = state.messages.at(-1);
  if (parent === undefined || newest === undefined || message.id <= newest.id || parent === newest.id) return state;
  if (parent !== null && !state.messages.some((m) => m.id === parent)) return state;
  const messages = parent === null ? [] : state.messages.filter((m) => m.id <= parent);
  return { ...state, messages };
}

/** Stored messages merged in by id; an ended reply whose copy is among them is that copy now. */
function withMessages(state: ChatState, incoming: Message[]): ChatState {
  const messages = merge(state.messages, incoming);
  const known = new Set(incoming.map((m) => m.id));
  const ended = state.ended.some((reply) => known.has(reply.messageId)) ? state.ended.filter((reply) => !known.has(reply.messageId)) : state.ended;
  const pendingUser = state.pendingId !== null && known.has(state.pendingId) ? null : state.pendingUser;
  return { ...state, messages, ended, pendingUser };
}

/** The live reply an event adds to: a stale one (from before a reconnect) is replaced. */
function current(state: ChatState): LiveReply {
  return state.live === null || state.liveStale ? EMPTY : state.live;
}

/**
 * The reply being written, as the list shows it (its text so far, maybe none yet); null when
 * no reply is on its way. In the assistant's chat a reply is on its way while the person's
 * message is the newest stored one (another tab's turn, or one from before a reload) or while
 * this tab's turn runs and nothing newer than its start answers it. A work session's steps are
 * each a reply: one shows while its text streams.
 */
export function replyInFlight(state: ChatState, chat: boolean): LiveReply | null {
  if (state.loading) return null;
  if (state.live !== null && !chat) return state.live;
  const waiting = awaitingReply(state, chat);
  if (!waiting) return null;
  return state.live ?? EMPTY;
}

function awaitingReply(state: ChatState, chat: boolean): boolean {
  if (state.ended.length > 0) return false; // the reply is written; its stored copy is coming
  if (state.pendingUser !== null) return true;
  const answered = state.messages.some((m) => m.role !== "user" && m.id > state.sentAfter);
  if (state.sending) return !answered;
  return chat && state.messages.at(-1)?.role === "user";
}

/** A reply is being written here: the composer shows Stop, and what is sent now waits for it. */
export function replying(state: ChatState, chat: boolean): boolean {
  return state.sending || replyInFlight(state, chat) !== null;
}

export function liveToolCalls(live: LiveReply): ToolCallRecord[] {
  return live.toolCalls.map((call) => ({ tool: call.tool, parameters: call.parameters, result: call.result, call_id: call.callId }));
}

/** The conversation ends with a failed reply that Retry can run again (on the stored message). */
export function endsWithFailure(state: ChatState): boolean {
  const last = state.messages.at(-1);
  return !state.sending && last !== undefined && last.role !== "user" && last.error;
}
