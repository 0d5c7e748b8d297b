import type { Page } from "@playwright/test";

export interface FakeVoiceScript {
  /** What the person says at each start of listening, in turn; after the last, silence. */
  utterances: string[];
  /** How long reading one reply aloud takes. */
  speakMs: number;
}

/**
 * Headless Chromium can neither hear nor speak: a fake `webkitSpeechRecognition` that hears
 * the scripted utterances, and a fake `speechSynthesis` that records what it is asked to
 * read (`window.__spoken`), "reads" for `speakMs`, and records cancels (`window.__cancels`).
 */
export async function installFakeVoice(page: Page, script: FakeVoiceScript): Promise<void> {
  await page.addInitScript((config: FakeVoiceScript) => {
    type Handler = ((event: unknown) => void) | null;
    const scope = window as unknown as { __spoken: string[]; __cancels: number; __heard: number };
    scope.__spoken = [];
    scope.__cancels = 0;
    scope.__heard = 0;
    const result = (text: string) => {
      const alternative = { transcript: text, confidence: 0.9 };
      return { resultIndex: 0, results: [Object.assign([alternative], { isFinal: true })] };
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
        setTimeout(() => this.onstart?.({}), 20);
        const text = config.utterances[scope.__heard];
        if (text === undefined) return; // silence: listens on
        scope.__heard += 1;
        setTimeout(() => {
          this.onresult?.(result(text));
          this.finish();
        }, 300);
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

    class FakeUtterance {
      lang = "";
      onend: Handler = null;
      onerror: Handler = null;
      constructor(readonly text: string) {}
    }
    let current: { utterance: FakeUtterance; timer: ReturnType<typeof setTimeout> } | null = null;
    const synth = {
      get speaking() {
        return current !== null;
      },
      speak(utterance: FakeUtterance) {
        scope.__spoken.push(utterance.text);
        const timer = setTimeout(() => {
          current = null;
          utterance.onend?.({});
        }, config.speakMs);
        current = { utterance, timer };
      },
      cancel() {
        if (!current) return;
        scope.__cancels += 1;
        const { utterance, timer } = current;
        current = null;
        clearTimeout(timer);
        utterance.onerror?.({ error: "canceled" });
      },
      getVoices: () => [],
    };
    Object.defineProperty(window, "speechSynthesis", { value: synth, configurable: true, writable: true });
    Object.defineProperty(window, "SpeechSynthesisUtterance", { value: FakeUtterance, configurable: true, writable: true });
  }, script);
}
