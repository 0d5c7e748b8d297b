import { describe, expect, it } from "vitest";
import { sendRoute } from "@/lib/send-route";

describe("sendRoute", () => {
  it("posts in the inbox, runs and threads, whatever runs", () => {
    for (const busy of [false, true]) for (const questionWaiting of [false, true]) expect(sendRoute({ direct: true, questionWaiting, busy })).toBe("post");
  });

  it("sends at once while a question waits, even while the reply that asked still streams", () => {
    expect(sendRoute({ direct: false, questionWaiting: true, busy: true })).toBe("post");
  });

  it("queues behind a running reply when nothing waits on the person", () => {
    expect(sendRoute({ direct: false, questionWaiting: false, busy: true })).toBe("queue");
  });

  it("starts a turn when nothing runs, question or not (as another tab does)", () => {
    expect(sendRoute({ direct: false, questionWaiting: false, busy: false })).toBe("turn");
    expect(sendRoute({ direct: false, questionWaiting: true, busy: false })).toBe("turn");
  });
});
