import { describe, expect, it } from "vitest";
import { questionOpen, runLatest, runSection, type Run } from "@/lib/agent-types";
import { answerText } from "@/components/permission-card";
import { runTree } from "@/lib/use-runs";
import { threadTag } from "@/components/thread-timeline";
import type { Message } from "@/lib/types";

function run(id: number, parent: number | null, status: Run["status"] = "running"): Run {
  return {
    id,
    agent: `a${id}`,
    kind: "external",
    status,
    title: null,
    conversation_id: id * 10,
    parent_run_id: parent,
    started_at: "2026-01-01T00:00:00Z",
    last_activity_at: "2026-01-01T00:00:00Z",
    ended_at: null,
    summary: null,
    error: null,
    progress: null,
    latest_status: null,
  };
}

function message(id: number, kind: string, extra: Partial<Message> = {}): Message {
  return {
    id,
    conversation_id: 1,
    role: "agent",
    author: "coder",
    kind,
    content: "x",
    tool_calls: null,
    error: false,
    reply_to: null,
    meta: null,
    created_at: "2026-01-01T00:00:00Z",
    ...extra,
  } as Message;
}

describe("runTree", () => {
  it("nests children under their parent, newest roots first, children in order", () => {
    const tree = runTree([run(1, null), run(2, 1), run(3, 1), run(4, null), run(5, 99)]);
    expect(tree.map((n) => n.run.id)).toEqual([5, 4, 1]);
    expect(tree[2]?.children.map((n) => n.run.id)).toEqual([2, 3]);
  });
});

describe("runSection", () => {
  it("groups by what the person has to do", () => {
    expect(runSection({ status: "waiting_input" })).toBe("waiting");
    expect(runSection({ status: "running" })).toBe("running");
    expect(runSection({ status: "timed_out" })).toBe("finished");
  });
});

describe("questionOpen", () => {
  it("is open until a later message replies to it or the stream closes it", () => {
    const q = message(1, "question");
    expect(questionOpen(q, [q])).toBe(true);
    expect(questionOpen(q, [q, message(2, "answer", { reply_to: 1, role: "user" })])).toBe(false);
    expect(questionOpen(q, [q], new Set([1]))).toBe(false);
    expect(questionOpen(message(3, "message"), [])).toBe(false);
  });
});

describe("runLatest", () => {
  it("says how a finished run ended, never its last progress report", () => {
    const done = { ...run(1, null, "completed"), latest_status: "50% done", progress: 50, summary: "Shipped" };
    expect(runLatest(done)).toBe("Shipped");
    expect(runLatest({ ...done, summary: null })).toBeNull();
    expect(runLatest({ ...done, status: "failed", error: "Disk full" })).toBe("Disk full");
    expect(runLatest({ ...done, status: "running" })).toBe("50% done");
  });
});

describe("questionOpen for permission requests", () => {
  it("is closed once decided or closed by its session", () => {
    const asked = message(5, "question", { meta: { permission: { tool: "Bash" } } });
    expect(questionOpen(asked, [asked])).toBe(true);
    expect(questionOpen({ ...asked, meta: { permission: {}, answer: "allow" } }, [])).toBe(false);
    expect(questionOpen({ ...asked, meta: { permission: {}, closed: "closed" } }, [])).toBe(false);
  });
  it("reads a decision as words", () => {
    expect(answerText("allow_session")).toBe("Answered: Allowed for this session");
    expect(answerText("deny")).toBe("Answered: Denied");
    expect(answerText(null)).toBe("No longer waiting for an answer.");
  });
});

describe("threadTag", () => {
  it("names each typed message the way the timeline shows it", () => {
    expect(threadTag(message(1, "status", { meta: { progress: 50 } }))).toBe("status 50%");
    expect(threadTag(message(2, "completion"))).toBe("completed");
    expect(threadTag(message(3, "question"))).toBe("question");
    expect(threadTag(message(4, "delegation"))).toBeNull();
  });
});
