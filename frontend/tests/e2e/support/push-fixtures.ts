import { mkdirSync } from "node:fs";
import path from "node:path";
import { test as base } from "./fixtures";
import { FakePushService } from "./push";
import { Stack } from "./stack";
import { startFakeAnthropic, workEnv } from "./work-fixtures";

const LOGS = path.resolve(__dirname, "../../../test-results/logs");

interface PushFixtures {
  /** The browsers' push service, played on loopback (it decrypts what the server sends). */
  pushService: FakePushService;
  /** An API + UI in work mode (real `claude` CLI, fake Anthropic API) that pushes to `pushService`. */
  pushStack: Stack;
}

export const pushTest = base.extend<object, PushFixtures>({
  pushService: [
    async ({}, use) => {
      const service = new FakePushService();
      await service.start();
      try {
        await use(service);
      } finally {
        await service.stop();
      }
    },
    { scope: "worker" },
  ],
  pushStack: [
    async ({ pushService }, use, workerInfo) => {
      mkdirSync(LOGS, { recursive: true });
      const fake = await startFakeAnthropic(path.join(LOGS, `fake-anthropic-push-w${workerInfo.workerIndex}.log`));
      const stack = new Stack(
        { ...workEnv(fake.url), PARLEY_PUSH_ALLOWED_HOSTS: pushService.host, PARLEY_PUSH_RETRY_BASE: "0.2" },
        `-push-w${workerInfo.workerIndex}`,
      );
      try {
        await stack.start();
        await use(stack);
      } finally {
        await stack.stop();
        fake.child.kill("SIGTERM");
      }
    },
    { scope: "worker", timeout: 180_000 },
  ],
  baseURL: async ({ pushStack }, use) => {
    await use(pushStack.webUrl);
  },
});
