import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type BrowserContext, type Page } from "@playwright/test";
import { FakeLlm } from "./fake-llm";
import { OidcProvider } from "./oidc";
import { freePort } from "./processes";
import { Stack } from "./stack";

export const SCREENSHOT_DIR = path.resolve(__dirname, "../../../test-results/screenshots");

interface TestFixtures {
  /** A fresh user name for this test (users never share tasks or conversations). */
  userName: string;
}

interface WorkerFixtures {
  stack: Stack;
  /** A stack whose API signs people in through a local OpenID provider ("Test IdP"). */
  oidcStack: Stack;
  oidcProvider: OidcProvider;
  /** The local fake OpenAI-compatible server behind `modelStack` (tests pace its replies). */
  fakeLlm: FakeLlm;
  /** A second API + UI whose model is a local fake OpenAI-compatible server (see fake-llm.ts). */
  modelStack: Stack;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  stack: [
    async ({}, use, workerInfo) => {
      const stack = new Stack({}, `-w${workerInfo.workerIndex}`);
      try {
        await stack.start();
        await use(stack);
      } finally {
        await stack.stop();
      }
    },
    { scope: "worker", timeout: 180_000 },
  ],
  fakeLlm: [
    async ({}, use) => {
      const llm = new FakeLlm();
      await llm.start();
      try {
        await use(llm);
      } finally {
        await llm.stop();
      }
    },
    { scope: "worker" },
  ],
  modelStack: [
    async ({ fakeLlm }, use, workerInfo) => {
      const stack = new Stack(
        {
          PARLEY_MODEL: "fake-model",
          OPENAI_BASE_URL: fakeLlm.url,
          OPENAI_API_KEY: "x",
          OPENAI_AGENTS_DISABLE_TRACING: "1",
          // A model that takes images (attachments.spec.ts sends it one).
          PARLEY_MODEL_IMAGES: "1",
        },
        `-fake-model-w${workerInfo.workerIndex}`,
      );
      try {
        await stack.start();
        await use(stack);
      } finally {
        await stack.stop();
      }
    },
    { scope: "worker", timeout: 180_000 },
  ],
  oidcProvider: [
    async ({}, use, workerInfo) => {
      const provider = new OidcProvider();
      // The UI's port is chosen first: the API's first web origin (localhost) makes the
      // redirect URI the provider must know.
      const webPort = await freePort();
      await provider.start(`http://localhost:${webPort}/api/auth/oidc/callback`, `-w${workerInfo.workerIndex}`);
      provider.webPort = webPort;
      try {
        await use(provider);
      } finally {
        await provider.stop();
      }
    },
    { scope: "worker", timeout: 60_000 },
  ],
  oidcStack: [
    async ({ oidcProvider }, use, workerInfo) => {
      const stack = new Stack(oidcProvider.apiEnv("Test IdP"), `-oidc-w${workerInfo.workerIndex}`);
      stack.webPort = oidcProvider.webPort;
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

/** Tests against the stack whose model is the fake OpenAI-compatible server. */
export const modelTest = test.extend({
  baseURL: async ({ modelStack }, use) => {
    await use(modelStack.webUrl);
  },
});

/**
 * Signs in through the UI with the dev sign-in (the API sets its HttpOnly session cookie) and
 * waits for the workspace.
 */
export async function signIn(page: Page, name: string): Promise<void> {
  await page.goto("/");
  await page.getByTestId("dev-sign-in-name").fill(name);
  await page.getByTestId("dev-sign-in-submit").click();
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
}

/** An account made the way a program would (`POST /api/auth/signup`, sign-up is open in tests). */
export async function createAccount(stack: Stack, userId: string, password: string, email?: string): Promise<void> {
  const response = await fetch(`${stack.apiUrl}/api/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_id: userId, password, ...(email ? { email } : {}) }),
  });
  expect(response.status, await response.text()).toBe(201);
}

/** The session cookie exists, is HttpOnly, and its value is nowhere a script can read. */
export async function expectNoCredentialInScriptReach(page: Page, context: BrowserContext): Promise<void> {
  const session = (await context.cookies()).find((c) => c.name === "parley_session");
  expect(session, "the API set its session cookie").toBeDefined();
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe("Lax");
  const visible = await page.evaluate(() => ({
    cookie: document.cookie,
    storage: Object.keys(localStorage).map((key) => `${key}=${localStorage.getItem(key) ?? ""}`),
    session: Object.keys(sessionStorage).map((key) => `${key}=${sessionStorage.getItem(key) ?? ""}`),
  }));
  const value = session?.value ?? "unset";
  expect(visible.cookie).not.toContain("parley_session");
  expect(visible.cookie).not.toContain(value);
  for (const entry of [...visible.storage, ...visible.session]) {
    expect(entry).not.toContain(value);
    // Neither the cookie's value nor any bearer token (a JWT or an agent key) is stored.
    expect(entry).not.toMatch(/eyJ[\w-]+\.[\w-]+\.|token|pk_parley_/i);
  }
}

/**
 * The page's next request after its session was ended elsewhere shows "session ended". The API
 * may take up to a second to see the end on every instance, so the page is nudged (a focus
 * refreshes its lists) until it does.
 */
export async function expectSessionEnded(page: Page): Promise<void> {
  const expired = page.getByTestId("session-expired");
  await expect(async () => {
    await page.evaluate(() => window.dispatchEvent(new Event("focus")));
    await expect(expired).toBeVisible({ timeout: 300 });
  }).toPass({ timeout: 5_000 });
}

/** The Tasks region; at phone width it lives in a drawer, opened first. */
export async function tasksRegion(page: Page) {
  const drawerButton = page.getByTestId("open-tasks");
  if (await drawerButton.isVisible()) await drawerButton.click();
  const region = page.getByRole("region", { name: "Tasks" });
  await expect(region).toBeVisible();
  return region;
}

/** Collects (and dismisses) every alert/confirm the page opens: a script that ran would show here. */
export function collectDialogs(page: Page): string[] {
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return dialogs;
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
