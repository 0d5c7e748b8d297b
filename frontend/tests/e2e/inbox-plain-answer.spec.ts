import { expect, signIn, test } from "./support/fixtures";
import { RestAgent } from "./support/agents";

interface Msg {
  id: number;
  content: string;
  kind: string;
}

test("typed into the inbox's box, a plain message answers the oldest question waiting on the person, even one asked in a run", async ({
  page,
  userName,
  stack,
}) => {
  const coder = RestAgent.mint(stack, userName, "coder");
  const run = await coder.ok<{ id: number; conversation_id: number }>("POST", "/runs", { title: "Deploy" });
  const asked = await coder.ok<Msg>("POST", `/conversations/${run.conversation_id}/messages`, { text: "Deploy to prod now?", kind: "question" });
  await signIn(page, userName);
  await page.getByTestId("inbox-entry").click();
  const waitingOnYou = page.locator(`[data-testid="waiting-question"][data-message-id="${asked.id}"]`);
  await expect(waitingOnYou).toContainText("Deploy to prod now?");
  await expect(page.getByTestId("message-input")).toHaveAttribute("placeholder", /oldest open question/);

  // The agent waits the way agents do (a long poll); the person just types into the inbox.
  const answered = coder.ok<{ status: string; answer: Msg | null }>("GET", `/questions/${asked.id}?wait=30`);
  await page.getByTestId("message-input").fill("Yes, after lunch");
  await page.getByTestId("message-input").press("Enter");
  const got = await answered;
  expect(got.status).toBe("answered");
  expect(got.answer?.content).toBe("Yes, after lunch");
  await expect(page.getByTestId("open-questions")).toHaveCount(0);
  await expect(page.getByTestId("post-error")).toHaveCount(0);
  await expect(page.getByTestId("message-input")).toHaveValue("");

  // Nothing open any more: the next one is an ordinary message in the inbox.
  await page.getByTestId("message-input").fill("Thanks, all good");
  await page.getByTestId("message-input").press("Enter");
  await expect(page.getByTestId("message-list").getByText("Thanks, all good")).toBeVisible();
  const inbox = await coder.ok<{ id: number }>("GET", "/inbox");
  const messages = await coder.ok<Msg[]>("GET", `/conversations/${inbox.id}/messages`);
  expect(messages.find((m) => m.content === "Thanks, all good")?.kind).toBe("message");
});
