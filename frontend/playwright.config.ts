import { defineConfig } from "@playwright/test";

/**
 * Browser tests against the real backend (offline model) and the built UI.
 * The stack (API + `next start`) is started by a worker fixture (tests/e2e/support),
 * so one test can stop and restart the API. Run with `npm run test:e2e`.
 */
export default defineConfig({
  testDir: "./tests/e2e",
  outputDir: "./test-results/artifacts",
  // Two workers, each with its own stack (API, embedded PostgreSQL, web UI); a file's tests
  // run in order on one worker.
  fullyParallel: false,
  workers: 2,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    browserName: "chromium",
    viewport: { width: 1280, height: 800 },
    screenshot: "only-on-failure",
    trace: "off",
    actionTimeout: 10_000,
    navigationTimeout: 20_000,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
      ],
    },
  },
});
