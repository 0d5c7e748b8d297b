/** Minimal typing of the Web Speech API's recognition (not in TypeScript's DOM lib). */

export interface RecognitionAlternative {
  transcript: string;
}

export interface RecognitionResult {
  readonly isFinal: boolean;
  readonly length: number;
  [index: number]: RecognitionAlternative;
}

export interface RecognitionResultEvent {
  resultIndex?: number;
  results: { readonly length: number; [index: number]: RecognitionResult };
}

export interface RecognitionErrorEvent {
  error: string;
  message?: string;
}

export interface Recognition {
  lang: string;
  continuous: boolean;
  interimResults: boolean;
  maxAlternatives: number;
  onstart: ((event: unknown) => void) | null;
  onresult: ((event: RecognitionResultEvent) => void) | null;
  onerror: ((event: RecognitionErrorEvent) => void) | null;
  onend: ((event: unknown) => void) | null;
  start(): void;
  stop(): void;
  abort(): void;
  addEventListener?: (type: string, listener: (event: never) => void) => void;
}

/**
 * Attaches `handler` both as `on<type>` and (when the object is an EventTarget) as a listener,
 * calling it once per event object, so native and hand-written implementations both work.
 */
export function listen<E>(recognition: Recognition, type: "start" | "result" | "error" | "end", handler: (event: E) => void): void {
  const seen = new WeakSet<object>();
  const once = (event: E) => {
    if (typeof event === "object" && event !== null) {
      if (seen.has(event)) return;
      seen.add(event);
    }
    handler(event);
  };
  (recognition as unknown as Record<string, unknown>)[`on${type}`] = once;
  if (typeof recognition.addEventListener === "function") {
    recognition.addEventListener(type, once as (event: never) => void);
  }
}

export type RecognitionConstructor = new () => Recognition;

export function recognitionConstructor(): RecognitionConstructor | null {
  if (typeof window === "undefined") return null;
  const scope = window as unknown as {
    SpeechRecognition?: RecognitionConstructor;
    webkitSpeechRecognition?: RecognitionConstructor;
  };
  return scope.SpeechRecognition ?? scope.webkitSpeechRecognition ?? null;
}

/** Splits an event's results into the settled (final) text and the still-changing (interim) text. */
export function transcriptOf(event: RecognitionResultEvent | undefined): { final: string; interim: string } {
  let final = "";
  let interim = "";
  const results = event?.results ?? { length: 0 };
  for (let i = 0; i < results.length; i += 1) {
    const result = results[i];
    const text = result?.[0]?.transcript ?? "";
    if (result?.isFinal) final += text;
    else interim += text;
  }
  return { final: final.trim(), interim: interim.trim() };
}

export type VoiceStatus = "unsupported" | "idle" | "listening" | "denied" | "no-speech" | "no-microphone" | "error";

export function voiceErrorStatus(code: string): VoiceStatus | null {
  switch (code) {
    case "not-allowed":
    case "service-not-allowed":
      return "denied";
    case "no-speech":
      return "no-speech";
    case "audio-capture":
      return "no-microphone";
    case "aborted":
      return null;
    default:
      return "error";
  }
}
