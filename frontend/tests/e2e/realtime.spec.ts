import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";

test("a second tab on the same conversation follows it live (messages and tasks)", async ({ page, userName }) => {
  await signIn(page, userName);
  await sendMessage(page, "add a task to buy milk");
  await expect(lastReply(page)).toContainText("buy milk");

  // Same browser profile: the second tab shares the sign-in and the open conversation.
  const other = await page.context().newPage();
  await other.goto("/");
  await expect(lastReply(other)).toContainText("buy milk");
  const messagesBefore = await other.getByTestId("message").count();

  await sendMessage(page, "add a task to buy bread");
  await expect(lastReply(page)).toContainText("buy bread");

  // No reload in the second tab: the event stream brings the turn and the task panel follows.
  await expect(other.getByTestId("message")).toHaveCount(messagesBefore + 2);
  await expect(lastReply(other)).toContainText("buy bread");
  await expect(other.getByRole("region", { name: "Tasks" }).getByText("buy bread")).toBeVisible();
  // The sending tab shows each message once, even though it also follows the event stream.
  await expect(page.getByTestId("message")).toHaveCount(messagesBefore + 2);
  await other.close();
});
