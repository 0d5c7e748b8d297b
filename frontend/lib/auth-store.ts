import type { Me } from "./account-types";
import { readLocal, STORAGE_KEYS, writeLocal } from "./local-store";

/**
 * Who is signed in, as `GET /api/auth/me` says. The credential itself is the API's HttpOnly
 * session cookie: nothing here (or in localStorage) can sign a request on its own.
 */
export interface Session {
  userId: string;
  email: string | null;
  /** Only a verified email signs in by email, or lets single sign-on join this account. */
  emailVerified: boolean;
  /** Whether a single sign-on identity is linked to this account. */
  ssoLinked: boolean;
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
/** Whether the API has confirmed the current state (not just this browser's memory of it). */
let verified = false;
const RETRY_MS = 2_000;
/** Tells the other tabs of this browser that the cookie changed (sign-in, sign-out). */
let channel: BroadcastChannel | null = null;

function set(next: AuthState): void {
  state = next;
  for (const listener of listeners) listener();
}

/** What `/me` says about the account, apart from who it is. */
function profileOf(me: Me): Pick<Session, "email" | "emailVerified" | "ssoLinked" | "isAdmin"> {
  return {
    email: me.email ?? null,
    emailVerified: Boolean(me.email_verified),
    ssoLinked: Boolean(me.sso_linked),
    isAdmin: Boolean(me.is_admin),
  };
}

function sessionOf(me: Me): Session {
  epoch += 1;
  return { userId: me.user_id, ...profileOf(me), epoch };
}

/** The answer of `/me`: the same person keeps their workspace (and its caches); another starts afresh. */
function apply(me: Me): void {
  verified = true;
  writeLocal(STORAGE_KEYS.signedInAs, me.user_id);
  const current = state.status === "signed-in" ? state.session : null;
  if (current && current.userId === me.user_id) {
    const profile = profileOf(me);
    const changed = (Object.keys(profile) as (keyof typeof profile)[]).some((key) => current[key] !== profile[key]);
    if (changed) set({ status: "signed-in", session: { ...current, ...profile } });
    return;
  }
  set({ status: "signed-in", session: sessionOf(me) });
}

function cleared(): void {
  verified = true;
  writeLocal(STORAGE_KEYS.signedInAs, null);
  set({ status: "signed-out" });
}

/**
 * The API could not say who this is (it is down). Someone signed in on this browser before keeps
 * their workspace, which shows the outage and recovers by itself; `/me` is asked again until it
 * answers.
 */
function unreachable(): void {
  if (state.status === "loading") {
    const hint = readLocal(STORAGE_KEYS.signedInAs);
    if (hint) {
      const session = { userId: hint, email: null, emailVerified: false, ssoLinked: false, isAdmin: false, epoch: ++epoch };
      set({ status: "signed-in", session });
    }
    else set({ status: "signed-out" });
  }
  if (state.status === "signed-in" && !verified) setTimeout(() => void refreshAuth(), RETRY_MS);
}

/** Asks the API who the cookie belongs to. */
export function refreshAuth(): Promise<void> {
  probe ??= (async () => {
    try {
      const response = await fetch("/api/auth/me", { headers: { accept: "application/json" }, cache: "no-store" });
      if (response.ok) apply((await response.json()) as Me);
      else if (response.status === 401 || response.status === 403) cleared();
      else unreachable();
    } catch {
      unreachable();
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
  writeLocal(STORAGE_KEYS.signedInAs, me.user_id);
  verified = true;
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
  cleared();
  channel?.postMessage("changed");
}

/** Called when the API refuses the session (401): it ended, expired or was revoked elsewhere. */
export function markSessionExpired(session: Session): void {
  if (state.status !== "signed-in" || state.session.epoch !== session.epoch) return;
  writeLocal(STORAGE_KEYS.signedInAs, null);
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
