import { execFileSync } from "node:child_process";
import path from "node:path";
import type { Stack } from "./stack";

const PARLEY = path.resolve(__dirname, "../../../../.venv/bin/parley");

/**
 * The operator's first admin, the documented way: `parley user create NAME --admin` prints a
 * one-time sign-up link; this returns the link's path (`/invite/<token>`).
 */
export function createAdminInvite(stack: Stack, name: string): string {
  const out = execFileSync(PARLEY, ["user", "create", name, "--admin"], {
    env: { ...process.env, PARLEY_AUTH_SECRET: stack.secret, PARLEY_DATA_DIR: stack.dataDir },
    encoding: "utf8",
  });
  const match = /\/invite\/[A-Za-z0-9_~.-]+/.exec(out);
  if (!match) throw new Error(`parley user create printed no invite link:\n${out}`);
  return match[0];
}
