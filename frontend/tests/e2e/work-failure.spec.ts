import { expect, sendMessage } from "./support/fixtures";
import { openWorkConversation, workTest as test } from "./support/work-fixtures";

test.setTimeout(150_000);

// The fake Anthropic API answers a session opened with this prompt with an API error
// (support/fake_anthropic_server.py), apart from the script work.spec.ts follows.
const FAIL_PROMPT = "Fail this prompt";

test("Work mode: a failed prompt shows its error once, at desktop and phone width, and the prompt's end as a plain line", async ({
  page,
  userName,
}) => {
  await openWorkConversation(page, userName);
  await sendMessage(page, FAIL_PROMPT);

  const list = page.getByTestId("message-list");
  await expect(list.getByTestId("work-error").first()).toContainText("the model is unhappy", { timeout: 60_000 });
  // The turn's end (Stop gone) comes after everything the prompt stores is on screen.
  await expect(page.getByTestId("stop-button")).toHaveCount(0, { timeout: 30_000 });
  await expect(list.getByTestId("work-error")).toHaveCount(1);
  await expect(list.getByText(/the model is unhappy/)).toHaveCount(1);
  await expect(page.getByTestId("chat-error")).toHaveCount(0);
  // The prompt's end is a plain line, not the error again.
  await expect(list.getByTestId("work-result")).toContainText("Failed after");

  // A reload and phone width show the same: one error.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(list.getByTestId("work-result")).toContainText("Failed after");
  await expect(list.getByTestId("work-error")).toHaveCount(1);
  await expect(list.getByTestId("work-error")).toBeInViewport();
  await expect(list.getByText(/the model is unhappy/)).toHaveCount(1);
});
