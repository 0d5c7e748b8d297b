import { expect, expectNoSeriousA11yViolations, screenshot, signIn, test } from "./support/fixtures";

test("sign in with a name, sign out", async ({ page, userName }) => {
  await signIn(page, userName);
  await expect(page.getByTestId("current-user")).toContainText(userName);
  await expect(page.getByTestId("offline-banner")).toContainText("OPENAI_API_KEY");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByLabel("Name")).toBeVisible();
});

test("an invalid name is explained before any request", async ({ page }) => {
  await page.goto("/");
  await page.getByLabel("Name").fill("not a valid name!");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("sign-in-error")).toContainText("no spaces");
  await screenshot(page, "desktop-sign-in-error");
});

test("a token the API rejects shows a clear screen with a way to sign in again", async ({ page, userName }) => {
  await signIn(page, userName);
  await page.evaluate((user) => {
    localStorage.setItem("parley.auth", JSON.stringify({ token: "not-a-valid-token", userId: user }));
  }, userName);
  await page.reload();
  const expired = page.getByTestId("session-expired");
  await expect(expired).toBeVisible();
  await expect(expired).toContainText("Your session has ended");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-session-expired");
  await expired.getByRole("button", { name: "Sign in again" }).click();
  await signIn(page, userName);
});
