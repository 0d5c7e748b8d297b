import { describe, expect, it } from "vitest";
import {
  chatReducer,
  endsWithFailure,
  initialChatState,
  replying,
  replyInFlight,
  type ChatAction,
  type ChatState,
} from "@/lib/chat-reducer";
import type { Message } from "@/lib/types";

const ID = 7;

function message(id: number, role: Message["role"], extra: Partial<Message> = {}): Message {
  return {
    id,
    conversation_id: ID,
    role,
    author: null,
    kind: "message",
    content: `${role} ${id}`,
    tool_calls: null,
    error: false,
    reply_to: null,
    meta: null,
    created_at: "2026-01-01T00:00:00Z",
    ...extra,
  };
}

function loaded(messages: Message[]): ChatState {
  return chatReducer(initialChatState(ID), { type: "loaded", id: ID, messages });
}

const run = (state: ChatState, actions: ChatAction[]) => actions.reduce(chatReducer, state);

// What the conversation's event stream delivers (the one source of what is written).
const stored = (m: Message): ChatAction => ({ type: "stream-message", id: ID, message: m });
const delta = (text: string): ChatAction => ({ type: "stream-delta", id: ID, text });
const end = (messageId: number | null): ChatAction => ({ type: "stream-reply-end", id: ID, messageId });
const open: ChatAction = { type: "stream-open", id: ID };

/** Every piece of text on screen: stored messages, ended replies, the reply in flight. */
function onScreen(state: ChatState, chat: boolean): string[] {
  const reply = replyInFlight(state, chat);
  return [...state.messages.map((m) => m.content), ...state.ended.map((r) => r.text), ...(reply ? [reply.text] : [])];
}

/** How many times `text` is on screen. */
function shown(state: ChatState, chat: boolean, text: string): number {
  return onScreen(state, chat).filter((t) => t.includes(text)).length;
}

