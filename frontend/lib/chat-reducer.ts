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

export type NoticeAction = { type: "send"; text: string } | { type: "reload" };

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
  notice: Notice | null;
}

export type ChatAction =
  | { type: "select"; id: number | null }
  | { type: "loaded"; id: number; messages: Message[] }
  | { type: "load-failed"; notice: Notice }
  | { type: "upsert"; messages: Message[] }
  | { type: "adopt"; id: number }
  | { type: "send-start"; text: string }
  | { type: "delta"; text: string }
  | { type: "tool-call"; callId: string; tool: string; parameters: Record<string, unknown> | null }
  | { type: "tool-result"; callId: string; tool: string; result: unknown }
  | { type: "send-end"; notice: Notice | null }
  | { type: "remote-delta"; text: string }
  | { type: "dismiss-notice" };

export function initialChatState(conversationId: number | null): ChatState {
  return {
    conversationId,
    loading: conversationId !== null,
    messages: [],
    pendingUser: null,
    live: null,
    remoteLive: null,
    sending: false,
    notice: null,
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
      return initialChatState(action.id);
    case "loaded":
      if (action.id !== state.conversationId) return state;
      return { ...state, loading: false, messages: merge(state.messages, action.messages) };
    case "load-failed":
      return { ...state, loading: false, notice: action.notice };
    case "upsert": {
      // Only messages of the open conversation: late answers for one the user left are dropped.
      const mine = action.messages.filter((m) => m.conversation_id === state.conversationId);
      if (mine.length === 0) return state;
      const storedUser = mine.some((m) => m.role === "user");
      const storedReply = mine.some((m) => m.role === "assistant");
      return {
        ...state,
        messages: merge(state.messages, mine),
        pendingUser: storedUser ? null : state.pendingUser,
        live: storedReply ? null : state.live,
        remoteLive: mine.some((m) => m.role !== "user") ? null : state.remoteLive,
      };
    }
    case "adopt":
      return state.conversationId === action.id ? state : { ...state, conversationId: action.id };
    case "send-start":
      return { ...state, sending: true, pendingUser: action.text, live: { text: "", toolCalls: [] }, notice: null };
    case "delta":
      return state.live ? { ...state, live: { ...state.live, text: state.live.text + action.text } } : state;
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
      return { ...state, sending: false, live: null, pendingUser: null, notice: action.notice };
    case "remote-delta":
      if (state.sending) return state;
      return { ...state, remoteLive: (state.remoteLive ?? "") + action.text };
    case "dismiss-notice":
      return { ...state, notice: null };
  }
}

export function liveToolCalls(live: LiveReply): ToolCallRecord[] {
  return live.toolCalls.map((call) => ({ tool: call.tool, parameters: call.parameters, result: call.result, call_id: call.callId }));
}
