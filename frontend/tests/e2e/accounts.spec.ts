import type { Page } from "@playwright/test";
import { createAdminInvite } from "./support/accounts";
import { expect, expectNoSeriousA11yViolations, expectSessionEnded, screenshot, signIn, test } from "./support/fixtures";

const PASSWORD = "a sign-up password, long enough";

async function signUpWithInvite(page: Page, invitePath: string, userId: string | null): Promise<void> {
  await page.goto(invitePath);
  const screen = page.getByTestId("invite-screen");
  if (userId !== null) await screen.getByTestId("sign-up-user").fill(userId);
  await screen.getByTestId("sign-up-password").fill(PASSWORD);
  await screen.getByTestId("sign-up-submit").click();
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
}

test("invite flow: the first admin signs up with the operator's link, invites a person, who joins; a used link is refused", async ({
  page,
  browser,
  stack,
  userName,
}) => {
  const admin = `${userName}-admin`;
  await signUpWithInvite(page, createAdminInvite(stack, admin), null);
  await expect(page.getByTestId("current-user")).toContainText(admin);

  await page.getByTestId("open-account").click();
  const panel = page.getByTestId("account-panel");
  await expect(panel.getByTestId("admin-section")).toBeVisible();
  // This server sends no mail: an email can be added, and the dialog says plainly it cannot be verified by mail.
  await expect(panel.getByTestId("account-email-none")).toBeVisible();
  await panel.getByTestId("email-input").fill(`${admin}@example.test`);
  await panel.getByTestId("change-email").click();
  await expect(panel.getByTestId("account-email")).toHaveText(`${admin}@example.test`);
  await expect(panel.getByTestId("email-status")).toHaveText("not verified");
  await expect(panel.getByTestId("email-no-mail-server")).toContainText("no mail server configured");
  await expect(panel.getByTestId("send-verification")).toHaveCount(0);
  await panel.getByTestId("invite-email").fill(`${userName}@example.test`);
  await panel.getByTestId("create-invite").click();
  const link = (await panel.getByTestId("invite-link").textContent()) ?? "";
  const invitePath = new URL(link).pathname;
  expect(invitePath).toMatch(/^\/invite\//);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-account-admin-invite");

  // The invited person, in their own browser.
  const theirs = await browser.newContext({ baseURL: stack.webUrl });
  const invited = await theirs.newPage();
  await invited.goto(invitePath);
  await expect(invited.getByTestId("sign-up-email")).toHaveValue(`${userName}@example.test`);
  await signUpWithInvite(invited, invitePath, userName);
  await expect(invited.getByTestId("current-user")).toContainText(userName);
  await invited.getByTestId("open-account").click();
  await expect(invited.getByTestId("admin-section")).toHaveCount(0);
  // The invite was sent to that email: it is verified.
  await expect(invited.getByTestId("email-status")).toHaveText("verified");

  // Used once: a second visit says so.
  const other = await browser.newContext({ baseURL: stack.webUrl });
  const late = await other.newPage();
  await late.goto(invitePath);
  await expect(late.getByTestId("invite-invalid")).toBeVisible();
  await other.close();

  // The admin disables the account: the invited person's next request ends their session.
  await panel.getByTestId("disable-user").fill(userName);
  await panel.getByTestId("disable-user-submit").click();
  await expect(panel.getByTestId("disable-user-done")).toContainText(userName);
  await expectSessionEnded(invited);
  await theirs.close();
});

test("agent key: created, its secret shown once, listed, works as a bearer token, revoked in one click", async ({
  page,
  context,
  stack,
  userName,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page, userName);
  await page.getByTestId("open-account").click();
  const panel = page.getByTestId("account-panel");
  await expect(panel.getByTestId("agent-keys-empty")).toBeVisible();
  await panel.getByTestId("agent-key-agent").fill("ci-bot");
  await panel.getByTestId("create-agent-key").click();

  const secretBox = panel.getByTestId("agent-key-secret-box");
  await expect(secretBox).toContainText("you won't see it again");
  const secret = ((await panel.getByTestId("agent-key-secret").textContent()) ?? "").trim();
  expect(secret.length).toBeGreaterThan(20);
  await panel.getByTestId("copy-agent-key").click();
  await expect(panel.getByTestId("copy-agent-key")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await screenshot(page, "desktop-account-agent-key");

  const row = panel.locator('[data-testid="agent-key-row"][data-agent="ci-bot"]');
  await expect(row).toContainText("never used");
  const prefix = ((await row.locator("code").textContent()) ?? "").replace(/…$/, "");
  expect(secret.startsWith(prefix)).toBe(true);

  // The key works for a program, and what it writes carries the agent's name.
  const headers = { authorization: `Bearer ${secret}` };
  const created = await fetch(`${stack.apiUrl}/api/${userName}/tasks`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ title: "written by ci-bot" }),
  });
  expect(created.status).toBe(201);

  // Shown once: closing and reopening the panel lists the key without its secret.
  await page.keyboard.press("Escape");
  await page.getByTestId("open-account").click();
  await expect(panel.getByTestId("agent-key-secret-box")).toHaveCount(0);
  await expect(row).toContainText("last used");
  expect(await panel.textContent()).not.toContain(secret);

  await row.getByTestId("revoke-agent-key").click();
  await expect(row).toHaveCount(0);
  const refused = await fetch(`${stack.apiUrl}/api/${userName}/tasks`, { headers });
  expect(refused.status).toBe(401);
});
