import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { test as base, expect, signIn } from "./fixtures";
import { Stack } from "./stack";

const FRONTEND_DIR = path.resolve(__dirname, "../../..");
const PYTHON = path.resolve(FRONTEND_DIR, "../.venv/bin/python");

/** Starts the fake Anthropic API (a Python process) and resolves with its URL. */
export function startFakeAnthropic(logFile: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(PYTHON, [path.join(__dirname, "fake_anthropic_server.py")], { stdio: ["ignore", "pipe", "pipe"] });
  child.stderr?.pipe(createWriteStream(logFile, { flags: "a" }));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf("\n");
      if (newline >= 0) resolve({ child, url: out.slice(0, newline).trim() });
    });
    child.on("exit", (code) => reject(new Error(`the fake Anthropic API exited (${code}); see ${logFile}`)));
  });
}

/** The API's environment for work mode, its `claude` CLI pointed at the fake Anthropic API at `fakeUrl`. */
export function workEnv(fakeUrl: string): Record<string, string> {
  const scratch = mkdtempSync(path.join(tmpdir(), "parley-e2e-work-"));
  // A home of its own: Claude Code's Bash sources the home's shell start-up files, and a
  // developer's (pyenv's rehash and its lock) would slow every command down.
  mkdirSync(path.join(scratch, "home"), { recursive: true });
  return {
    PARLEY_WORK_ENABLED: "1",
    PARLEY_WORKSPACE_ROOT: path.join(scratch, "workspaces"),
    CLAUDE_CONFIG_DIR: path.join(scratch, "claude-config"),
    HOME: path.join(scratch, "home"),
    ANTHROPIC_BASE_URL: fakeUrl,
    ANTHROPIC_API_KEY: "x",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    IS_SANDBOX: "1",
  };
}

interface WorkFixtures {
  /** An API + UI with work mode on, its `claude` CLI pointed at the fake Anthropic API. */
  workStack: Stack;
}

export const workTest = base.extend<object, WorkFixtures>({
  workStack: [
    async ({}, use, workerInfo) => {
      const logs = path.join(FRONTEND_DIR, "test-results", "logs");
      mkdirSync(logs, { recursive: true });
      const fake = await startFakeAnthropic(path.join(logs, `fake-anthropic-w${workerInfo.workerIndex}.log`));
      const stack = new Stack(
        workEnv(fake.url),
        `-work-w${workerInfo.workerIndex}`,
      );
      try {
        await stack.start();
        await use(stack);
      } finally {
        await stack.stop();
        fake.child.kill("SIGTERM");
      }
    },
    { scope: "worker", timeout: 180_000 },
  ],
  baseURL: async ({ workStack }, use) => {
    await use(workStack.webUrl);
  },
});

/**
 * The opening steps every work spec repeats: sign in, start a work conversation (from the
 * drawer at phone width), and wait for its work bar and its own address (the conversation
 * exists before its first prompt).
 */
export async function openWorkConversation(page: Page, userName: string): Promise<void> {
  await signIn(page, userName);
  // At phone width the conversation list (with "New conversation") is in a drawer.
  const drawer = page.getByTestId("open-conversations");
  if (await drawer.isVisible()) await drawer.click();
  await page.getByTestId("new-conversation-mode").selectOption("work");
  await page.getByTestId("new-conversation").click();
  await expect(page.getByTestId("work-bar")).toBeVisible();
  await expect(page.getByTestId("chat-title")).not.toHaveAttribute("data-conversation-id", "");
}
