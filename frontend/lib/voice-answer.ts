import type { Decision } from "./answer-question";

/**
 * What a spoken answer to a permission request decides: "allow", "yes", "OK, allow it" allow;
 * "allow for this session" / "always allow" allow for the session; "deny", "no", "don't" deny.
 * Anything else (or words that say both) decides nothing, so a misheard phrase never approves.
 */
export function spokenDecision(transcript: string): Decision | null {
  const words = transcript
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s']/gu, " ")
    .split(/\s+/)
    .filter(Boolean);
  const has = (...options: string[]) => words.some((word) => options.includes(word));
  const no = has("deny", "denied", "no", "nope", "don't", "dont", "reject", "refuse", "stop", "cancel", "block");
  const yes = has("allow", "allowed", "yes", "yeah", "yep", "ok", "okay", "approve", "accept");
  if (no === yes) return null;
  if (no) return "deny";
  const session = has("session", "always");
  return session ? "allow_session" : "allow";
}
