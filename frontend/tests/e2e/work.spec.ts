import { expect, expectNoSeriousA11yViolations, screenshot, sendMessage, signIn, test as plainTest } from "./support/fixtures";
import { openWorkConversation, workTest as test } from "./support/work-fixtures";

test.setTimeout(150_000);

test("Work mode: a real Claude Code session streams output, asks permission, runs the command, and ends", async ({
  page,
  userName,
}) => {
  await openWorkConversation(page, userName);
  await expect(page.getByTestId("empty-chat")).toContainText("Claude Code");

  await sendMessage(page, "Write a note and read it back");
  // Streamed text, then the tool call it wants to make (the command readable at a glance).
  await expect(page.getByTestId("message-list").getByText("I'll write the note and read it back.")).toBeVisible({ timeout: 60_000 });
  const toolUse = page.getByTestId("work-tool-use");
  await expect(toolUse.getByTestId("work-tool-summary")).toContainText("echo parley-e2e > note.txt", { timeout: 30_000 });

  // Claude Code asks before running a command: nothing runs until the person allows it.
  const permission = page.getByTestId("permission-question").last();
  await expect(permission).toHaveAttribute("data-open", "true", { timeout: 30_000 });
  await expect(permission).toContainText("echo parley-e2e");
  await expect(page.getByTestId("work-status")).toHaveAttribute("data-status", "waiting_permission");
  await expect(page.getByTestId("work-tool-result")).toHaveCount(0);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "work-permission-desktop");
  await permission.getByTestId("permission-allow").click();
  await expect(permission).toHaveAttribute("data-open", "false");

  // The command ran: its output is there, collapsed, and readable when opened.
  const result = page.getByTestId("work-tool-result").first();
  await expect(result).toBeVisible({ timeout: 30_000 });
  await result.locator("summary").click();
  await expect(result.getByTestId("work-tool-output")).toContainText("parley-e2e");
  await expect(page.getByTestId("message-list").getByText("The note says parley-e2e. All done.")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("work-result").last()).toContainText("$", { timeout: 30_000 });
  await expect(page.getByTestId("work-status")).toHaveAttribute("data-status", "idle", { timeout: 15_000 });
  await expect(page.getByTestId("work-cost")).toHaveText(/Cost \$\d+\.\d{2,4}/);

  // A reload shows everything that happened.
  await page.reload();
  await expect(page.getByTestId("work-tool-use")).toHaveCount(1);
  await expect(page.getByTestId("permission-question")).toHaveAttribute("data-open", "false");

  // Phone width: the work bar and the pinned composer both fit.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId("work-bar")).toBeInViewport();
  await expect(page.getByTestId("message-input")).toBeInViewport();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "work-phone");

  // Stop ends the prompt being answered, not the session.
  await sendMessage(page, "Now count slowly");
  const live = page.getByTestId("streaming-message");
  await expect(live).toContainText("step3", { timeout: 30_000 });
  await page.getByTestId("stop-button").click();
  await expect(page.getByTestId("stop-button")).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId("work-status")).toHaveAttribute("data-status", "idle", { timeout: 15_000 });
  await expect(page.getByTestId("message-list")).not.toContainText("step59");

  // Dark mode reads as well.
  await page.emulateMedia({ colorScheme: "dark" });
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "work-phone-dark");

  // End shows at once, before the server has answered: the request is held until the bar
  // says "Ending…", and nothing else can be pressed meanwhile.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/work/end", async (route) => {
    await held;
    await route.continue();
  });
  await page.getByTestId("work-end").click();
  await page.getByTestId("work-end-confirm").click();
  await expect(page.getByTestId("work-status")).toHaveAttribute("data-status", "ending");
  await expect(page.getByTestId("work-status")).toHaveText(/Ending…/);
  await expect(page.getByTestId("work-end")).toHaveCount(0);
  await expect(page.getByTestId("work-stop")).toHaveCount(0);
  release();
  await expect(page.getByTestId("work-status")).toHaveAttribute("data-status", "ended");
  await expect(page.getByTestId("work-ended-note")).toBeVisible();
  await page.unroute("**/work/end");

  // A message after End starts the next session: answered, and the session live again.
  await sendMessage(page, "Are you still there?");
  await expect(page.getByTestId("message-list").getByText("Nothing more is scripted.")).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("work-status")).toHaveAttribute("data-status", "idle", { timeout: 15_000 });
  await expect(page.getByTestId("work-end")).toBeVisible();
});

plainTest("on a server with work mode off, a work conversation says why, and a prompt is refused", async ({ page, userName }) => {
  await signIn(page, userName);
  await page.getByTestId("new-conversation-mode").selectOption("work");
  await page.getByTestId("new-conversation").click();
  await expect(page.getByTestId("work-unavailable")).toContainText("can't run on this server");
  await sendMessage(page, "list the files");
  await expect(page.getByTestId("chat-error")).toBeVisible();
  // Nothing was stored: the text is back in the box.
  await expect(page.getByTestId("message-input")).toHaveValue("list the files");
});
