import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test("an address naming no conversation says so instead of silently opening a new chat", async ({ page, userName }) => {
      await signIn(page, userName);
      await page.goto("/c/9999");
      await expect(page.getByTestId("chat-error")).toContainText("Conversation 9999 was not found");
      await expect(page.getByTestId("chat-error").getByTestId("chat-retry")).toHaveCount(0);
      await page.goto("/c/abc");
      await expect(page.getByTestId("chat-error")).toContainText('"abc" is not a conversation address');
      // The box still works: a message starts a new chat.
      await sendMessage(page, "add a task to buy eggs");
      await expect(lastReply(page)).toContainText("buy eggs");
      await expect(page.getByTestId("chat-error")).toHaveCount(0);
    });

    test("renaming a conversation with Enter keeps the focus on it", async ({ page, userName }) => {
      await signIn(page, userName);
      await sendMessage(page, "add a task to buy milk");
      await expect(lastReply(page)).toContainText("buy milk");
      if (size.name === "phone") await page.getByTestId("open-conversations").click();
      const item = page.getByRole("region", { name: "Conversations" }).getByTestId("conversation-item").first();
      await item.getByTestId("conversation-menu").click();
      await page.getByTestId("conversation-rename").click();
      await page.getByTestId("rename-input").fill("Groceries");
      await page.getByTestId("rename-input").press("Enter");
      await expect(item.getByTestId("conversation-open")).toContainText("Groceries");
      await expect(item.getByTestId("conversation-open")).toBeFocused();
    });

    test("the phone's placeholder leaves out the keyboard keys; the desktop's names them", async ({ page, userName }) => {
      await signIn(page, userName);
      const box = page.getByRole("textbox", { name: "Message" });
      if (size.name === "phone") await expect(box).toHaveAttribute("placeholder", "Message the assistant");
      else await expect(box).toHaveAttribute("placeholder", /Enter to send/);
    });

    test("a work conversation shows neither the Tasks panel nor the offline-model notice", async ({ page, userName }) => {
      await signIn(page, userName);
      if (size.name === "desktop") await expect(page.getByTestId("tasks-panel")).toBeVisible();
      await expect(page.getByTestId("offline-banner")).toBeVisible();
      if (size.name === "phone") await page.getByTestId("open-conversations").click();
      const list = page.getByRole("region", { name: "Conversations" });
      await list.getByLabel("Type of the next conversation").selectOption("work");
      await page.getByRole("button", { name: "New conversation" }).click();
      await expect(page.getByTestId("work-bar")).toBeVisible();
      await expect(page.getByTestId("tasks-panel")).toHaveCount(0);
      await expect(page.getByTestId("offline-banner")).toHaveCount(0);
    });
  });
}

test("narrowing the window to phone width keeps the newest message in view", async ({ page, userName }) => {
  await signIn(page, userName);
  for (let i = 1; i <= 6; i += 1) {
    await sendMessage(page, `add a task to buy item number ${i} for the long list`);
    await expect(lastReply(page)).toContainText(`item number ${i}`);
  }
  await expect(lastReply(page)).toBeInViewport();
  await page.setViewportSize({ width: 390, height: 700 });
  await expect(lastReply(page)).toBeInViewport({ ratio: 0.5 });
  await page.setViewportSize({ width: 320, height: 560 });
  await expect(lastReply(page)).toBeInViewport({ ratio: 0.5 });
});
