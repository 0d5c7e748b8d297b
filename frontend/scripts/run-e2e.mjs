#!/usr/bin/env node
// Builds the web UI (unless PARLEY_E2E_SKIP_BUILD=1), then runs the Playwright browser tests.
// The tests start the real API (PARLEY_SERVE_CMD, default ../.venv/bin/parley serve) themselves.
import { spawnSync } from "node:child_process";

function run(command, args) {
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (process.env.PARLEY_E2E_SKIP_BUILD !== "1") run("npx", ["next", "build"]);
run("npx", ["playwright", "test", ...process.argv.slice(2)]);
