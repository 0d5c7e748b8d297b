"use client";

import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import {
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
    const current = () => recognitionRef.current === recognition;

    recognition.onstart = () => {
      if (current() && !finished) setStatus("listening");
    };
    recognition.onresult = (event: RecognitionResultEvent) => {
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
        handlersRef.current.onInterim(interim);
      }
    };
    recognition.onerror = (event: RecognitionErrorEvent) => {
      if (!current()) return;
      const next = voiceErrorStatus(event.error);
      failed = true;
      setErrorDetail(event.message || event.error || null);
      setStatus(next ?? "idle");
      handlersRef.current.onInterim("");
    };
    recognition.onend = () => {
      if (!current()) return;
      recognitionRef.current = null;
      if (!finished && !failed) {
        handlersRef.current.onInterim("");
        setStatus("idle");
      }
    };

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
