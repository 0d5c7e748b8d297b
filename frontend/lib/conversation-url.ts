"use client";

import { useEffect, useRef } from "react";
import { readLocal, STORAGE_KEYS, writeLocal } from "./local-store";

const PATH = /^\/c\/(\d{1,10})\/?$/;

export function conversationPath(id: number | null): string {
  return id === null ? "/" : `/c/${id}`;
}

export function conversationIdFromPath(pathname: string): number | null {
  const match = PATH.exec(pathname);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** An address of the form `/c/…` that names no conversation id (`/c/abc`): its text, else null. */
export function malformedConversationPath(pathname: string): string | null {
  if (!pathname.startsWith("/c/") || PATH.test(pathname)) return null;
  return conversationIdFromPath(pathname) === null ? decodeURIComponent(pathname.slice(3)) : null;
}

/** The message an address points at (`/c/<id>?question=<message id>`, a notification's link), else null. */
export function questionFromUrl(): number | null {
  if (typeof window === "undefined") return null;
  const params = new URLSearchParams(window.location.search);
  const id = Number(params.get("question"));
  if (!(Number.isSafeInteger(id) && id > 0)) return null;
  if (params.get("via") === "email_link") rememberEmailLink(id);
  return id;
}

const EMAIL_LINKED = "parley:email-linked-questions";

function emailLinked(): Set<string> {
  try {
    return new Set((window.sessionStorage.getItem(EMAIL_LINKED) ?? "").split(",").filter(Boolean));
  } catch {
    return new Set();
  }
}

/** A question a reminder email's link opened (`?via=email_link`): its answer says so (the audit trail). */
function rememberEmailLink(id: number): void {
  const linked = emailLinked().add(String(id));
  try {
    window.sessionStorage.setItem(EMAIL_LINKED, [...linked].slice(-50).join(","));
  } catch {
    // storage refused: the answer is recorded as from the web UI
  }
}

export function openedByEmailLink(id: number): boolean {
  return typeof window !== "undefined" && emailLinked().has(String(id));
}

/** The conversation to open: the one in the address (`/c/<id>`), else at `/` the last one opened. */
export function initialConversationId(userId: string): number | null {
  if (typeof window === "undefined") return null;
  const fromPath = conversationIdFromPath(window.location.pathname);
  if (fromPath !== null || window.location.pathname !== "/") return fromPath;
  const raw = readLocal(STORAGE_KEYS.conversation(userId));
  const id = raw === null ? NaN : Number(raw);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/**
 * Keeps the address (`/c/<id>`, `/` for a new chat) and the remembered last conversation in step
 * with the open one, and opens the conversation of the address on Back/Forward.
 */
export function useConversationUrl(userId: string, conversationId: number | null, select: (id: number | null) => void): void {
  const first = useRef(true);
  useEffect(() => {
    writeLocal(STORAGE_KEYS.conversation(userId), conversationId === null ? null : String(conversationId));
    const path = conversationPath(conversationId);
    if (window.location.pathname !== path) {
      if (first.current) window.history.replaceState(window.history.state, "", path);
      else window.history.pushState(window.history.state, "", path);
    }
    first.current = false;
  }, [userId, conversationId]);

  useEffect(() => {
    const onPop = () => select(conversationIdFromPath(window.location.pathname));
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, [select]);
}
