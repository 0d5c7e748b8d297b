import { describe, expect, it } from "vitest";
import { changedFiles } from "@/components/changed-files";
import { fileChangeOf } from "@/lib/tool-diff";
import type { Message } from "@/lib/types";

function event(id: number, meta: Record<string, unknown>): Message {
  return {
    id,
    conversation_id: 1,
    role: "assistant",
    author: "claude",
    kind: "output",
    content: "",
    tool_calls: null,
    error: false,
    reply_to: null,
    meta,
    created_at: "2026-01-01T00:00:00Z",
  };
}

describe("a file edit as a diff", () => {
  it("shows a Write as its new lines under the file name", () => {
    expect(fileChangeOf({ file_path: "notes/todo.md", content: "one\ntwo\n" })).toEqual({
      path: "notes/todo.md",
      kind: "write",
      lines: [
        { sign: "+", text: "one" },
        { sign: "+", text: "two" },
      ],
    });
  });

  it("shows an Edit as old → new lines, unchanged lines kept", () => {
    const change = fileChangeOf({ file_path: "a.py", old_string: "x = 1\ny = 2\n", new_string: "x = 1\ny = 3\n" });
    expect(change?.lines).toEqual([
      { sign: " ", text: "x = 1" },
      { sign: "-", text: "y = 2" },
      { sign: "+", text: "y = 3" },
    ]);
  });

  it("is nothing for a command", () => {
    expect(fileChangeOf({ command: "ls" })).toBeNull();
  });

  it("lists the files a session changed, not those denied or failed", () => {
    const messages = [
      event(1, { type: "tool_use", tool_use_id: "a", tool: "Write", input: { file_path: "ok.txt", content: "hi" } }),
      event(2, { type: "tool_result", tool_use_id: "a", is_error: false }),
      event(3, { type: "tool_use", tool_use_id: "b", tool: "Edit", input: { file_path: "denied.txt", old_string: "a", new_string: "b" } }),
      event(4, { type: "tool_result", tool_use_id: "b", is_error: true }),
      event(5, { type: "tool_use", tool_use_id: "c", tool: "Bash", input: { command: "ls" } }),
      event(6, { type: "tool_result", tool_use_id: "c", is_error: false }),
      event(7, { type: "tool_use", tool_use_id: "d", tool: "Edit", input: { file_path: "ok.txt", old_string: "hi", new_string: "ho" } }),
      event(8, { type: "tool_result", tool_use_id: "d", is_error: false }),
    ];
    expect(changedFiles(messages)).toEqual(["ok.txt"]);
  });
});
