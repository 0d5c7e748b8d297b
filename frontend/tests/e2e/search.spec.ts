import type { Page } from "@playwright/test";
import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

async function newConversation(page: Page, phone: boolean) {
  if (phone) await page.getByTestId("open-conversations").click();
  await page.getByRole("button", { name: "New conversation" }).click();
}

async function conversationId(page: Page): Promise<string> {
  return (await page.getByTestId("chat-title").getAttribute("data-conversation-id")) ?? "";
}

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });
    const phone = size.name === "phone";

    test("search finds a conversation by a word of a message and opens it at that message", async ({ page, userName }) => {
      await signIn(page, userName);
      await sendMessage(page, "add a task to buy saffron");
      await expect(lastReply(page)).toContainText("saffron");
      const target = await conversationId(page);
      for (let i = 0; i < 12; i += 1) {
        await sendMessage(page, `show my pending tasks ${i}`);
        await expect(lastReply(page)).toContainText("saffron");
      }
      await newConversation(page, phone);
      await sendMessage(page, "add a task to call the plumber");
      await expect(lastReply(page)).toContainText("plumber");

      if (phone) await page.getByTestId("open-conversations").click();
      await page.getByTestId("search-input").fill("saffr");
      const hits = page.getByTestId("search-results").getByTestId("search-hit");
      // Many messages of one conversation have the word: one row for it, the word marked.
      await expect(hits).toHaveCount(1);
      const hit = hits.first();
      await expect(hit).toHaveAttribute("data-conversation-id", target);
      await expect(hit.getByTestId("search-mark").first()).toHaveText(/^saffron$/i);
      await expect(hit.getByTestId("search-mark").first()).toBeVisible();
      const messageId = (await hit.getAttribute("data-message-id")) ?? "";
      expect(messageId).not.toBe("");
      await hit.click();
      await expect(page).toHaveURL(new RegExp(`/c/${target}$`));
      const found = page.locator(`[data-testid="message"][data-message-id="${messageId}"]`);
      await expect(found).toHaveClass(/is-found/);
      await expect(found).toBeInViewport();

      // Another person's words are never found.
      if (phone) await page.getByTestId("open-conversations").click();
      await page.getByTestId("search-input").fill("zucchini");
      await expect(page.getByTestId("search-results")).toContainText("Nothing found.");
    });

    test("Ctrl+K opens the palette: a prefix and a typo find one row per conversation, arrows and Enter open, Esc closes", async ({
      page,
      userName,
    }) => {
      await signIn(page, userName);
      await sendMessage(page, "add a task to call the plumber");
      await expect(lastReply(page)).toContainText("plumber");
      await sendMessage(page, "add a task to pay the plumber");
      await expect(lastReply(page)).toContainText("plumber");
      const first = await conversationId(page);
      await newConversation(page, phone);
      await sendMessage(page, "add a task to check the plumbing");
      await expect(lastReply(page)).toContainText("plumbing");
      const second = await conversationId(page);
      await newConversation(page, phone);
      await sendMessage(page, "add a task to buy saffron");
      await expect(lastReply(page)).toContainText("saffron");

      // From anywhere: here the composer has the focus.
      await page.getByRole("textbox", { name: "Message" }).focus();
      await page.keyboard.press("Control+k");
      const palette = page.getByTestId("command-palette");
      await expect(palette).toBeVisible();
      const input = page.getByTestId("palette-input");
      await expect(input).toBeFocused();
      const box = await palette.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= size.viewport.width).toBe(true);

      await input.fill("plumb");
      const hits = palette.getByTestId("search-hit");
      await expect(hits).toHaveCount(2);
      const ids = await hits.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-conversation-id")));
      expect(new Set(ids)).toEqual(new Set([first, second]));
      for (const row of await hits.all()) {
        await expect(row.getByTestId("search-mark").first()).toHaveText(/^plumb/i);
      }
      await expect(hits.first()).toHaveAttribute("aria-selected", "true");

      // Focus stays inside while the palette is open.
      for (let i = 0; i < 4; i += 1) {
        await page.keyboard.press("Tab");
        expect(await palette.evaluate((el) => el.contains(document.activeElement))).toBe(true);
      }
      await input.focus();

      // A typo finds the word it meant, marked.
      await input.fill("plumbre");
      await expect(palette.getByTestId("search-mark").filter({ hasText: /^plumber$/i }).first()).toBeVisible();
      await expect(palette.getByTestId("search-hit")).not.toHaveCount(0);

      await input.fill("plumb");
      await expect(hits).toHaveCount(2);
      await page.keyboard.press("ArrowDown");
      await expect(hits.nth(1)).toHaveAttribute("aria-selected", "true");
      await expect(input).toHaveAttribute("aria-activedescendant", (await hits.nth(1).getAttribute("id")) ?? "");
      const chosen = (await hits.nth(1).getAttribute("data-conversation-id")) ?? "";
      await page.keyboard.press("Enter");
      await expect(palette).toBeHidden();
      await expect(page).toHaveURL(new RegExp(`/c/${chosen}$`));

      // Esc closes it, with nothing opened.
      await page.keyboard.press("Control+k");
      await expect(palette).toBeVisible();
      await page.getByTestId("palette-input").fill("saffron");
      await expect(palette.getByTestId("search-hit")).toHaveCount(1);
      await page.keyboard.press("Escape");
      await expect(palette).toBeHidden();
      await expect(page).toHaveURL(new RegExp(`/c/${chosen}$`));
    });
  });
}
