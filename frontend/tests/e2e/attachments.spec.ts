import { readFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import { expect, lastReply, modelTest, screenshot, sendMessage, signIn, test } from "./support/fixtures";

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

const NOTES = "The secret word is pineapple.\nSecond line.\n";
// 1x1 transparent PNG.
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** Drops files on the composer the way a browser does (a DataTransfer of File objects). */
async function dropFiles(page: Page, files: { name: string; type: string; text?: string; base64?: string }[]): Promise<void> {
  const dataTransfer = await page.evaluateHandle((entries) => {
    const transfer = new DataTransfer();
    for (const entry of entries) {
      const bytes = entry.base64 ? Uint8Array.from(atob(entry.base64), (c) => c.charCodeAt(0)) : new TextEncoder().encode(entry.text ?? "");
      transfer.items.add(new File([bytes], entry.name, { type: entry.type }));
    }
    return transfer;
  }, files);
  const composer = page.getByTestId("composer");
  await composer.dispatchEvent("dragover", { dataTransfer });
  await composer.dispatchEvent("drop", { dataTransfer });
}

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test("a dropped text file goes with the message: the model reads it, the message shows it, it downloads", async ({ page, userName }) => {
      await signIn(page, userName);
      await dropFiles(page, [{ name: "notes.txt", type: "text/plain", text: NOTES }]);
      const chip = page.getByTestId("composer-attachment");
      await expect(chip).toHaveAttribute("data-status", "ready");
      await expect(chip).toContainText("notes.txt");
      await expect(chip).toContainText("43 B");
      await screenshot(page, `attachments-composer-${size.name}`);

      await sendMessage(page, "what is in this file?");
      // The offline model answers from the file's text: it was given the file.
      await expect(lastReply(page)).toContainText('I received notes.txt (2 lines). It begins: "The secret word is pineapple."');
      await expect(page.getByTestId("composer-attachment")).toHaveCount(0);
      const sent = page.locator('[data-testid="message"][data-role="user"]').last();
      const shown = sent.getByTestId("message-attachment");
      await expect(shown).toContainText("notes.txt");
      await expect(shown).toHaveAttribute("data-kind", "text");
      // Nothing overflows the screen sideways.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, `attachments-sent-${size.name}`);

      const download = page.waitForEvent("download");
      await shown.getByRole("link").click();
      const file = await download;
      expect(file.suggestedFilename()).toBe("notes.txt");
      expect(readFileSync(await file.path(), "utf8")).toBe(NOTES);

      // The chip is part of the stored message: still there after a reload.
      await page.reload();
      await expect(page.locator('[data-testid="message"][data-role="user"]').last().getByTestId("message-attachment")).toContainText("notes.txt");
    });

    modelTest("a pasted image goes to a model that takes images and shows as a thumbnail", async ({ page, userName }) => {
      await signIn(page, userName);
      await page.getByRole("textbox", { name: "Message" }).evaluate((box, base64) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], "image.png", { type: "image/png" }));
        box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
      }, PNG_BASE64);
      await expect(page.getByTestId("composer-attachment")).toHaveAttribute("data-status", "ready");
      // Files alone make a message too.
      await page.getByTestId("send-button").click();
      await expect(lastReply(page)).toContainText("You said: Attached image.png [1 image]");
      const sent = page.locator('[data-testid="message"][data-role="user"]').last();
      await expect(sent).toContainText("Attached image.png");
      const thumbnail = sent.getByTestId("message-attachment").locator("img");
      await expect(thumbnail).toHaveAttribute("alt", "image.png");
      // Loaded from the API with the session cookie: a real 1x1 image, not a broken one.
      await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
      await screenshot(page, `attachments-image-${size.name}`);
    });
  });
}

test("a file over the cap, a file of another kind and a pasted image are refused in the box, with why", async ({ page, userName }) => {
  await signIn(page, userName);
  const picker = page.getByTestId("attach-input");
  await picker.setInputFiles({ name: "huge.log", mimeType: "text/plain", buffer: Buffer.alloc(6 * 1024 * 1024, 97) });
  const errors = page.getByTestId("attachment-error");
  await expect(errors.first()).toHaveText("huge.log is too large (6 MB): files can be at most 5 MB.");

  // An executable calling itself a text file: only the server can tell, by its bytes.
  await picker.setInputFiles({ name: "tool.txt", mimeType: "text/plain", buffer: Buffer.concat([Buffer.from("\x7fELF\x02\x01\x01\x00"), Buffer.alloc(64)]) });
  await expect(errors.nth(1)).toHaveText("tool.txt can't be attached: it is neither a text or code file nor a PNG, JPEG, GIF or WebP image");

  // A pasted screenshot: the offline model takes no images.
  await page.getByRole("textbox", { name: "Message" }).evaluate((box, base64) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], "image.png", { type: "image/png" }));
    box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
  }, PNG_BASE64);
  await expect(errors.nth(2)).toHaveText("The model here (offline) can't take images, so image.png can't be sent.");
  await expect(page.getByTestId("composer-attachment")).toHaveCount(3);
  await expect(page.getByTestId("send-button")).toBeDisabled();
  await screenshot(page, "attachments-refused");

  // Removing a refused file takes it away; a message then goes without any.
  for (let left = 3; left > 0; left -= 1) {
    await page.getByTestId("attachment-remove").first().click();
    await expect(page.getByTestId("composer-attachment")).toHaveCount(left - 1);
  }
  await sendMessage(page, "list my tasks");
  await expect(lastReply(page)).toContainText("You have no tasks yet.");
  await expect(page.getByTestId("message-attachment")).toHaveCount(0);
});
