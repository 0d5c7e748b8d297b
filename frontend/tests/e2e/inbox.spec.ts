import { expect, expectNoSeriousA11yViolations, screenshot, signIn, test } from "./support/fixtures";
import { RestAgent } from "./support/agents";

interface Msg {
  id: number;
  content: string;
  reply_to: number | null;
  kind: string;
}

test("an agent writes and asks before and while the UI is open; the person answers inline and the agent gets it", async ({
  page,
  userName,
  stack,
}) => {
  // Before any UI exists: the agent posts to the person's inbox and asks a question.
  const planner = RestAgent.mint(stack, userName, "planner");
  await planner.ok("POST", "/inbox/messages", { text: "Morning! I triaged **three** issues overnight." });
  const asked = await planner.ok<Msg>("POST", "/inbox/messages", { text: "Which task should I do first?", kind: "question" });

  await signIn(page, userName);
  const inbox = page.getByTestId("inbox-entry");
  await expect(inbox).toBeVisible();
  await expect(page.getByTestId("inbox-unread")).toHaveText("2");

  await inbox.click();
  await expect(inbox).toHaveAttribute("aria-current", "true");
  const agentMessages = page.locator('[data-testid="message"][data-role="agent"]');
  await expect(agentMessages.first()).toContainText("planner");
  await expect(agentMessages.first().getByTestId("message-text")).toContainText("three issues");
  const question = page.locator(`[data-testid="question"][data-message-id="${asked.id}"]`);
  await expect(question).toHaveAttribute("data-open", "true");
  // Opened = read: the badge goes, and stays gone after a reload (the position is stored).
  await expect(page.getByTestId("inbox-unread")).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("inbox-entry")).toBeVisible();
  await expect(page.getByTestId("message").first()).toBeVisible();
  await expect(page.getByTestId("inbox-unread")).toHaveCount(0);
  await expectNoSeriousA11yViolations(page);

  // The agent waits for the answer (REST long-poll) while the person types it inline.
  const waiting = planner.ok<{ status: string; answer: Msg | null }>("GET", `/questions/${asked.id}?wait=30`);
  await question.getByTestId("question-answer-input").fill("Do task 2 first");
  await question.getByTestId("question-answer-send").click();
  const answered = await waiting;
  expect(answered.status).toBe("answered");
  expect(answered.answer?.content).toBe("Do task 2 first");
  expect(answered.answer?.reply_to).toBe(asked.id);
  await expect(question).toHaveAttribute("data-open", "false");
  await expect(page.locator('[data-testid="message"][data-role="user"]').last()).toContainText("Do task 2 first");

  // While the person is elsewhere, new agent messages raise the badge live (no reload).
  await page.getByTestId("new-conversation").click();
  await expect(page.getByTestId("conversation-draft")).toBeVisible();
  await planner.ok("POST", "/inbox/messages", { text: "Task 2 is done." });
  const second = await planner.ok<Msg>("POST", "/inbox/messages", { text: "Shall I start on task 3?", kind: "question" });
  await expect(page.getByTestId("inbox-unread")).toHaveText("2", { timeout: 5_000 });
  await page.reload();
  await expect(page.getByTestId("inbox-unread")).toHaveText("2");

  // A question asked while the inbox is open shows at once, and the answer reaches the agent.
  await page.getByTestId("inbox-entry").click();
  const live = page.locator(`[data-testid="question"][data-message-id="${second.id}"]`);
  await expect(live).toHaveAttribute("data-open", "true");
  const third = await planner.ok<Msg>("POST", "/inbox/messages", { text: "And the release notes too?", kind: "question" });
  const liveQuestion = page.locator(`[data-testid="question"][data-message-id="${third.id}"]`);
  await expect(liveQuestion).toHaveAttribute("data-open", "true", { timeout: 5_000 });
  await expect(page.getByTestId("inbox-unread")).toHaveCount(0);
  const waitingThird = planner.ok<{ status: string; answer: Msg | null }>("GET", `/questions/${third.id}?wait=30`);
  await liveQuestion.getByTestId("question-answer-input").fill("Yes, notes too");
  await liveQuestion.getByTestId("question-answer-input").press("Enter");
  expect((await waitingThird).answer?.content).toBe("Yes, notes too");
  // The other question is still open: each answer goes to its own question.
  await expect(live).toHaveAttribute("data-open", "true");
  await screenshot(page, "inbox-desktop");
});

