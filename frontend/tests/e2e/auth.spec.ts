import type { Page } from "@playwright/test";
import {
  createAccount,
  expect,
  expectNoCredentialInScriptReach,
  expectNoSeriousA11yViolations,
  expectSessionEnded,
  screenshot,
  signIn,
  test,
} from "./support/fixtures";
import { sql } from "./support/database";

const PASSWORD = "correct horse battery staple";

async function passwordSignIn(page: Page, login: string, password: string): Promise<void> {
  await page.goto("/");
  await page.getByTestId("sign-in-login").fill(login);
  await page.getByTestId("sign-in-password").fill(password);
  await page.getByTestId("sign-in-submit").click();
}

async function signUp(page: Page, userName: string): Promise<void> {
  await page.goto("/");
  await page.getByTestId("show-sign-up").click();
  await page.getByTestId("sign-up-user").fill(userName);
  await page.getByTestId("sign-up-email").fill(`${userName}@example.test`);
  await page.getByTestId("sign-up-password").fill(PASSWORD);
  await page.getByTestId("sign-up-submit").click();
  await expect(page.getByTestId("current-user")).toContainText(userName);
}

test("sign up (sign-up is open), sign out, sign in again (by name: the email is unverified); no credential in script reach", async ({
  page,
  context,
  userName,
}) => {
  await page.goto("/");
  await page.getByTestId("show-sign-up").click();
  await expectNoSeriousA11yViolations(page);
  await signUp(page, userName);
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  await expectNoCredentialInScriptReach(page, context);

  // A reload keeps the session: the cookie, not the page, holds it.
  await page.reload();
  await expect(page.getByTestId("current-user")).toContainText(userName);

  await page.getByTestId("sign-out").click();
  await expect(page.getByTestId("sign-in-screen")).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("sign-in-screen")).toBeVisible();

  // The email typed at sign-up is not verified (this server sends no mail), so it signs nobody
  // in: only a verified email does. The user name does.
  await passwordSignIn(page, `${userName}@example.test`, PASSWORD);
  await expect(page.getByTestId("sign-in-error")).toHaveText("Wrong user name, email or password.");
  await passwordSignIn(page, userName, PASSWORD);
  await expect(page.getByTestId("current-user")).toContainText(userName);
  await expectNoCredentialInScriptReach(page, context);
});

test("a wrong password and an unknown name get the same message, and sign no one in", async ({ page, userName, stack }) => {
  await createAccount(stack, userName, PASSWORD);
  await passwordSignIn(page, userName, "not the password");
  const error = page.getByTestId("sign-in-error");
  await expect(error).toHaveText("Wrong user name, email or password.");
  await screenshot(page, "desktop-sign-in-wrong-password");
  await page.getByTestId("sign-in-login").fill(`${userName}-nobody`);
  await page.getByTestId("sign-in-submit").click();
  await expect(page.getByTestId("sign-in-submit")).toBeEnabled();
  await expect(error).toHaveText("Wrong user name, email or password.");
  await expect(page.getByTestId("sign-in-screen")).toBeVisible();

  await page.getByTestId("sign-in-login").fill(userName);
  await page.getByTestId("sign-in-password").fill(PASSWORD);
  await page.getByTestId("sign-in-submit").click();
  await expect(page.getByTestId("current-user")).toContainText(userName);
});

test("an invalid name is explained before any request", async ({ page }) => {
  await page.goto("/");
  await page.getByTestId("dev-sign-in-name").fill("not a valid name!");
  await page.getByTestId("dev-sign-in-submit").click();
  await expect(page.getByTestId("dev-sign-in-error")).toContainText("no spaces");
  await screenshot(page, "desktop-sign-in-error");
});

test("a session ended from another device shows a clear screen, and signing in again works", async ({
  page,
  browser,
  userName,
  stack,
}) => {
  await signUp(page, userName);

  // A second browser (another device) lists both sessions and ends the first one.
  const other = await browser.newContext({ baseURL: stack.webUrl, userAgent: "Second device test browser" });
  const phone = await other.newPage();
  await passwordSignIn(phone, userName, PASSWORD);
  await phone.getByTestId("open-account").click();
  const rows = phone.getByTestId("session-row");
  await expect(rows).toHaveCount(2);
  await expect(phone.locator('[data-testid="session-row"][data-current]')).toHaveCount(1);
  await phone.locator('[data-testid="session-row"]:not([data-current])').getByTestId("end-session").click();
  await expect(rows).toHaveCount(1);
  await other.close();

  // The first page's next request is refused: it says so instead of failing silently.
  await expectSessionEnded(page);
  const expired = page.getByTestId("session-expired");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-session-expired");
  await expired.getByRole("button", { name: "Sign in again" }).click();
  await passwordSignIn(page, userName, PASSWORD);
  await expect(page.getByTestId("current-user")).toContainText(userName);
});

