"use client";

import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import {
  listen,
  recognitionConstructor,
  transcriptOf,
  voiceErrorStatus,
  type Recognition,
  type RecognitionErrorEvent,
  type RecognitionResultEvent,
  type VoiceStatus,
} from "./speech";

export interface SpeechHandlers {
  /** Text heard so far that may still change. */
  onInterim: (text: string) => void;
  /** The settled text of one utterance. */
  onFinal: (text: string) => void;
}

export interface SpeechApi {
  supported: boolean;
  status: VoiceStatus;
  errorDetail: string | null;
  start: () => void;
  stop: () => void;
}

const noSubscribe = () => () => undefined;

/** Voice input through the Web Speech API, in the browser's language. */
export function useSpeechRecognition(handlers: SpeechHandlers): SpeechApi {
  const supported = useSyncExternalStore(
    noSubscribe,
    () => recognitionConstructor() !== null,
    () => true,
  );
  const [status, setStatus] = useState<VoiceStatus>("idle");
  const [errorDetail, setErrorDetail] = useState<string | null>(null);
  const recognitionRef = useRef<Recognition | null>(null);
  const handlersRef = useRef(handlers);

  useEffect(() => {
    handlersRef.current = handlers;
  });

  useEffect(() => () => recognitionRef.current?.abort(), []);

  const start = useCallback(() => {
    const Ctor = recognitionConstructor();
    if (!Ctor) {
      setStatus("unsupported");
      return;
    }
    recognitionRef.current?.abort();
    let recognition: Recognition;
    try {
      recognition = new Ctor();
    } catch {
      setStatus("error");
      return;
    }
    recognitionRef.current = recognition;
    recognition.lang = navigator.language || "en-US";
    recognition.continuous = false;
    recognition.interimResults = true;
    recognition.maxAlternatives = 1;

    let finished = false;
    let failed = false;
    let lastInterim = "";
    const current = () => recognitionRef.current === recognition;

    listen(recognition, "start", () => {
      if (current() && !finished) setStatus("listening");
    });
    listen(recognition, "result", (event: RecognitionResultEvent) => {
      if (!current() || finished) return;
      const { final, interim } = transcriptOf(event);
      if (final) {
        finished = true;
        handlersRef.current.onFinal(final);
        setStatus("idle");
        try {
          recognition.stop();
        } catch {
          // already stopped
        }
      } else {
        lastInterim = interim;
        handlersRef.current.onInterim(interim);
      }
    });
    listen(recognition, "error", (event: RecognitionErrorEvent | undefined) => {
      if (!current() || finished) return;
      const code = event?.error ?? "unknown";
      const next = voiceErrorStatus(code);
      failed = true;
      setErrorDetail(event?.message || code);
      setStatus(next ?? "idle");
      handlersRef.current.onInterim("");
    });
    listen(recognition, "end", () => {
      if (!current()) return;
      recognitionRef.current = null;
      if (finished || failed) return;
      finished = true;
      setStatus("idle");
      // Some engines end without marking the last result final: treat what was heard as final.
      if (lastInterim) handlersRef.current.onFinal(lastInterim);
      else handlersRef.current.onInterim("");
    });

    setErrorDetail(null);
    setStatus("listening");
    try {
      recognition.start();
    } catch (error) {
      recognitionRef.current = null;
      setErrorDetail(error instanceof Error ? error.message : null);
      setStatus("error");
    }
  }, []);

  const stop = useCallback(() => {
    const recognition = recognitionRef.current;
    if (!recognition) return;
    try {
      recognition.stop();
    } catch {
      recognition.abort();
    }
  }, []);

  return { supported, status: supported ? status : "unsupported", errorDetail, start, stop };
}
