import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";

for (const size of [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
]) {
  test(`messages sent while a reply runs wait as their own bubbles, then go out in order, one turn each (${size.name})`, async ({
    page,
    userName,
  }) => {
    await page.setViewportSize(size.viewport);
    await signIn(page, userName);
    // The first reply is held until both follow-ups are queued.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    await page.route(`**/api/${userName}/chat`, async (route) => {
      if (first) {
        first = false;
        await held;
      }
      await route.continue();
    });
    await sendMessage(page, "add a task to buy milk");
    await expect(page.getByTestId("stop-button")).toBeVisible();
    await sendMessage(page, "add a task to buy bread");
    await sendMessage(page, "add a task to buy eggs");
    const queued = page.getByTestId("queued-message");
    await expect(queued).toHaveCount(2);
    await expect(queued.nth(0).getByTestId("queued-text")).toHaveText("add a task to buy bread");
    await expect(queued.nth(1).getByTestId("queued-text")).toHaveText("add a task to buy eggs");
    await expect(queued.nth(0)).toBeInViewport();
    release();
    await expect(queued).toHaveCount(0, { timeout: 30_000 });
    await expect(lastReply(page)).toContainText("buy eggs", { timeout: 30_000 });
    // Three turns, in order: never one message with two requests in it.
    const mine = page.locator('[data-testid="message"][data-role="user"]');
    await expect(mine).toHaveText([/buy milk/, /buy bread/, /buy eggs/]);
  });
}

test("a queued message can be taken back to the box before it goes", async ({ page, userName }) => {
  await signIn(page, userName);
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(`**/api/${userName}/chat`, async (route) => {
    await held;
    await route.continue();
  });
  await sendMessage(page, "add a task to buy milk");
  await sendMessage(page, "add a task to buy rice");
  await page.getByTestId("queued-message").getByTestId("queued-edit").click();
  await expect(page.getByTestId("queued-message")).toHaveCount(0);
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("add a task to buy rice");
  release();
  await expect(lastReply(page)).toContainText("buy milk");
  await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveCount(1);
});

test("a tab whose session was ended on another device notices when shown again, and keeps the typed text through sign-in", async ({
  browser,
  page,
  userName,
  stack,
}) => {
  await signIn(page, userName);
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill("a long thought I do not want to lose");

  // Another device of the same person ends this browser's session.
  const other = await browser.newContext({ baseURL: stack.webUrl });
  const device = await other.newPage();
  await signIn(device, userName);
  const headers = { origin: stack.webUrl };
  const listed = (await (await device.request.get(`/api/${userName}/sessions`)).json()) as { id: number; current: boolean }[];
  const mine = listed.find((s) => !s.current);
  expect(mine).toBeTruthy();
  const ended = await device.request.delete(`/api/${userName}/sessions/${mine!.id}`, { headers });
  expect(ended.status()).toBe(204);
  await other.close();

  // Coming back to the tab (shown again) is enough: no send needed to find out.
  await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
  await expect(page.getByTestId("session-expired")).toBeVisible({ timeout: 5_000 });
  await page.getByRole("button", { name: "Sign in again" }).click();
  await page.getByTestId("dev-sign-in-name").fill(userName);
  await page.getByTestId("dev-sign-in-submit").click();
  await expect(box).toHaveValue("a long thought I do not want to lose");
  await sendMessage(page, "add a task to buy tea");
  await expect(lastReply(page)).toContainText("buy tea");
});

test("notifications: without a mail server Email me is unticked and disabled, with the reason; a block is said once", async ({
  page,
  userName,
}) => {
  await signIn(page, userName);
  await page.getByTestId("open-account").click();
  const section = page.getByTestId("notifications-section");
  const email = section.getByTestId("notify-kind-email_reminders");
  await expect(email).not.toBeChecked();
  await expect(email).toBeDisabled();
  await expect(section.getByTestId("email-unavailable")).toContainText("no mail server");
  await expect(section.getByTestId("notify-kind-question")).toBeEnabled();
  // Headless Chromium refuses notifications unless granted: said once, with no button that
  // could only fail with the same words.
  const permission = await page.evaluate(() => Notification.permission);
  if (permission === "denied") {
    await expect(section.getByText(/blocked/)).toHaveCount(1);
    await expect(section.getByTestId("enable-notifications")).toHaveCount(0);
  } else {
    await section.getByTestId("enable-notifications").click();
    await expect(section.getByText(/blocked/)).toHaveCount(1);
  }
});
