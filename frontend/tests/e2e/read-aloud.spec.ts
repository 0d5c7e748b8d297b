import type { Page } from "@playwright/test";
import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";
import { installFakeVoice } from "./support/fake-voice";

const spoken = (page: Page) => page.evaluate(() => (window as unknown as { __spoken: string[] }).__spoken);

for (const size of [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
]) {
  test.describe(size.name, () => {
    test.use({ viewport: size.viewport });

    test("Read aloud reads a reply in words (no Markdown marks), and stops when asked", async ({ page, userName }) => {
      await installFakeVoice(page, { utterances: [], speakMs: 60_000 });
      await signIn(page, userName);
      await sendMessage(page, "add a task to buy milk");
      const reply = lastReply(page);
      await expect(reply).toContainText("buy milk");
      // Only replies have it: the person's own message does not.
      await expect(page.locator('[data-testid="message"][data-role="user"]').getByTestId("read-aloud")).toHaveCount(0);
      const button = reply.getByTestId("read-aloud");
      await button.click();
      await expect(button).toHaveAttribute("data-state", "speaking");
      await expect(button).toHaveText("Stop reading");
      await expect(button).toBeInViewport();
      const said = await spoken(page);
      expect(said).toHaveLength(1);
      expect(said[0]).toContain("buy milk");
      expect(said[0]).not.toMatch(/[*`]/);
      await button.click();
      await expect(button).toHaveAttribute("data-state", "idle");
      await expect(button).toHaveText("Read aloud");
      expect(await page.evaluate(() => (window as unknown as { __cancels: number }).__cancels)).toBe(1);
    });

    test("voice mode: speak, hear the reply, speak again, until turned off", async ({ page, userName }) => {
      await installFakeVoice(page, { utterances: ["add a task to walk the dog", "add a task to feed the cat"], speakMs: 800 });
      await signIn(page, userName);
      const toggle = page.getByTestId("voice-mode");
      await expect(toggle).toBeInViewport();
      await toggle.click();
      await expect(toggle).toHaveAttribute("aria-pressed", "true");
      // First round: heard, sent, answered, read aloud.
      await expect(page.locator('[data-testid="message"][data-role="user"]').first()).toContainText("walk the dog");
      // Second round without touching anything: it listened again after reading.
      await expect(page.locator('[data-testid="message"][data-role="user"]').nth(1)).toContainText("feed the cat", { timeout: 20_000 });
      await expect(lastReply(page)).toContainText("feed the cat");
      await expect.poll(async () => (await spoken(page)).length, { timeout: 15_000 }).toBe(2);
      const said = await spoken(page);
      expect(said[0]).toContain("walk the dog");
      expect(said[1]).toContain("feed the cat");
      // Nothing more is said: it listens on, until turned off.
      await expect(toggle).toHaveAttribute("data-phase", "listening");
      await expect(page.getByTestId("voice-mode-status")).toContainText("Listening");
      await toggle.click();
      await expect(toggle).toHaveAttribute("aria-pressed", "false");
      await expect(toggle).toHaveAttribute("data-phase", "off");
      await expect(page.locator('[data-testid="message"][data-role="user"]')).toHaveCount(2);
      await expect(page.getByRole("region", { name: "Tasks" }).or(page.getByTestId("open-tasks")).first()).toBeVisible();
    });
  });
}

test("voice mode turned off while a reply is read stops the reading at once", async ({ page, userName }) => {
  await installFakeVoice(page, { utterances: ["add a task to water plants"], speakMs: 60_000 });
  await signIn(page, userName);
  const toggle = page.getByTestId("voice-mode");
  await toggle.click();
  await expect(toggle).toHaveAttribute("data-phase", "speaking", { timeout: 20_000 });
  await toggle.click();
  await expect(toggle).toHaveAttribute("data-phase", "off");
  expect(await page.evaluate(() => (window as unknown as { __cancels: number }).__cancels)).toBeGreaterThanOrEqual(1);
});
