import type { Page } from "@playwright/test";
import { expect, sendMessage } from "./support/fixtures";
import { openWorkConversation, workTest as test } from "./support/work-fixtures";

test.setTimeout(150_000);

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

/** What the page showed while the prompt ran, as a person would have seen it at each change. */
interface Seen {
  /** Every label the streaming bubble carried. */
  labels: string[];
  /** The status chip read "Idle" while a permission card was waiting. */
  idleWhileAsking: boolean;
}

/** Records, at each change of the page, the streaming bubble's label and the chip beside an open card. */
async function watch(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen = { labels: [] as string[], idleWhileAsking: false };
    (window as unknown as { seen: typeof seen }).seen = seen;
    const look = () => {
      for (const bubble of document.querySelectorAll('[data-testid="streaming-message"]')) {
        const label = bubble.getAttribute("aria-label") ?? "";
        if (!seen.labels.includes(label)) seen.labels.push(label);
      }
      const asking = document.querySelector('[data-testid="permission-question"][data-open="true"]') !== null;
      const chip = document.querySelector('[data-testid="work-status"]');
      if (asking && chip && (chip.getAttribute("data-status") === "idle" || /\bIdle\b/.test(chip.textContent ?? ""))) {
        seen.idleWhileAsking = true;
      }
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

const seen = (page: Page) => page.evaluate(() => (window as unknown as { seen: Seen }).seen);

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test("Work mode: the reply is Claude Code's from its first moment, the chip never says Idle beside a permission card, a denied command reads 'Denied by you', and the conversation is named after its prompt", async ({
      page,
      userName,
    }) => {
      // The fake Anthropic API's script for this prompt: a slow sentence, then a Bash call to deny.
      const prompt = `Clean the scratch folder at ${size.name} width`;
      await openWorkConversation(page, userName);
      await watch(page);
      await sendMessage(page, prompt);

      const list = page.getByTestId("message-list");
      await expect(list.getByText("I'll clean the scratch folder for you.")).toBeVisible({ timeout: 60_000 });
      const permission = page.getByTestId("permission-question").last();
      await expect(permission).toHaveAttribute("data-open", "true", { timeout: 30_000 });
      await expect(permission).toContainText("rm -rf scratch");
      // Each of the four checks is soft: a failure is reported and the rest still run.
      await expect.soft(page.getByTestId("work-status")).toHaveAttribute("data-status", "waiting_permission");
      await expect.soft(page.getByTestId("work-status")).toHaveText(/Waiting for permission/);

      // The live bubble was labelled Claude Code from its first render, never "Assistant".
      const { labels } = await seen(page);
      expect.soft(labels, "the live bubble's labels").toEqual(["Claude Code"]);

      await permission.getByTestId("permission-deny").click();
      await expect(permission).toHaveAttribute("data-open", "false");
      const result = list.getByTestId("work-tool-result").last();
      await expect(result).toBeVisible({ timeout: 30_000 });
      await expect.soft(result.getByTestId("work-denied")).toHaveText("Denied by you");
      await expect.soft(result.locator("summary")).not.toContainText("Failed");
      await expect.soft(result.locator("summary")).not.toContainText("PreToolUse");
      // Exactly one copy once the live bubble has handed over to the stored reply.
      await expect(list.getByText("Understood: I left the scratch folder alone.")).toHaveCount(1, { timeout: 30_000 });
      await expect(page.getByTestId("work-status")).toHaveAttribute("data-status", "idle", { timeout: 15_000 });
      expect.soft((await seen(page)).idleWhileAsking, "the chip read Idle while the permission card waited").toBe(false);

      // Named after its first prompt, in the title and in the conversation list.
      await expect.soft(page.getByTestId("chat-title")).toHaveText(prompt);
      if (size.name === "phone") await page.getByTestId("open-conversations").click();
      const item = page.getByTestId("conversation-item").filter({ has: page.locator('[aria-current="true"]') });
      await expect.soft(item).toContainText(prompt);
      await expect.soft(item).not.toContainText("Untitled");
      await expect(item).toBeInViewport();

      // A reload reads the same: the stored result is still the person's denial.
      await page.reload();
      await expect.soft(page.getByTestId("work-tool-result").last().getByTestId("work-denied")).toHaveText("Denied by you");
      await expect.soft(page.getByTestId("chat-title")).toHaveText(prompt);
    });
  });
}
