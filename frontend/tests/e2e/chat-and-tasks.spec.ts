import { expect, lastReply, screenshot, sendMessage, signIn, test } from "./support/fixtures";

test("add a task by chat: streamed reply, readable tool call, task in the panel", async ({ page, userName }) => {
  await signIn(page, userName);
  const streamed = page.waitForResponse(
    (response) => response.url().endsWith(`/api/${userName}/chat`) && response.request().method() === "POST",
  );
  await sendMessage(page, "add a task to buy milk");
  const response = await streamed;
  expect(response.headers()["content-type"]).toContain("text/event-stream");

  await expect(lastReply(page)).toContainText("buy milk");
  const toolCall = lastReply(page).getByTestId("tool-call");
  await expect(toolCall.getByTestId("tool-call-summary")).toHaveText("Added task 'buy milk'");
  await toolCall.locator("summary").click();
  await expect(toolCall.getByTestId("tool-call-parameters")).toContainText('"title": "buy milk"');
  await expect(toolCall.getByTestId("tool-call-result")).toBeVisible();

  const tasks = page.getByRole("region", { name: "Tasks" });
  await expect(tasks.getByRole("checkbox", { name: /buy milk/ })).not.toBeChecked();
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("");
  await screenshot(page, "desktop-chat");
});

test("complete a task in the panel and the assistant agrees; the assistant's changes reach the panel", async ({ page, userName }) => {
  await signIn(page, userName);
  const tasks = page.getByRole("region", { name: "Tasks" });

  await sendMessage(page, "add a task to buy milk");
  const milk = tasks.getByRole("checkbox", { name: /buy milk/ });
  await expect(milk).toBeVisible();
  await milk.check();
  await expect(tasks.getByTestId("completed-task-list").getByText("buy milk")).toBeVisible();

  await sendMessage(page, "list my tasks");
  await expect(lastReply(page)).toContainText(/buy milk \(done\)/);

  // The assistant's own changes show up in the panel without a reload.
  await sendMessage(page, "add a task to call bob");
  const bob = tasks.getByTestId("task-item").filter({ hasText: "call bob" });
  await expect(bob).toBeVisible();
  const bobId = await bob.getAttribute("data-task-id");
  await sendMessage(page, `rename task ${bobId} to call mom`);
  await expect(tasks.getByTestId("task-item").filter({ hasText: "call mom" })).toBeVisible();
  await expect(lastReply(page).getByTestId("tool-call-summary")).toHaveText(`Renamed task ${bobId} to 'call mom'`);
  await sendMessage(page, `mark task ${bobId} as done`);
  await expect(tasks.getByRole("checkbox", { name: /call mom/ })).toBeChecked();
  await expect(lastReply(page).getByTestId("tool-call-summary")).toHaveText(`Completed task ${bobId} 'call mom'`);
  await sendMessage(page, `delete task ${bobId}`);
  await expect(tasks.getByText("call mom")).toHaveCount(0);
  await expect(lastReply(page).getByTestId("tool-call-summary")).toHaveText(`Deleted task ${bobId} 'call mom'`);

  // A failed tool call reads as a failure.
  await sendMessage(page, "mark task 999999 as done");
  await expect(lastReply(page).getByTestId("tool-call-summary")).toHaveText(/^Couldn't complete task 999999: .*not found/i);
  await expect(lastReply(page).getByTestId("tool-call")).toHaveClass(/failed/);
});

test("add, edit and delete tasks directly in the panel", async ({ page, userName }) => {
  await signIn(page, userName);
  const tasks = page.getByRole("region", { name: "Tasks" });

  await tasks.getByLabel("New task").fill("water the plants");
  await tasks.getByLabel("New task").press("Enter");
  const item = tasks.getByTestId("task-item").filter({ hasText: "water the plants" });
  await expect(item).toBeVisible();

  await item.getByTestId("task-menu").click();
  await page.getByRole("menuitem", { name: "Edit" }).click();
  await tasks.getByLabel("Task title").fill("water the garden");
  await tasks.getByLabel("Task description").fill("the roses first");
  await tasks.getByLabel("Task title").press("Enter");
  const edited = tasks.getByTestId("task-item").filter({ hasText: "water the garden" });
  await expect(edited.getByTestId("task-description")).toHaveText("the roses first");
  await page.reload();
  await expect(tasks.getByTestId("task-item").filter({ hasText: "water the garden" }).getByTestId("task-description")).toHaveText(
    "the roses first",
  );

  await sendMessage(page, "list my tasks");
  await expect(lastReply(page)).toContainText("water the garden");

  // Delete, undo, delete for good.
  const garden = tasks.getByTestId("task-item").filter({ hasText: "water the garden" });
  await garden.getByTestId("task-menu").click();
  await page.getByRole("menuitem", { name: "Delete" }).click();
  await expect(tasks.getByTestId("tasks-empty")).toBeVisible();
  await tasks.getByRole("button", { name: "Undo" }).click();
  await expect(garden).toBeVisible();
  await page.waitForTimeout(5_500);
  await page.reload();
  await expect(tasks.getByTestId("task-item").filter({ hasText: "water the garden" })).toBeVisible();
  await tasks.getByTestId("task-item").filter({ hasText: "water the garden" }).getByTestId("task-menu").click();
  await page.getByRole("menuitem", { name: "Delete" }).click();
  await expect(tasks.getByTestId("tasks-empty")).toBeVisible();
  await expect(tasks.getByTestId("task-undo")).toHaveCount(0, { timeout: 8_000 });
  await page.reload();
  await expect(tasks.getByTestId("tasks-empty")).toBeVisible();
});

test("reload resumes the same conversation", async ({ page, userName }) => {
  await signIn(page, userName);
  await sendMessage(page, "add a task to buy milk");
  await expect(lastReply(page)).toContainText("buy milk");
  const title = page.getByTestId("chat-title");
  const id = await title.getAttribute("data-conversation-id");
  expect(id).toMatch(/^\d+$/);

  await page.reload();
  await expect(page.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", id ?? "");
  await expect(page.getByTestId("message").first()).toHaveText(/add a task to buy milk/);
  await expect(lastReply(page)).toContainText("buy milk");
  const stored = await page.evaluate((user) => localStorage.getItem(`parley.conversation.${user}`), userName);
  expect(stored).toBe(id);
});

test("Enter sends, Shift+Enter adds a line", async ({ page, userName }) => {
  await signIn(page, userName);
  const box = page.getByRole("textbox", { name: "Message" });
  await box.click();
  await page.keyboard.type("first line");
  await page.keyboard.press("Shift+Enter");
  await page.keyboard.type("second line");
  await expect(box).toHaveValue("first line\nsecond line");
  await expect(page.getByTestId("message")).toHaveCount(0);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("message").first()).toHaveText(/first line\s+second line/);
  await expect(box).toHaveValue("");
  await expect(lastReply(page)).toBeVisible();
});

test("API errors show with Retry, 409 is handled gently, and the input is kept", async ({ page, userName }) => {
  await signIn(page, userName);
  let answer: { status: number; code: string; message: string } | null = {
    status: 409,
    code: "turn_in_progress",
    message: "A turn is already in progress",
  };
  await page.route(`**/api/${userName}/chat`, async (route) => {
    if (!answer) return route.fallback();
    const { status, code, message } = answer;
    await route.fulfill({ status, contentType: "application/json", body: JSON.stringify({ error: { code, message } }) });
  });

  await sendMessage(page, "add a task to buy bread");
  const notice = page.getByTestId("chat-error");
  await expect(notice).toHaveAttribute("data-kind", "busy");
  await expect(notice).toContainText("still answering");
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("add a task to buy bread");

  answer = { status: 502, code: "model_error", message: "upstream said: secret stack trace" };
  await notice.getByRole("button", { name: "Retry" }).click();
  await expect(notice).toHaveAttribute("data-kind", "error");
  await expect(notice).toContainText("The assistant couldn't answer this time");
  await expect(page.getByText("secret stack trace")).toHaveCount(0);
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("add a task to buy bread");

  answer = null;
  await notice.getByRole("button", { name: "Retry" }).click();
  await expect(notice).toHaveCount(0);
  await expect(lastReply(page)).toContainText("buy bread");
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("");
  await expect(page.getByRole("region", { name: "Tasks" }).getByText("buy bread")).toBeVisible();
});
