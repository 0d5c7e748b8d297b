import { describe, expect, it } from "vitest";
import { chatReducer, endsWithFailure, initialChatState, remoteReply, type ChatAction, type ChatState } from "@/lib/chat-reducer";
import type { Message } from "@/lib/types";

function message(id: number, role: Message["role"], extra: Partial<Message> = {}): Message {
  return {
    id,
    conversation_id: 7,
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
  return chatReducer(initialChatState(7), { type: "loaded", id: 7, messages });
}

describe("chatReducer", () => {
  it("keeps the open conversation when it is chosen again", () => {
    const state = loaded([message(1, "user"), message(2, "assistant")]);
    const again = chatReducer(state, { type: "select", id: 7 });
    expect(again).toBe(state);
    expect(again.loading).toBe(false);
    expect(again.messages).toHaveLength(2);
  });

  it("starts empty and loading for another conversation", () => {
    const other = chatReducer(loaded([message(1, "user")]), { type: "select", id: 8 });
    expect(other).toMatchObject({ conversationId: 8, loading: true, messages: [] });
  });

  it("merges messages by id, in order, without duplicates", () => {
    let state = loaded([message(2, "assistant"), message(1, "user")]);
    state = chatReducer(state, { type: "upsert", messages: [message(2, "assistant", { content: "edited" }), message(3, "user")] });
    expect(state.messages.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(state.messages[1]?.content).toBe("edited");
  });

  it("drops messages of a conversation that is no longer open", () => {
    const state = loaded([message(1, "user")]);
    expect(chatReducer(state, { type: "upsert", messages: [message(9, "user", { conversation_id: 99 })] })).toBe(state);
  });

  it("streams a reply: deltas, tool calls pending then done, stored message replaces the live one", () => {
    let state = chatReducer(loaded([]), { type: "send-start", text: "add milk", at: 1000 });
    expect(state).toMatchObject({ sending: true, startedAt: 1000, pendingUser: "add milk" });
    state = chatReducer(state, { type: "tool-call", callId: "c1", tool: "add_task", parameters: { title: "milk" } });
    state = chatReducer(state, { type: "delta", text: "Added " });
    state = chatReducer(state, { type: "delta", text: "milk" });
    expect(state.live?.text).toBe("Added milk");
    expect(state.live?.toolCalls[0]?.done).toBe(false);
    state = chatReducer(state, { type: "tool-result", callId: "c1", tool: "add_task", result: { id: 1 } });
    expect(state.live?.toolCalls[0]).toMatchObject({ done: true, result: { id: 1 } });
    state = chatReducer(state, { type: "upsert", messages: [message(1, "user")] });
    expect(state.pendingUser).toBeNull();
    state = chatReducer(state, { type: "upsert", messages: [message(2, "assistant")] });
    expect(state.live).toBeNull();
    state = chatReducer(state, { type: "send-end", notice: null });
    expect(state).toMatchObject({ sending: false, startedAt: null, stopping: false });
  });

  it("keeps the reply being written when earlier messages are loaded again", () => {
    let state = loaded([message(1, "user"), message(2, "assistant")]);
    state = chatReducer(state, { type: "send-start", text: "next", at: 1 });
    state = chatReducer(state, { type: "upsert", messages: [message(1, "user"), message(2, "assistant")] });
    expect(state.pendingUser).toBe("next");
    expect(state.live).not.toBeNull();
    state = chatReducer(state, { type: "delta", text: "still here" });
    expect(state.live?.text).toBe("still here");
  });

  it("marks a stop only while sending", () => {
    const idle = loaded([]);
    expect(chatReducer(idle, { type: "stop-requested" })).toBe(idle);
    const sending = chatReducer(idle, { type: "send-start", text: "x", at: 1 });
    expect(chatReducer(sending, { type: "stop-requested" }).stopping).toBe(true);
  });

  it("ignores another writer's deltas while this tab is sending", () => {
    const sending = chatReducer(loaded([]), { type: "send-start", text: "x", at: 1 });
    expect(chatReducer(sending, { type: "remote-delta", text: "zz" }).remoteLive).toBeNull();
    expect(chatReducer(loaded([]), { type: "remote-delta", text: "zz" }).remoteLive).toBe("zz");
  });

  it("knows when the conversation ends with a failed reply", () => {
    expect(endsWithFailure(loaded([message(1, "user"), message(2, "assistant", { error: true })]))).toBe(true);
    expect(endsWithFailure(loaded([message(1, "user"), message(2, "assistant")]))).toBe(false);
    expect(endsWithFailure(loaded([message(1, "user")]))).toBe(false);
  });

  describe("no ghost copy of a reply (issue 19, item 1)", () => {
    const run = (state: ChatState, actions: ChatAction[]) => actions.reduce(chatReducer, state);
    const ownTurn: ChatAction[] = [
      { type: "send-start", text: "show my pending tasks", at: 0 },
      { type: "upsert", messages: [message(3, "user")] },
      { type: "delta", text: "You have " },
      { type: "delta", text: "no tasks." },
      { type: "upsert", messages: [message(4, "assistant", { content: "You have no tasks." })] },
      { type: "send-end", notice: null },
    ];

    it("drops the event stream's deltas that arrive after this tab's own reply is stored", () => {
      const state = run(loaded([message(1, "user"), message(2, "assistant")]), [
        ...ownTurn,
        // The conversation's event stream lags behind the turn's own stream.
        { type: "remote-delta", text: "You have " },
        { type: "remote-delta", text: "no tasks." },
        { type: "upsert", messages: [message(4, "assistant", { content: "You have no tasks." })] },
      ]);
      expect(state.remoteLive).toBeNull();
      expect(remoteReply(state, true)).toBeNull();
      expect(state.messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    });

    it("never shows a snapshot of a reply that is already stored", () => {
      const state = run(loaded([message(1, "user"), message(2, "assistant")]), [
        ...ownTurn,
        // The event stream (re)connects just after the reply was stored: its snapshot of the
        // text so far repeats the stored reply, and no stored message follows it.
        { type: "remote-open", after: 3 },
        { type: "remote-delta", text: "You have no tasks." },
      ]);
      expect(remoteReply(state, true)).toBeNull();
    });

    it("a stale snapshot does not prefix the next reply written elsewhere", () => {
      const state = run(loaded([message(1, "user"), message(2, "assistant")]), [
        { type: "remote-delta", text: "old text" },
        { type: "upsert", messages: [message(3, "user")] },
        { type: "remote-delta", text: "New" },
      ]);
      expect(remoteReply(state, true)).toBe("New");
    });
  });

  describe("a reply running elsewhere (issue 19, item 2)", () => {
    it("shows as being written, with the text so far, when the newest message is the person's", () => {
      let state = loaded([message(1, "user"), message(2, "assistant"), message(3, "user")]);
      expect(remoteReply(state, true)).toBe("");
      state = chatReducer(state, { type: "remote-delta", text: "Half a rep" });
      state = chatReducer(state, { type: "remote-delta", text: "ly" });
      expect(remoteReply(state, true)).toBe("Half a reply");
      state = chatReducer(state, { type: "upsert", messages: [message(4, "assistant")] });
      expect(remoteReply(state, true)).toBeNull();
    });

    it("starts again from the snapshot when the stream reconnects", () => {
      let state = loaded([message(1, "user")]);
      state = chatReducer(state, { type: "remote-delta", text: "abc" });
      state = chatReducer(state, { type: "remote-open", after: 1 });
      state = chatReducer(state, { type: "remote-delta", text: "abcdef" });
      expect(remoteReply(state, true)).toBe("abcdef");
    });
  });
  describe("the sending tab applies its own turn once (issue 18, item 4)", () => {
    const run = (state: ChatState, actions: ChatAction[]) => actions.reduce(chatReducer, state);
    // A work prompt: the turn's own stream brings each stored step and the text between them.
    const ownTurn: ChatAction[] = [
      { type: "send-start", text: "list the files", at: 0 },
      { type: "upsert", messages: [message(3, "user")] },
      { type: "delta", text: "Looking at " },
      { type: "delta", text: "the files." },
      { type: "upsert", messages: [message(4, "assistant", { content: "Looking at the files.", author: "claude" })] },
      { type: "send-end", notice: null },
    ];

    it("drops the event stream's echo of the turn's text, which would show as a second, live copy", () => {
      const state = run(loaded([message(1, "user"), message(2, "assistant")]), [
        ...ownTurn,
        // The conversation's event stream lags behind the turn's own stream.
        { type: "remote-delta", text: "Looking at " },
        { type: "remote-delta", text: "the files." },
      ]);
      expect(state.remoteLive).toBeNull();
      expect(remoteReply(state, false)).toBeNull();
    });

    it("takes the echoed messages as already applied", () => {
      const done = run(loaded([message(1, "user"), message(2, "assistant")]), ownTurn);
      const echoed = run(done, [
        { type: "remote-message", messages: [message(3, "user")] },
        { type: "remote-message", messages: [message(4, "assistant", { content: "Looking at the files.", author: "claude" })] },
      ]);
      expect(echoed.messages).toBe(done.messages);
      expect(echoed.remoteSeen).toBe(4);
    });

    it("shows a message only the event stream brings, even after the own stream brought a later one", () => {
      // A work session's permission question (5) is stored beside the turn's own stream, which
      // has already brought the tool step stored after it (6).
      const question = message(5, "assistant", { kind: "question", author: "claude", meta: { permission: { tool: "Bash", input: {} } } });
      const state = run(loaded([message(1, "user"), message(2, "assistant")]), [
        { type: "send-start", text: "clean up", at: 0 },
        { type: "upsert", messages: [message(3, "user")] },
        { type: "upsert", messages: [message(4, "assistant", { author: "claude" }), message(6, "assistant", { author: "claude" })] },
        { type: "remote-message", messages: [message(3, "user"), message(4, "assistant", { author: "claude" })] },
        { type: "remote-message", messages: [question] },
      ]);
      expect(state.messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(state.messages.find((m) => m.id === 5)?.kind).toBe("question");
    });

    it("does not show a step's text twice when the event stream brings it stored before the own stream's last deltas", () => {
      const step = message(4, "assistant", { content: "The check is finished.", author: "claude" });
      const state = run(loaded([message(1, "user"), message(2, "assistant")]), [
        { type: "send-start", text: "run the check", at: 0 },
        { type: "upsert", messages: [message(3, "user")] },
        { type: "delta", text: "The check " },
        { type: "remote-message", messages: [step] }, // stored, and here before the rest of its text
        { type: "delta", text: "is finished." }, // the own stream, behind
      ]);
      expect(state.live).toBeNull();
      const caughtUp = run(state, [
        { type: "upsert", messages: [step] }, // the own stream gets to the stored step
        { type: "delta", text: "Next step" }, // the next step's text: a new bubble
      ]);
      expect(caughtUp.live?.text).toBe("Next step");
      expect(caughtUp.messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    });

    it("shows what is written elsewhere once the event stream has caught up with the turn", () => {
      const state = run(loaded([message(1, "user"), message(2, "assistant")]), [
        ...ownTurn,
        { type: "remote-delta", text: "Looking at " },
        { type: "remote-message", messages: [message(4, "assistant", { content: "Looking at the files.", author: "claude" })] },
        // Another tab's prompt, then its reply being written.
        { type: "remote-message", messages: [message(5, "user")] },
        { type: "remote-delta", text: "Next" },
      ]);
      expect(state.messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
      expect(remoteReply(state, false)).toBe("Next");
    });

    it("a reconnect after the turn starts after the last message: what follows is new", () => {
      const state = run(loaded([message(1, "user"), message(2, "assistant")]), [
        ...ownTurn,
        { type: "remote-open", after: 4 },
        { type: "remote-delta", text: "Resumed" },
      ]);
      expect(remoteReply(state, false)).toBe("Resumed");
    });
  });
});
