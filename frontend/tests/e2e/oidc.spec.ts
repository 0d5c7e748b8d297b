import {
  apiHasRoute,
  expect,
  expectNoCredentialInScriptReach,
  screenshot,
  test,
} from "./support/fixtures";

test("sign in with the team's identity provider (a local oidc-provider), first time and again", async ({
  page,
  context,
  oidcStack,
  userName,
}) => {
  test.fixme(!(await apiHasRoute(oidcStack, "/api/auth/oidc/login")), "the API has no OpenID Connect sign-in yet");
  // The provider's stock login page asks for a web font; there is no internet here.
  await context.route(/fonts\.googleapis\.com/, (route) => route.abort());
  // The redirect URI is on the API's first web origin, so the flow starts there.
  await page.goto(oidcStack.localhostUrl);
  const button = page.getByTestId("sign-in-oidc");
  await expect(button).toHaveText("Sign in with Test IdP");

  for (const round of ["first sign-in creates the account", "the next one signs in to it"]) {
    await test.step(round, async () => {
      await button.click();
      // The provider asks for a login, then consent, or (signed in there already) neither.
      const login = page.locator('input[name="login"]');
      const consent = page.getByRole("button", { name: "Continue" });
      const workspace = page.getByRole("textbox", { name: "Message" });
      for (let step = 0; step < 3 && !(await workspace.isVisible()); step += 1) {
        await expect(login.or(consent).or(workspace)).toBeVisible();
        if (await login.isVisible()) {
          expect(new URL(page.url()).origin).toBe(oidcStack.apiEnvValue("PARLEY_OIDC_ISSUER"));
          await login.fill(userName);
          await page.locator('input[name="password"]').fill("anything");
          await page.getByRole("button", { name: "Sign-in" }).click();
          await expect(login).toBeHidden();
        } else if (await consent.isVisible()) {
          await consent.click();
          await expect(consent).toBeHidden();
        }
      }
      await expect(workspace).toBeVisible();
      expect(new URL(page.url()).origin).toBe(oidcStack.localhostUrl);
      await page.getByTestId("open-account").click();
      await expect(page.getByTestId("account-panel")).toContainText(`${userName}@example.test`);
      await expectNoCredentialInScriptReach(page, context);
      await screenshot(page, "desktop-oidc-signed-in");
      await page.getByTestId("account-sign-out").click();
      await expect(page.getByTestId("sign-in-screen")).toBeVisible();
    });
  }
});
