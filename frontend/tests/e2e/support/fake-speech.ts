import type { Page } from "@playwright/test";

export type FakeSpeechScript =
  | { kind: "transcript"; interim: string; final: string; delayMs?: number }
  | { kind: "error"; error: string };

/**
 * Installs a fake `SpeechRecognition` (and `webkitSpeechRecognition`) before the page loads.
 * It records the language it was started with in `window.__speechLang`.
 */
export async function installFakeSpeech(page: Page, script: FakeSpeechScript): Promise<void> {
  await page.addInitScript((config: FakeSpeechScript) => {
    type Handler = ((event: unknown) => void) | null;
    const results = (text: string, isFinal: boolean) => {
      const alternative = { transcript: text, confidence: 0.9 };
      const result = Object.assign([alternative], { isFinal });
      return { resultIndex: 0, results: [result] };
    };
    class FakeRecognition {
      lang = "";
      continuous = false;
      interimResults = false;
      maxAlternatives = 1;
      onstart: Handler = null;
      onresult: Handler = null;
      onerror: Handler = null;
      onend: Handler = null;
      private ended = false;
      start() {
        (window as unknown as { __speechLang: string }).__speechLang = this.lang;
        const delay = config.kind === "transcript" ? (config.delayMs ?? 700) : 50;
        setTimeout(() => this.onstart?.({}), 20);
        if (config.kind === "error") {
          setTimeout(() => {
            this.onerror?.({ error: config.error, message: "" });
            this.finish();
          }, delay);
          return;
        }
        setTimeout(() => this.onresult?.(results(config.interim, false)), 60);
        setTimeout(() => {
          this.onresult?.(results(config.final, true));
          this.finish();
        }, 60 + delay);
      }
      stop() {
        this.finish();
      }
      abort() {
        this.finish();
      }
      private finish() {
        if (this.ended) return;
        this.ended = true;
        setTimeout(() => this.onend?.({}), 10);
      }
    }
    Object.defineProperty(window, "SpeechRecognition", { value: FakeRecognition, configurable: true, writable: true });
    Object.defineProperty(window, "webkitSpeechRecognition", { value: FakeRecognition, configurable: true, writable: true });
  }, script);
}

/** Makes the page look like a browser with no Web Speech API (Firefox, for example). */
export async function removeSpeechApi(page: Page): Promise<void> {
  await page.addInitScript(() => {
    for (const name of ["SpeechRecognition", "webkitSpeechRecognition"]) {
      try {
        delete (window as unknown as Record<string, unknown>)[name];
      } catch {
        // ignore
      }
      Object.defineProperty(window, name, { value: undefined, configurable: true, writable: true });
    }
  });
}
