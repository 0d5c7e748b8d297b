import { expect, signIn, test } from "./support/fixtures";
import { RestAgent } from "./support/agents";

interface Run {
  id: number;
  conversation_id: number;
}

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

for (const size of SIZES) {
  test.describe(`at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test("a run that has ended, opened by its address (as from search), says so instead of offering a message box", async ({ page, userName, stack }) => {
      const agent = RestAgent.mint(stack, userName, "researcher");
      const run = await agent.ok<Run>("POST", "/runs", { title: "Survey auth libraries" });
      await agent.ok("POST", `/runs/${run.id}/messages`, { text: "Found two candidates" });
      await agent.ok("POST", `/runs/${run.id}/finish`, { status: "completed", summary: "Chose authlib" });

      await signIn(page, userName);
      await page.goto(`/c/${run.conversation_id}`);
      await expect(page.getByTestId("chat-panel")).toContainText("Found two candidates");
      await expect(page.getByTestId("composer-closed")).toHaveText("This run has ended (completed): it takes no more messages.");
      await expect(page.getByTestId("message-input")).toHaveCount(0);
      await expect(page.getByTestId("send-button")).toHaveCount(0);
    });
  });
}
