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

test("tasks changed elsewhere (an agent over the API) show up without a reload", async ({ page, userName, stack }) => {
  await signIn(page, userName);
  const token = await page.evaluate(() => JSON.parse(localStorage.getItem("parley.auth") ?? "{}").token as string);
  const created = await page.request.post(`${stack.apiUrl}/api/${userName}/tasks`, {
    headers: { authorization: `Bearer ${token}` },
    data: { title: "review the agent's pull request" },
  });
  expect(created.status()).toBe(201);
  // Coming back to the window refreshes at once (a timer does it too, every 20 s).
  await page.evaluate(() => window.dispatchEvent(new Event("focus")));
  await expect(page.getByRole("region", { name: "Tasks" }).getByText("review the agent's pull request")).toBeVisible();
});
