import { expect, lastReply, screenshot, sendMessage, signIn, test } from "./support/fixtures";
import { installFakeSpeech, removeSpeechApi } from "./support/fake-speech";

test("voice: interim text shows in the input, the final text is sent", async ({ page, userName }) => {
  await installFakeSpeech(page, { kind: "transcript", interim: "add a task to", final: "add a task to walk the dog", delayMs: 1500 });
  await signIn(page, userName);
  const mic = page.getByRole("button", { name: "Voice input" });
  const box = page.getByRole("textbox", { name: "Message" });

  await mic.click();
  await expect(mic).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("voice-status")).toContainText("Listening");
  await expect(box).toHaveValue("add a task to");
  await screenshot(page, "desktop-voice-listening");

  await expect(page.getByTestId("message").first()).toHaveText(/add a task to walk the dog/);
  await expect(lastReply(page)).toContainText("walk the dog");
  await expect(box).toHaveValue("");
  await expect(mic).toHaveAttribute("aria-pressed", "false");
  await expect(page.getByRole("region", { name: "Tasks" }).getByText("walk the dog")).toBeVisible();
  const lang = await page.evaluate(() => (window as unknown as { __speechLang: string }).__speechLang);
  expect(lang).toBe(await page.evaluate(() => navigator.language));
});

test("voice: with sending turned off the final text is left for review", async ({ page, userName }) => {
  await installFakeSpeech(page, { kind: "transcript", interim: "add a", final: "add a task to feed the cat", delayMs: 200 });
  await signIn(page, userName);
  await page.getByLabel("Send when I stop speaking").uncheck();
  await page.getByRole("button", { name: "Voice input" }).click();
  const box = page.getByRole("textbox", { name: "Message" });
  await expect(box).toHaveValue("add a task to feed the cat");
  await expect(page.getByTestId("message")).toHaveCount(0);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(lastReply(page)).toContainText("feed the cat");
});

test("voice: permission denied and no speech each give a clear state", async ({ page, userName }) => {
  await installFakeSpeech(page, { kind: "error", error: "not-allowed" });
  await signIn(page, userName);
  await page.getByRole("button", { name: "Voice input" }).click();
  const status = page.getByTestId("voice-status");
  await expect(status).toHaveAttribute("data-state", "denied");
  await expect(status).toContainText("Microphone permission was denied");
  await sendMessage(page, "add a task to buy milk");
  await expect(lastReply(page)).toContainText("buy milk");
});

test("voice: no speech heard gives a clear state", async ({ page, userName }) => {
  await installFakeSpeech(page, { kind: "error", error: "no-speech" });
  await signIn(page, userName);
  await page.getByRole("button", { name: "Voice input" }).click();
  await expect(page.getByTestId("voice-status")).toHaveAttribute("data-state", "no-speech");
  await expect(page.getByTestId("voice-status")).toContainText("No speech was heard");
});

for (const size of [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
]) {
  test(`voice: a browser without the Web Speech API shows no voice controls and chat still works (${size.name} width)`, async ({ page, userName }) => {
    await page.setViewportSize(size.viewport);
    await removeSpeechApi(page);
    await signIn(page, userName);
    await expect(page.getByTestId("message-input")).toBeVisible();
    // No control that can do nothing: no mic, no "send when I stop speaking", no voice mode,
    // and no red paragraph under the box.
    await expect(page.getByRole("button", { name: "Voice input" })).toHaveCount(0);
    await expect(page.getByTestId("voice-auto-send")).toHaveCount(0);
    await expect(page.getByTestId("voice-mode")).toHaveCount(0);
    await expect(page.getByTestId("voice-status")).toHaveText("");
    await expect(page.getByTestId("voice-status")).not.toHaveClass(/problem/);
    await sendMessage(page, "add a task to buy milk");
    await expect(lastReply(page)).toContainText("buy milk");
    await screenshot(page, `${size.name}-no-voice`);
  });
}
