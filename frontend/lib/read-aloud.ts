"use client";

import { useSyncExternalStore } from "react";

/**
 * Reading replies aloud with the browser's speech synthesis: one voice at a time, in the
 * page's language; which reply is being read is a tiny store every button follows.
 */

let speakingKey: string | null = null;
const listeners = new Set<() => void>();

function setSpeaking(key: string | null): void {
  if (speakingKey === key) return;
  speakingKey = key;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function synthesisSupported(): boolean {
  return typeof window !== "undefined" && "speechSynthesis" in window && typeof window.SpeechSynthesisUtterance === "function";
}

/** What is worth hearing of a Markdown reply: words, not marks, links' text, not their URLs;
 * code blocks are named, not spelled out. */
export function speakableText(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, " (code block) ")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}(?:#{1,6}|>|[-+*]|\d+\.)\s+/gm, "")
    .replace(/[*_~|]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Reads `text` aloud as `key` (stopping whatever was being read); `onDone` once it has been
 * read to the end, stopped, or could not be read. */
export function speak(key: string, text: string, onDone?: () => void): void {
  if (!synthesisSupported()) {
    onDone?.();
    return;
  }
  const synth = window.speechSynthesis;
  synth.cancel();
  const utterance = new SpeechSynthesisUtterance(speakableText(text));
  utterance.lang = navigator.language || "en-US";
  let finished = false;
  const done = () => {
    if (finished) return;
    finished = true;
    if (speakingKey === key) setSpeaking(null);
    onDone?.();
  };
  utterance.onend = done;
  utterance.onerror = done;
  setSpeaking(key);
  synth.speak(utterance);
}

export function stopSpeaking(): void {
  if (!synthesisSupported()) return;
  setSpeaking(null);
  window.speechSynthesis.cancel();
}

/** The key being read aloud now, if any. */
export function useSpeaking(): string | null {
  return useSyncExternalStore(
    subscribe,
    () => speakingKey,
    () => null,
  );
}

export function useSynthesisSupported(): boolean {
  return useSyncExternalStore(
    subscribe,
    synthesisSupported,
    () => false,
  );
}
