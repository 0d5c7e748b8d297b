import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";

const PAYLOAD = "<img src=x onerror=alert(1)>";

test("message text is shown literally and never runs as HTML", async ({ page, userName }) => {
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
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

  await page.reload();
  await expect(page.locator('[data-testid="message"][data-role="user"]').first().getByTestId("message-text")).toHaveText(PAYLOAD);
  await expect(page.locator("main img")).toHaveCount(0);
  await page.waitForTimeout(300);
  expect(dialogs).toEqual([]);
});
