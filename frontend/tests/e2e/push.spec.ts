import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page, type Worker } from "@playwright/test";
import { RestAgent } from "./support/agents";
import { installFakeSpeech } from "./support/fake-speech";
import { expect, expectNoSeriousA11yViolations, screenshot, sendMessage, signIn } from "./support/fixtures";
import { clickNotification, deliverPush, fakeSubscription, serviceWorker, shownNotifications, type PushPayload } from "./support/push";
import { pushTest as test } from "./support/push-fixtures";

test.setTimeout(150_000);

// support/fake_anthropic_server.py answers a session opened with these with a Bash call to allow.
const PUSH_PROMPT = "Check the push path";
const VOICE_PROMPT = "Check the voice path";

interface Device {
  id: number;
  endpoint: string;
  label: string;
}

/** Notifications allowed for the UI's origin (as if the person had said yes to the browser's prompt). */
async function allowNotifications(context: BrowserContext, baseURL: string | undefined): Promise<void> {
  await context.grantPermissions(["notifications"], { origin: baseURL });
}

/** Turns notifications on for this device from the account dialog, as the person would. */
async function turnOnNotifications(page: Page): Promise<void> {
  await page.getByTestId("open-account").click();
  const section = page.getByTestId("notifications-section");
  await section.getByTestId("enable-notifications").click();
  await expect(section.getByTestId("notifications-on")).toBeVisible();
  await expect(section.locator('[data-testid="push-device-row"][data-current="true"]')).toHaveCount(1);
  await page.getByRole("button", { name: "Close account" }).click();
}

/** The stored answer to a question (a message replying to it) and the device it names, if any. */
async function answerDevice(page: Page, user: string, conversationId: number, questionId: number): Promise<unknown> {
  const response = await page.request.get(`/api/${user}/conversations/${conversationId}/messages`);
  expect(response.status()).toBe(200);
  const messages = (await response.json()) as { reply_to: number | null; meta: Record<string, unknown> | null }[];
  const answers = messages.filter((m) => m.reply_to === questionId);
  expect(answers, "one stored answer").toHaveLength(1);
  return answers[0]?.meta?.device;
}

/**
 * Shows `push` on this device. A push delivered through the DevTools protocol is sometimes not
 * shown (once just after a close under the same tag, once with nothing before it), so it is
 * delivered again until the notification is there; the worker shows one per tag either way.
 */
async function show(page: Page, worker: Worker, push: PushPayload): Promise<void> {
  await expect(async () => {
    await deliverPush(page, push);
    await expect.poll(async () => (await shownNotifications(worker, push.tag)).length, { timeout: 3_000 }).toBe(1);
  }).toPass({ timeout: 20_000 });
}

/** How many buttons this browser shows on a notification (`Notification.maxActions`). */
function maxActions(worker: Worker): Promise<number> {
  return worker.evaluate(() => (Notification as unknown as { maxActions: number }).maxActions);
}

interface AuditEvent {
  question_id: number | null;
  decision: string;
  decided_by: string;
  via: string;
  device_id: number | null;
}

async function auditTrail(page: Page, user: string): Promise<AuditEvent[]> {
  const response = await page.request.get(`/api/${user}/audit`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { events: AuditEvent[] }).events;
}

/** A Write call as Claude Code's PreToolUse hook sends it to `POST /permission-requests`. */
function writeCall(file: string, toolUseId: string): Record<string, unknown> {
  return { tool_name: "Write", tool_input: { file_path: file, content: "hello\n" }, tool_use_id: toolUseId, machine: "laptop" };
}

interface Requested {
  id: number | null;
  status: string;
  decision: string | null;
  decided_by: string | null;
  rule_id: number | null;
}

async function devices(page: Page, user: string): Promise<Device[]> {
  const response = await page.request.get(`/api/${user}/push-subscriptions`);
  expect(response.status()).toBe(200);
  return (await response.json()) as Device[];
}

