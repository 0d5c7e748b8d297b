import { expect, sendMessage, signIn, test } from "./support/fixtures";
import { openWorkConversation, workTest } from "./support/work-fixtures";

test("Account → Rules: a rule is added, a bad one is refused with the reason, edited and deleted", async ({ page, userName }) => {
  await signIn(page, userName);
  await page.getByTestId("open-account").click();
  const rules = page.getByTestId("account-panel").getByTestId("approval-rules-section");
  await expect(rules.getByTestId("approval-rules-empty")).toBeVisible();

  await rules.getByTestId("rule-new-pattern").fill("Bash(npm test:*)");
  await rules.getByTestId("rule-new-save").click();
  const row = rules.locator('[data-testid="approval-rule-row"][data-pattern="Bash(npm test:*)"]');
  await expect(row).toContainText("allow");
  await expect(row).toContainText("every agent");
  await expect(rules.getByTestId("rule-new-pattern")).toHaveValue("");

  // Claude Code's tool names are case-sensitive: a rule that would never match is refused.
  await rules.getByTestId("rule-new-pattern").fill("bash(rm:*)");
  await rules.getByTestId("rule-new-decision").selectOption("deny");
  await rules.getByTestId("rule-new-save").click();
  await expect(rules.getByTestId("rule-error")).toContainText("did you mean Bash");
  await expect(rules.getByTestId("approval-rule-row")).toHaveCount(1);

  await row.getByTestId("edit-approval-rule").click();
  await rules.getByTestId("rule-edit-decision").selectOption("deny");
  await rules.getByTestId("rule-edit-scope").selectOption("agent");
  await rules.getByTestId("rule-edit-scope-value").fill("ci-bot");
  await rules.getByTestId("rule-edit-timeout").selectOption("allow");
  await rules.getByTestId("rule-edit-save").click();
  await expect(row.getByTestId("approval-rule-decision")).toHaveText("deny");
  await expect(row).toContainText("agent ci-bot");
  await expect(row).toContainText("if nobody answers: allow");

  // What the page shows is what is stored.
  await page.reload();
  await page.getByTestId("open-account").click();
  await expect(rules.getByTestId("approval-rule-row")).toHaveCount(1);
  await expect(row).toContainText("agent ci-bot");

  await row.getByTestId("delete-approval-rule").click();
  await expect(rules.getByTestId("approval-rules-empty")).toBeVisible();
});

workTest.setTimeout(150_000);

workTest(
  "Always allow this: the call runs, a rule appears in Account → Rules, and the same call later runs unasked",
  async ({ page, userName }) => {
    await openWorkConversation(page, userName);
    await sendMessage(page, "Tally with a rule");
    const permission = page.getByTestId("permission-question");
    await expect(permission).toHaveAttribute("data-open", "true", { timeout: 60_000 });
    await expect(permission).toContainText("echo tally >> tally.txt");
    await permission.getByTestId("permission-always-allow").click();
    await expect(permission).toHaveAttribute("data-open", "false");
    await expect(page.getByTestId("message-list").getByText("Tallied once.")).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId("work-status")).toHaveAttribute("data-status", "idle", { timeout: 30_000 });

    await page.getByTestId("open-account").click();
    const rules = page.getByTestId("account-panel").getByTestId("approval-rules-section");
    const row = rules.locator('[data-testid="approval-rule-row"][data-pattern="Bash(echo tally >> tally.txt)"]');
    await expect(row).toContainText("Always allow this");
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("account-panel")).toHaveCount(0);

    await sendMessage(page, "Tally again");
    await expect(page.getByTestId("message-list").getByText("Tallied again.")).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId("permission-question")).toHaveCount(1); // asked once only
    await expect(page.getByTestId("work-tool-result")).toHaveCount(2);
  },
);
