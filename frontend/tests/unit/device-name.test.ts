import { describe, expect, it } from "vitest";
import { deviceName } from "@/lib/device-name";

describe("deviceName", () => {
  it("names common browsers and systems", () => {
    expect(
      deviceName("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36"),
    ).toBe("Headless Chrome on Linux");
    expect(
      deviceName(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 Edg/120.0",
      ),
    ).toBe("Edge on Windows");
    expect(
      deviceName("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"),
    ).toBe("Safari on iOS");
    expect(deviceName("Mozilla/5.0 (Macintosh; Intel Mac OS X 14.0; rv:121.0) Gecko/20100101 Firefox/121.0")).toBe("Firefox on macOS");
    expect(deviceName("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36")).toBe(
      "Chrome on Android",
    );
  });

  it("keeps an unknown agent readable, and says when there is none", () => {
    expect(deviceName("")).toBe("Unknown device");
    expect(deviceName("curl/8.5.0")).toBe("curl/8.5.0");
    expect(deviceName("x".repeat(100))).toHaveLength(60);
  });
});
