"use client";

import { passkeyHostProblemHere } from "@/lib/passkey-host";

/** Where the passkey buttons would be at an IP address: why they are not, and where they work. */
export function PasskeyHostNote() {
  const problem = passkeyHostProblemHere();
  if (problem === null) return null;
  return (
    <p className="muted small" data-testid="passkey-host-note">
      {problem}
    </p>
  );
}
