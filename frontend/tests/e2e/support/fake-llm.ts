import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the fake model says to a message, chosen by a word in it. */
export const MARKDOWN_REPLY = [
  "Here is the plan:",
  "",
  "- **first** item",
  "- second item",
  "",
  "| task | owner |",
  "| --- | --- |",
  "| milk | ann |",
  "",
  "```python",
  "print('hello')",
  "```",
  "",
  "A [bad link](javascript:alert(1)) and <img src=x onerror=alert(1)> stay harmless.",
].join("\n");

/** A reply with a code line far wider than a phone ("longcode"). */
export const LONG_CODE_REPLY = [
  "Run this:",
  "",
  "```ts",
  `const message: string = "${"a long line that never wraps ".repeat(8).trim()}"; // end`,
  "```",
].join("\n");

interface ChatMessage {
  role: string;
  content?: unknown;
}

function lastUserText(messages: ChatMessage[]): string {
  const last = [...messages].reverse().find((m) => m.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  if (Array.isArray(last.content)) {
    const parts = last.content as { type?: string; text?: string }[];
    // Images attached to the message: counted, so a test sees that the model got them.
    const images = parts.filter((part) => part.type === "image_url").length;
    return parts.map((part) => part.text ?? "").join("") + (images ? ` [${images} image${images > 1 ? "s" : ""}]` : "");
  }
  return "";
}

function chunk(content: string | null, finish: string | null): string {
  const delta = content === null ? {} : { role: "assistant", content };
  const body = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake", choices: [{ index: 0, delta, finish_reason: finish }] };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** Words in a paced reply: "w1 w2 … w40 ". */
export const PACED_WORDS = 40;

/**
 * A local OpenAI-compatible Chat Completions server for the browser tests. By the person's last
 * message: "markdown" → a Markdown reply; "longcode" → a code block with a very long line; "hang" → a few words, then nothing until the client
 * goes away; "silent" → nothing at all until then; "flaky" → fails the first time, answers the next; "slowfail" → fails after 2 s;
 * "paced <tag>" → the words w1 … w40, each written only once the test has allowed it (`allow`);
 * anything else → "You said: …". Failures are HTTP 400 (the client does not retry those).
 * `GET /v1/models` lists `models`; every completion request is kept in `requests`.
 */
export class FakeLlm {
  private server: Server | null = null;
  private flakySeen = new Set<string>();
  /** What `GET /v1/models` lists. */
  models = ["fake-model", "fake-large", "fake-small"];
  /** Each completion request: the model asked for, the system prompt and the person's last words. */
  requests: { model: string; system: string; text: string }[] = [];
  private paces = new Map<string, { allowed: number; waiting: (() => void)[] }>();
  url = "";

  /** Lets the reply to "paced <tag>" write its words up to word `words` (now, or when it gets there). */
  allow(tag: string, words: number): void {
    const pace = this.pace(tag);
    pace.allowed = Math.max(pace.allowed, words);
    for (const wake of pace.waiting.splice(0)) wake();
  }

  private pace(tag: string) {
    let pace = this.paces.get(tag);
    if (!pace) {
      pace = { allowed: 0, waiting: [] };
      this.paces.set(tag, pace);
    }
    return pace;
  }

  private async allowed(tag: string, word: number): Promise<void> {
    const pace = this.pace(tag);
    while (pace.allowed < word) await new Promise<void>((resolve) => pace.waiting.push(resolve));
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = "";
    for await (const part of req) raw += String(part);
    if (req.method === "GET" && req.url?.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: this.models.map((id) => ({ id, object: "model", owned_by: "fake" })) }));
      return;
    }
    const body = (raw ? JSON.parse(raw) : {}) as { messages?: ChatMessage[]; stream?: boolean; model?: string };
    const text = lastUserText(body.messages ?? []);
    const system = (body.messages ?? []).filter((m) => m.role === "system").map((m) => (typeof m.content === "string" ? m.content : ""));
    this.requests.push({ model: body.model ?? "", system: system.join("\n"), text });

    const fail = (message: string) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message, type: "invalid_request_error" } }));
    };
    if (text.includes("slowfail")) {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return fail("upstream exploded: secret stack trace");
    }
    if (text.includes("flaky") && !this.flakySeen.has(text)) {
      this.flakySeen.add(text);
      return fail("upstream exploded: secret stack trace");
    }
    const reply = text.includes("longcode") ? LONG_CODE_REPLY : text.includes("markdown") ? MARKDOWN_REPLY : text.includes("flaky") ? `Recovered: ${text}` : `You said: ${text}`;

    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "chatcmpl-fake",
          object: "chat.completion",
          created: 0,
          model: "fake",
          choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (text.includes("silent")) return; // thinks forever without a word; only Stop ends it
    const paced = /paced (\S+)/.exec(text)?.[1];
    if (paced !== undefined) {
      for (let word = 1; word <= PACED_WORDS; word += 1) {
        await this.allowed(paced, word);
        res.write(chunk(`w${word} `, null));
      }
      res.write(chunk(null, "stop"));
      res.end("data: [DONE]\n\n");
      return;
    }
    if (text.includes("hang")) {
      res.write(chunk("Thinking about it", null));
      return; // never finishes; the client's stop or timeout ends it
    }
    for (const word of reply.split(/(?<= )/)) res.write(chunk(word, null));
    res.write(chunk(null, "stop"));
    res.end("data: [DONE]\n\n");
  }
}
