import { createHmac } from "node:crypto";
import type { Page } from "@playwright/test";
import { createAccount, expect, expectNoSeriousA11yViolations, screenshot, test } from "./support/fixtures";

const PASSWORD = "correct horse battery staple";
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 6238 with its defaults (what authenticator apps do): HMAC-SHA1, 30 s steps, 6 digits. */
function totp(secret: string, stepsAhead = 0): string {
  let bits = "";
  for (const char of secret.replace(/=+$/, "").toUpperCase()) {
    bits += BASE32.indexOf(char).toString(2).padStart(5, "0");
  }
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 1000 / 30) + stepsAhead));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = mac.readUInt8(mac.length - 1) & 0x0f;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return value.toString().padStart(6, "0");
}

async function passwordSignIn(page: Page, login: string): Promise<void> {
  await page.goto("/");
  await page.getByTestId("sign-in-login").fill(login);
  await page.getByTestId("sign-in-password").fill(PASSWORD);
  await page.getByTestId("sign-in-submit").click();
}

test("an authenticator app: turned on in Account, then a password sign-in needs its code", async ({
  page,
  stack,
  userName,
}) => {
  await createAccount(stack, userName, PASSWORD);
  await passwordSignIn(page, userName);
  await expect(page.getByTestId("current-user")).toContainText(userName);

  await page.getByTestId("open-account").click();
  const section = page.getByTestId("account-panel").getByTestId("second-factor-section");
  await expect(section.getByTestId("second-factor-state")).toHaveText("Off");
  await section.getByTestId("second-factor-begin").click();
  const secret = ((await section.getByTestId("second-factor-secret").textContent()) ?? "").trim();
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await expect(section.getByTestId("second-factor-uri")).toContainText(`otpauth://totp/Parley:${userName}?secret=${secret}`);
  // a wrong code is refused, and the app stays off
  await section.getByTestId("second-factor-code").fill(totp(secret) === "000000" ? "111111" : "000000");
  await section.getByTestId("second-factor-confirm").click();
  await expect(section.getByTestId("second-factor-error")).toContainText("not right");
  await section.getByTestId("second-factor-code").fill(totp(secret));
  await section.getByTestId("second-factor-confirm").click();
  await expect(section.getByTestId("second-factor-state")).toHaveText("On · 10 recovery codes left");
  const codes = ((await section.getByTestId("second-factor-recovery-codes").textContent()) ?? "").trim().split("\n");
  expect(codes).toHaveLength(10);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-account-second-factor");

  await page.keyboard.press("Escape");
  await expect(page.getByTestId("account-panel")).toHaveCount(0);
  await page.getByTestId("open-account").click();
  // the secret and the codes are not shown again
  await expect(page.getByTestId("second-factor-secret")).toHaveCount(0);
  await expect(page.getByTestId("second-factor-recovery-codes")).toHaveCount(0);
  await page.getByTestId("account-sign-out").click();

  // the password alone signs nobody in: the code is asked for
  await passwordSignIn(page, userName);
  await expect(page.getByTestId("sign-in-code-screen")).toBeVisible();
  await page.getByTestId("sign-in-code").fill(totp(secret) === "000000" ? "111111" : "000000");
  await page.getByTestId("sign-in-code-submit").click();
  await expect(page.getByTestId("sign-in-code-error")).toContainText("not right");
  await expect(page.getByTestId("current-user")).toHaveCount(0);
  await screenshot(page, "desktop-sign-in-code");
  // the next step's code (the confirming one was used up), within the drift allowed
  await page.getByTestId("sign-in-code").fill(totp(secret, 1));
  await page.getByTestId("sign-in-code-submit").click();
  await expect(page.getByTestId("current-user")).toContainText(userName);

  // a recovery code works once, instead of the app's code
  await page.getByTestId("open-account").click();
  await page.getByTestId("account-sign-out").click();
  await passwordSignIn(page, userName);
  await page.getByTestId("sign-in-code").fill(codes[0] ?? "");
  await page.getByTestId("sign-in-code-submit").click();
  await expect(page.getByTestId("current-user")).toContainText(userName);
  await page.getByTestId("open-account").click();
  await expect(page.getByTestId("second-factor-state")).toHaveText("On · 9 recovery codes left");
});
