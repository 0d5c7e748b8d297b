import { expect, expectNoCredentialInScriptReach, screenshot, test } from "./support/fixtures";

test("sign in with the team's identity provider (a local oidc-provider): the first time makes the account, the next signs in to it", async ({
  page,
  context,
  oidcStack,
  oidcProvider,
  userName,
}) => {
  await oidcProvider.setIdentity({
    sub: `sub-${userName}`,
    email: `${userName}@example.test`,
    email_verified: true,
    preferred_username: userName,
    name: "Test Person",
  });
  // The redirect URI is on the API's first web origin, so the flow starts there.
  await page.goto(oidcStack.localhostUrl);
  const button = page.getByTestId("sign-in-oidc");
  await expect(button).toHaveText("Sign in with Test IdP");

  let firstUserId = "";
  for (const round of ["first sign-in", "second sign-in"]) {
    await test.step(round, async () => {
      await button.click();
      // Through the provider (no login page: it signs in its current identity) and back.
      await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
      expect(new URL(page.url()).origin).toBe(oidcStack.localhostUrl);
      const userId = ((await page.getByTestId("current-user").textContent()) ?? "").replace("Signed in as ", "").trim();
      expect(userId).not.toBe("");
      if (firstUserId) expect(userId).toBe(firstUserId);
      firstUserId = userId;
      await page.getByTestId("open-account").click();
      await expect(page.getByTestId("account-panel")).toContainText(`${userName}@example.test`);
      await expectNoCredentialInScriptReach(page, context);
      await screenshot(page, "desktop-oidc-signed-in");
      await page.getByTestId("account-sign-out").click();
      await expect(page.getByTestId("sign-in-screen")).toBeVisible();
    });
  }
});

test("a sign-in the identity provider refused comes back to a plain message, once", async ({ page, oidcStack }) => {
  // What the provider does when the person cancels: back to the callback with an error.
  await page.goto(`${oidcStack.localhostUrl}/api/auth/oidc/callback?error=access_denied`);
  await expect(page.getByTestId("sign-in-error")).toHaveText(
    "Signing in with your identity provider did not work. Try again, or use your password.",
  );
  await expect(page).toHaveURL(`${oidcStack.localhostUrl}/`);
  await page.reload();
  await expect(page.getByTestId("sign-in-screen")).toBeVisible();
  await expect(page.getByTestId("sign-in-error")).toHaveCount(0);
});
