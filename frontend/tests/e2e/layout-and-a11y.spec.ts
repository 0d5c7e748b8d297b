import { expect, expectNoSeriousA11yViolations, lastReply, screenshot, sendMessage, signIn, test } from "./support/fixtures";

async function expectNoHorizontalScroll(page: import("@playwright/test").Page) {
  const sizes = await page.evaluate(() => ({
    doc: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
    body: [document.body.scrollWidth, document.body.clientWidth],
  }));
  expect(sizes.doc[0], `document scrollWidth ${sizes.doc[0]} > clientWidth ${sizes.doc[1]}`).toBeLessThanOrEqual(sizes.doc[1] ?? 0);
  expect(sizes.body[0], `body scrollWidth ${sizes.body[0]} > clientWidth ${sizes.body[1]}`).toBeLessThanOrEqual(sizes.body[1] ?? 0);
}

test("desktop: main screens have no serious accessibility violations", async ({ page, userName }) => {
  await page.goto("/");
  await expect(page.getByLabel("Name")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-sign-in");

  await signIn(page, userName);
  await expectNoSeriousA11yViolations(page);
  await sendMessage(page, "add a task to buy milk");
  await expect(lastReply(page)).toContainText("buy milk");
  await lastReply(page).getByTestId("tool-call").locator("summary").click();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-workspace");
});

test.describe("phone width (360 px)", () => {
  test.use({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });

  test("no horizontal scroll, everything reachable, no serious accessibility violations", async ({ page, userName }) => {
    await page.goto("/");
    await expectNoHorizontalScroll(page);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, "phone-sign-in");

    await signIn(page, userName);
    await sendMessage(page, "add a task to buy a very-long-unbroken-word-like-supercalifragilisticexpialidocious-and-more");
    await expect(lastReply(page)).toContainText("supercalifragilistic");
    await sendMessage(page, "list my tasks");
    await expect(lastReply(page)).toContainText("Your tasks");
    await lastReply(page).getByTestId("tool-call").locator("summary").click();
    await expect(page.getByRole("region", { name: "Tasks" }).getByRole("checkbox")).toHaveCount(1);
    await expect(page.getByRole("button", { name: "Voice input" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
    await expect(page.getByRole("button", { name: "New conversation" })).toBeVisible();
    await expectNoHorizontalScroll(page);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, "phone-workspace");
  });
});

test("keyboard only: sign in, send a message, complete a task", async ({ page, userName }) => {
  await page.goto("/");
  await expect(page.getByLabel("Name")).toBeFocused();
  await page.keyboard.type(userName);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("region", { name: "Tasks" })).toBeVisible();

  // The first Tab reaches the skip link, which jumps to the message box.
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to the message box" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("textbox", { name: "Message" })).toBeFocused();
  await page.keyboard.type("add a task to buy milk");
  await page.keyboard.press("Enter");
  await expect(lastReply(page)).toContainText("buy milk");

  const checkbox = page.getByRole("region", { name: "Tasks" }).getByRole("checkbox", { name: /buy milk/ });
  for (let i = 0; i < 40 && !(await checkbox.evaluate((el) => el === document.activeElement)); i += 1) {
    await page.keyboard.press("Tab");
  }
  await expect(checkbox).toBeFocused();
  await page.keyboard.press("Space");
  await expect(checkbox).toBeChecked();
});
