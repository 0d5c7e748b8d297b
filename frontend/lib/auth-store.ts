import { readLocal, STORAGE_KEYS, writeLocal } from "./local-store";

export interface Session {
  token: string;
  userId: string;
}

export type AuthState =
  | { status: "loading" }
  | { status: "signed-out" }
  | { status: "expired"; session: Session }
  | { status: "signed-in"; session: Session };

const listeners = new Set<() => void>();
let expiredToken: string | null = null;
let cachedRaw: string | null | undefined;
let cachedState: AuthState = { status: "signed-out" };

function parse(raw: string | null): Session | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<Session>;
    if (typeof value.token === "string" && typeof value.userId === "string") {
      return { token: value.token, userId: value.userId };
    }
  } catch {
    // fall through
  }
  return null;
}

function emit(): void {
  cachedRaw = undefined;
  for (const listener of listeners) listener();
}

export function subscribeAuth(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === null || event.key === STORAGE_KEYS.auth) emit();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

export function getAuthSnapshot(): AuthState {
  const raw = readLocal(STORAGE_KEYS.auth);
  if (raw === cachedRaw) return cachedState;
  cachedRaw = raw;
  const session = parse(raw);
  if (!session) cachedState = { status: "signed-out" };
  else if (session.token === expiredToken) cachedState = { status: "expired", session };
  else cachedState = { status: "signed-in", session };
  return cachedState;
}

const SERVER_STATE: AuthState = { status: "loading" };
export function getServerAuthSnapshot(): AuthState {
  return SERVER_STATE;
}

export function signIn(session: Session): void {
  expiredToken = null;
  writeLocal(STORAGE_KEYS.auth, JSON.stringify(session));
  writeLocal(STORAGE_KEYS.lastUser, session.userId);
  emit();
}

export function signOut(): void {
  expiredToken = null;
  writeLocal(STORAGE_KEYS.auth, null);
  emit();
}

/** Called when the API rejects the stored token (401/403). */
export function markSessionExpired(token: string): void {
  if (expiredToken === token) return;
  expiredToken = token;
  emit();
}

/** The `sub` claim of a JWT, without verifying it (the API does that). */
export function subjectOf(token: string): string | null {
  const payload = token.split(".")[1];
  if (!payload) return null;
  try {
    const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
    const claims = JSON.parse(json) as { sub?: unknown };
    return typeof claims.sub === "string" ? claims.sub : null;
  } catch {
    return null;
  }
}
