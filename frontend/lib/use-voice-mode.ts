"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { speak, stopSpeaking, synthesisSupported } from "./read-aloud";
import type { Message } from "./types";
import { useSpeechRecognition } from "./use-speech-recognition";

/** Where a hands-free round is: off, hearing the person, waiting for the reply, reading it. */
export type VoicePhase = "off" | "listening" | "waiting" | "speaking";

export interface VoiceMode {
  /** Both halves exist here (recognition and synthesis): otherwise no voice mode is offered. */
  supported: boolean;
  phase: VoicePhase;
  /** What is being heard, before it is sent. */
  heard: string;
  /** Why voice mode turned itself off (the microphone refused, say). */
  problem: string | null;
  toggle: () => void;
}

interface Options {
  messages: Message[];
  /** A reply is being written. */
  replying: boolean;
  send: (text: string) => Promise<void> | void;
}

function lastReplyId(messages: Message[]): number {
  return messages.findLast((m) => m.role === "assistant")?.id ?? 0;
}

const PROBLEMS: Record<string, string> = {
  denied: "Voice mode stopped: microphone permission was denied.",
  "no-microphone": "Voice mode stopped: no microphone was found.",
  error: "Voice mode stopped because of an error.",
};

/**
 * Hands-free conversation: listen, send what was said once the person stops speaking, read
 * the reply aloud, listen again, until turned off. Silence just listens again.
 */
export function useVoiceMode({ messages, replying, send }: Options): VoiceMode {
  const [phase, setPhase] = useState<VoicePhase>("off");
  const [heard, setHeard] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const phaseRef = useRef<VoicePhase>("off");
  // The newest reply when the person's words went out: the next one is the answer to read.
  const baseline = useRef(0);
  const move = useCallback((next: VoicePhase) => {
    phaseRef.current = next;
    setPhase(next);
  }, []);

  const speech = useSpeechRecognition({
    onInterim: (text) => setHeard(text),
    onFinal: (text) => {
      if (phaseRef.current !== "listening") return;
      setHeard("");
      baseline.current = lastReplyId(messages);
      move("waiting");
      void send(text);
    },
  });
  const { start: listen, stop: stopListening, status } = speech;
  const supported = speech.supported && synthesisSupported();

  // Listening and nothing settled (silence, or the engine stopped): listen again; a refusal
  // turns voice mode off with the reason.
  useEffect(() => {
    if (phaseRef.current !== "listening" || status === "listening") return;
    const stop = PROBLEMS[status];
    const next = setTimeout(
      () => {
        if (phaseRef.current !== "listening") return;
        if (stop) {
          setProblem(stop);
          move("off");
        } else listen();
      },
      stop ? 0 : 250,
    );
    return () => clearTimeout(next);
  }, [status, listen, move]);

  // The reply is in: read it aloud, then listen again.
  useEffect(() => {
    if (phaseRef.current !== "waiting" || replying) return;
    const reply = messages.findLast((m) => m.role === "assistant");
    if (!reply || reply.id <= baseline.current) return;
    move("speaking");
    speak(`message-${reply.id}`, reply.error ? "The assistant couldn't answer." : reply.content, () => {
      if (phaseRef.current !== "speaking") return;
      move("listening");
      listen();
    });
  }, [messages, replying, listen, move]);

  const toggle = useCallback(() => {
    if (phaseRef.current === "off") {
      setProblem(null);
      setHeard("");
      move("listening");
      listen();
      return;
    }
    move("off");
    setHeard("");
    stopListening();
    stopSpeaking();
  }, [listen, stopListening, move]);

  // Leaving the conversation (or the page) ends the round.
  useEffect(
    () => () => {
      if (phaseRef.current !== "off") stopSpeaking();
      phaseRef.current = "off";
    },
    [],
  );

  return { supported, phase, heard, problem, toggle };
}
