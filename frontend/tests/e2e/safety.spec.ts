import { collectDialogs, expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";

const PAYLOAD = "<img src=x onerror=alert(1)>";
const MARKDOWN_PAYLOAD = "[x](javascript:alert(1)) <img src=y onerror=alert(2)>";

test("message text is shown literally and never runs as HTML", async ({ page, userName }) => {
  const dialogs = collectDialogs(page);
  await signIn(page, userName);
  await sendMessage(page, PAYLOAD);
  const mine = page.locator('[data-testid="message"][data-role="user"]').first();
  await expect(mine.getByTestId("message-text")).toHaveText(PAYLOAD);
  await expect(lastReply(page)).toBeVisible();

  // The same text as a task title, in the panel and in the conversation list.
  const tasks = page.getByRole("region", { name: "Tasks" });
  await tasks.getByLabel("New task").fill(PAYLOAD);
  await tasks.getByRole("button", { name: "Add task" }).click();
  await expect(tasks.getByTestId("task-title")).toContainText(PAYLOAD);

  // Markdown payloads echoed by the assistant (as a task title) render as text and harmless links.
  await sendMessage(page, `add a task to ${MARKDOWN_PAYLOAD}`);
  const echoed = lastReply(page);
  await expect(echoed).toContainText("<img src=y onerror=alert(2)>");
  const links = echoed.locator("a");
  for (let i = 0; i < (await links.count()); i += 1) {
    expect(await links.nth(i).getAttribute("href")).not.toMatch(/^javascript:/i);
  }
  await expect(page.locator('[data-testid="message"][data-role="user"]').last().getByTestId("message-text")).toHaveText(
    `add a task to ${MARKDOWN_PAYLOAD}`,
  );

  await page.reload();
  await expect(page.locator('[data-testid="message"][data-role="user"]').first().getByTestId("message-text")).toHaveText(PAYLOAD);
  await expect(page.locator("main img")).toHaveCount(0);
  await page.waitForTimeout(300);
  expect(dialogs).toEqual([]);
});