test("the manifest and the service worker make Parley installable (Chromium's own checks)", async ({ pushStack }, testInfo) => {
  // Chromium never offers to install from an incognito profile (which every Playwright context
  // is), so this check runs in a browser with a profile of its own.
  const profile = mkdtempSync(path.join(tmpdir(), "parley-e2e-profile-"));
  const launch = testInfo.project.use.launchOptions ?? {};
  const browser = await chromium.launchPersistentContext(profile, { executablePath: launch.executablePath, args: launch.args });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(pushStack.webUrl);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    const cdp = await browser.newCDPSession(page);
    const manifest = (await cdp.send("Page.getAppManifest")) as { url: string; errors: unknown[] };
    expect(manifest.url).toMatch(/\/manifest\.webmanifest$/);
    expect(manifest.errors).toEqual([]);
    // Chromium decides once the worker is running; it may take a moment.
    await expect
      .poll(async () => ((await cdp.send("Page.getInstallabilityErrors")) as { installabilityErrors: unknown[] }).installabilityErrors, {
        timeout: 20_000,
      })
      .toEqual([]);
    const icon = await page.request.get(`${pushStack.webUrl}/icons/icon-512.png`);
    expect(icon.headers()["content-type"]).toBe("image/png");
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

test("phone width: turn notifications on for this device, see it listed, choose kinds, mute a conversation, remove the device", async ({
  page,
  context,
  userName,
  baseURL,
  pushService,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const endpoint = pushService.endpoint();
  await fakeSubscription(page, endpoint, pushService.keys);
  await allowNotifications(context, baseURL);
  await signIn(page, userName);

  await page.getByTestId("account-menu").click(); // at phone width Account is in this menu
  await page.getByTestId("open-account").click();
  const section = page.getByTestId("notifications-section");
  await expect(section.getByTestId("push-devices-empty")).toBeVisible();
  await section.getByTestId("enable-notifications").click();
  await expect(section.getByTestId("notifications-on")).toBeVisible();
  const row = section.getByTestId("push-device-row");
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute("data-current", "true");
  await expect(row).toContainText("This device");
  await expect(row).toContainText("Chrome");
  await expect(row).toBeInViewport();
  // The server holds this browser's subscription (its endpoint at the push service).
  const [device] = await devices(page, userName);
  expect(device?.endpoint).toBe(endpoint);

  // Kinds: inbox messages are off by default; turned on, it stays on.
  const messages = section.getByTestId("notify-kind-message");
  await expect(section.getByTestId("notify-kind-question")).toBeChecked();
  await expect(messages).not.toBeChecked();
  await messages.check();
  await expect(messages).toBeChecked();
  await expect
    .poll(async () => ((await (await page.request.get(`/api/${userName}/notification-preferences`)).json()) as { message: boolean }).message)
    .toBe(true);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "notifications-phone");

  // Removed: gone from the list and from the server; this device can be turned on again.
  await row.getByTestId("remove-push-device").click();
  await expect(section.getByTestId("push-device-row")).toHaveCount(0);
  await expect(section.getByTestId("push-devices-empty")).toBeVisible();
  await expect(section.getByTestId("enable-notifications")).toBeVisible();
  expect(await devices(page, userName)).toEqual([]);
  await page.getByRole("button", { name: "Close account" }).click();

  // Mute one conversation from its row menu.
  await sendMessage(page, "add a task to water the plants");
  await expect(page.getByTestId("chat-title")).not.toHaveAttribute("data-conversation-id", "");
  const conversationId = Number(await page.getByTestId("chat-title").getAttribute("data-conversation-id"));
  await page.getByTestId("open-conversations").click();
  const item = page.locator(`[data-testid="conversation-item"][data-conversation-id="${conversationId}"]`);
  await item.getByTestId("conversation-menu").click();
  await page.getByTestId("conversation-mute").click();
  await expect(item.getByTestId("conversation-muted")).toBeVisible();
  const prefs = async () =>
    ((await (await page.request.get(`/api/${userName}/notification-preferences`)).json()) as { muted_conversations: number[] })
      .muted_conversations;
  expect(await prefs()).toEqual([conversationId]);
  await item.getByTestId("conversation-menu").click();
  await expect(page.getByTestId("conversation-mute")).toHaveText("Unmute notifications");
  await page.getByTestId("conversation-mute").click();
  await expect(item.getByTestId("conversation-muted")).toHaveCount(0);
  expect(await prefs()).toEqual([]);
});

test("a permission prompt's notification: Allow answers it through the service worker and the Claude Code session continues", async ({
  page,
  context,
  userName,
  baseURL,
  pushService,
}) => {
  const endpoint = pushService.endpoint();
  await fakeSubscription(page, endpoint, pushService.keys);
  await allowNotifications(context, baseURL);
  await signIn(page, userName);
  await turnOnNotifications(page);
  const [device] = await devices(page, userName);

  await page.getByTestId("new-conversation-mode").selectOption("work");
  await page.getByTestId("new-conversation").click();
  await expect(page.getByTestId("work-bar")).toBeVisible();
  await sendMessage(page, PUSH_PROMPT);
  const card = page.getByTestId("permission-question").last();
  await expect(card).toHaveAttribute("data-open", "true", { timeout: 60_000 });
  const questionId = Number(await card.getAttribute("data-message-id"));
  const conversationId = Number(await page.getByTestId("chat-title").getAttribute("data-conversation-id"));

  // The server's push (encrypted for this device, decrypted by the fake push service) names the question.
  const push = await pushService.next(endpoint, (p) => p.kind === "question" && p.question_id === questionId);
  expect(push.tag).toBe(`parley-q-${questionId}`);
  expect(push.url).toBe(`/c/${conversationId}?question=${questionId}`);
  expect(push.actions.map((a) => a.title)).toEqual(["Allow", "Deny", "Always allow"]);

  // The service worker shows it, with as many of its buttons as the browser has room for.
  const worker = await serviceWorker(context);
  await show(page, worker, push);
  const room = await maxActions(worker);
  await expect.poll(() => shownNotifications(worker, push.tag)).toEqual([
    { title: push.title, body: push.body, tag: push.tag, actions: push.actions.slice(0, room) },
  ]);

  // Allow, pressed on the notification: the worker answers through the question's own route.
  await clickNotification(worker, push.tag, "allow");
  await expect(card).toHaveAttribute("data-open", "false", { timeout: 20_000 });
  await expect(card.getByTestId("permission-answer")).toHaveText("Answered: Allowed");
  await expect(page.getByTestId("message-list").getByText("The pushed check is finished.")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("work-status")).toHaveAttribute("data-status", "idle", { timeout: 15_000 });
  await expect.poll(() => shownNotifications(worker, push.tag)).toEqual([]);
  // The answer is stored once, naming the device whose notification gave it.
  expect(await answerDevice(page, userName, conversationId, questionId)).toBe(device?.id);

  // Answered: every device gets the closing push under the same tag, which closes the notification.
  const closing = await pushService.next(endpoint, (p) => p.kind === "question_closed" && p.tag === push.tag);
  await show(page, worker, push);
  await deliverPush(page, closing);
  await expect.poll(() => shownNotifications(worker, push.tag)).toEqual([]);

  // An old notification pressed after the question was answered changes nothing and says so.
  await show(page, worker, push);
  await clickNotification(worker, push.tag, "deny");
  await expect
    .poll(() => shownNotifications(worker, push.tag))
    .toEqual([{ title: "Not answered", body: "Already answered or closed: nothing was changed.", tag: push.tag, actions: [] }]);
  await expect(card.getByTestId("permission-answer")).toHaveText("Answered: Allowed");
  expect(await answerDevice(page, userName, conversationId, questionId)).toBe(device?.id);
});

test("a yes/no question's notification: Yes answers the agent; pressing the notification opens the conversation at the question", async ({
  page,
  context,
  userName,
  baseURL,
  pushService,
  pushStack,
}) => {
  const endpoint = pushService.endpoint();
  await fakeSubscription(page, endpoint, pushService.keys);
  await allowNotifications(context, baseURL);
  await signIn(page, userName);
  await turnOnNotifications(page);

  const agent = RestAgent.mint(pushStack, userName, "deployer");
  const asked = await agent.ok<{ id: number; conversation_id: number }>("POST", "/inbox/messages", {
    text: "Shall I deploy to staging?",
    kind: "question",
  });
  const push: PushPayload = await pushService.next(endpoint, (p) => p.kind === "question" && p.question_id === asked.id);
  expect(push.title).toContain("deployer");
  expect(push.actions.map((a) => a.action)).toEqual(["yes", "no"]);

  const worker = await serviceWorker(context);
  await show(page, worker, push);

  // Its body, pressed: the app shows the conversation at the question.
  await clickNotification(worker, push.tag, "");
  await expect(page).toHaveURL(new RegExp(`/c/${asked.conversation_id}\\?question=${asked.id}$`));
  const question = page.locator(`[data-testid="question"][data-message-id="${asked.id}"]`);
  await expect(question).toHaveAttribute("data-open", "true");
  await expect(page.locator(`.is-found[data-message-id="${asked.id}"]`)).toBeInViewport();

  // Yes, pressed on the (again shown) notification, reaches the agent waiting for it.
  const waiting = agent.ok<{ status: string; answer: { content: string } | null }>("GET", `/questions/${asked.id}?wait=30`);
  await show(page, worker, push);
  await clickNotification(worker, push.tag, "yes");
  const reply = await waiting;
  expect(reply.status).toBe("answered");
  expect(reply.answer?.content).toBe("yes");
  await expect(question).toHaveAttribute("data-open", "false");
  const [device] = await devices(page, userName);
  expect(await answerDevice(page, userName, asked.conversation_id, asked.id)).toBe(device?.id);
});

test("voice at phone width: a permission prompt is denied by saying “deny”, and the session goes on", async ({ page, userName }) => {
  await installFakeSpeech(page, { kind: "transcript", interim: "de", final: "deny", delayMs: 300 });
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, userName);
  await page.getByTestId("open-conversations").click();
  await page.getByTestId("new-conversation-mode").selectOption("work");
  await page.getByTestId("new-conversation").click();
  await sendMessage(page, VOICE_PROMPT);
  const card = page.getByTestId("permission-question").last();
  await expect(card).toHaveAttribute("data-open", "true", { timeout: 60_000 });
  const mic = card.getByRole("button", { name: "Allow or deny by voice" });
  await expect(mic).toBeInViewport();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "permission-voice-phone");
  await mic.click();
  await expect(card).toHaveAttribute("data-open", "false", { timeout: 20_000 });
  await expect(card.getByTestId("permission-answer")).toHaveText("Answered: Denied");
  await expect(page.getByTestId("message-list").getByText("The spoken check is finished.")).toBeVisible({ timeout: 30_000 });
});

