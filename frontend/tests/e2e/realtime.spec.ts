import { expect, lastReply, sendMessage, signIn, test } from "./support/fixtures";
import { personToken } from "./support/agents";

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
  await expect(page.getByTestId("tasks-empty")).toBeVisible();
  const token = personToken(stack, userName);
  const created = await page.request.post(`${stack.apiUrl}/api/${userName}/tasks`, {
    headers: { authorization: `Bearer ${token}` },
    data: { title: "review the agent's pull request" },
  });
  expect(created.status()).toBe(201);
  // Coming back to the window refreshes at once (a timer does it too, every 20 s).
  await page.evaluate(() => window.dispatchEvent(new Event("focus")));
  await expect(page.getByRole("region", { name: "Tasks" }).getByText("review the agent's pull request")).toBeVisible();
});

test("tasks and conversations changed elsewhere arrive live from the person's event stream", async ({ page, userName, stack }) => {
  const schema = await (await page.request.get(`${stack.apiUrl}/openapi.json`)).text();
  expect(schema, "GET /api/{user_id}/events exists").toContain(`"/api/{user_id}/events"`);
  await signIn(page, userName);
  const token = personToken(stack, userName);
  const headers = { authorization: `Bearer ${token}` };
  await expect(page.getByTestId("conversation-draft")).toBeVisible();
  await page.waitForTimeout(500);

  // No focus, no reload: only the stream can bring these within the timeout (the timer is 20 s+).
  const task = await page.request.post(`${stack.apiUrl}/api/${userName}/tasks`, { headers, data: { title: "from an agent" } });
  expect(task.status()).toBe(201);
  const tasks = page.getByRole("region", { name: "Tasks" });
  await expect(tasks.getByText("from an agent")).toBeVisible({ timeout: 5_000 });
  const body = (await task.json()) as { number?: number; id?: number };
  const taskUrl = `${stack.apiUrl}/api/${userName}/tasks/${body.number ?? body.id}`;
  expect((await page.request.patch(taskUrl, { headers, data: { completed: true } })).status()).toBe(200);
  await expect(tasks.getByRole("checkbox", { name: /from an agent/ })).toBeChecked({ timeout: 5_000 });
  expect((await page.request.delete(taskUrl, { headers })).status()).toBe(204);
  await expect(tasks.getByText("from an agent")).toHaveCount(0, { timeout: 5_000 });

  const created = await page.request.post(`${stack.apiUrl}/api/${userName}/conversations`, { headers, data: { title: "Agent notes" } });
  expect(created.status()).toBe(201);
  await expect(page.getByRole("region", { name: "Conversations" }).getByText("Agent notes")).toBeVisible({ timeout: 5_000 });
});
