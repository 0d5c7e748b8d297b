import type { Me } from "./account-types";
import { readLocal, STORAGE_KEYS, writeLocal } from "./local-store";

/**
 * Who is signed in, as `GET /api/auth/me` says. The credential itself is the API's HttpOnly
 * session cookie: nothing here (or in localStorage) can sign a request on its own.
 */
export interface Session {
  userId: string;
  email: string | null;
  isAdmin: boolean;
  /** Bumped on every sign-in, so caches keyed by it never serve one session's data to the next. */
  epoch: number;
}

export type AuthState =
  | { status: "loading" }
  | { status: "signed-out" }
  | { status: "expired"; session: Session }
  | { status: "signed-in"; session: Session };


const listeners = new Set<() => void>();
const LOADING: AuthState = { status: "loading" };
let state: AuthState = LOADING;
let epoch = 0;
let probe: Promise<void> | null = null;
/** Tells the other tabs of this browser that the cookie changed (sign-in, sign-out). */
let channel: BroadcastChannel | null = null;

function set(next: AuthState): void {
  state = next;
  for (const listener of listeners) listener();
}

function sessionOf(me: Me): Session {
  epoch += 1;
  return { userId: me.user_id, email: me.email ?? null, isAdmin: Boolean(me.is_admin), epoch };
}

/** Asks the API who the cookie belongs to; any answer but a user means signed out. */
export function refreshAuth(): Promise<void> {
  probe ??= (async () => {
    try {
      const response = await fetch("/api/auth/me", { headers: { accept: "application/json" }, cache: "no-store" });
      if (response.ok) {
        const me = (await response.json()) as Me;
        const current = state.status === "signed-in" ? state.session : null;
        if (!current || current.userId !== me.user_id) set({ status: "signed-in", session: sessionOf(me) });
      } else {
        set({ status: "signed-out" });
      }
    } catch {
      // The web server is unreachable: show sign-in, whose own requests explain the outage.
      if (state.status === "loading") set({ status: "signed-out" });
    } finally {
      probe = null;
    }
  })();
  return probe;
}

function openChannel(): void {
  if (channel || typeof BroadcastChannel === "undefined") return;
  channel = new BroadcastChannel("parley.auth");
  channel.onmessage = () => void refreshAuth();
}

export function subscribeAuth(listener: () => void): () => void {
  listeners.add(listener);
  if (state.status === "loading" && listeners.size === 1) {
    // A token kept by an older version of the UI is a credential in script reach: drop it.
    writeLocal(STORAGE_KEYS.legacyAuth, null);
    openChannel();
    void refreshAuth();
  }
  return () => {
    listeners.delete(listener);
  };
}

export function getAuthSnapshot(): AuthState {
  return state;
}

export function getServerAuthSnapshot(): AuthState {
  return LOADING;
}

/** The API has just set the session cookie for this person. */
export function signedIn(me: Me): void {
  writeLocal(STORAGE_KEYS.lastUser, me.user_id);
  set({ status: "signed-in", session: sessionOf(me) });
  channel?.postMessage("changed");
}

/** Ends the session on the server (the cookie is cleared there), then shows sign-in. */
export async function signOut(): Promise<void> {
  try {
    await fetch("/api/auth/logout", { method: "POST", cache: "no-store" });
  } catch {
    // Offline: the screen still signs out; the server session ends when it expires or is revoked.
  }
  set({ status: "signed-out" });
  channel?.postMessage("changed");
}

/** Called when the API refuses the session (401): it ended, expired or was revoked elsewhere. */
export function markSessionExpired(session: Session): void {
  if (state.status !== "signed-in" || state.session.epoch !== session.epoch) return;
  set({ status: "expired", session });
}

/** From the "session ended" screen back to sign-in. */
export function acknowledgeExpired(): void {
  set({ status: "signed-out" });
}

/** The name last signed in with on this browser, to prefill the sign-in form (not a credential). */
export function lastUserName(): string {
  return readLocal(STORAGE_KEYS.lastUser) ?? "";
}
