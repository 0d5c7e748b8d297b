import { expect, expectNoSeriousA11yViolations, screenshot, test } from "./support/fixtures";

test("a passkey added in the account panel signs in alone (DevTools virtual authenticator)", async ({
  page,
  context,
  stack,
  userName,
}) => {
  // An IP address cannot be a WebAuthn relying party: this test uses the UI by name.
  const base = stack.localhostUrl;
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  await page.goto(base);
  await page.getByTestId("dev-sign-in-name").fill(userName);
  await page.getByTestId("dev-sign-in-submit").click();
  await page.getByTestId("open-account").click();
  const panel = page.getByTestId("account-panel");
  await panel.getByTestId("passkey-name").fill("test laptop");
  await panel.getByTestId("add-passkey").click();
  const row = panel.getByTestId("passkey-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("test laptop");
  await expect(row).toContainText("not used yet");
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]?.isResidentCredential).toBe(true);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-account-passkey");

  await panel.getByTestId("account-sign-out").click();
  await expect(page.getByTestId("sign-in-screen")).toBeVisible();
  await expect(async () => {
    expect((await context.cookies(base)).some((c) => c.name === "parley_session")).toBe(false);
  }).toPass();

  // No name, no password: the authenticator offers the passkey it holds for this site.
  await page.getByTestId("sign-in-login").fill("");
  await page.getByTestId("sign-in-passkey").click();
  await expect(page.getByTestId("current-user")).toContainText(userName);
  const after = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(after.credentials[0]?.signCount).toBeGreaterThan(0);

  // Removed, it no longer signs in.
  await page.getByTestId("open-account").click();
  await expect(row).toContainText("last used");
  await row.getByTestId("remove-passkey").click();
  await expect(row).toHaveCount(0);
  await panel.getByTestId("account-sign-out").click();
  await page.getByTestId("sign-in-passkey").click();
  await expect(page.getByTestId("sign-in-error")).toBeVisible();
  await expect(page.getByTestId("sign-in-screen")).toBeVisible();
});

test("at an IP address no passkey button is offered, and the UI says where passkeys work", async ({
  page,
  stack,
  userName,
}) => {
  const note = `Passkeys need a name, not an IP: open ${stack.localhostUrl}`;
  await page.goto(stack.webUrl);
  await expect(page.getByTestId("sign-in-screen")).toBeVisible();
  await expect(page.getByTestId("passkey-host-note")).toHaveText(note);
  await expect(page.getByTestId("sign-in-passkey")).toHaveCount(0);

  await page.getByTestId("dev-sign-in-name").fill(userName);
  await page.getByTestId("dev-sign-in-submit").click();
  await page.getByTestId("open-account").click();
  const section = page.getByTestId("passkeys-section");
  await expect(section.getByTestId("passkey-host-note")).toHaveText(note);
  await expect(section.getByTestId("add-passkey")).toHaveCount(0);
});
