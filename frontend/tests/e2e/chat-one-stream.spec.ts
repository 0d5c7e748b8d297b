import type { Page } from "@playwright/test";
import { PACED_WORDS } from "./support/fake-llm";
import { expect, lastReply, modelTest as test, sendMessage, signIn } from "./support/fixtures";

/**
 * The chat renders a reply from one stream, the conversation's event stream. Here that stream
 * is made slow (held, then let through at once) or dropped mid-reply (the page reconnects with
 * Last-Event-ID), while the fake model writes "w1 w2 … w40" only as far as the test allows. A
 * recorder in the page looks at every change of the page: once shown, the reply's words must
 * never show in two places, never skip or repeat a word, never go back to fewer words and never
 * disappear, not even for a moment.
 */

interface Faults {
  violations: string[];
  most: number;
  heldText: string;
  turnText: string;
  connects: number;
}

declare global {
  interface Window {
    __faults: Faults & {
      hold: boolean;
      blocked: Promise<void> | null;
      unblock: () => void;
      streams: { controller: ReadableStreamDefaultController<Uint8Array>; reader: ReadableStreamDefaultReader<Uint8Array>; held: Uint8Array[]; dropped: boolean }[];
    };
    __hold: () => void;
    __release: () => void;
    __drop: (blockReconnect: boolean) => void;
    __unblock: () => void;
  }
}

/** Before any page script: fetch wrapped for the event stream's faults, and the recorder. */
async function instrument(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const realFetch = window.fetch.bind(window);
    const decoder = () => new TextDecoder();
    const faults: Window["__faults"] = {
      violations: [],
      most: 0,
      heldText: "",
      turnText: "",
      connects: 0,
      hold: false,
      blocked: null,
      unblock: () => undefined,
      streams: [],
    };
    window.__faults = faults;

    window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (/\/chat$/.test(url) && init?.method === "POST") {
        // The turn's own stream: read beside the page (which shows nothing from it), to know
        // how far the reply has got on the server.
        const response = await realFetch(input, init);
        const copy = response.clone();
        if (copy.body) {
          void (async () => {
            const reader = copy.body!.getReader();
            const text = decoder();
            for (;;) {
              const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
              if (done) return;
              faults.turnText += text.decode(value, { stream: true });
            }
          })();
        }
        return response;
      }
      if (!/\/conversations\/\d+\/events$/.test(url)) return realFetch(input, init);
      if (faults.blocked) await faults.blocked;
      faults.connects += 1;
      const response = await realFetch(input, init);
      if (!response.body) return response;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          const entry = { controller, reader, held: [] as Uint8Array[], dropped: false };
          faults.streams.push(entry);
          const text = decoder();
          void (async () => {
            try {
              for (;;) {
                const { value, done } = await reader.read();
                if (entry.dropped) return;
                if (done) {
                  controller.close();
                  return;
                }
                if (faults.hold) {
                  entry.held.push(value);
                  faults.heldText += text.decode(value, { stream: true });
                } else {
                  controller.enqueue(value);
                }
              }
            } catch (error) {
              if (!entry.dropped) controller.error(error);
            }
          })();
        },
        cancel(reason) {
          void reader.cancel(reason);
        },
      });
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    };

    /** The stream goes slow: what arrives is held back. */
    window.__hold = () => {
      faults.hold = true;
      faults.heldText = "";
    };
    /** ...then let through at once. */
    window.__release = () => {
      faults.hold = false;
      for (const entry of faults.streams) {
        if (entry.dropped) continue;
        for (const chunk of entry.held.splice(0)) entry.controller.enqueue(chunk);
      }
    };
    /** The connection breaks (what was held never arrives); the page reconnects, maybe only once unblocked. */
    window.__drop = (blockReconnect: boolean) => {
      if (blockReconnect) faults.blocked = new Promise<void>((resolve) => (faults.unblock = resolve));
      faults.hold = false;
      for (const entry of faults.streams.splice(0)) {
        entry.dropped = true;
        entry.held = [];
        void entry.reader.cancel();
        entry.controller.error(new TypeError("network error"));
      }
    };
    window.__unblock = () => {
      faults.blocked = null;
      faults.unblock();
    };

    // The recorder: at every change, the reply's words wherever they show.
    const look = () => {
      const bubbles = document.querySelectorAll(
        '[data-testid="message"][data-role="assistant"], [data-testid="streaming-message"], [data-testid="remote-streaming-message"]',
      );
      const shown: number[][] = [];
      for (const bubble of bubbles) {
        const words = (bubble.querySelector('[data-testid="message-text"]')?.textContent ?? "").match(/\bw\d+\b/g);
        if (words) shown.push(words.map((w) => Number(w.slice(1))));
      }
      const state = JSON.stringify(shown);
      if (shown.length === 0 && faults.most > 0) faults.violations.push(`the reply's ${faults.most} words disappeared`);
      if (shown.length > 1) faults.violations.push(`the reply shows in ${shown.length} places: ${state}`);
      for (const words of shown) {
        if (words.some((w, i) => w !== i + 1)) faults.violations.push(`a word is missing or repeated: ${state}`);
        if (words.length < faults.most) faults.violations.push(`the reply went back from ${faults.most} words to ${words.length}`);
        faults.most = Math.max(faults.most, words.length);
      }
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true });
  });
}