test("the inbox at phone width: badge in the drawer, questions answerable, axe clean", async ({ page, userName, stack }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const agent = RestAgent.mint(stack, userName, "ci-bot");
  const asked = await agent.ok<Msg>("POST", "/inbox/messages", { text: "Deploy to staging now?", kind: "question" });
  await signIn(page, userName);
  await page.getByTestId("open-conversations").click();
  const drawer = page.getByTestId("conversations-drawer");
  await expect(drawer.getByTestId("inbox-unread")).toHaveText("1");
  await expectNoSeriousA11yViolations(page);
  await drawer.getByTestId("inbox-entry").click();
  await expect(drawer).toHaveCount(0);
  const question = page.locator(`[data-testid="question"][data-message-id="${asked.id}"]`);
  await expect(question.getByTestId("question-answer-input")).toBeInViewport();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "inbox-phone");
  await question.getByTestId("question-answer-input").fill("yes");
  await question.getByTestId("question-answer-send").click();
  await expect
    .poll(async () => (await agent.ok<{ status: string }>("GET", `/questions/${asked.id}`)).status)
    .toBe("answered");
  // The composer stays pinned and visible at phone width.
  await expect(page.getByTestId("message-input")).toBeInViewport();
});

test("a question that times out stops taking answers, live", async ({ page, userName, stack }) => {
  const agent = RestAgent.mint(stack, userName, "pager");
  const asked = await agent.ok<Msg>("POST", "/inbox/messages", { text: "Restart the service?", kind: "question", timeout_s: 4 });
  await signIn(page, userName);
  await page.getByTestId("inbox-entry").click();
  const question = page.locator(`[data-testid="question"][data-message-id="${asked.id}"]`);
  await expect(question).toHaveAttribute("data-open", "true");
  // The agent's wait reaches the question's deadline: it closes as timed out, and the UI follows.
  const state = await agent.ok<{ status: string }>("GET", `/questions/${asked.id}?wait=10`);
  expect(state.status).toBe("timed_out");
  await expect(question).toHaveAttribute("data-open", "false", { timeout: 5_000 });
  await expect(question.getByTestId("question-answer-input")).toHaveCount(0);
  await expect(question).toContainText("Closed");
});

for (const width of [1280, 390]) {
  test(`at ${width}px the inbox shows every open question with its box, and the message box answers the oldest`, async ({
    page,
    userName,
    stack,
  }) => {
    await page.setViewportSize({ width, height: 844 });
    const planner = RestAgent.mint(stack, userName, "planner");
    const first = await planner.ok<Msg>("POST", "/inbox/messages", { text: "Which day for the release?", kind: "question" });
    const second = await planner.ok<Msg>("POST", "/inbox/messages", { text: "Which branch?", kind: "question" });
    await signIn(page, userName);
    if (width < 600) await page.getByTestId("open-conversations").click();
    await expect(page.getByTestId("inbox-unread").first()).toHaveText("2");
    await page.getByTestId("inbox-entry").first().click();
    for (const asked of [first, second]) {
      const shown = page.locator(`[data-testid="question"][data-message-id="${asked.id}"]`);
      await expect(shown).toHaveAttribute("data-open", "true");
      await expect(shown.getByTestId("question-answer-input")).toBeVisible();
    }
    await expect(page.getByTestId("message-input")).toHaveAttribute("placeholder", /oldest open question/);

    // What the placeholder promises: a plain message answers the oldest open question.
    const waiting = planner.ok<{ status: string; answer: Msg | null }>("GET", `/questions/${first.id}?wait=30`);
    await page.getByTestId("message-input").fill("Thursday");
    await page.getByTestId("message-input").press("Enter");
    const got = await waiting;
    expect(got.status).toBe("answered");
    expect(got.answer?.content).toBe("Thursday");
    await expect(page.locator(`[data-testid="question"][data-message-id="${first.id}"]`)).toHaveAttribute("data-open", "false");
    await expect(page.locator(`[data-testid="question"][data-message-id="${second.id}"]`)).toHaveAttribute("data-open", "true");

    // The box under the other question answers it, through its own route, once.
    const secondBox = page.locator(`[data-testid="question"][data-message-id="${second.id}"]`);
    await secondBox.getByTestId("question-answer-input").fill("main");
    await secondBox.getByTestId("question-answer-send").click();
    await expect(secondBox).toHaveAttribute("data-open", "false");
    const state = await planner.ok<{ status: string; answer: Msg | null }>("GET", `/questions/${second.id}`);
    expect(state.answer?.content).toBe("main");
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, `inbox-questions-${width}`);
  });
}

