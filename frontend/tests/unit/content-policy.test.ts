import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, formTargetSource, newNonce } from "@/lib/content-policy";

function directives(policy: string): Map<string, string> {
  return new Map(policy.split("; ").map((d) => [d.split(" ")[0] ?? "", d.split(" ").slice(1).join(" ")]));
}

describe("the web UI's Content-Security-Policy", () => {
  it("runs only scripts with the page's nonce, and evaluates code only under next dev", () => {
    const built = directives(contentSecurityPolicy({ nonce: "abc", dev: false }));
    expect(built.get("script-src")).toBe("'self' 'nonce-abc' 'strict-dynamic'");
    expect(built.get("object-src")).toBe("'none'");
    expect(built.get("base-uri")).toBe("'none'");
    expect(built.get("frame-ancestors")).toBe("'none'");
    expect(built.get("form-action")).toBe("'self'");
    expect(contentSecurityPolicy({ nonce: "abc", dev: false })).not.toContain("unsafe-eval");
    expect(directives(contentSecurityPolicy({ nonce: "abc", dev: true })).get("script-src")).toContain("'unsafe-eval'");
  });

  it("lets the consent page's form lead to its client only", () => {
    const policy = directives(contentSecurityPolicy({ nonce: "n", dev: false, formTarget: "http://127.0.0.1:53682" }));
    expect(policy.get("form-action")).toBe("'self' http://127.0.0.1:53682");
  });

  it("makes a fresh nonce each time", () => {
    const nonces = new Set(Array.from({ length: 50 }, newNonce));
    expect(nonces.size).toBe(50);
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  });
});

describe("the consent page's client hint", () => {
  it("names an https origin, a loopback origin or an app's reverse-DNS scheme", () => {
    for (const hint of ["https://app.example", "https://app.example:8443", "http://127.0.0.1:53682", "http://localhost", "com.example.app:"]) {
      expect(formTargetSource(hint)).toBe(hint);
    }
    expect(formTargetSource("http://[::1]:8080")).toBe("http:"); // CSP has no IPv6 sources
  });

  it("names nothing else: no directive, keyword, wildcard, script scheme or other host", () => {
    for (const hint of [
      null,
      "",
      "*",
      "'unsafe-inline'",
      "https:",
      "http:",
      "javascript:",
      "data:",
      "blob:",
      "myapp:",
      "https://*.example",
      "https://app.example/cb",
      "https://app.example; script-src *",
      "https://app.example;script-src-elem",
      "https://a,b.example",
      "https://user@app.example",
      "HTTPS://app.example",
      "http://app.example",
      "http://127.0.0.2",
      "http://localhost.evil.com",
      "http://127.0.0.1.nip.io",
      "http://[::2]",
      "com.example.app: *",
      "com.example.app:/cb",
      " https://app.example",
      "https://app.example\n",
    ]) {
      expect(formTargetSource(hint), String(hint)).toBeNull();
    }
  });
});
