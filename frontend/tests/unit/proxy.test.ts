import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/[...path]/route";
import { clientAddress, PEER_FORWARDED } from "@/lib/proxy-config";

let upstream: Server;
let seen: IncomingHttpHeaders = {};

beforeAll(async () => {
  // A real HTTP server in the API's place: it records what reached it and sets two cookies.
  upstream = createServer((req, res) => {
    seen = req.headers;
    res.setHeader("set-cookie", ["parley_session=abc; HttpOnly; Path=/; SameSite=Lax", "parley_oidc=xyz; HttpOnly; Path=/api/auth"]);
    res.setHeader("content-type", "application/json");
    res.setHeader("x-internal", "secret");
    res.end("{}");
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  process.env.PARLEY_API_URL = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});

describe("the API proxy", () => {
  it("sends the session cookie, origin, device, email link and client address, and nothing else unlisted", async () => {
    process.env[PEER_FORWARDED] = "1"; // as server.mjs, which wrote x-forwarded-for from the socket
    const request = new NextRequest("http://127.0.0.1:3000/api/auth/login", {
      method: "POST",
      headers: {
        cookie: "parley_session=abc",
        origin: "http://127.0.0.1:3000",
        "user-agent": "Test Browser 1.0",
        "x-parley-device": "12",
        "x-parley-via": "email_link",
        "x-forwarded-for": "198.51.100.7, 203.0.113.9",
        "x-secret-header": "nope",
        "content-type": "application/json",
      },
      body: JSON.stringify({ login: "ann", password: "pw" }),
    });
    const response = await POST(request);
    expect(response.status).toBe(200);
    expect(seen.cookie).toBe("parley_session=abc");
    expect(seen.origin).toBe("http://127.0.0.1:3000");
    expect(seen["user-agent"]).toBe("Test Browser 1.0");
    expect(seen["x-parley-device"]).toBe("12");
    expect(seen["x-parley-via"]).toBe("email_link");
    expect(seen["x-forwarded-for"]).toBe("203.0.113.9");
    expect(seen["x-secret-header"]).toBeUndefined();
  });

  it("passes every Set-Cookie back as its own header, and no unlisted header", async () => {
    const response = await GET(new NextRequest("http://127.0.0.1:3000/api/auth/me"));
    expect(response.headers.getSetCookie()).toEqual([
      "parley_session=abc; HttpOnly; Path=/; SameSite=Lax",
      "parley_oidc=xyz; HttpOnly; Path=/api/auth",
    ]);
    expect(response.headers.get("x-internal")).toBeNull();
  });

  it("forwards the address server.mjs wrote, and `unknown` when not served by it", async () => {
    expect(clientAddress(null, true)).toBe("unknown");
    expect(clientAddress("10.0.0.1", true)).toBe("10.0.0.1");
    expect(clientAddress("1.1.1.1,  10.0.0.2 ", true)).toBe("10.0.0.2");
    // Under plain `next start` the header is whatever the browser sent: never believed.
    expect(clientAddress("127.0.0.1", false)).toBe("unknown");
    delete process.env[PEER_FORWARDED];
    const request = new NextRequest("http://127.0.0.1:3000/api/auth/dev-login", {
      method: "POST",
      headers: { "x-forwarded-for": "127.0.0.1", "content-type": "application/json" },
      body: "{}",
    });
    expect((await POST(request)).status).toBe(200);
    expect(seen["x-forwarded-for"]).toBe("unknown");
  });
});
