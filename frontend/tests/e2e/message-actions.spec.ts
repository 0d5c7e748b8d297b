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
      // One way to try again, in place: Retry, not Regenerate beside it.
      await expect(failed.getByTestId("chat-retry")).toHaveCount(1);
      await expect(failed.getByTestId("regenerate")).toHaveCount(0);
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

    test("copy a message; edit one and regenerate a reply in place, switch versions, reload and go on from the shown one", async ({ page, userName }) => {
      await signIn(page, userName);
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
      await sendMessage(page, "first question");
      await expect(lastReply(page)).toContainText("You said: first question");
      await sendMessage(page, "second question");
      await expect(lastReply(page)).toContainText("You said: second question");
      const conversation = (await page.getByTestId("chat-title").getAttribute("data-conversation-id")) ?? "";
      await expect(page.getByTestId("branch-switcher")).toHaveCount(0);

      // Copy: the exact stored text, from a reply and from the person's own message.
      await lastReply(page).getByTestId("copy-message").click();
      await expect(lastReply(page).getByTestId("copy-message")).toHaveText("Copied");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("You said: second question");
      // Which model answered.
      await expect(lastReply(page).getByTestId("message-model")).toHaveText("fake-model");

      // Edit the second question: a new version in this conversation, answered there.
      await mine(page).nth(1).getByTestId("edit-message").click();
      await page.getByTestId("edit-input").fill("second question, edited");
      await page.getByTestId("edit-send").click();
      await expect(lastReply(page)).toContainText("You said: second question, edited");
      await expect(page.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", conversation);
      await expect(page).toHaveURL(new RegExp(`/c/${conversation}$`));
      await expect(mine(page).getByTestId("message-text")).toHaveText(["first question", "second question, edited"]);
      await expect(replies(page)).toHaveCount(2);
      const edited = mine(page).nth(1);
      await expect(edited.getByTestId("branch-position")).toHaveText("2 / 2");
      await expect(page.getByTestId("fork-note")).toHaveCount(0);

      // Back to version 1: the old question and its old reply.
      await edited.getByTestId("branch-prev").click();
      await expect(mine(page).getByTestId("message-text")).toHaveText(["first question", "second question"]);
      await expect(lastReply(page)).toContainText("You said: second question");
      await expect(lastReply(page)).not.toContainText("edited");
      await expect(mine(page).nth(1).getByTestId("branch-position")).toHaveText("1 / 2");

      // A reload (the server keeps the choice) shows the same version.
      await page.reload();
      await expect(mine(page).getByTestId("message-text")).toHaveText(["first question", "second question"]);
      await expect(mine(page).nth(1).getByTestId("branch-position")).toHaveText("1 / 2");

      // The next message continues the shown branch.
      await sendMessage(page, "third question");
      await expect(lastReply(page)).toContainText("You said: third question");
      await expect(mine(page).getByTestId("message-text")).toHaveText(["first question", "second question", "third question"]);

      // Regenerate the last reply: a second reply to the same question, in place.
      await lastReply(page).getByTestId("regenerate").click();
      await expect(lastReply(page).getByTestId("branch-position")).toHaveText("2 / 2");
      await expect(lastReply(page)).toContainText("You said: third question");
      await expect(replies(page)).toHaveCount(3);
      await lastReply(page).getByTestId("branch-prev").click();
      await expect(lastReply(page).getByTestId("branch-position")).toHaveText("1 / 2");

      // Switch the edit back on: its branch, as it was left.
      await mine(page).nth(1).getByTestId("branch-next").click();
      await expect(mine(page).getByTestId("message-text")).toHaveText(["first question", "second question, edited"]);
      await expect(lastReply(page)).toContainText("You said: second question, edited");

      // One conversation: nothing was copied.
      if (size.name === "desktop") {
        const items = page.getByRole("region", { name: "Conversations" }).getByTestId("conversation-item");
        await expect(items).toHaveCount(1);
        await expect(items.first()).not.toContainText("(edited)");
      }
    });
  });
}
