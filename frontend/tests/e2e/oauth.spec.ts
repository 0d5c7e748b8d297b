import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "@playwright/test";
import { expect, expectNoSeriousA11yViolations, screenshot, test } from "./support/fixtures";
import { sql } from "./support/database";
import type { Stack } from "./support/stack";

/** The client's loopback redirect: a real listener, as a native MCP client runs one. */
let CALLBACK = "";
let callbackServer: Server | null = null;

test.beforeAll(async () => {
  callbackServer = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.end("back at the client");
  });
  await new Promise<void>((resolve) => callbackServer?.listen(0, "127.0.0.1", resolve));
  CALLBACK = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
});

test.afterAll(async () => {
  await new Promise((resolve) => callbackServer?.close(resolve));
});

interface Client {
  client_id: string;
}

async function registerClient(stack: Stack, name: string): Promise<Client> {
  const response = await fetch(`${stack.apiUrl}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as Client;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** The client opens the person's browser at the authorize endpoint. */
async function startAuthorize(page: Page, stack: Stack, client: Client, challenge: string): Promise<void> {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: CALLBACK,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "xyz",
    resource: `${stack.apiUrl}/mcp`,
  });
  await page.goto(`${stack.apiUrl}/authorize?${query.toString()}`);
}

async function callbackQuery(page: Page): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.href.startsWith(CALLBACK));
  return new URL(page.url()).searchParams;
}

async function mcpStatus(stack: Stack, token: string): Promise<number> {
  const response = await fetch(`${stack.apiUrl}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, accept: "application/json, text/event-stream", "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

test("OAuth: an MCP client's sign-in asks the person (signed in first), names the agent; the connected app is listed and revoked", async ({
  page,
  stack,
  userName,
}) => {
  const client = await registerClient(stack, "Claude Code");
  const { verifier, challenge } = pkce();
  await startAuthorize(page, stack, client, challenge);

  // Not signed in at this origin: the sign-in screen first, then the consent page itself.
  await expect(page).toHaveURL(/\/oauth\/consent\?request=/);
  await page.getByTestId("dev-sign-in-name").fill(userName);
  await page.getByTestId("dev-sign-in-submit").click();
  const consent = page.getByTestId("oauth-consent");
  await expect(consent.getByTestId("consent-client-name")).toHaveText("Claude Code");
  await expect(consent.getByTestId("consent-client-host")).toHaveText(new URL(CALLBACK).host);
  await expect(consent.getByTestId("consent-agent")).toHaveValue("claude-code");
  await expect(consent).toContainText(`as ${userName}'s agent`);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, "desktop-oauth-consent");

  // A bad agent name is said plainly; then the person names it and allows.
  await consent.getByTestId("consent-agent").fill("not a name");
  await consent.getByTestId("consent-allow").click();
  await expect(consent.getByTestId("consent-error")).toBeVisible();
  await consent.getByTestId("consent-agent").fill("laptop-claude");
  await consent.getByTestId("consent-allow").click();
  const back = await callbackQuery(page);
  expect(back.get("state")).toBe("xyz");
  const code = back.get("code") ?? "";
  expect(code.length).toBeGreaterThan(20);

  const tokenResponse = await fetch(`${stack.apiUrl}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: CALLBACK, client_id: client.client_id, code_verifier: verifier }),
  });
  expect(tokenResponse.status).toBe(200);
  const { access_token: access } = (await tokenResponse.json()) as { access_token: string };
  expect(await mcpStatus(stack, access)).toBe(200);

  // The connected app, beside the agent keys, revoked in one click: its next call is refused.
  await page.goto(`${stack.localhostUrl}/`);
  await page.getByTestId("open-account").click();
  const apps = page.getByTestId("account-panel").getByTestId("connected-apps-section");
  const row = apps.getByTestId("connected-app-row");
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute("data-agent", "laptop-claude");
  await expect(row).toContainText("Claude Code");
  await screenshot(page, "desktop-account-connected-apps");
  await row.getByTestId("revoke-connected-app").click();
  await expect(apps.getByTestId("connected-apps-empty")).toBeVisible();
  await expect.poll(() => mcpStatus(stack, access)).toBe(401);
});

test("OAuth: a person who denies sends the client back with access_denied and nothing is connected", async ({ page, stack, userName }) => {
  const client = await registerClient(stack, "Some Tool");
  await startAuthorize(page, stack, client, pkce().challenge);
  await page.getByTestId("dev-sign-in-name").fill(userName);
  await page.getByTestId("dev-sign-in-submit").click();
  const consentUrl = page.url();
  await page.getByTestId("consent-deny").click();
  const back = await callbackQuery(page);
  expect(back.get("error")).toBe("access_denied");
  expect(back.get("code")).toBeNull();
  await page.goto(`${stack.localhostUrl}/`);
  await page.getByTestId("open-account").click();
  await expect(page.getByTestId("connected-apps-empty")).toBeVisible();
  // The used request cannot be answered again.
  await page.goto(consentUrl);
  await expect(page.getByTestId("consent-gone")).toBeVisible();
});

test("OAuth: with a sign-in older than ten minutes, Allow waits until the person confirms it is them on the consent page", async ({
  page,
  stack,
  userName,
}) => {
  const client = await registerClient(stack, "Late Tool");
  const { challenge } = pkce();
  await startAuthorize(page, stack, client, challenge);
  await page.getByTestId("dev-sign-in-name").fill(userName);
  await page.getByTestId("dev-sign-in-submit").click();
  const consent = page.getByTestId("oauth-consent");
  await expect(consent.getByTestId("consent-allow")).toBeEnabled();
  await expect(consent.getByTestId("consent-lifetime")).toContainText("at most 90 days");

  // The same page opened by someone who finds the browser signed in long ago.
  await sql(stack, "UPDATE web_sessions SET created_at = now() - interval '11 minutes' WHERE user_id = $1", userName);
  await page.reload();
  await expect(consent.getByTestId("consent-reauth")).toBeVisible();
  await expect(consent.getByTestId("consent-allow")).toBeDisabled();
  await expectNoSeriousA11yViolations(page);

  await consent.getByTestId("reauth-dev").click();
  await expect(consent.getByTestId("consent-reauth")).toHaveCount(0);
  await consent.getByTestId("consent-agent").fill("late-tool");
  await consent.getByTestId("consent-allow").click();
  const back = await callbackQuery(page);
  expect(back.get("state")).toBe("xyz");
  expect((back.get("code") ?? "").length).toBeGreaterThan(20);
});
