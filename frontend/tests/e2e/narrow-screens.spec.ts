import type { Page } from "@playwright/test";
import { expect, signIn, test } from "./support/fixtures";
import { personToken, RestAgent } from "./support/agents";

interface Run {
  id: number;
  conversation_id: number;
}

/** Every visible header control lies wholly inside the window. */
async function expectHeaderInside(page: Page, width: number) {
  const header = page.locator("header.app-header");
  const controls = header.locator("button:visible, h1:visible");
  const count = await controls.count();
  expect(count).toBeGreaterThan(3);
  for (let i = 0; i < count; i += 1) {
    const box = await controls.nth(i).boundingBox();
    expect(box, `header control ${i}`).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, `header control ${i} ends inside ${width}`).toBeLessThanOrEqual(width);
  }
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(scroll).toBeLessThanOrEqual(0);
}

for (const width of [360, 390]) {
  test(`at ${width} px the header keeps every control (Sign out too) with two-digit badges; an unread count is a small pill`, async ({
    page,
    stack,
    userName,
  }) => {
    const agent = RestAgent.mint(stack, userName, "helper");
    const runs: Run[] = [];
    for (let i = 0; i < 12; i += 1) runs.push(await agent.ok<Run>("POST", "/runs", { title: `Job ${i}` }));
    for (let i = 0; i < 12; i += 1) await agent.ok("POST", "/tasks", { title: `Task ${i}` });
    await agent.ok("POST", "/inbox/messages", { text: "One for you" });
    await agent.ok("POST", "/inbox/messages", { text: "And another" });

    await page.setViewportSize({ width, height: 800 });
    await signIn(page, userName);
    const runsButton = page.getByTestId("open-runs");
    await expect(runsButton).toContainText("12");
    await expect(page.getByTestId("open-tasks")).toContainText("12");
    await expectHeaderInside(page, width);

    // Sign out is reachable: the account menu holds Account and Sign out.
    await page.getByTestId("account-menu").click();
    await expect(page.getByTestId("open-account")).toBeVisible();
    const signOut = page.getByTestId("sign-out");
    await expect(signOut).toBeVisible();
    const box = await signOut.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    await page.keyboard.press("Escape");

    // The unread badge in the conversation list is a pill, not a bar across the row.
    await page.getByTestId("open-conversations").click();
    const badge = page.getByTestId("inbox-unread").first();
    await expect(badge).toHaveText("2");
    const pill = await badge.boundingBox();
    expect(pill!.width).toBeLessThan(48);
    await signOut.isVisible();
  });
}

test("a conversation's unread badge is a pill at desktop width", async ({ page, stack, userName }) => {
  // The person's own script chats twice in one conversation: two replies nobody has read.
  const script = new RestAgent(stack, userName, personToken(stack, userName));
  const first = await script.ok<{ conversation_id: number }>("POST", "/chat", { message: "add a task to buy milk" });
  await script.ok("POST", "/chat", { conversation_id: first.conversation_id, message: "add a task to buy bread" });
  await signIn(page, userName);
  await page.getByTestId("new-conversation").click();
  const item = page.locator(`[data-testid="conversation-item"][data-conversation-id="${first.conversation_id}"]`);
  const badge = item.getByTestId("conversation-unread");
  await expect(badge).toContainText("2");
  const pill = await badge.boundingBox();
  const row = await item.boundingBox();
  expect(pill!.width).toBeLessThan(48);
  expect(pill!.width).toBeLessThan(row!.width / 3);
});

test("at desktop width Sign out stays a plain header button", async ({ page, userName }) => {
  await signIn(page, userName);
  await expect(page.getByTestId("sign-out")).toBeVisible();
  await expect(page.getByTestId("account-menu")).toHaveCount(0);
  await page.getByTestId("sign-out").click();
  await expect(page.getByTestId("dev-sign-in-name")).toBeVisible();
});