test("a finished run shows how it ended, not its last progress report", async ({ page, userName, stack }) => {
  const agent = RestAgent.mint(stack, userName, "builder");
  const run = await agent.ok<{ id: number }>("POST", "/runs", { title: "Build the site" });
  await agent.ok("POST", `/runs/${run.id}/status`, { text: "50% done", progress: 50 });
  await agent.ok("POST", `/runs/${run.id}/finish`, { status: "completed", summary: "Site built" });
  await signIn(page, userName);
  await page.getByTestId("open-runs").click();
  const item = page.getByTestId("runs-drawer").locator(`[data-testid="run-item"][data-run-id="${run.id}"]`);
  await expect(item).toHaveAttribute("data-status", "completed");
  await expect(item.getByTestId("run-latest")).toHaveText("Site built");
  await expect(item).not.toContainText("50%");
  await expect(item.getByTestId("run-progress")).toHaveCount(0);
});

test("a delegation nobody has claimed does not say Running; once claimed it does", async ({ page, userName, stack }) => {
  const architect = RestAgent.mint(stack, userName, "architect");
  const coder = RestAgent.mint(stack, userName, "coder");
  const parent = await architect.ok<{ id: number }>("POST", "/runs", { title: "Ship OAuth2" });
  const made = await architect.ok<{ thread_id: number; child_run_id: number }>("POST", `/runs/${parent.id}/delegations`, {
    agent: "coder",
    task: "Refactor auth to OAuth2",
  });
  await signIn(page, userName);
  await page.getByTestId("open-runs").click();
  const child = page.getByTestId("runs-drawer").locator(`[data-testid="run-item"][data-run-id="${made.child_run_id}"]`);
  await expect(child.getByTestId("run-status")).toHaveText("Not claimed yet");
  await expect(child).not.toContainText("Running");
  const claimed = await coder.ok<{ delegation: { thread_id: number } | null }>("GET", "/delegations/next?wait=5");
  expect(claimed.delegation?.thread_id).toBe(made.thread_id);
  await expect(child.getByTestId("run-status")).toHaveText("Running", { timeout: 15_000 });
});

test("questions asked in a run wait on the person in the inbox, answerable there, and leave once answered", async ({
  page,
  userName,
  stack,
}) => {
  const coder = RestAgent.mint(stack, userName, "coder");
  const run = await coder.ok<{ id: number; conversation_id: number }>("POST", "/runs", { title: "Deploy" });
  await signIn(page, userName);
  await page.getByTestId("inbox-entry").click();
  await expect(page.getByTestId("open-questions")).toHaveCount(0);
  // Asked while the inbox is open: it shows at once (the person's event stream), with its box.
  const asked = await coder.ok<Msg>("POST", `/conversations/${run.conversation_id}/messages`, { text: "Deploy to prod now?", kind: "question" });
  const waiting = page.locator(`[data-testid="waiting-question"][data-message-id="${asked.id}"]`);
  await expect(waiting).toContainText("Deploy to prod now?", { timeout: 5_000 });
  await expect(waiting).toContainText("coder");
  const answered = coder.ok<{ status: string; answer: Msg | null }>("GET", `/questions/${asked.id}?wait=30`);
  await waiting.getByTestId("question-answer-input").fill("Yes, go");
  await waiting.getByTestId("question-answer-send").click();
  const got = await answered;
  expect(got.status).toBe("answered");
  expect(got.answer?.content).toBe("Yes, go");
  await expect(page.getByTestId("open-questions")).toHaveCount(0);
  await page.setViewportSize({ width: 390, height: 844 });
  const again = await coder.ok<Msg>("POST", `/conversations/${run.conversation_id}/messages`, { text: "And tag the release?", kind: "question" });
  const phone = page.locator(`[data-testid="waiting-question"][data-message-id="${again.id}"]`);
  await expect(phone.getByTestId("question-answer-input")).toBeInViewport({ timeout: 5_000 });
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "inbox-waiting-on-you-phone");
});