test("voice: an agent's question in the inbox is answered by saying “yes”", async ({
  page,
  userName,
  pushStack,
}) => {
  await installFakeSpeech(page, { kind: "transcript", interim: "y", final: "yes", delayMs: 300 });
  const agent = RestAgent.mint(pushStack, userName, "deployer");
  const asked = await agent.ok<{ id: number }>("POST", "/inbox/messages", { text: "Shall I deploy to production?", kind: "question" });
  await signIn(page, userName);
  await page.getByTestId("inbox-entry").click();
  const question = page.locator(`[data-testid="question"][data-message-id="${asked.id}"]`);
  await expect(question).toHaveAttribute("data-open", "true");
  const waiting = agent.ok<{ status: string; answer: { content: string } | null }>("GET", `/questions/${asked.id}?wait=30`);
  await question.getByRole("button", { name: "Answer deployer by voice" }).click();
  const reply = await waiting;
  expect(reply.status).toBe("answered");
  expect(reply.answer?.content).toBe("yes");
  await expect(question).toHaveAttribute("data-open", "false");
});

test("Always allow on a permission request's notification: allowed, a rule is made, and the same call is then allowed unasked", async ({
  page,
  context,
  userName,
  baseURL,
  pushService,
  pushStack,
}) => {
  const endpoint = pushService.endpoint();
  await fakeSubscription(page, endpoint, pushService.keys);
  await allowNotifications(context, baseURL);
  await signIn(page, userName);
  await turnOnNotifications(page);
  const [device] = await devices(page, userName);

  // Claude Code outside Parley asks (its hook's permission request): the person is asked.
  const agent = RestAgent.mint(pushStack, userName, "laptop-cc");
  const file = `/home/${userName}/project/notes.md`;
  const asked = await agent.ok<Requested>("POST", "/permission-requests", writeCall(file, "toolu_e2e_first"));
  expect(asked.status).toBe("pending");
  const push = await pushService.next(endpoint, (p) => p.kind === "question" && p.question_id === asked.id);
  expect(push.actions.map((a) => a.action)).toEqual(["allow", "deny", "always"]);

  // "Always allow", pressed on the notification (the third button, where the browser shows one).
  const worker = await serviceWorker(context);
  await show(page, worker, push);
  await clickNotification(worker, push.tag, "always");
  await expect
    .poll(async () => (await agent.ok<Requested>("GET", `/permission-requests/${asked.id}`)).decision, { timeout: 20_000 })
    .toBe("allow");
  await expect.poll(() => shownNotifications(worker, push.tag)).toEqual([]);

  // The rule is the person's, for this very file, and named as made by "Always allow this".
  await page.getByTestId("open-account").click();
  const rules = page.getByTestId("account-panel").getByTestId("approval-rules-section");
  const row = rules.locator(`[data-testid="approval-rule-row"][data-pattern="Edit(/${file})"]`);
  await expect(row).toContainText("Always allow this");
  await expect(rules.getByTestId("approval-rule-row")).toHaveCount(1);
  await page.getByRole("button", { name: "Close account" }).click();

  // The audit trail says the person allowed it from that device's notification.
  const [event] = await auditTrail(page, userName);
  expect(event).toMatchObject({ question_id: asked.id, decision: "allow", decided_by: "person", via: "push_action", device_id: device?.id });

  // The same call again is allowed by the rule at once: nobody is asked, nothing is pushed.
  const again = await agent.ok<Requested>("POST", "/permission-requests", writeCall(file, "toolu_e2e_again"));
  expect(again).toMatchObject({ id: null, status: "decided", decision: "allow", decided_by: "rule" });
  const open = await page.request.get(`/api/${userName}/questions`);
  expect(await open.json()).toEqual([]);

  // The old notification pressed again changes nothing and says so.
  await show(page, worker, push);
  await clickNotification(worker, push.tag, "always");
  await expect
    .poll(() => shownNotifications(worker, push.tag))
    .toEqual([{ title: "Not answered", body: "Already answered or closed: nothing was changed.", tag: push.tag, actions: [] }]);
  await expect(auditTrail(page, userName)).resolves.toHaveLength(2); // the question's and the rule's
});

