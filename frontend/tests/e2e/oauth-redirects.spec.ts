import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page, Request } from "@playwright/test";
import { sql } from "./support/database";
import { collectDialogs, expect, test } from "./support/fixtures";
import { serviceWorker } from "./support/push";
import type { Stack } from "./support/stack";

/**
 * A malicious OAuth client's redirect URI against the real browser: the consent answer is a
 * form whose reply is the API's 303 (through the web UI's proxy) to the client, for Allow and
 * Deny, to a loopback and to an https client; a client or request stored with a `javascript:`
 * redirect never runs its script; every page has a Content-Security-Policy under which an
 * injected inline script does not run.
 */

let LOOPBACK_PORT = 0;
let loopback: Server | null = null;
const WEB_CLIENT = "https://app.example/cb";

test.beforeAll(async () => {
  loopback = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.end("back at the client");
  });
  await new Promise<void>((resolve) => loopback?.listen(0, "127.0.0.1", resolve));
  LOOPBACK_PORT = (loopback.address() as AddressInfo).port;
});

test.afterAll(async () => {
  await new Promise((resolve) => loopback?.close(resolve));
});

/** Calls the victim's own API with its session, then shows that it ran. */
function payload(user: string): string {
  return `javascript:fetch('/api/${user}/agent-keys',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({agent:'pwned'})}).then(()=>alert('ran'))//`;
}

async function register(stack: Stack, redirectUris: string[]): Promise<string> {
  const response = await fetch(`${stack.apiUrl}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Some Tool", redirect_uris: redirectUris, token_endpoint_auth_method: "none" }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { client_id: string }).client_id;
}

function authorizeUrl(stack: Stack, clientId: string, redirectUri: string): string {
  const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st",
    resource: `${stack.apiUrl}/mcp`,
  });
  return `${stack.apiUrl}/authorize?${query.toString()}`;
}

async function signInHere(page: Page, userName: string): Promise<void> {
  await page.getByTestId("dev-sign-in-name").fill(userName);
  await page.getByTestId("dev-sign-in-submit").click();
}

/** What the person's browser did: every request that added or listed an agent key, every URL its frame went to. */
function watch(page: Page): { keyWrites: string[]; frames: string[] } {
  const seen = { keyWrites: [] as string[], frames: [] as string[] };
  page.on("request", (request) => {
    if (request.url().includes("/agent-keys") && request.method() !== "GET") seen.keyWrites.push(request.url());
  });
  page.on("framenavigated", (frame) => seen.frames.push(frame.url()));
  return seen;
}

async function agentKeys(page: Page, stack: Stack, user: string): Promise<unknown[]> {
  const response = await page.request.get(`${stack.localhostUrl}/api/${user}/agent-keys`);
  expect(response.status()).toBe(200);
  return (await response.json()) as unknown[];
}

/** The request that brought the browser to `url`: it must be the redirect of the consent form's POST. */
async function arrivedByTheFormsRedirect(arrival: Request): Promise<void> {
  const from = arrival.redirectedFrom();
  expect(from, "the browser came to the client by the API's redirect").not.toBeNull();
  expect(from?.method()).toBe("POST");
  expect(new URL(from?.url() ?? "").pathname).toMatch(/^\/api\/oauth\/requests\//);
  const answer = await from?.response();
  expect(answer?.status()).toBe(303);
  expect(answer?.headers()["location"]).toBe(arrival.url());
}

for (const decision of ["allow", "deny"] as const) {
  test(`OAuth redirects: ${decision} lands on a loopback client and on an https client by the server's 303`, async ({
    page,
    stack,
    userName,
  }) => {
    const dialogs = collectDialogs(page);
    const seen = watch(page);
    // The https client: Chromium asks, Playwright answers in its place.
    await page.route("https://app.example/**", (route) => route.fulfill({ status: 200, contentType: "text/plain", body: "back at app.example" }));
    const clientId = await register(stack, ["http://127.0.0.1/callback", WEB_CLIENT]);
    const loopbackUri = `http://127.0.0.1:${LOOPBACK_PORT}/callback`;
    let signedIn = false;
    for (const [target, host, kind] of [
      [loopbackUri, `127.0.0.1:${LOOPBACK_PORT}`, "loopback"],
      [WEB_CLIENT, "app.example", null],
    ] as const) {
      await page.goto(authorizeUrl(stack, clientId, target));
      await expect(page).toHaveURL(/\/oauth\/consent\?request=/);
      if (!signedIn) await signInHere(page, userName);
      signedIn = true;
      const consent = page.getByTestId("oauth-consent");
      await expect(consent.getByTestId("consent-client-host")).toHaveText(host);
      if (kind) await expect(consent.getByTestId("consent-client-kind")).toHaveAttribute("data-kind", kind);
      else await expect(consent.getByTestId("consent-client-kind")).toHaveCount(0);
      const arrival = page.waitForRequest((request) => request.url().startsWith(`${target}?`) && request.isNavigationRequest());
      await consent.getByTestId(decision === "allow" ? "consent-allow" : "consent-deny").click();
      const arrived = await arrival;
      await arrivedByTheFormsRedirect(arrived);
      await page.waitForURL((url) => url.href.startsWith(`${target}?`));
      const back = new URL(page.url()).searchParams;
      expect(back.get("state")).toBe("st");
      expect(back.get("iss")).toBe(stack.apiUrl);
      if (decision === "allow") expect(back.get("code")?.length).toBeGreaterThan(20);
      else expect([back.get("error"), back.get("code")]).toEqual(["access_denied", null]);
      await expect(page.locator("body")).toContainText("back at");
    }
    expect(dialogs).toEqual([]);
    expect(seen.keyWrites).toEqual([]);
  });
}

