import { describe, expect, it } from "vitest";
import { isIpLiteral, passkeyHostProblem } from "@/lib/passkey-host";

describe("isIpLiteral", () => {
  it("knows addresses from names", () => {
    for (const ip of ["127.0.0.1", "10.0.0.5", "192.168.1.20", "[::1]", "::1", "[2001:db8::1]"]) {
      expect(isIpLiteral(ip), ip).toBe(true);
    }
    for (const name of ["localhost", "parley.example.com", "my-box", "127.0.0.1.nip.io", "1.2.3"]) {
      expect(isIpLiteral(name), name).toBe(false);
    }
  });
});

describe("passkeyHostProblem", () => {
  it("is nothing at a name", () => {
    expect(passkeyHostProblem("http://localhost:3400/c/2")).toBeNull();
    expect(passkeyHostProblem("https://chat.example.com/")).toBeNull();
  });

  it("sends a loopback address to localhost on the same port", () => {
    expect(passkeyHostProblem("http://127.0.0.1:3400/c/2")).toBe(
      "Passkeys need a name, not an IP: open http://localhost:3400",
    );
    expect(passkeyHostProblem("http://[::1]:3000/")).toBe("Passkeys need a name, not an IP: open http://localhost:3000");
    expect(passkeyHostProblem("http://127.0.0.1/")).toBe("Passkeys need a name, not an IP: open http://localhost");
  });

  it("asks for the host name at another address", () => {
    expect(passkeyHostProblem("http://192.168.1.20:3000/")).toBe(
      "Passkeys need a name, not an IP: open this site by its host name",
    );
  });
});
