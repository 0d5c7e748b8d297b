import { expect, expectNoSeriousA11yViolations, screenshot, sendMessage } from "./support/fixtures";
import { openWorkConversation, workTest as test } from "./support/work-fixtures";

test.setTimeout(150_000);

// The fake Anthropic API answers a session opened with this prompt with a Write of greeting.txt
// (support/fake_anthropic_server.py), apart from the script work.spec.ts follows.
const WRITE_PROMPT = "Write the greeting file";

test("Work mode: a Write's permission card shows the file and its new content before it is allowed, at desktop and phone width", async ({
  page,
  userName,
}) => {
  await openWorkConversation(page, userName);
  await sendMessage(page, WRITE_PROMPT);

  const permission = page.getByTestId("permission-question").last();
  await expect(permission).toHaveAttribute("data-open", "true", { timeout: 60_000 });
  // Nothing is written yet: the card shows what would be, as added lines under the file name.
  await expect(page.getByTestId("work-tool-result")).toHaveCount(0);
  const diff = permission.getByTestId("tool-diff");
  await expect(diff).toHaveAttribute("data-kind", "write");
  await expect(diff.getByTestId("tool-diff-file")).toHaveText(/greeting\.txt$/);
  await expect(diff.getByTestId("diff-line")).toHaveText(["+added: Hello from Parley", "+added: Second line of the greeting"]);
  await expect(diff).toBeInViewport();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "work-write-diff-desktop");

  // Phone width: the same diff, readable inside the screen, with the choices to make.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(diff.getByTestId("tool-diff-file")).toBeInViewport();
  await expect(diff.getByTestId("diff-line").first()).toBeInViewport();
  const box = await diff.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
  await expect(permission.getByTestId("permission-allow")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "work-write-diff-phone");

  // Allowed: the file is written and the card keeps the answer.
  await permission.getByTestId("permission-allow").click();
  await expect(permission).toHaveAttribute("data-open", "false");
  await expect(page.getByTestId("message-list").getByText("The greeting is written.")).toBeVisible({ timeout: 30_000 });
  const result = page.getByTestId("work-tool-result").first();
  await expect(result).not.toHaveClass(/failed/);
});
