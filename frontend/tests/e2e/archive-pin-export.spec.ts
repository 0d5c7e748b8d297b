import { readFile } from "node:fs/promises";
import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";
import { personToken, RestAgent } from "./support/agents";

async function startChat(page: import("@playwright/test").Page, text: string): Promise<number> {
  const drawer = page.getByTestId("open-conversations");
  if (await drawer.isVisible()) await drawer.click();
  await page.getByTestId("new-conversation").click();
  await sendMessage(page, text);
  await expect(lastReply(page)).toContainText(text.replace("add a task to ", ""));
  return Number(await page.getByTestId("chat-title").getAttribute("data-conversation-id"));
}

for (const size of [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
]) {
  test(`pin puts a conversation on top, archive moves it to the Archived view and back (${size.name})`, async ({ page, userName }) => {
    await page.setViewportSize(size.viewport);
    await signIn(page, userName);
    const first = await startChat(page, "add a task to buy milk");
    const second = await startChat(page, "add a task to buy bread");
    const third = await startChat(page, "add a task to buy eggs");
    if (size.name === "phone") await page.getByTestId("open-conversations").click();
    const list = page.getByTestId("conversation-list");
    const row = (id: number) => list.locator(`[data-testid="conversation-item"][data-conversation-id="${id}"]`);
    await expect(list.getByTestId("conversation-item").first()).toHaveAttribute("data-conversation-id", String(third));

    // Pin the oldest: it heads the list, marked.
    await row(first).getByTestId("conversation-menu").click();
    await page.getByTestId("conversation-pin").click();
    await expect(list.getByTestId("pinned-conversations").getByTestId("conversation-item")).toHaveCount(1);
    await expect(list.getByTestId("conversation-item").first()).toHaveAttribute("data-conversation-id", String(first));
    await expect(row(first).getByTestId("conversation-pinned")).toBeVisible();

    // Archive the middle one: gone from the list, in Archived, restorable.
    await row(second).getByTestId("conversation-menu").click();
    await page.getByTestId("conversation-archive").click();
    await expect(row(second)).toHaveCount(0);
    const toggle = page.getByTestId("show-archived");
    await expect(toggle).toHaveText("Archived (1)");
    await toggle.click();
    await expect(list.getByTestId("conversation-item")).toHaveCount(1);
    await expect(row(second)).toBeVisible();
    // Still whole: it opens with its messages.
    await row(second).getByTestId("conversation-open").click();
    if (size.name === "phone") {
      // The drawer opens on the main list again; Archived is one tap away.
      await page.getByTestId("open-conversations").click();
      await toggle.click();
    }
    await row(second).getByTestId("conversation-menu").click();
    await page.getByTestId("conversation-archive").click(); // "Restore"
    await expect(toggle).toHaveCount(0);
    await expect(list.getByTestId("conversation-item")).toHaveCount(3);
    await page.reload();
    if (size.name === "phone") await page.getByTestId("open-conversations").click();
    await expect(list.getByTestId("conversation-item").first()).toHaveAttribute("data-conversation-id", String(first));
  });
}

test("export downloads the conversation as Markdown and as JSON; another person's is a 404", async ({ page, userName, stack }) => {
  await signIn(page, userName);
  const id = await startChat(page, "add a task to buy milk");
  const row = page.locator(`[data-testid="conversation-item"][data-conversation-id="${id}"]`);

  await row.getByTestId("conversation-menu").click();
  const [markdown] = await Promise.all([page.waitForEvent("download"), page.getByTestId("conversation-export-markdown").click()]);
  expect(markdown.suggestedFilename()).toMatch(new RegExp(`^parley-${id}-.*\\.md$`));
  const text = await readFile((await markdown.path())!, "utf8");
  expect(text).toContain("## You");
  expect(text).toContain("add a task to buy milk");
  expect(text).toContain("Added task");

  await row.getByTestId("conversation-menu").click();
  const [json] = await Promise.all([page.waitForEvent("download"), page.getByTestId("conversation-export-json").click()]);
  expect(json.suggestedFilename()).toMatch(/\.json$/);
  const data = JSON.parse(await readFile((await json.path())!, "utf8")) as { conversation: { id: number }; messages: { role: string }[] };
  expect(data.conversation.id).toBe(id);
  expect(data.messages.map((m) => m.role)).toEqual(["user", "assistant"]);

  // Someone else, with this conversation's id: nothing.
  const other = `${userName}-other`.slice(0, 60);
  const stranger = new RestAgent(stack, other, personToken(stack, other));
  const refused = await stranger.call("GET", `/conversations/${id}/export?format=json`);
  expect(refused.status).toBe(404);
  expect(JSON.stringify(refused.json)).not.toContain("buy milk");
});
