import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test("search finds a conversation by a word of a message and opens it at that message", async ({ page, userName }) => {
      await signIn(page, userName);
      await sendMessage(page, "add a task to buy saffron");
      await expect(lastReply(page)).toContainText("saffron");
      const target = (await page.getByTestId("chat-title").getAttribute("data-conversation-id")) ?? "";
      for (let i = 0; i < 12; i += 1) {
        await sendMessage(page, `show my pending tasks ${i}`);
        await expect(lastReply(page)).toContainText("saffron");
      }
      if (size.name === "phone") await page.getByTestId("open-conversations").click();
      await page.getByRole("button", { name: "New conversation" }).click();
      await sendMessage(page, "add a task to call the plumber");
      await expect(lastReply(page)).toContainText("plumber");

      if (size.name === "phone") await page.getByTestId("open-conversations").click();
      await page.getByTestId("search-input").fill("saffron");
      const hits = page.getByTestId("search-message");
      await expect(hits.first()).toBeVisible();
      // The oldest hit is the person's own first message.
      const first = hits.last();
      await expect(first).toContainText("add a task to buy saffron");
      const messageId = (await first.getAttribute("data-message-id")) ?? "";
      await first.click();
      await expect(page).toHaveURL(new RegExp(`/c/${target}$`));
      const found = page.locator(`[data-testid="message"][data-message-id="${messageId}"]`);
      await expect(found).toHaveClass(/is-found/);
      await expect(found).toBeInViewport();

      // Another person's words are never found.
      if (size.name === "phone") await page.getByTestId("open-conversations").click();
      await page.getByTestId("search-input").fill("zucchini");
      await expect(page.getByTestId("search-results")).toContainText("Nothing found.");
    });
  });
}
