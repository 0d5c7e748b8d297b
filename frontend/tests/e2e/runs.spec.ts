import type { Page } from "@playwright/test";
import { expect, expectNoSeriousA11yViolations, screenshot, signIn, test } from "./support/fixtures";
import { RestAgent } from "./support/agents";

interface Run {
  id: number;
  conversation_id: number;
  status: string;
}

interface Msg {
  id: number;
  content: string;
  role: string;
  kind: string;
}

async function openRuns(page: Page) {
  await page.getByTestId("open-runs").click();
  const drawer = page.getByTestId("runs-drawer");
  await expect(drawer).toBeVisible();
  return drawer;
}

test("a running agent shows in the Runs panel; the person chats with it beside the chat; finished is read-only", async ({
  page,
  userName,
  stack,
}) => {
  const agent = RestAgent.mint(stack, userName, "researcher");
  const run = await agent.ok<Run>("POST", "/runs", { title: "Survey auth libraries" });
  await agent.ok("POST", `/runs/${run.id}/status`, { text: "Reading the docs", progress: 20 });

  await signIn(page, userName);
  let drawer = await openRuns(page);
  const item = drawer.locator(`[data-testid="run-item"][data-run-id="${run.id}"]`);
  await expect(drawer.getByTestId("runs-running")).toContainText("Running");
  await expect(item.getByTestId("run-status")).toHaveText("Running");
  await expect(item.getByTestId("run-progress")).toHaveText("20%");
  await expect(item.getByTestId("run-latest")).toHaveText("Reading the docs");
  await expectNoSeriousA11yViolations(page);

  // Live: a new status arrives in the open panel without a reload.
  await agent.ok("POST", `/runs/${run.id}/status`, { text: "Comparing two candidates", progress: 50 });
  await expect(item.getByTestId("run-progress")).toHaveText("50%", { timeout: 5_000 });
  await item.click();

  // The run opens beside the chat: the main chat stays there.
  const sheet = page.getByTestId("run-sheet");
  await expect(sheet).toBeVisible();
  await expect(page.getByTestId("chat-panel")).toBeVisible();
  await expect(sheet.getByTestId("run-messages")).toContainText("Comparing two candidates");

  // The person writes; the agent's long-poll gets it.
  const seen = (await agent.ok<Msg[]>("GET", `/runs/${run.id}/messages?after=0`)).at(-1)?.id ?? 0;
  const polling = agent.ok<Msg[]>("GET", `/runs/${run.id}/messages?after=${seen}&wait=30`);
  await sheet.getByTestId("run-input").fill("Prefer the maintained one, please");
  await sheet.getByTestId("run-send").click();
  const got = await polling;
  expect(got.map((m) => [m.role, m.content])).toEqual([["user", "Prefer the maintained one, please"]]);
  await expect(sheet.locator('[data-testid="message"][data-role="user"]')).toContainText("Prefer the maintained one");

  // A question makes the run "waiting for input"; it is answerable in place.
  const asked = await agent.ok<Msg>("POST", `/runs/${run.id}/messages`, { text: "authlib or python-oauth2?", kind: "question" });
  await expect(page.getByTestId("runs-waiting")).toHaveText("1", { timeout: 5_000 });
  await expect(sheet.getByTestId("run-status")).toHaveText("Waiting for input");
  const question = sheet.locator(`[data-testid="question"][data-message-id="${asked.id}"]`);
  const waiting = agent.ok<{ status: string; answer: Msg | null }>("GET", `/questions/${asked.id}?wait=30`);
  await question.getByTestId("question-answer-input").fill("authlib");
  await question.getByTestId("question-answer-send").click();
  expect((await waiting).answer?.content).toBe("authlib");
  await expect(sheet.getByTestId("run-status")).toHaveText("Running", { timeout: 5_000 });

  // Finished: read-only, the box is gone and the API refuses writes.
  await agent.ok("POST", `/runs/${run.id}/finish`, { status: "completed", summary: "Chose authlib" });
  await expect(sheet.getByTestId("run-status")).toHaveText("Completed", { timeout: 5_000 });
  await expect(sheet.getByTestId("run-readonly")).toBeVisible();
  await expect(sheet.getByTestId("run-input")).toHaveCount(0);
  drawer = await openRuns(page);
  await expect(drawer.getByTestId("runs-finished").locator(`[data-run-id="${run.id}"]`).first()).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(drawer).toHaveCount(0);
  await expect(sheet).toBeVisible();
  await sheet.getByTestId("run-messages").focus();
  await page.keyboard.press("Escape");
  await expect(sheet).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Tasks" })).toBeVisible();
});

