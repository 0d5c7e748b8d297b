import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type Page } from "@playwright/test";
import { Stack } from "./stack";

export const SCREENSHOT_DIR = path.resolve(__dirname, "../../../test-results/screenshots");

interface TestFixtures {
  /** A fresh user name for this test (users never share tasks or conversations). */
  userName: string;
}

interface WorkerFixtures {
  stack: Stack;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  stack: [
    async ({}, use) => {
      const stack = new Stack();
      try {
        await stack.start();
        await use(stack);
      } finally {
        await stack.stop();
      }
    },
    { scope: "worker", timeout: 180_000 },
  ],
  baseURL: async ({ stack }, use) => {
    await use(stack.webUrl);
  },
  userName: async ({}, use, testInfo) => {
    const slug = testInfo.title.toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 30).replace(/-+$/, "");
    await use(`${slug}-${randomBytes(3).toString("hex")}`);
  },
});

export { expect };

/** Signs in through the UI with the dev login and waits for the workspace. */
export async function signIn(page: Page, name: string): Promise<void> {
  await page.goto("/");
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("region", { name: "Tasks" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Conversations" })).toBeVisible();
}

/** Types a message and sends it with Enter. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
}

/** The last assistant message in the chat. */
export function lastReply(page: Page) {
  return page.locator('[data-testid="message"][data-role="assistant"]').last();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Fails on serious or critical axe violations, listing them. */
export async function expectNoSeriousA11yViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = serious.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
  expect(report, "serious/critical accessibility violations").toEqual([]);
}
