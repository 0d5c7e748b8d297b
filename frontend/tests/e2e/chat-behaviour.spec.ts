import { expect, lastReply, sendMessage, signIn, tasksRegion, test } from "./support/fixtures";

test("clicking the conversation that is already open keeps its messages", async ({ page, userName }) => {
  await signIn(page, userName);
  await sendMessage(page, "add a task to buy milk");
  await expect(lastReply(page)).toContainText("buy milk");
  const item = page.getByRole("region", { name: "Conversations" }).getByTestId("conversation-item").first();
  await item.getByTestId("conversation-open").click();
  await page.waitForTimeout(500);
  await expect(page.getByTestId("message")).toHaveCount(2);
  await expect(page.getByText("Loading messages…")).toHaveCount(0);
});

test("text queued while a reply runs is never lost when that reply fails", async ({ page, userName }) => {
  await signIn(page, userName);
  await page.route(`**/api/${userName}/chat`, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await route.fulfill({
      status: 502,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: "model_error", message: "upstream down" } }),
    });
  });
  await sendMessage(page, "first message");
  await expect(page.getByTestId("stop-button")).toBeVisible();
  await sendMessage(page, "second message typed while waiting");
  await expect(page.getByTestId("queued-message")).toBeVisible();

  const box = page.getByRole("textbox", { name: "Message" });
  await expect(page.getByTestId("chat-error")).toBeVisible();
  await expect(box).toHaveValue(/first message/);
  await expect(box).toHaveValue(/second message typed while waiting/);
  await expect(page.getByTestId("queued-returned")).toContainText("back in the message box");
});

test("each conversation has its own address; / reopens the last one; two tabs, two conversations", async ({ page, userName }) => {
  await signIn(page, userName);
  await sendMessage(page, "add a task to buy milk");
  await expect(lastReply(page)).toContainText("buy milk");
  const firstId = await page.getByTestId("chat-title").getAttribute("data-conversation-id");
  await expect(page).toHaveURL(new RegExp(`/c/${firstId}$`));

  await page.getByRole("button", { name: "New conversation" }).click();
  await expect(page).toHaveURL(/\/$/);
  await sendMessage(page, "add a task to buy bread");
  await expect(lastReply(page)).toContainText("buy bread");
  const secondId = await page.getByTestId("chat-title").getAttribute("data-conversation-id");
  await expect(page).toHaveURL(new RegExp(`/c/${secondId}$`));

  // Back goes to the first conversation.
  await page.goBack();
  await page.goBack();
  await expect(page.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", firstId ?? "");
  await expect(lastReply(page)).toContainText("buy milk");

  // A link opens its conversation, in another tab too.
  const other = await page.context().newPage();
  await other.goto(`/c/${secondId}`);
  await expect(other.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", secondId ?? "");
  await expect(lastReply(other)).toContainText("buy bread");
  await expect(lastReply(page)).toContainText("buy milk");
  await other.close();

  // At / the last one opened comes back.
  await page.goto("/");
  await expect(page.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", secondId ?? "");
  await expect(page).toHaveURL(new RegExp(`/c/${secondId}$`));
});

test("empty state: examples send, no 'No conversations yet' beside the draft, the composer grows", async ({ page, userName }) => {
  await signIn(page, userName);
  await expect(page.getByTestId("conversation-draft")).toBeVisible();
  await expect(page.getByText("No conversations yet")).toHaveCount(0);

  const box = page.getByRole("textbox", { name: "Message" });
  const before = (await box.boundingBox())?.height ?? 0;
  await box.fill("one\ntwo\nthree\nfour\nfive");
  const after = (await box.boundingBox())?.height ?? 0;
  expect(after).toBeGreaterThan(before + 30);
  await box.fill("");

  await page.getByRole("button", { name: "add a task to buy milk" }).click();
  await expect(lastReply(page)).toContainText("buy milk");
  await expect((await tasksRegion(page)).getByText("buy milk")).toBeVisible();
});

test("the app has a favicon", async ({ page }) => {
  await page.goto("/");
  const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(href).toBeTruthy();
  const icon = await page.request.get(href ?? "");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg");
});

test.describe("a short window", () => {
  test.use({ viewport: { width: 1280, height: 520 } });

  test("scrolled up, a button jumps back to the newest message", async ({ page, userName }) => {
    await signIn(page, userName);
    for (let i = 1; i <= 3; i += 1) {
      await sendMessage(page, "list my tasks");
      await expect(page.locator('[data-testid="message"][data-role="assistant"]')).toHaveCount(i);
    }
    const list = page.getByTestId("message-list");
    await expect(page.getByTestId("scroll-to-end")).toHaveCount(0);
    // A late update (the read position, the list's refresh) may still bring the newest into
    // view once: scroll up again until the list stays where the person put it.
    await expect(async () => {
      await list.evaluate((element) => element.scrollTo({ top: 0 }));
      await expect(page.getByTestId("scroll-to-end")).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 10_000 });
    await page.getByTestId("scroll-to-end").click();
    await expect(page.getByTestId("scroll-to-end")).toHaveCount(0);
    await expect
      .poll(() => list.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight))
      .toBeLessThan(5);
  });
});
