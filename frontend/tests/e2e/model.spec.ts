import type { APIRequestContext } from "@playwright/test";
import { collectDialogs, expect, lastReply, modelTest as test, screenshot, sendMessage, signIn } from "./support/fixtures";

/** The API's OpenAPI schema: a test fails (never skips) when a route it needs is gone. */
async function apiSchema(request: APIRequestContext, apiUrl: string): Promise<string> {
  const response = await request.get(`${apiUrl}/openapi.json`);
  expect(response.ok()).toBe(true);
  return await response.text();
}

test("assistant Markdown: lists, tables, code with a copy button; no HTML, no javascript: links", async ({ page, userName }) => {
  const dialogs = collectDialogs(page);
  await signIn(page, userName);
  await sendMessage(page, "markdown please, with **stars** kept literal");
  const reply = lastReply(page);
  await expect(reply.locator("li")).toHaveCount(2);
  await expect(reply.locator("strong")).toHaveText("first");
  await expect(reply.locator("table td").first()).toHaveText("milk");
  await expect(reply.locator("pre code")).toContainText("print('hello')");
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await reply.getByTestId("copy-code").click();
  await expect(reply.getByTestId("copy-code")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("print('hello')");
  // Raw HTML stays text; the javascript: link has no target.
  await expect(reply.locator("img")).toHaveCount(0);
  await expect(reply).toContainText("<img src=x onerror=alert(1)>");
  const link = reply.getByText("bad link");
  expect(await link.getAttribute("href")).toBeFalsy();
  // The person's own text is literal.
  const mine = page.locator('[data-testid="message"][data-role="user"]').first();
  await expect(mine.getByTestId("message-text")).toHaveText("markdown please, with **stars** kept literal");
  await screenshot(page, "desktop-light-markdown");
  await page.waitForTimeout(300);
  expect(dialogs).toEqual([]);
});

test("a failed reply shows once in plain words and Retry runs it again on the stored message", async ({ page, userName, modelStack }) => {
  await signIn(page, userName);
  await sendMessage(page, "flaky question");
  const failed = lastReply(page);
  await expect(failed).toContainText("couldn't answer");
  await expect(page.getByTestId("chat-panel").getByText("secret stack trace")).toHaveCount(0);
  await expect(page.getByTestId("chat-error")).toHaveCount(0);
  const schema = await apiSchema(page.request, modelStack.apiUrl);
  expect(schema, "POST /chat takes {retry: true}").toContain('"retry"');
  await page.getByTestId("chat-retry").click();
  await expect(lastReply(page)).toContainText("Recovered: flaky question");
  await page.reload();
  await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveCount(1);
  await expect(lastReply(page)).toContainText("Recovered: flaky question");
});

test("Stop ends a hung reply at once and frees the conversation; the wait shows its time", async ({ page, userName, modelStack }) => {
  await signIn(page, userName);
  await sendMessage(page, "hello");
  await expect(lastReply(page)).toContainText("You said: hello");
  await sendMessage(page, "please hang");
  await expect(page.getByTestId("streaming-message")).toContainText("Thinking about it");
  await expect(page.getByTestId("elapsed")).toBeVisible({ timeout: 6_000 });
  await screenshot(page, "desktop-light-waiting");
  const schema = await apiSchema(page.request, modelStack.apiUrl);
  expect(schema, "POST /conversations/{id}/stop exists").toContain("/stop");
  await page.getByTestId("stop-button").click();
  await expect(page.getByTestId("stop-button")).toHaveCount(0, { timeout: 5_000 });
  await expect(lastReply(page).getByTestId("stopped-note")).toBeVisible();
  await expect(lastReply(page)).toContainText("Thinking about it");
  await sendMessage(page, "after the stop");
  await expect(lastReply(page)).toContainText("You said: after the stop");
});
