import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";

test("switch, rename and delete conversations", async ({ page, userName }) => {
  await signIn(page, userName);
  const list = page.getByRole("region", { name: "Conversations" });
  const items = list.getByTestId("conversation-item");

  await sendMessage(page, "add a task to buy milk");
  await expect(lastReply(page)).toContainText("buy milk");
  const firstId = await page.getByTestId("chat-title").getAttribute("data-conversation-id");

  await page.getByRole("button", { name: "New conversation" }).click();
  await expect(page.getByTestId("message")).toHaveCount(0);
  await sendMessage(page, "list my tasks");
  await expect(lastReply(page)).toContainText("buy milk");
  const secondId = await page.getByTestId("chat-title").getAttribute("data-conversation-id");
  expect(secondId).not.toBe(firstId);

  // Newest first.
  await expect(items).toHaveCount(2);
  await expect(items.nth(0)).toHaveAttribute("data-conversation-id", secondId ?? "");
  await expect(items.nth(1)).toHaveAttribute("data-conversation-id", firstId ?? "");

  // Switch back to the first one.
  await items.nth(1).getByTestId("conversation-open").click();
  await expect(page.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", firstId ?? "");
  await expect(page.getByTestId("message").first()).toHaveText(/add a task to buy milk/);
  await expect(items.nth(1).getByTestId("conversation-open")).toHaveAttribute("aria-current", "true");

  // Rename it.
  const first = list.locator(`[data-conversation-id="${firstId}"]`);
  await first.getByTestId("conversation-menu").click();
  await page.getByRole("menuitem", { name: "Rename" }).click();
  await list.getByLabel("Conversation title").fill("Groceries");
  await list.getByLabel("Conversation title").press("Enter");
  await expect(first.getByTestId("conversation-open")).toContainText("Groceries");
  await expect(page.getByTestId("chat-title")).toHaveText("Groceries");
  await page.reload();
  await expect(page.getByTestId("chat-title")).toHaveText("Groceries");

  // Delete the open one: the chat falls back to a new conversation.
  const groceries = list.locator(`[data-conversation-id="${firstId}"]`);
  await expect(groceries.getByTestId("conversation-menu")).toHaveAccessibleName("Actions for Groceries");
  await groceries.getByTestId("conversation-menu").click();
  await page.getByRole("menuitem", { name: "Delete" }).click();
  await list.getByTestId("conversation-delete-confirm").click();
  await expect(items).toHaveCount(1);
  await expect(page.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", "");
  await expect(page.getByTestId("empty-chat")).toBeVisible();

  // The other one is still there and opens.
  await items.first().getByTestId("conversation-open").click();
  await expect(page.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", secondId ?? "");
  await expect(lastReply(page)).toContainText("buy milk");
});

test("a stored conversation id that no longer exists falls back to a new conversation", async ({ page, userName }) => {
  await signIn(page, userName);
  await page.evaluate((user) => localStorage.setItem(`parley.conversation.${user}`, "987654321"), userName);
  await page.reload();
  await expect(page.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", "");
  await expect(page.getByTestId("empty-chat")).toBeVisible();
  await expect(page.getByTestId("chat-error")).toHaveCount(0);
  await sendMessage(page, "add a task to buy eggs");
  await expect(lastReply(page)).toContainText("buy eggs");
});

test("a work conversation can be started from the Chat/Work choice", async ({ page, userName }) => {
  await signIn(page, userName);
  const list = page.getByRole("region", { name: "Conversations" });
  await list.getByLabel("Type of the next conversation").selectOption("work");
  await page.getByRole("button", { name: "New conversation" }).click();
  await expect(list.getByTestId("conversation-item")).toHaveCount(1);
  await expect(list.getByTestId("conversation-item").first()).toContainText(/work/i);
  await expect(page.getByTestId("chat-title")).not.toHaveAttribute("data-conversation-id", "");
});
