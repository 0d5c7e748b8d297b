/** localStorage that never throws (private mode, disabled storage, server rendering). */
export function readLocal(key: string): string | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeLocal(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Storage unavailable: the value simply is not remembered.
  }
}

export const STORAGE_KEYS = {
  /** Where older versions kept a bearer token; only ever removed now. */
  legacyAuth: "parley.auth",
  lastUser: "parley.lastUser",
  /** Who was signed in here (a name, not a credential): their workspace opens while the API is down. */
  signedInAs: "parley.signedInAs",
  conversation: (userId: string) => `parley.conversation.${userId}`,
  voiceAutoSend: "parley.voice.autoSend",
} as const;
