import {
  createAccount,
  expect,
  expectNoSeriousA11yViolations,
  lastReply,
  screenshot,
  sendMessage,
  signIn,
  tasksRegion,
  test,
} from "./support/fixtures";

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
  await expect(page.getByTestId("dev-sign-in-name")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-light-sign-in");

  await signIn(page, userName);
  await expectNoSeriousA11yViolations(page);
  await sendMessage(page, "add a task to buy milk");
  await expect(lastReply(page)).toContainText("buy milk");
  await lastReply(page).getByTestId("tool-call").locator("summary").click();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-light-workspace");
});

for (const scheme of ["light", "dark"] as const) {
  test.describe(`phone width (390 × 844), ${scheme}`, () => {
    test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: scheme });

    test(`chat first, composer pinned, drawers, no nested scrolling (${scheme})`, async ({ page, userName }) => {
      await page.goto("/");
      await expectNoHorizontalScroll(page);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, `phone-${scheme}-sign-in`);

      await signIn(page, userName);
      // Chat first: the side panels are not on the page until asked for.
      await expect(page.getByRole("region", { name: "Tasks" })).toHaveCount(0);
      await expect(page.getByRole("region", { name: "Conversations" })).toHaveCount(0);
      const banner = page.getByTestId("offline-banner");
      await expect(banner).toBeVisible();
      expect((await banner.boundingBox())?.height ?? 999).toBeLessThan(60);

      await sendMessage(page, "add a task to buy a very-long-unbroken-word-like-supercalifragilisticexpialidocious-and-more");
      await expect(lastReply(page)).toContainText("supercalifragilistic");
      for (let i = 0; i < 4; i += 1) {
        await sendMessage(page, "list my tasks");
        await expect(page.locator('[data-testid="message"][data-role="assistant"]')).toHaveCount(i + 2);
      }
      // The page itself never scrolls: only the message list does, and the composer stays in view.
      const frame = await page.evaluate(() => ({
        page: document.scrollingElement ? document.scrollingElement.scrollHeight - window.innerHeight : 0,
        list: (() => {
          const list = document.querySelector('[data-testid="message-list"]');
          return list ? list.scrollHeight - list.clientHeight : 0;
        })(),
      }));
      expect(frame.page).toBeLessThanOrEqual(0);
      expect(frame.list).toBeGreaterThan(0);
      for (const name of ["Send", "Voice input"]) {
        const box = await page.getByRole("button", { name, exact: true }).boundingBox();
        expect(box, name).not.toBeNull();
        expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(844);
      }
      await expectNoHorizontalScroll(page);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, `phone-${scheme}-chat`);

      const tasks = await tasksRegion(page);
      await expect(tasks.getByRole("checkbox")).toHaveCount(1);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, `phone-${scheme}-tasks`);
      await page.keyboard.press("Escape");
      await expect(page.getByRole("region", { name: "Tasks" })).toHaveCount(0);

      await page.getByRole("button", { name: "Conversations" }).click();
      const list = page.getByRole("region", { name: "Conversations" });
      await expect(list.getByTestId("conversation-item")).toHaveCount(1);
      await screenshot(page, `phone-${scheme}-conversations`);
      await list.getByRole("button", { name: "New conversation" }).click();
      await expect(page.getByRole("region", { name: "Conversations" })).toHaveCount(0);
      await expect(page.getByTestId("empty-chat")).toBeVisible();
    });
  });
}

test("desktop dark: a dark page, readable, no serious accessibility violations", async ({ page, userName }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-dark-sign-in");
  await signIn(page, userName);
  await sendMessage(page, "add a task to buy milk");
  await expect(lastReply(page)).toContainText("buy milk");
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const [r, g, b] = (background.match(/\d+/g) ?? ["255", "255", "255"]).map(Number);
  expect((r ?? 255) + (g ?? 255) + (b ?? 255)).toBeLessThan(120);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-dark-workspace");
});

test("keyboard only: sign in, send a message, complete a task", async ({ page, userName, stack }) => {
  await createAccount(stack, userName, "a long enough password");
  await page.goto("/");
  await expect(page.getByLabel("User name or email")).toBeFocused();
  await page.keyboard.type(userName);
  await page.keyboard.press("Tab");
  await page.keyboard.type("a long enough password");
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