test("a delegation thread: the run tree, a typed timeline, and the person writing into it", async ({ page, userName, stack }) => {
  const architect = RestAgent.mint(stack, userName, "architect");
  const coder = RestAgent.mint(stack, userName, "coder");
  const parent = await architect.ok<Run>("POST", "/runs", { title: "Ship OAuth2" });
  const made = await architect.ok<{ thread_id: number; child_run_id: number }>("POST", `/runs/${parent.id}/delegations`, {
    agent: "coder",
    task: "Refactor auth to OAuth2",
  });
  const claimed = await coder.ok<{ delegation: { thread_id: number; child_run_id: number } | null }>("GET", "/delegations/next?wait=5");
  expect(claimed.delegation?.thread_id).toBe(made.thread_id);
  const thread = made.thread_id;
  const child = claimed.delegation!.child_run_id;
  await coder.ok("POST", `/conversations/${thread}/messages`, { text: "authlib or python-oauth2?", kind: "question" });
  await architect.ok("POST", `/conversations/${thread}/messages`, { text: "authlib" });
  await coder.ok("POST", `/runs/${child}/status`, { text: "Token flow in place", progress: 50 });

  await signIn(page, userName);
  const drawer = await openRuns(page);
  const parentNode = drawer.locator(`[data-testid="run-node"][data-run-id="${parent.id}"]`);
  const childItem = parentNode.locator(`[data-testid="run-item"][data-run-id="${child}"]`);
  await expect(childItem).toBeVisible();
  await expect(childItem.getByTestId("run-progress")).toHaveText("50%");
  await childItem.click();

  const sheet = page.getByTestId("run-sheet");
  const lines = sheet.getByTestId("thread-line");
  await expect(lines.nth(0).getByTestId("thread-route")).toHaveText("architect → coder:");
  await expect(lines.nth(0)).toContainText("Refactor auth to OAuth2");
  await expect(lines.nth(1).getByTestId("thread-route")).toHaveText("coder → architect [question]:");
  await expect(lines.nth(2).getByTestId("thread-route")).toContainText("architect → coder");
  await expect(lines.nth(3).getByTestId("thread-route")).toContainText("coder → architect [status 50%]:");
  await expectNoSeriousA11yViolations(page);

  // The person writes into the thread: both agents read it.
  const last = (await coder.ok<Msg[]>("GET", `/delegations/${thread}/messages`)).at(-1)!.id;
  const coderPoll = coder.ok<Msg[]>("GET", `/delegations/${thread}/messages?after=${last}&wait=30`);
  await sheet.getByTestId("run-input").fill("Keep the old login working for a week");
  await sheet.getByTestId("run-input").press("Enter");
  expect((await coderPoll).map((m) => m.content)).toEqual(["Keep the old login working for a week"]);
  const parentSees = await architect.ok<Msg[]>("GET", `/delegations/${thread}/messages?after=${last}`);
  expect(parentSees.map((m) => m.role)).toEqual(["user"]);
  await expect(lines.last().getByTestId("thread-route")).toContainText("You →");

  // Live status and completion close the thread: read-only.
  await coder.ok("POST", `/runs/${child}/status`, { text: "Tests green", progress: 90 });
  await expect(lines.last().getByTestId("thread-route")).toContainText("[status 90%]:", { timeout: 5_000 });
  await coder.ok("POST", `/delegations/${thread}/complete`, { text: "OAuth2 is in place" });
  await expect(lines.last().getByTestId("thread-route")).toHaveText("coder → architect [completed]:", { timeout: 5_000 });
  await expect(sheet.getByTestId("run-readonly")).toBeVisible();
  await screenshot(page, "thread-desktop");

  // Phone width: the thread fills the screen, still axe clean.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(sheet).toBeInViewport();
  await expect(sheet.getByTestId("run-readonly")).toBeInViewport();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "thread-phone");
  await page.emulateMedia({ colorScheme: "dark" });
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "thread-phone-dark");
  await sheet.getByTestId("run-sheet-close").click();
  const phoneDrawer = await openRuns(page);
  await expect(phoneDrawer.locator(`[data-testid="run-item"][data-run-id="${child}"]`)).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});
