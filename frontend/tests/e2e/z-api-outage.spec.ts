import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";

// Named z-… so it runs last: it stops and restarts the API the other tests share.
test("API stopped: a clear error, the input is kept, and the UI recovers when it returns", async ({ page, userName, stack }) => {
  test.setTimeout(120_000);
  await signIn(page, userName);
  await sendMessage(page, "add a task to buy milk");
  await expect(lastReply(page)).toContainText("buy milk");

  await stack.stopBackend();
  try {
    await sendMessage(page, "add a task to buy bread");
    const notice = page.getByTestId("chat-error");
    await expect(notice).toContainText("Not sent");
    await expect(page.getByTestId("api-unreachable")).toBeVisible();
    await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("add a task to buy bread");
  } finally {
    await stack.startBackend();
  }

  await expect(page.getByTestId("api-unreachable")).toHaveCount(0, { timeout: 20_000 });
  await page.getByTestId("chat-error").getByRole("button", { name: "Retry" }).click();
  await expect(lastReply(page)).toContainText("buy bread");
  await expect(page.getByTestId("chat-error")).toHaveCount(0);
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("");
  await expect(page.getByRole("region", { name: "Tasks" }).getByText("buy bread")).toBeVisible();

  // Opening the app while the API is down: a clear error, then everything loads by itself.
  await stack.stopBackend();
  try {
    await page.reload();
    await expect(page.getByTestId("api-unreachable")).toBeVisible();
    await expect(page.getByTestId("chat-error")).toContainText("Couldn't load this conversation");
    // The banner is the one place that says the API is down; the task panel does not repeat it.
    await expect(page.getByTestId("tasks-error")).toHaveCount(0);
  } finally {
    await stack.startBackend();
  }
  await expect(page.getByTestId("api-unreachable")).toHaveCount(0, { timeout: 20_000 });
  await expect(lastReply(page)).toContainText("buy bread");
  await expect(page.getByTestId("chat-error")).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Tasks" }).getByText("buy bread")).toBeVisible();
});

test("API restarted while the page sits idle: the one banner shows at once, no panel adds its own error, all recovers", async ({
  page,
  userName,
  stack,
}) => {
  test.setTimeout(120_000);
  await signIn(page, userName);
  await sendMessage(page, "add a task to buy eggs");
  await expect(lastReply(page)).toContainText("buy eggs");
  // Nothing is sent: only the page's own event stream and reads notice the API going away,
  // well before the next 20 s health probe.
  await stack.stopBackend();
  try {
    await expect(page.getByTestId("api-unreachable")).toBeVisible({ timeout: 8_000 });
    await expect(page.getByTestId("api-unreachable")).toHaveCount(1);
    // Panels read again meanwhile (focus does that): they keep what they had, silently.
    await page.evaluate(() => window.dispatchEvent(new Event("focus")));
    await page.getByTestId("open-runs").click();
    await expect(page.getByTestId("runs-drawer")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("region", { name: "Tasks" }).getByText("buy eggs")).toBeVisible();
    await expect(page.getByTestId("tasks-error")).toHaveCount(0);
    await expect(page.getByTestId("api-unreachable")).toHaveCount(1);
    // The one alert with words in it is the banner.
    await expect(page.locator('[role="alert"]').filter({ hasText: /\S/ })).toHaveCount(1);
  } finally {
    await stack.startBackend();
  }
  await expect(page.getByTestId("api-unreachable")).toHaveCount(0, { timeout: 20_000 });
  await sendMessage(page, "add a task to buy flour");
  await expect(lastReply(page)).toContainText("buy flour");
});
