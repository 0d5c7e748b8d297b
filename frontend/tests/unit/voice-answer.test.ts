import { describe, expect, it } from "vitest";
import { spokenDecision } from "@/lib/voice-answer";

describe("spokenDecision", () => {
  it.each([
    ["allow", "allow"],
    ["Allow.", "allow"],
    ["yes", "allow"],
    ["Yes please", "allow"],
    ["okay allow it", "allow"],
    ["allow for this session", "allow_session"],
    ["always allow", "allow_session"],
    ["deny", "deny"],
    ["No.", "deny"],
    ["don't", "deny"],
  ])("%s decides %s", (spoken, decision) => {
    expect(spokenDecision(spoken)).toBe(decision);
  });

  it.each(["", "what is this", "yes no", "allow, no wait, deny", "I'm not sure"])("%s decides nothing", (spoken) => {
    expect(spokenDecision(spoken)).toBeNull();
  });
});
