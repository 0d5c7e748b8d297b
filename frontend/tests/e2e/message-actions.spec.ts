import { expect, lastReply, modelTest as test, sendMessage, signIn } from "./support/fixtures";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

const replies = (page: import("@playwright/test").Page) => page.locator('[data-testid="message"][data-role="assistant"]');
const mine = (page: import("@playwright/test").Page) => page.locator('[data-testid="message"][data-role="user"]');

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test("Retry replaces the failed reply, which says what went wrong in the same words as the list", async ({ page, userName }) => {
      await signIn(page, userName);
      const question = `flaky question at ${size.name} width`; // the fake fails each text once
      await sendMessage(page, question);
      const failed = lastReply(page);
      await expect(failed).toContainText("The model service answered with an error (HTTP 400)");
      await expect(page.getByTestId("chat-panel").getByText("secret stack trace")).toHaveCount(0);
      if (size.name === "desktop") {
        const item = page.getByRole("region", { name: "Conversations" }).getByTestId("conversation-item").first();
        await expect(item).toContainText("couldn't answer that. The model service answered with an error");
      }
      await page.getByTestId("chat-retry").click();
      await expect(lastReply(page)).toContainText(`Recovered: ${question}`);
      await expect(replies(page)).toHaveCount(1);
      if (size.name === "desktop") {
        const item = page.getByRole("region", { name: "Conversations" }).getByTestId("conversation-item").first();
        await expect(item).toContainText(`Recovered: ${question}`);
      }
      await page.reload();
      await expect(lastReply(page)).toContainText(`Recovered: ${question}`);
      await expect(replies(page)).toHaveCount(1);
      await expect(mine(page)).toHaveCount(1);
    });

    test("a reply stopped before its first word shows one Stopped marker, no placeholder text", async ({ page, userName }) => {
      await signIn(page, userName);
      await sendMessage(page, "stay silent");
      await expect(page.getByTestId("streaming-message")).toBeVisible();
      // This test is about the marker; Stop before a new chat has its id is another case.
      await expect(page).toHaveURL(/\/c\/\d+$/);
      await page.getByTestId("stop-button").click();
      const stopped = lastReply(page);
      await expect(stopped.getByTestId("stopped-note")).toHaveText("Stopped");
      await expect(stopped).not.toContainText("(Stopped.)");
    });

    test("copy a message, edit one and send it again in a copy, regenerate a reply; the original stays", async ({ page, userName }) => {
      await signIn(page, userName);
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
      await sendMessage(page, "first question");
      await expect(lastReply(page)).toContainText("You said: first question");
      await sendMessage(page, "second question");
      await expect(lastReply(page)).toContainText("You said: second question");
      const original = (await page.getByTestId("chat-title").getAttribute("data-conversation-id")) ?? "";

      // Copy: the exact stored text, from a reply and from the person's own message.
      await lastReply(page).getByTestId("copy-message").click();
      await expect(lastReply(page).getByTestId("copy-message")).toHaveText("Copied");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("You said: second question");
      // Which model answered.
      await expect(lastReply(page).getByTestId("message-model")).toHaveText("fake-model");

      // Edit the second question: a copy holds the first turn and the edited text's answer.
      await mine(page).nth(1).getByTestId("edit-message").click();
      await page.getByTestId("edit-input").fill("second question, edited");
      await page.getByTestId("edit-send").click();
      await expect(lastReply(page)).toContainText("You said: second question, edited");
      const forked = (await page.getByTestId("chat-title").getAttribute("data-conversation-id")) ?? "";
      expect(forked).not.toBe(original);
      await expect(page).toHaveURL(new RegExp(`/c/${forked}$`));
      await expect(mine(page)).toHaveText([/first question/, /second question, edited/]);
      await expect(page.getByTestId("fork-note")).toBeVisible();

      // Regenerate the last reply: asked again in another copy; this one keeps its reply.
      await lastReply(page).getByTestId("regenerate").click();
      await expect(page.getByTestId("chat-title")).not.toHaveAttribute("data-conversation-id", forked);
      await expect(lastReply(page)).toContainText("You said: second question, edited");
      await expect(replies(page)).toHaveCount(2);

      // The original conversation is exactly as it was; the copy links back to it.
      await page.reload();
      await page.getByTestId("fork-origin").click();
      await expect(page).toHaveURL(new RegExp(`/c/${forked}$`));
      await page.goto(`/c/${original}`);
      await expect(mine(page).getByTestId("message-text")).toHaveText(["first question", "second question"]);
      await expect(replies(page)).toHaveCount(2);
    });
  });
}
