import type { Page } from "@playwright/test";
import { linkingTest as test } from "./support/linking-fixtures";
import { createAccount, expect, expectNoSeriousA11yViolations, screenshot } from "./support/fixtures";
import type { MailSink } from "./support/mail";

const PASSWORD = "a linking password, long enough";

async function signInWithPassword(page: Page, login: string): Promise<void> {
  await page.goto("/");
  await page.getByTestId("sign-in-login").fill(login);
  await page.getByTestId("sign-in-password").fill(PASSWORD);
  await page.getByTestId("sign-in-submit").click();
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
}

async function signOut(page: Page): Promise<void> {
  await page.getByTestId("open-account").click();
  await page.getByTestId("account-sign-out").click();
  await expect(page.getByTestId("sign-in-screen")).toBeVisible();
}

async function currentUser(page: Page): Promise<string> {
  return ((await page.getByTestId("current-user").textContent()) ?? "").replace("Signed in as ", "").trim();
}

/** Sends a verification link from the open Account dialog and returns it, as mailed. */
async function sendLink(page: Page, mailSink: MailSink, email: string): Promise<string> {
  const panel = page.getByTestId("account-panel");
  await panel.getByTestId("send-verification").click();
  await expect(panel.getByTestId("email-message")).toContainText(`A link is on its way to ${email}`);
  let link: string | undefined;
  await expect.poll(async () => (link = await mailSink.verificationLink(email))).toBeTruthy();
  return link ?? "";
}

test("Account verifies the email by a mailed link and links single sign-on; both then sign the person in", async ({
  page,
  linkingStack,
  linkingProvider,
  mailSink,
  userName,
}) => {
  const email = `${userName}@example.test`;
  await createAccount(linkingStack, userName, PASSWORD, email);
  await signInWithPassword(page, userName);
  await page.getByTestId("open-account").click();
  const panel = page.getByTestId("account-panel");
  await expect(panel.getByTestId("account-email")).toHaveText(email);
  await expect(panel.getByTestId("email-status")).toHaveText("not verified");
  await expect(panel.getByTestId("sso-status")).toContainText("Not linked");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-account-email-unverified");

  const link = await sendLink(page, mailSink, email);
  expect(new URL(link).origin).toBe(linkingStack.localhostUrl);
  await page.goto(link);
  await expect(page.getByTestId("verify-email-result")).toHaveText(`Your email ${email} is verified: you can sign in with it.`);
  await page.getByRole("link", { name: "Back to Parley" }).click();
  await page.getByTestId("open-account").click();
  await expect(panel.getByTestId("email-status")).toHaveText("verified");
  await expect(panel.getByTestId("send-verification")).toHaveCount(0);

  // Link the team's identity provider to this account, while signed in to it.
  await linkingProvider.setIdentity({
    sub: `sub-${userName}`,
    email: `${userName}@idp.example`,
    email_verified: true,
    preferred_username: `${userName}-idp`,
    name: "Linking Person",
  });
  await panel.getByTestId("link-sso").click();
  // Through the provider and back: the dialog opens again with the outcome.
  await expect(page.getByTestId("sso-message")).toHaveText("Single sign-on is linked: you can now sign in to this account with it.");
  await expect(page.getByTestId("sso-status")).toContainText("Linked: signing in with Test IdP opens this account.");
  await expect(page.getByTestId("link-sso")).toHaveCount(0);
  expect(new URL(page.url()).search).toBe("");
  await screenshot(page, "desktop-account-sso-linked");
  await page.keyboard.press("Escape");

  // The verified email now signs in, and so does the provider.
  await signOut(page);
  await signInWithPassword(page, email.toUpperCase());
  expect(await currentUser(page)).toBe(userName);
  await signOut(page);
  await page.getByTestId("sign-in-oidc").click();
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  expect(await currentUser(page)).toBe(userName);
});

test("single sign-on never joins an account that only claims the person's name and email, and says so", async ({
  page,
  linkingStack,
  linkingProvider,
  userName,
}) => {
  // Someone made an account under the person's user name and email (unverified) first.
  const email = `${userName}@victim.example`;
  await createAccount(linkingStack, userName, PASSWORD, email);
  await linkingProvider.setIdentity({ sub: `victim-${userName}`, email, email_verified: true, preferred_username: userName, name: "Victim" });
  await page.goto("/");
  await page.getByTestId("sign-in-oidc").click();
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  const notice = page.getByTestId("sso-notice");
  await expect(notice).toContainText(`Single sign-on opened a new account, ${userName}-2`);
  await expect(notice).toContainText('choose "Link single sign-on" under Account');
  expect(await currentUser(page)).toBe(`${userName}-2`);
  expect(new URL(page.url()).search).toBe("");
  await screenshot(page, "desktop-sso-new-account-notice");
  await page.getByTestId("sso-notice-dismiss").click();
  await expect(notice).toHaveCount(0);
  await page.getByTestId("open-account").click();
  await expect(page.getByTestId("email-status")).toHaveText("verified"); // the provider's
  await page.keyboard.press("Escape");

  // The claimant cannot link that identity to their account either: it is the person's.
  await signOut(page);
  await signInWithPassword(page, userName);
  await page.getByTestId("open-account").click();
  await page.getByTestId("link-sso").click();
  await expect(page.getByTestId("sso-message")).toHaveText(
    "That single sign-on identity is already linked to another Parley account, so it was not linked here.",
  );
  await expect(page.getByTestId("sso-status")).toContainText("Not linked");
  expect(await currentUser(page)).toBe(userName);
});

test("a verification link opened signed in to another account verifies nothing; its own account's does", async ({
  page,
  browser,
  linkingStack,
  mailSink,
  userName,
}) => {
  const email = `${userName}@example.test`;
  await createAccount(linkingStack, userName, PASSWORD, email);
  await createAccount(linkingStack, `${userName}-other`, PASSWORD);
  await signInWithPassword(page, userName);
  await page.getByTestId("open-account").click();
  const link = await sendLink(page, mailSink, email);

  const theirs = await browser.newContext({ baseURL: linkingStack.localhostUrl });
  const other = await theirs.newPage();
  await signInWithPassword(other, `${userName}-other`);
  await other.goto(link);
  await expect(other.getByTestId("verify-email-result")).toContainText(
    `This link verifies the email of another account, not ${userName}-other's. Nothing changed.`,
  );
  await theirs.close();

  await page.goto(link);
  await expect(page.getByTestId("verify-email-result")).toHaveText(`Your email ${email} is verified: you can sign in with it.`);
});
