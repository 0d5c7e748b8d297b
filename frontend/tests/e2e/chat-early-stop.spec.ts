import { expect, lastReply, modelTest as test, sendMessage, signIn } from "./support/fixtures";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test("Stop pressed before a new chat has its address stops the reply on the server: one Stopped marker, also after a reload", async ({
      page,
      userName,
    }) => {
      await signIn(page, userName);
      // The new chat's request is held until Stop has been pressed, so its id cannot have
      // arrived yet; then it goes on to the server as sent. A request the page has given up
      // on by then (Playwright answers its continue with "aborted") is the page's business:
      // what the person sees is asserted below.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route("**/chat", async (route) => {
        if (route.request().method() === "POST") await held;
        await route.continue().catch((error: unknown) => {
          if (!String(error).includes("aborted")) throw error;
        });
      });
      await sendMessage(page, "stay silent"); // the fake model writes nothing until stopped
      await expect(page.getByTestId("streaming-message")).toBeVisible();
      await expect(page.getByTestId("chat-title")).toHaveAttribute("data-conversation-id", "");
      await page.getByTestId("stop-button").click();
      release();

      const stopped = lastReply(page);
      await expect(stopped.getByTestId("stopped-note")).toHaveText("Stopped", { timeout: 20_000 });
      await expect(page.getByTestId("stop-button")).toHaveCount(0);
      await expect(page.getByTestId("stopped-note")).toHaveCount(1);
      await expect(page.getByTestId("chat-error")).toHaveCount(0);
      await expect(page).toHaveURL(/\/c\/\d+$/);

      // The server stopped it (not just this tab): stored as stopped, nothing still running.
      await page.unroute("**/chat");
      await page.reload();
      await expect(lastReply(page).getByTestId("stopped-note")).toHaveText("Stopped");
      await expect(page.getByTestId("stopped-note")).toHaveCount(1);
      await expect(page.getByTestId("remote-streaming-message")).toHaveCount(0);
      await expect(page.getByTestId("stop-button")).toHaveCount(0);
    });
  });
}