test("change password: the old one stops working, the new one signs in", async ({ page, userName, stack }) => {
  await createAccount(stack, userName, PASSWORD);
  await passwordSignIn(page, userName, PASSWORD);
  await page.getByTestId("open-account").click();
  const panel = page.getByTestId("account-panel");
  await panel.getByTestId("current-password").fill("wrong current password");
  await panel.getByTestId("new-password").fill(`${PASSWORD} two`);
  await panel.getByTestId("change-password").click();
  await expect(panel.getByTestId("password-message")).toHaveText("The current password is not right.");
  // A wrong current password does not end the session.
  await expect(page.getByTestId("session-expired")).toHaveCount(0);

  await panel.getByTestId("current-password").fill(PASSWORD);
  await panel.getByTestId("change-password").click();
  await expect(panel.getByTestId("password-message")).toContainText("Password changed");
  await panel.getByTestId("account-sign-out").click();

  await passwordSignIn(page, userName, PASSWORD);
  await expect(page.getByTestId("sign-in-error")).toHaveText("Wrong user name, email or password.");
  await page.getByTestId("sign-in-password").fill(`${PASSWORD} two`);
  await page.getByTestId("sign-in-submit").click();
  await expect(page.getByTestId("current-user")).toContainText(userName);
});

test("the account panel at phone width in dark mode fits and is accessible", async ({ browser, stack, userName }) => {
  const phone = await browser.newContext({
    baseURL: stack.webUrl,
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    colorScheme: "dark",
  });
  const page = await phone.newPage();
  await signIn(page, userName);
  await page.getByTestId("account-menu").click();
  await page.getByTestId("open-account").click();
  const panel = page.getByTestId("account-panel");
  await expect(panel.getByTestId("account-user")).toHaveText(userName);
  await expect(panel.getByTestId("agent-keys-empty")).toBeVisible();
  const box = await panel.boundingBox();
  expect(box?.width ?? 0).toBeLessThanOrEqual(390);
  const overflow = await panel.evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "phone-dark-account");
  await phone.close();
});

test("repeated wrong passwords are slowed, with the wait shown", async ({ page, userName, stack }) => {
  await createAccount(stack, userName, PASSWORD);
  // Its own address, so the per-address limit does not slow the other tests of this worker.
  await page.setExtraHTTPHeaders({ "x-forwarded-for": "192.0.2.17" });
  await passwordSignIn(page, userName, "wrong 0");
  const error = page.getByTestId("sign-in-error");
  for (let i = 1; i <= 25; i += 1) {
    await expect(error).toHaveText(/Wrong user name|Too many attempts/);
    if (/Too many/.test((await error.textContent()) ?? "")) break;
    await page.getByTestId("sign-in-password").fill(`wrong ${i}`);
    await page.getByTestId("sign-in-submit").click();
    await expect(page.getByTestId("sign-in-submit")).toBeEnabled();
  }
  await expect(error).toHaveText(/^Too many attempts, try again in \d+ s\.$/);
});

test("a common password is refused with the reason (pasted, as a password manager would); a sign-in older than ten minutes is confirmed before an agent key is made", async ({
  page,
  context,
  stack,
  userName,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/");
  await page.getByTestId("show-sign-up").click();
  await page.getByTestId("sign-up-user").fill(userName);
  const password = page.getByTestId("sign-up-password");
  await expect(password).toHaveAttribute("type", "password");
  await expect(password).toHaveAttribute("autocomplete", "new-password");
  await page.evaluate(() => navigator.clipboard.writeText("Password123!"));
  await password.focus();
  await page.keyboard.press("ControlOrMeta+V");
  await expect(password).toHaveValue("Password123!");
  await page.getByTestId("sign-up-submit").click();
  await expect(page.getByTestId("sign-up-error")).toContainText("one of the most common passwords");
  await password.fill(PASSWORD);
  await page.getByTestId("sign-up-submit").click();
  await expect(page.getByTestId("current-user")).toContainText(userName);

  // Signed in eleven minutes ago (a laptop left open): making a key asks who this is first.
  await sql(stack, "UPDATE web_sessions SET created_at = now() - interval '11 minutes' WHERE user_id = $1", userName);
  const before = (await context.cookies()).find((c) => c.name === "parley_session")?.value;
  await page.getByTestId("open-account").click();
  const panel = page.getByTestId("account-panel");
  await panel.getByTestId("agent-key-agent").fill("late-bot");
  await panel.getByTestId("create-agent-key").click();
  const dialog = page.getByTestId("reauth-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId("reauth-password")).toHaveAttribute("autocomplete", "current-password");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-reauth");
  await dialog.getByTestId("reauth-cancel").click();
  await expect(dialog).toHaveCount(0);
  await expect(panel.getByText("Not confirmed: nothing was changed.")).toBeVisible();
  await expect(panel.getByTestId("agent-key-row")).toHaveCount(0);

  await panel.getByTestId("create-agent-key").click();
  await dialog.getByTestId("reauth-password").fill("not my password at all");
  await dialog.getByTestId("reauth-password-submit").click();
  await expect(dialog.getByTestId("reauth-error")).toHaveText("Wrong user name, email or password.");
  await expect(page.getByTestId("session-expired")).toHaveCount(0);
  await dialog.getByTestId("reauth-password").fill(PASSWORD);
  await dialog.getByTestId("reauth-password-submit").click();
  await expect(dialog).toHaveCount(0);
  await expect(panel.getByTestId("agent-key-secret-box")).toBeVisible();
  await expect(panel.locator('[data-testid="agent-key-row"][data-agent="late-bot"]')).toHaveCount(1);
  // Confirming was a sign-in: a new session, and the old cookie is worth nothing.
  const after = (await context.cookies()).find((c) => c.name === "parley_session")?.value;
  expect(after).toBeTruthy();
  expect(after).not.toBe(before);
  const old = await fetch(`${stack.apiUrl}/api/auth/me`, { headers: { cookie: `parley_session=${before}` } });
  expect(old.status).toBe(401);
});
