import { collectDialogs, expect, lastReply, modelTest as test, sendMessage, signIn } from "./support/fixtures";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test("code blocks are highlighted, name their language, copy per block and scroll long lines", async ({ page, userName }) => {
      const dialogs = collectDialogs(page);
      await signIn(page, userName);
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
      await sendMessage(page, "markdown please");
      const python = lastReply(page).getByTestId("code-block");
      await expect(python).toHaveAttribute("data-highlighted", "true");
      await expect(python.getByTestId("code-language")).toHaveText("python");
      // Coloured by the highlighter: the string literal's colour differs from the call's.
      const colours = await python.locator("pre code span[style]").evaluateAll((spans) =>
        spans.map((span) => getComputedStyle(span).color),
      );
      expect(new Set(colours).size).toBeGreaterThan(1);
      await python.getByTestId("copy-code").click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("print('hello')");
      // The reply's raw HTML is still text.
      await expect(lastReply(page).locator("img")).toHaveCount(0);

      await sendMessage(page, "longcode please");
      const ts = lastReply(page).getByTestId("code-block");
      await expect(ts).toHaveAttribute("data-highlighted", "true");
      await expect(ts.getByTestId("code-language")).toHaveText("ts");
      const pre = ts.locator("pre");
      const { scrollWidth, clientWidth } = await pre.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
      expect(scrollWidth).toBeGreaterThan(clientWidth);
      // The block scrolls; the page does not.
      const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(pageWidth).toBeLessThanOrEqual(size.viewport.width);
      expect(dialogs).toEqual([]);
    });
  });
}