describe("chatReducer", () => {
  it("keeps the open conversation when it is chosen again", () => {
    const state = loaded([message(1, "user"), message(2, "assistant")]);
    const again = chatReducer(state, { type: "select", id: ID });
    expect(again).toBe(state);
    expect(again.loading).toBe(false);
    expect(again.messages).toHaveLength(2);
  });

  it("starts empty, loading and not yet followed for another conversation", () => {
    const other = chatReducer(loaded([message(1, "user")]), { type: "select", id: 8 });
    expect(other).toMatchObject({ conversationId: 8, loading: true, ready: false, messages: [] });
  });

  it("follows the stream only once the history is in hand (a failed load is not)", () => {
    expect(loaded([]).ready).toBe(true);
    const failed = chatReducer(initialChatState(ID), { type: "load-failed", notice: { kind: "error", text: "x", action: { type: "reload" } } });
    expect(failed.ready).toBe(false);
  });

  it("merges stored messages by id, in order, without duplicates", () => {
    const state = run(loaded([message(2, "assistant"), message(1, "user")]), [
      stored(message(2, "assistant", { content: "edited" })),
      stored(message(3, "user")),
      stored(message(3, "user")),
    ]);
    expect(state.messages.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(state.messages[1]?.content).toBe("edited");
  });

  it("ignores what the stream of a conversation that is no longer open delivers", () => {
    const state = loaded([message(1, "user")]);
    expect(chatReducer(state, { type: "stream-message", id: 99, message: message(9, "user", { conversation_id: 99 }) })).toBe(state);
    expect(chatReducer(state, { type: "stream-delta", id: 99, text: "elsewhere" })).toBe(state);
    expect(chatReducer(state, { type: "stream-reply-end", id: 99, messageId: 9 })).toBe(state);
  });

  it("marks a stop only while sending", () => {
    const idle = loaded([]);
    expect(chatReducer(idle, { type: "stop-requested" })).toBe(idle);
    const sending = chatReducer(idle, { type: "send-start", text: "x", at: 1 });
    expect(chatReducer(sending, { type: "stop-requested" }).stopping).toBe(true);
  });

  it("knows when the conversation ends with a failed reply", () => {
    expect(endsWithFailure(loaded([message(1, "user"), message(2, "assistant", { error: true })]))).toBe(true);
    expect(endsWithFailure(loaded([message(1, "user"), message(2, "assistant")]))).toBe(false);
    expect(endsWithFailure(loaded([message(1, "user")]))).toBe(false);
  });

  it("adopts the new chat this tab's turn made: nothing to load, its stream follows from the start", () => {
    const draft = chatReducer(initialChatState(null), { type: "send-start", text: "hi", at: 1 });
    const adopted = chatReducer(draft, { type: "adopt", id: ID });
    expect(adopted).toMatchObject({ conversationId: ID, loading: false, ready: true, pendingUser: "hi", sending: true });
    expect(chatReducer(loaded([]), { type: "adopt", id: 9 }).conversationId).toBe(ID);
  });
});

describe("this tab's turn, rendered from the event stream alone", () => {
  it("shows the person's text and a waiting reply at once, then the stream's stored copy, text and tool calls", () => {
    let state = chatReducer(loaded([message(1, "user"), message(2, "assistant")]), { type: "send-start", text: "add milk", at: 1000 });
    expect(state).toMatchObject({ sending: true, startedAt: 1000, pendingUser: "add milk" });
    expect(replyInFlight(state, true)).toEqual({ text: "", toolCalls: [] });
    expect(replying(state, true)).toBe(true);

    state = run(state, [
      stored(message(3, "user", { content: "add milk" })),
      { type: "stream-tool-call", id: ID, callId: "c1", tool: "add_task", parameters: { title: "milk" } },
      delta("Added "),
      delta("milk"),
    ]);
    expect(state.pendingUser).toBeNull();
    expect(replyInFlight(state, true)?.text).toBe("Added milk");
    expect(state.live?.toolCalls[0]).toMatchObject({ callId: "c1", done: false });
    state = chatReducer(state, { type: "stream-tool-result", id: ID, callId: "c1", tool: "add_task", result: { id: 1 } });
    expect(state.live?.toolCalls[0]).toMatchObject({ done: true, result: { id: 1 } });

    // The reply is stored as message 4: its text stays until the stored copy arrives.
    state = chatReducer(state, end(4));
    expect(state.live).toBeNull();
    expect(state.ended.map((r) => [r.messageId, r.text])).toEqual([[4, "Added milk"]]);
    expect(replyInFlight(state, true)).toBeNull(); // no second, empty bubble beside it
    state = chatReducer(state, stored(message(4, "assistant", { content: "Added milk" })));
    expect(state.ended).toEqual([]);
    expect(shown(state, true, "Added milk")).toBe(1);

    state = chatReducer(state, { type: "send-end", notice: null, stored: true });
    expect(state).toMatchObject({ sending: false, startedAt: null, stopping: false });
    expect(replying(state, true)).toBe(false);
  });

  it("keeps the person's message and the waiting reply when the turn answers before the stream has brought them", () => {
    let state = run(loaded([message(1, "user"), message(2, "assistant")]), [
      { type: "send-start", text: "hello", at: 1 },
      { type: "send-end", notice: null, stored: true },
    ]);
    expect(state.pendingUser).toBe("hello");
    expect(replyInFlight(state, true)).not.toBeNull();
    expect(replying(state, true)).toBe(true);
    state = run(state, [stored(message(3, "user", { content: "hello" })), delta("Hi"), end(4), stored(message(4, "assistant", { content: "Hi" }))]);
    expect(onScreen(state, true)).toEqual(["user 1", "assistant 2", "hello", "Hi"]);
    expect(replying(state, true)).toBe(false);
  });

  it("drops the person's text when nothing was stored (it goes back into the box)", () => {
    const state = run(loaded([]), [
      { type: "send-start", text: "hello", at: 1 },
      { type: "send-end", notice: { kind: "busy", text: "still answering", action: { type: "send", text: "hello" } }, stored: false },
    ]);
    expect(state.pendingUser).toBeNull();
    expect(replyInFlight(state, true)).toBeNull();
  });

  it("an edit replaces the message and what followed it on screen, and its reply streams after the edited message", () => {
    let state = loaded([message(1, "user"), message(2, "assistant"), message(3, "user"), message(4, "assistant")]);
    state = run(state, [{ type: "branch-start", from: 3 }, { type: "send-start", text: "edited", at: 1 }]);
    expect(onScreen(state, true)).toEqual(["user 1", "assistant 2", ""]);
    expect(state.pendingUser).toBe("edited");
    state = run(state, [
      { type: "send-stored", messageId: 5 },
      stored(message(5, "user", { content: "edited", parent_id: 2 })),
      delta("You said: edited"),
      end(6),
      stored(message(6, "assistant", { content: "You said: edited", parent_id: 5 })),
      { type: "send-end", notice: null, stored: true },
    ]);
    expect(onScreen(state, true)).toEqual(["user 1", "assistant 2", "edited", "You said: edited"]);
    expect(replying(state, true)).toBe(false);
  });

  it("a message another tab put on a new branch takes the place of what followed its parent", () => {
    let state = loaded([message(1, "user"), message(2, "assistant", { parent_id: 1 }), message(3, "user", { parent_id: 2 }), message(4, "assistant", { parent_id: 3 })]);
    state = run(state, [stored(message(5, "assistant", { content: "another answer", parent_id: 3 }))]);
    expect(onScreen(state, true)).toEqual(["user 1", "assistant 2", "user 3", "another answer"]);
    state = run(state, [stored(message(6, "user", { content: "a new first message", parent_id: null }))]);
    expect(state.messages.map((m) => m.id)).toEqual([6]);
    // The next message on the same branch just follows.
    state = run(state, [stored(message(7, "assistant", { parent_id: 6 }))]);
    expect(state.messages.map((m) => m.id)).toEqual([6, 7]);
  });

  it("a switch shows exactly the branch loaded, nothing merged from the one before", () => {
    const state = run(loaded([message(1, "user"), message(5, "user"), message(6, "assistant")]), [
      { type: "branched", id: ID, messages: [message(1, "user"), message(3, "user"), message(4, "assistant")] },
    ]);
    expect(state.messages.map((m) => m.id)).toEqual([1, 3, 4]);
  });

  it("the person's message that the stream brought before the turn said its id is known as the pending one", () => {
    const state = run(loaded([]), [{ type: "send-start", text: "hi", at: 1 }, stored(message(1, "user", { content: "hi" })), { type: "send-stored", messageId: 1 }]);
    expect(state.pendingUser).toBeNull();
    expect(state.messages.map((m) => m.id)).toEqual([1]);
  });

  it("shows Retry's new reply as being written although a failed reply is the newest message", () => {
    let state = run(loaded([message(1, "user"), message(2, "assistant", { error: true })]), [{ type: "send-start", text: null, at: 1 }]);
    expect(replyInFlight(state, true)).toEqual({ text: "", toolCalls: [] });
    state = run(state, [delta("Recovered"), end(3), stored(message(3, "assistant", { content: "Recovered" }))]);
    expect(replyInFlight(state, true)).toBeNull();
    expect(shown(state, true, "Recovered")).toBe(1);
  });

  it("a stopped reply is the stored copy of the text so far, once", () => {
    const state = run(loaded([message(1, "user")]), [
      { type: "send-start", text: "x", at: 1 },
      stored(message(2, "user")),
      delta("Thinking about it"),
      { type: "stop-requested" },
      end(3),
      stored(message(3, "assistant", { content: "Thinking about it", meta: { stopped: true } })),
      { type: "send-end", notice: null, stored: true },
    ]);
    expect(shown(state, true, "Thinking about it")).toBe(1);
    expect(state.stopping).toBe(false);
  });
});

describe("never twice, never a gap", () => {
  it("a work step's text stays until its stored copy arrives, while the next step already streams beside it", () => {
    let state = run(loaded([message(1, "user")]), [
      { type: "send-start", text: "run the check", at: 0 },
      stored(message(2, "user")),
      delta("The check "),
      delta("is running."),
      end(3), // stored as 3, which the reader brings a moment later
      delta("Next step"), // already the next step's text
    ]);
    expect(onScreen(state, false)).toEqual(["user 1", "user 2", "The check is running.", "Next step"]);
    state = chatReducer(state, stored(message(3, "assistant", { content: "The check is running.", author: "claude" })));
    expect(onScreen(state, false)).toEqual(["user 1", "user 2", "The check is running.", "Next step"]);
    expect(state.ended).toEqual([]);
    state = run(state, [delta(" goes on"), end(4), stored(message(4, "assistant", { content: "Next step goes on" }))]);
    expect(onScreen(state, false)).toEqual(["user 1", "user 2", "The check is running.", "Next step goes on"]);
  });

  it("an end whose stored copy came first hands over at once", () => {
    const state = run(loaded([message(1, "user")]), [delta("Done."), stored(message(2, "assistant", { content: "Done." })), end(2)]);
    expect(state.live).toBeNull();
    expect(state.ended).toEqual([]);
    expect(shown(state, false, "Done.")).toBe(1);
  });

  it("an end with nothing stored takes the live text away", () => {
    const state = run(loaded([message(1, "user")]), [delta("lost its claim"), end(null)]);
    expect(state.live).toBeNull();
    expect(state.ended).toEqual([]);
  });

  it("in a chat, a stored reply that arrives before its end is shown once", () => {
    const state = run(loaded([message(1, "user")]), [delta("Hello"), stored(message(2, "assistant", { content: "Hello" }))]);
    expect(shown(state, true, "Hello")).toBe(1);
  });

  it("a history reload that brings an ended reply's copy ends the wait for it", () => {
    const state = run(loaded([message(1, "user")]), [
      delta("Hello"),
      end(2),
      { type: "loaded", id: ID, messages: [message(1, "user"), message(2, "assistant", { content: "Hello" })] },
    ]);
    expect(state.ended).toEqual([]);
    expect(shown(state, true, "Hello")).toBe(1);
  });

  it("a reconnect keeps the text on screen until the server's replay replaces it, never appends to it", () => {
    let state = run(loaded([message(1, "user")]), [delta("abc"), open]);
    expect(replyInFlight(state, true)?.text).toBe("abc"); // no blank moment
    state = run(state, [delta("abcdef"), delta("g")]);
    expect(replyInFlight(state, true)?.text).toBe("abcdefg");
    state = run(state, [open, { type: "stream-tool-call", id: ID, callId: "c", tool: "add_task", parameters: null }, delta("abcdefgh")]);
    expect(state.live).toMatchObject({ text: "abcdefgh", toolCalls: [{ callId: "c" }] });
  });

  it("a reply that ended while the stream was away is replaced by its stored copy when it reconnects", () => {
    const state = run(loaded([message(1, "user")]), [delta("Half a"), open, stored(message(2, "assistant", { content: "Half a reply" }))]);
    expect(state.live).toBeNull();
    expect(onScreen(state, true)).toEqual(["user 1", "Half a reply"]);
  });

  it("a work step stored while the stream was away, then the replay of the next one", () => {
    const state = run(loaded([message(1, "user")]), [
      delta("Step one"),
      open,
      stored(message(2, "assistant", { content: "Step one, stored" })),
      delta("Step two so far"),
    ]);
    expect(onScreen(state, false)).toEqual(["user 1", "Step one, stored", "Step two so far"]);
  });

  it("an end that comes for a stale reply does not keep its partial text", () => {
    const state = run(loaded([message(1, "user")]), [delta("Hal"), open, end(2)]);
    expect(state.ended).toEqual([]);
    expect(state.live).toBeNull();
  });
});

describe("a reply written elsewhere (another tab, or before a reload)", () => {
  it("shows as being written, with its text so far, while the person's message is the newest", () => {
    let state = loaded([message(1, "user"), message(2, "assistant"), message(3, "user")]);
    expect(replyInFlight(state, true)).toEqual({ text: "", toolCalls: [] });
    expect(replying(state, true)).toBe(true);
    state = run(state, [delta("Half a rep"), delta("ly")]);
    expect(replyInFlight(state, true)?.text).toBe("Half a reply");
    state = run(state, [end(4), stored(message(4, "assistant", { content: "Half a reply" }))]);
    expect(replyInFlight(state, true)).toBeNull();
    expect(replying(state, true)).toBe(false);
  });

  it("text that comes before the person's stored message shows whole once that message is here", () => {
    let state = run(loaded([message(1, "user"), message(2, "assistant")]), [delta("Early "), delta("words")]);
    expect(replyInFlight(state, true)).toBeNull(); // the chat's newest message is a reply
    state = chatReducer(state, stored(message(3, "user")));
    expect(replyInFlight(state, true)?.text).toBe("Early words");
  });

  it("in a work session, the text shows as it streams, and nothing waits once it is stored", () => {
    let state = run(loaded([message(1, "user")]), [delta("Claude writes")]);
    expect(replyInFlight(state, false)?.text).toBe("Claude writes");
    state = run(state, [end(2), stored(message(2, "assistant", { content: "Claude writes" }))]);
    expect(replyInFlight(state, false)).toBeNull();
    expect(replying(state, false)).toBe(false);
  });

  it("nothing is being written while the history loads", () => {
    const state = chatReducer(initialChatState(ID), delta("ignored until loaded"));
    expect(replyInFlight(state, true)).toBeNull();
  });
});
