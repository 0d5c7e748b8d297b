import { describe, expect, it } from "vitest";
import { resultFailed, summarizeToolCall } from "@/lib/tool-summary";

describe("summarizeToolCall", () => {
  it.each([
    ["add_task", { title: "buy milk" }, { task_id: 1, title: "buy milk" }, "Added task 'buy milk'"],
    ["complete_task", { task_id: 3 }, { task_id: 3, title: "buy milk" }, "Completed task 3 'buy milk'"],
    ["complete_task", { task_id: 3, completed: false }, { title: "x" }, "Reopened task 3 'x'"],
    ["update_task", { task_id: 1, title: "call mom" }, { title: "call mom" }, "Renamed task 1 to 'call mom'"],
    ["delete_task", { task_id: 2 }, { title: "x" }, "Deleted task 2 'x'"],
    ["list_tasks", {}, { tasks: [{}, {}, {}, {}] }, "Listed 4 tasks"],
    ["list_tasks", { status: "pending" }, { tasks: [{}] }, "Listed 1 pending task"],
    ["start_work_session", {}, {}, "Started a work session"],
    ["some_new_tool", {}, {}, "Called some new tool"],
  ])("%s %j reads as a short line", (tool, params, result, line) => {
    expect(summarizeToolCall(tool, params, result, false)).toBe(line);
  });

  it("says what is happening while the call runs", () => {
    expect(summarizeToolCall("add_task", { title: "milk" }, undefined, true)).toBe("Adding task 'milk'…");
    expect(summarizeToolCall("list_tasks", {}, undefined, true)).toBe("Listing tasks…");
  });

  it("reads failures as failures, without the SDK's prefix", () => {
    const result = { error: "Error executing tool complete_task: Task 999 not found" };
    expect(resultFailed(result)).toContain("Task 999 not found");
    expect(summarizeToolCall("complete_task", { task_id: 999 }, result, false)).toBe("Couldn't complete task 999: Task 999 not found");
  });

  it("shortens long titles", () => {
    const line = summarizeToolCall("add_task", { title: "x".repeat(100) }, {}, false);
    expect(line.length).toBeLessThan(80);
    expect(line.endsWith("…'")).toBe(true);
  });
});
