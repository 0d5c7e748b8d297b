import { expect, sendMessage } from "./support/fixtures";
import { openWorkConversation, workTest as test } from "./support/work-fixtures";

test.setTimeout(150_000);

test("in the tab whose prompt is still streaming, 'yes' answers Claude Code's permission question at once, not queued", async ({
  page,
  userName,
}) => {
  await openWorkConversation(page, userName);
  // A script of its own (fake_anthropic_server.py): the shared one is work.spec.ts's.
  await sendMessage(page, "Write the note while I watch");
  const permission = page.getByTestId("permission-question").last();
  await expect(permission).toHaveAttribute("data-open", "true", { timeout: 60_000 });
  // This tab's turn is still running: the composer shows Stop, so text would normally queue.
  await expect(page.getByTestId("stop-button")).toBeVisible();

  await page.getByTestId("message-input").fill("yes");
  await page.getByTestId("message-input").press("Enter");
  // Answered now (the session runs the command), never "Queued: sends when the current reply finishes".
  await expect(permission).toHaveAttribute("data-open", "false");
  await expect(page.getByTestId("queued-message")).toHaveCount(0);
  await expect(page.getByTestId("message-input")).toHaveValue("");
  await expect(page.getByTestId("work-tool-result").first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("message-list").getByText("The note says parley-e2e. All done.")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("work-status")).toHaveAttribute("data-status", "idle", { timeout: 15_000 });
  await expect(page.getByTestId("queued-message")).toHaveCount(0);
});
