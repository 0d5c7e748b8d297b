import { describe, expect, it } from "vitest";
import { speakableText } from "@/lib/read-aloud";
import { idleWorkRuns, runIdle } from "@/lib/idle-runs";
import type { Conversation } from "@/lib/types";

describe("speakableText", () => {
  it("reads words, not Markdown marks, link targets or code", () => {
    const text = "## Plan\n\n- **First**, read [the docs](https://example.com/x)\n- run `make`\n\n```sh\nrm -rf /\n```\nDone.";
    const said = speakableText(text);
    expect(said).toBe("Plan First, read the docs run make (code block) Done.");
    expect(said).not.toMatch(/[#*`]|https?:/);
  });

  it("keeps a plain reply as it is", () => {
    expect(speakableText("Added task #1 'buy milk'.")).toBe("Added task #1 'buy milk'.");
  });
});

describe("idle work runs", () => {
  const work = (id: number, status: string, runId: number | null) =>
    ({ id, mode: "work", work: { status, run_id: runId, cost_usd: 0 } }) as unknown as Conversation;

  it("a work session waiting for the next message is idle; one working is not", () => {
    const idle = idleWorkRuns([work(1, "idle", 10), work(2, "working", 11), work(3, "idle", null)]);
    expect([...idle]).toEqual([10]);
    expect(runIdle({ id: 10, status: "running" }, idle)).toBe(true);
    expect(runIdle({ id: 11, status: "running" }, idle)).toBe(false);
    // An ended run is never shown idle, whatever the list said last.
    expect(runIdle({ id: 10, status: "completed" }, idle)).toBe(false);
  });

  it("no conversations yet: nothing idle", () => {
    expect(idleWorkRuns(null).size).toBe(0);
  });
});
