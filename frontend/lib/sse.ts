export interface SseEvent {
  event: string;
  data: string;
  id: string | null;
}

/**
 * Parses a text/event-stream body incrementally (WHATWG rules: fields event/data/id,
 * comments ignored, events end at a blank line, CRLF/CR/LF all accepted).
 */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let id: string | null = null;
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", onAbort);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let match: RegExpExecArray | null;
      const lineBreak = /\r\n|\r|\n/g;
      let consumed = 0;
      while ((match = lineBreak.exec(buffer)) !== null) {
        // A lone \r at the very end may be the first half of \r\n: wait for more input.
        if (match[0] === "\r" && match.index === buffer.length - 1) break;
        const line = buffer.slice(consumed, match.index);
        consumed = match.index + match[0].length;
        if (line === "") {
          if (data.length > 0) yield { event: event || "message", data: data.join("\n"), id };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        let fieldValue = colon === -1 ? "" : line.slice(colon + 1);
        if (fieldValue.startsWith(" ")) fieldValue = fieldValue.slice(1);
        if (field === "event") event = fieldValue;
        else if (field === "data") data.push(fieldValue);
        else if (field === "id" && !fieldValue.includes("\0")) id = fieldValue;
      }
      buffer = buffer.slice(consumed);
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
}

export function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
