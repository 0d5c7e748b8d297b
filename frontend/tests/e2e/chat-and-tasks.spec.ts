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