const faults = (page: Page) =>
  page.evaluate(() => ({
    violations: window.__faults.violations,
    most: window.__faults.most,
    heldText: window.__faults.heldText,
    turnText: window.__faults.turnText,
    connects: window.__faults.connects,
  }));

/** The words the page shows of the reply being written (or stored), as "w1 … wN". */
function upTo(words: number): RegExp {
  return new RegExp(`^\\s*${Array.from({ length: words }, (_, i) => `w${i + 1}`).join("\\s+")}\\s*$`);
}

async function startPaced(page: Page, tag: string, allow: (n: number) => void, words: number): Promise<void> {
  await sendMessage(page, `paced ${tag}`);
  allow(words);
  await expect(page.getByTestId("streaming-message").getByTestId("message-text")).toHaveText(upTo(words));
}

async function expectOneStoredReply(page: Page): Promise<void> {
  await expect(lastReply(page).getByTestId("message-text")).toHaveText(upTo(PACED_WORDS));
  await expect(page.getByTestId("streaming-message")).toHaveCount(0);
  await expect(page.getByTestId("remote-streaming-message")).toHaveCount(0);
  await expect(page.locator('[data-testid="message"][data-role="assistant"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveCount(1);
  const seen = await faults(page);
  expect(seen.violations).toEqual([]);
  expect(seen.most).toBe(PACED_WORDS);
}

test("a slow event stream: the held-back words arrive at once, each shown once, and the turn's end waits for them", async ({
  page,
  userName,
  fakeLlm,
}) => {
  const tag = `slow-${userName}`;
  await instrument(page);
  await signIn(page, userName);
  await startPaced(page, tag, (n) => fakeLlm.allow(tag, n), 5);

  // The stream stalls while the model writes ten more words: none shows, none is lost.
  await page.evaluate(() => window.__hold());
  fakeLlm.allow(tag, 15);
  await expect.poll(async () => (await faults(page)).heldText).toContain('"w15 "');
  await expect(page.getByTestId("streaming-message").getByTestId("message-text")).toHaveText(upTo(5));
  await page.evaluate(() => window.__release());
  await expect(page.getByTestId("streaming-message").getByTestId("message-text")).toHaveText(upTo(15));

  // It stalls again and the reply finishes behind it: the turn has answered, the page has
  // not seen the rest. The reply stays as it was (still being written) until the stream
  // brings it, then shows once, stored.
  await page.evaluate(() => window.__hold());
  fakeLlm.allow(tag, PACED_WORDS);
  await expect.poll(async () => (await faults(page)).turnText).toContain("event: done");
  await expect.poll(async () => (await faults(page)).heldText).toContain("event: reply_end");
  await expect(page.getByTestId("remote-streaming-message").getByTestId("message-text")).toHaveText(upTo(15));
  await expect(page.getByTestId("stop-button")).toBeVisible();
  await page.evaluate(() => window.__release());
  await expectOneStoredReply(page);
  await expect(page.getByTestId("stop-button")).toHaveCount(0);
});

test("an event stream dropped mid-reply: the page reconnects and the server's replay continues the text, never twice", async ({
  page,
  userName,
  fakeLlm,
}) => {
  const tag = `drop-${userName}`;
  await instrument(page);
  await signIn(page, userName);
  await startPaced(page, tag, (n) => fakeLlm.allow(tag, n), 5);
  const before = (await faults(page)).connects;

  // The connection breaks and stays down while the model writes ten more words.
  await page.evaluate(() => window.__drop(true));
  fakeLlm.allow(tag, 15);
  await expect.poll(async () => (await faults(page)).turnText).toContain('"w15 "');
  await expect(page.getByTestId("streaming-message").getByTestId("message-text")).toHaveText(upTo(5));
  await page.evaluate(() => window.__unblock());
  await expect(page.getByTestId("streaming-message").getByTestId("message-text")).toHaveText(upTo(15));
  expect((await faults(page)).connects).toBe(before + 1);

  // Dropped again just as more words come: reconnected at once this time.
  await page.evaluate(() => window.__drop(false));
  fakeLlm.allow(tag, 25);
  await expect(page.getByTestId("streaming-message").getByTestId("message-text")).toHaveText(upTo(25));

  fakeLlm.allow(tag, PACED_WORDS);
  await expectOneStoredReply(page);
});

test("an event stream dropped after the reply ended but before its stored copy came: the stored copy replaces the text so far", async ({
  page,
  userName,
  fakeLlm,
}) => {
  const tag = `gap-${userName}`;
  await instrument(page);
  await signIn(page, userName);
  await startPaced(page, tag, (n) => fakeLlm.allow(tag, n), 5);

  // Everything after word 5 is on its way and is lost with the connection.
  await page.evaluate(() => window.__hold());
  fakeLlm.allow(tag, PACED_WORDS);
  await expect.poll(async () => (await faults(page)).heldText).toContain("event: reply_end");
  await expect.poll(async () => (await faults(page)).turnText).toContain("event: done");
  await page.evaluate(() => window.__drop(false));
  await expectOneStoredReply(page);

  // The conversation goes on: the next reply shows once too.
  await sendMessage(page, "hello again");
  await expect(lastReply(page)).toContainText("You said: hello again");
  await expect(page.locator('[data-testid="message"][data-role="assistant"]')).toHaveCount(2);
  expect((await faults(page)).violations).toEqual([]);
});
