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
