import type { Page } from "@playwright/test";
import { expect, expectNoSeriousA11yViolations, screenshot, test } from "./support/fixtures";
import type { Stack } from "./support/stack";

const GRANT = "urn:ietf:params:oauth:grant-type:device_code";

interface Started {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
}

/** What `parley connect` does first: ask for a code for this machine. */
async function startDevice(stack: Stack, machine: string): Promise<Started> {
  const response = await fetch(`${stack.apiUrl}/oauth/device_authorization`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: "parley-cli", application: "claude-code", machine }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as Started;
}

/** One poll of the token endpoint, as the terminal makes it. */
async function poll(stack: Stack, deviceCode: string): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${stack.apiUrl}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: GRANT, device_code: deviceCode, client_id: "parley-cli" }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

async function signInHere(page: Page, userName: string): Promise<void> {
  await page.getByTestId("dev-sign-in-name").fill(userName);
  await page.getByTestId("dev-sign-in-submit").click();
}

test("Device sign-in: the code from the terminal, prefilled, shows what asks; approving gives the terminal a token for the person", async ({
  page,
  stack,
  userName,
}) => {
  const started = await startDevice(stack, "e2e-laptop");
  expect(started.user_code).toMatch(/^[B-Z]{4}-[B-Z]{4}$/);
  expect(new URL(started.verification_uri).pathname).toBe("/device");
  // The terminal's link, opened in a browser not yet signed in: sign in first, then the page.
  await page.goto(`/device?user_code=${encodeURIComponent(started.user_code)}`);
  await signInHere(page, userName);
  const screen = page.getByTestId("device-sign-in");
  await expect(screen.getByTestId("device-code")).toHaveValue(started.user_code);
  await screen.getByTestId("device-continue").click();
  await expect(screen.getByTestId("device-asks")).toContainText("Claude Code on e2e-laptop wants to act for you");
  await expect(screen.getByTestId("device-application")).toHaveText("Claude Code");
  await expect(screen.getByTestId("device-machine")).toHaveText("e2e-laptop");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-device-sign-in");

  await screen.getByTestId("device-approve").click();
  await expect(screen.getByTestId("device-answered")).toHaveAttribute("data-decision", "allow");
  // the terminal's poll gets a token for this person, once
  const polled = await poll(stack, started.device_code);
  expect(polled.status, JSON.stringify(polled.body)).toBe(200);
  const me = await fetch(`${stack.apiUrl}/api/auth/me`, { headers: { authorization: `Bearer ${polled.body.access_token}` } });
  expect(((await me.json()) as { user_id: string }).user_id).toBe(userName);
  expect((await poll(stack, started.device_code)).status).toBe(400);
});

test("Device sign-in: a wrong code is said plainly; a denied code tells the terminal access_denied", async ({ page, stack, userName }) => {
  const started = await startDevice(stack, "ci-runner");
  await page.goto("/device");
  await signInHere(page, userName);
  const screen = page.getByTestId("device-sign-in");
  const wrong = started.user_code === "BBBB-BBBB" ? "CCCC-CCCC" : "BBBB-BBBB";
  await screen.getByTestId("device-code").fill(wrong.toLowerCase());
  await screen.getByTestId("device-continue").click();
  await expect(screen.getByTestId("device-error")).toContainText("unknown, already answered or expired");
  // typed the way people do: lower case, no dash
  await screen.getByTestId("device-code").fill(started.user_code.replace("-", "").toLowerCase());
  await screen.getByTestId("device-continue").click();
  await expect(screen.getByTestId("device-machine")).toHaveText("ci-runner");
  await screen.getByTestId("device-deny").click();
  await expect(screen.getByTestId("device-answered")).toHaveAttribute("data-decision", "deny");
  const polled = await poll(stack, started.device_code);
  expect(polled.status).toBe(400);
  expect(polled.body.error).toBe("access_denied");
});
