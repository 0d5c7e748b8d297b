import type { Page } from "@playwright/test";
import { expect, lastReply, modelTest as test, screenshot, sendMessage, signIn } from "./support/fixtures";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

/** Nothing on the page is wider than the screen. */
async function expectNoSideScroll(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
  expect(widths.page).toBeLessThanOrEqual(widths.screen);
}

for (const size of SIZES) {
  test.describe(size.name, () => {
    test.use({ viewport: size.viewport });

    test("the model picked for a chat answers it, and each reply names its model", async ({ page, userName, fakeLlm }) => {
      await signIn(page, userName);
      const picker = page.getByTestId("model-picker");
      // The configured model is a new chat's; the provider's models and offline are offered.
      await expect(picker).toHaveValue("fake-model");
      await expect(picker.locator("option")).toHaveText(["fake-model (default)", "fake-large", "fake-small", "offline"]);
      const box = await picker.boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(size.viewport.width);
      await expectNoSideScroll(page);

      // Choosing in a new chat makes the conversation, so the first reply already uses it.
      await picker.selectOption("fake-large");
      await expect(page.getByTestId("chat-title")).not.toHaveAttribute("data-conversation-id", "");
      await expect(picker).toHaveValue("fake-large");
      const first = `hello large ${userName}`;
      await sendMessage(page, first);
      await expect(lastReply(page)).toContainText(`You said: ${first}`);
      await expect(lastReply(page).getByTestId("message-model")).toHaveText("fake-large");
      expect(fakeLlm.requests.filter((r) => r.text === first).map((r) => r.model)).toEqual(["fake-large"]);
      await screenshot(page, `${size.name}-model-picker`);

      // Another model from the next reply on: the earlier reply keeps its own.
      await picker.selectOption("offline");
      await sendMessage(page, "list my tasks");
      await expect(page.locator('[data-testid="message"][data-role="assistant"]')).toHaveCount(2);
      await expect(lastReply(page).getByTestId("message-model")).toHaveText("offline");
      await page.reload();
      await expect(page.getByTestId("model-picker")).toHaveValue("offline");
      await expect(page.locator('[data-testid="message"][data-role="assistant"] [data-testid="message-model"]')).toHaveText(["fake-large", "offline"]);
      await expectNoSideScroll(page);
    });
  });
}

test("Account → Instructions are saved, capped, and given to the model on the person's turns", async ({ page, userName, fakeLlm }) => {
  await signIn(page, userName);
  await page.getByTestId("open-account").click();
  const panel = page.getByTestId("account-panel");
  const box = panel.getByTestId("instructions-text");
  await expect(box).toBeEnabled();
  await expect(box).toHaveValue("");

  // Over the cap: the count says so and the server's refusal is shown; nothing is saved.
  await box.fill("x".repeat(4001));
  await expect(panel.getByTestId("instructions-count")).toContainText("1 too many");
  await panel.getByTestId("instructions-save").click();
  await expect(panel.getByTestId("instructions-error")).toContainText("at most 4000 characters");

  const words = `Always sign as ${userName}.`;
  await box.fill(words);
  await panel.getByTestId("instructions-save").click();
  await expect(panel.getByTestId("instructions-saved")).toBeVisible();
  await expect(panel.getByTestId("instructions-error")).toHaveCount(0);
  await screenshot(page, "desktop-account-instructions");
  await page.keyboard.press("Escape");

  // Kept: the panel shows them after a reload.
  await page.reload();
  await page.getByTestId("open-account").click();
  await expect(page.getByTestId("instructions-text")).toHaveValue(words);
  await page.keyboard.press("Escape");

  const question = `what do you keep in mind ${userName}`;
  await sendMessage(page, question);
  await expect(lastReply(page)).toContainText(`You said: ${question}`);
  const sent = fakeLlm.requests.filter((r) => r.text === question);
  expect(sent).toHaveLength(1);
  expect(sent[0]?.system).toContain(words);
  // Nobody else's turn carries them.
  expect(fakeLlm.requests.filter((r) => r.text !== question && r.system.includes(words))).toEqual([]);
});

test("Account → Instructions fit a phone", async ({ page, userName }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, userName);
  await page.getByTestId("account-menu").click(); // at phone width Account is in this menu
  await page.getByTestId("open-account").click();
  const box = page.getByTestId("instructions-text");
  await expect(box).toBeVisible();
  const rect = await box.boundingBox();
  expect((rect?.x ?? 0) + (rect?.width ?? 0)).toBeLessThanOrEqual(390);
  await expectNoSideScroll(page);
  await screenshot(page, "phone-account-instructions");
});
