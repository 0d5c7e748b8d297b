import type { Page, Route } from "@playwright/test";
import { expect, signIn, test } from "./support/fixtures";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

/**
 * Makes GETs of `pattern` fail with a server error, until `release` is called; `failures()`
 * counts the refused reads, so a test waits on the client's own retries. (An outage, a 502
 * from the proxy, is the banner's to say, not the panels': z-api-outage.spec.ts.)
 */
async function outage(page: Page, pattern: string) {
  let down = true;
  let refused = 0;
  await page.route(pattern, async (route: Route) => {
    if (!down || route.request().method() !== "GET") return route.fallback();
    refused += 1;
    await route.fulfill({
      status: 500,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: "internal_error", message: "Something went wrong on the server." } }),
    });
  });
  return { failures: () => refused, release: () => void (down = false) };
}

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test("the Tasks panel's and the conversation list's errors clear by themselves once the API answers again", async ({ page, userName }) => {
      await signIn(page, userName);
      const tasks = await outage(page, `**/api/${userName}/tasks?*`);
      const list = await outage(page, `**/api/${userName}/conversations`);
      await page.reload();
      await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
      if (size.name === "phone") await page.getByTestId("open-tasks").click();
      await expect(page.getByTestId("tasks-error")).toBeVisible();
      // Several retries have failed: the client's backoff has had time to grow.
      await expect.poll(() => Math.min(tasks.failures(), list.failures()), { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
      tasks.release();
      list.release();

      await expect(page.getByTestId("tasks-error")).toHaveCount(0, { timeout: 6_000 });
      await expect(page.getByTestId("tasks-empty")).toBeVisible();
      if (size.name === "phone") {
        await page.keyboard.press("Escape");
        await page.getByTestId("open-conversations").click();
      }
      const conversations = page.getByRole("region", { name: "Conversations" });
      await expect(conversations.getByRole("alert")).toHaveCount(0, { timeout: 6_000 });
    });
  });
}
