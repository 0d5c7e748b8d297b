import type { Page } from "@playwright/test";
import { expect, lastReply, modelTest as test, sendMessage, signIn } from "./support/fixtures";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

async function startHungReply(page: Page): Promise<string> {
  await sendMessage(page, "hello");
  await expect(lastReply(page)).toContainText("You said: hello");
  await sendMessage(page, "please hang");
  await expect(page.getByTestId("streaming-message")).toContainText("Thinking about it");
  return (await page.getByTestId("chat-title").getAttribute("data-conversation-id")) ?? "";
}

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test("a reply running before a reload shows its text so far and a Stop that ends it", async ({ page, userName }) => {
      await signIn(page, userName);
      const id = await startHungReply(page);
      await page.reload();
      await expect(page.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", id);
      const running = page.getByTestId("remote-streaming-message");
      await expect(running).toContainText("Thinking about it");
      await expect(running).toHaveAttribute("aria-busy", "true");
      await page.getByTestId("stop-button").click();
      await expect(running).toHaveCount(0);
      await expect(page.getByTestId("stop-button")).toHaveCount(0);
      await expect(lastReply(page)).toContainText("Thinking about it");
      await expect(lastReply(page).getByTestId("stopped-note")).toBeVisible();
      // The conversation is free again: the next message gets its answer.
      await sendMessage(page, "after the stop");
      await expect(lastReply(page)).toContainText("You said: after the stop");
    });

    test("a second tab sees the running reply, and then exactly one stored copy of it", async ({ page, userName }) => {
      await signIn(page, userName);
      const id = await startHungReply(page);
      const other = await page.context().newPage();
      await other.goto(`/c/${id}`);
      await expect(other.getByTestId("remote-streaming-message")).toContainText("Thinking about it");
      await expect(other.getByTestId("stop-button")).toBeVisible();
      await page.getByTestId("stop-button").click();
      await expect(lastReply(other).getByTestId("stopped-note")).toBeVisible();
      await expect(other.getByTestId("remote-streaming-message")).toHaveCount(0);
      await expect(page.getByTestId("streaming-message")).toHaveCount(0);
      // One copy of the reply in each tab, each with its time.
      for (const tab of [page, other]) {
        await expect(tab.locator('[data-testid="message"][data-role="assistant"]')).toHaveCount(2);
        await expect(lastReply(tab).locator("time")).toBeVisible();
      }
    });
  });
}
