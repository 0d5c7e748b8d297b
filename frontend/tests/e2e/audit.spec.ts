import { expect, signIn, test } from "./support/fixtures";
import { personToken, RestAgent } from "./support/agents";

interface Msg {
  id: number;
}

test("Account → Audit: answers from the page and by REST are listed with who and how, filtered, and exported as JSON Lines", async ({
  page,
  userName,
  stack,
}) => {
  const planner = RestAgent.mint(stack, userName, "planner");
  const ops = RestAgent.mint(stack, userName, "ops");
  const fromPage = await planner.ok<Msg>("POST", "/inbox/messages", { text: "Which branch first?", kind: "question" });
  const byRest = await ops.ok<Msg>("POST", "/inbox/messages", { text: "Restart the job?", kind: "question" });
  // The person answers one by REST, with their own token.
  const person = new RestAgent(stack, userName, personToken(stack, userName));
  await person.ok("POST", `/questions/${byRest.id}/answer`, { text: "yes, restart" });

  // And the other from the page.
  await signIn(page, userName);
  await page.getByTestId("inbox-entry").click();
  const question = page.locator(`[data-testid="question"][data-message-id="${fromPage.id}"]`);
  await question.getByTestId("question-answer-input").fill("main first");
  await question.getByTestId("question-answer-send").click();
  await expect(question).toHaveAttribute("data-open", "false");

  await page.getByTestId("open-account").click();
  const audit = page.getByTestId("account-panel").getByTestId("audit-section");
  const events = audit.getByTestId("audit-event");
  await expect(events).toHaveCount(2);
  const web = audit.locator('[data-testid="audit-event"][data-via="web"]');
  await expect(web.getByTestId("audit-asked")).toHaveText("Which branch first?");
  await expect(web.getByTestId("audit-outcome")).toContainText("main first");
  await expect(web.getByTestId("audit-decider")).toHaveText("you");
  await expect(web).toContainText("asked by planner");
  const rest = audit.locator('[data-testid="audit-event"][data-via="rest"]');
  await expect(rest).toContainText("asked by ops");

  // Filtered by agent: only ops's question.
  await audit.getByTestId("audit-agent").fill("ops");
  await audit.getByTestId("audit-apply").click();
  await expect(events).toHaveCount(1);
  await expect(events.first().getByTestId("audit-asked")).toHaveText("Restart the job?");
  // A decision nobody made: nothing.
  await audit.getByTestId("audit-agent").fill("");
  await audit.getByTestId("audit-decision").selectOption("withdrawn");
  await audit.getByTestId("audit-apply").click();
  await expect(audit.getByTestId("audit-empty")).toBeVisible();
  await audit.getByTestId("audit-decision").selectOption("");
  await audit.getByTestId("audit-apply").click();
  await expect(events).toHaveCount(2);

  // Export: the browser downloads JSON Lines through the web UI's own origin and session.
  const download = page.waitForEvent("download");
  await audit.getByTestId("audit-export").click();
  const file = await (await download).createReadStream();
  let text = "";
  for await (const chunk of file) text += chunk.toString();
  const lines = text.trim().split("\n").map((line) => JSON.parse(line) as { via: string; asked: string; user_id: string });
  expect(lines.map((e) => e.via).sort()).toEqual(["rest", "web"]);
  expect(lines.every((e) => e.user_id === userName)).toBe(true);

  // An agent cannot read the trail.
  const refused = await planner.call("GET", "/audit");
  expect(refused.status).toBe(403);
});