test("OAuth redirects: a client or a request stored with a javascript: redirect never runs its script", async ({ page, stack, userName }) => {
  const dialogs = collectDialogs(page);
  const seen = watch(page);
  const evil = payload(userName);
  // Registration refuses it outright.
  const refused = await fetch(`${stack.apiUrl}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Evil", redirect_uris: [evil], token_endpoint_auth_method: "none" }),
  });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: string }).error).toBe("invalid_redirect_uri");

  // A client registered before the rule, as it sits in the database.
  const clientId = `old-${randomBytes(4).toString("hex")}`;
  const info = { client_id: clientId, client_name: "Evil", redirect_uris: [evil], token_endpoint_auth_method: "none", grant_types: ["authorization_code"], response_types: ["code"] };
  await sql(stack, "INSERT INTO oauth_clients (client_id, source, info) VALUES ($1, 'registered', $2::jsonb)", clientId, JSON.stringify(info));
  await page.goto(`${stack.localhostUrl}/`);
  await signInHere(page, userName);
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  for (const redirect of [evil, null]) {
    const url = new URL(authorizeUrl(stack, clientId, evil));
    if (redirect === null) url.searchParams.delete("redirect_uri"); // its only URI would be the default
    const response = await page.goto(url.href);
    expect(response?.status()).toBe(400);
    const shown = new URL(page.url()); // shown here, redirected nowhere
    expect(`${shown.origin}${shown.pathname}`).toBe(`${stack.apiUrl}/authorize`);
  }

  // A pending request stored with it (made before the rule): the consent page refuses to ask.
  const secret = randomBytes(32).toString("base64url");
  const data = {
    client_id: clientId,
    client_name: "Evil",
    redirect_uri: evil,
    redirect_uri_explicit: true,
    code_challenge: "x".repeat(43),
    state: "st",
    scopes: [],
    resource: `${stack.apiUrl}/mcp`,
  };
  await sql(
    stack,
    "INSERT INTO auth_challenges (id, purpose, data, expires_at) VALUES ($1, 'oauth_request', $2::jsonb, now() + interval '10 minutes')",
    createHash("sha256").update(secret).digest("hex"),
    JSON.stringify(data),
  );
  await page.goto(`${stack.localhostUrl}/oauth/consent?request=${secret}`);
  await expect(page.getByTestId("consent-refused")).toContainText("not allowed");
  await expect(page.getByTestId("consent-allow")).toHaveCount(0);
  // The answer posted anyway (an old page's form, both buttons) is refused and goes nowhere.
  for (const decision of ["allow", "deny"]) {
    await page.goto(`${stack.localhostUrl}/oauth/consent?request=${secret}`);
    await expect(page.getByTestId("consent-refused")).toBeVisible();
    const answer = page.waitForResponse((response) => response.request().method() === "POST" && response.url().includes("/api/oauth/requests/"));
    await page.evaluate(
      ({ secret, decision }) => {
        const form = document.createElement("form");
        form.method = "post";
        form.action = `/api/oauth/requests/${secret}`;
        for (const [name, value] of [["decision", decision], ["agent", "helper"]] as const) {
          const input = document.createElement("input");
          input.name = name;
          input.value = value;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      },
      { secret, decision },
    );
    const response = await answer;
    expect(response.status()).toBe(400);
    expect(response.headers()["location"]).toBeUndefined();
    // The browser shows the refusal where it posted: it went nowhere else.
    await page.waitForURL((url) => url.pathname === `/api/oauth/requests/${secret}`);
    await expect(page.locator("body")).toContainText("invalid_redirect_uri");
  }

  expect(dialogs).toEqual([]);
  expect(seen.keyWrites).toEqual([]);
  expect(seen.frames.filter((url) => url.startsWith("javascript:"))).toEqual([]);
  expect(await agentKeys(page, stack, userName)).toEqual([]);
  const apps = await page.request.get(`${stack.localhostUrl}/api/${userName}/connected-apps`);
  expect(await apps.json()).toEqual([]);
});

test("OAuth redirects: every page has a Content-Security-Policy, and an injected inline script does not run", async ({ page, stack, userName }) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (message.text().includes("Content Security Policy")) violations.push(message.text());
  });
  const nonces: string[] = [];
  for (const path of ["/", "/oauth/consent?request=x", "/invite/x", "/c/1", "/no-such-page"]) {
    const response = await page.request.get(`${stack.localhostUrl}${path}`);
    const headers = response.headers();
    const policy = headers["content-security-policy"] ?? "";
    const script = policy.split("; ").find((d) => d.startsWith("script-src ")) ?? "";
    expect(script, path).toMatch(/^script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}' 'strict-dynamic'$/);
    nonces.push(script);
    for (const directive of ["object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'"]) {
      expect(policy.split("; "), path).toContain(directive);
    }
    expect(headers["x-content-type-options"], path).toBe("nosniff");
    expect(headers["referrer-policy"], path).toBe("same-origin");
    // The page's scripts carry this response's nonce.
    const nonce = /'nonce-([^']+)'/.exec(script)?.[1] ?? "";
    expect(await response.text(), path).toContain(`nonce="${nonce}"`);
  }
  expect(new Set(nonces).size).toBe(nonces.length); // a fresh nonce per response
  const api = await page.request.get(`${stack.localhostUrl}/api/health`);
  expect(api.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(api.headers()["x-content-type-options"]).toBe("nosniff");

  // The consent page lets its form lead to its client only, and only to a redirect URI's shapes.
  const consentPolicy = async (client: string) =>
    ((await page.request.get(`${stack.localhostUrl}/oauth/consent?request=x&client=${encodeURIComponent(client)}`)).headers()["content-security-policy"] ?? "")
      .split("; ")
      .find((d) => d.startsWith("form-action"));
  expect(await consentPolicy("http://127.0.0.1:53682")).toBe("form-action 'self' http://127.0.0.1:53682");
  expect(await consentPolicy("com.example.app:")).toBe("form-action 'self' com.example.app:");
  for (const forged of ["javascript:", "*", "https:", "https://app.example; script-src *", "'unsafe-inline'"]) {
    expect(await consentPolicy(forged), forged).toBe("form-action 'self'");
  }

  // An injection into the page's HTML (a tag and a handler, no nonce) runs nothing, while the
  // page's own scripts still run: the person signs in.
  await page.route(`${stack.localhostUrl}/`, async (route) => {
    const original = await route.fetch();
    const html = (await original.text()).replace(
      "</body>",
      `<script>window.__injected = "script"</script><img src="/no-such.png" onerror="window.__injected = 'handler'"></body>`,
    );
    await route.fulfill({ response: original, body: html });
  });
  await page.goto(`${stack.localhostUrl}/`);
  await signInHere(page, userName);
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __injected?: string }).__injected)).toBeUndefined();
  await expect.poll(() => violations.length).toBeGreaterThanOrEqual(2);
  expect(violations.join("\n")).toContain("script-src");
  // And the page cannot be framed.
  const framed = await page.request.get(`${stack.localhostUrl}/`);
  expect(framed.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
});

test("OAuth redirects: the service worker opens only this site's own paths", async ({ page, context, stack }) => {
  // A notification's url is the server's; still, a parser reads `/\evil.example` as `//evil.example`.
  await page.goto(`${stack.localhostUrl}/`);
  const worker = await serviceWorker(context);
  const opened = await worker.evaluate(() => {
    const open = (self as unknown as { safeUrl: (url: unknown) => string }).safeUrl;
    return ["/c/1?question=2", "/\\evil.example", "/\t/evil.example", "//evil.example", "https://evil.example/", "javascript:alert(1)", 7].map(open);
  });
  expect(opened).toEqual(["/c/1?question=2", "/", "/", "/", "/", "/", "/"]);
});
