import { describe, expect, it } from "vitest";
import { readSse, type SseEvent } from "@/lib/sse";

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all(chunks: string[]): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(body(chunks))) events.push(event);
  return events;
}

describe("readSse", () => {
  it("reads named events with ids and JSON data", async () => {
    expect(await all(['id: 5\nevent: message\ndata: {"a":1}\n\n', 'event: done\ndata: {}\n\n'])).toEqual([
      { event: "message", data: '{"a":1}', id: "5" },
      { event: "done", data: "{}", id: null },
    ]);
  });

  it("joins events split across chunks, even inside a line or a CRLF", async () => {
    expect(await all(["event: del", "ta\r", "\ndata: hel", "lo\r\n\r\n"])).toEqual([{ event: "delta", data: "hello", id: null }]);
  });

  it("skips comments (heartbeats) and joins multi-line data", async () => {
    expect(await all([": ping\n\n", "data: one\ndata: two\n\n"])).toEqual([{ event: "message", data: "one\ntwo", id: null }]);
  });

  it("stops when the signal aborts", async () => {
    const controller = new AbortController();
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode("data: first\n\n"));
      },
    });
    const seen: string[] = [];
    for await (const event of readSse(stream, controller.signal)) {
      seen.push(event.data);
      controller.abort();
    }
    expect(seen).toEqual(["first"]);
  });
});