test("Always allow this on a permission request an emailed link opened: the audit trail says it came through the email", async ({
  page,
  userName,
  pushStack,
}) => {
  await signIn(page, userName);
  const agent = RestAgent.mint(pushStack, userName, "laptop-cc");
  const asked = await agent.ok<Requested>("POST", "/permission-requests", writeCall(`/home/${userName}/linked.md`, "toolu_e2e_link"));
  const [waiting] = (await (await page.request.get(`/api/${userName}/questions`)).json()) as { question: { id: number; conversation_id: number } }[];
  expect(waiting?.question.id).toBe(asked.id);

  // Where a reminder email's link leads (GET /api/question-links/<token> redirects here).
  await page.goto(`/c/${waiting?.question.conversation_id}?question=${asked.id}&via=email_link`);
  const card = page.locator(`[data-testid="permission-question"][data-message-id="${asked.id}"]`);
  await expect(card).toHaveAttribute("data-open", "true");
  await card.getByTestId("permission-always-allow").click();
  await expect(card).toHaveAttribute("data-open", "false");
  await expect(card.getByTestId("permission-answer")).toHaveText("Answered: Allowed");

  const [event] = await auditTrail(page, userName);
  expect(event).toMatchObject({ question_id: asked.id, decision: "allow", decided_by: "person", via: "email_link", device_id: null });
  const again = await agent.ok<Requested>("POST", "/permission-requests", writeCall(`/home/${userName}/linked.md`, "toolu_e2e_link2"));
  expect(again).toMatchObject({ status: "decided", decision: "allow", decided_by: "rule" });
});
