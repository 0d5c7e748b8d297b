import { mkdirSync } from "node:fs";
import path from "node:path";
import { test as base } from "./fixtures";
import { MailSink } from "./mail";
import { OidcProvider } from "./oidc";
import { freePort } from "./processes";
import { Stack } from "./stack";

const LOGS = path.resolve(__dirname, "../../../test-results/logs");

interface LinkingFixtures {
  mailSink: MailSink;
  linkingProvider: OidcProvider;
  /** An API + UI that signs people in through `linkingProvider` and mails through `mailSink`. */
  linkingStack: Stack;
}

/** Tests of the account's email verification and single sign-on linking, at the UI's localhost origin. */
export const linkingTest = base.extend<object, LinkingFixtures>({
  mailSink: [
    async ({}, use, workerInfo) => {
      mkdirSync(LOGS, { recursive: true });
      const sink = new MailSink();
      await sink.start(path.join(LOGS, `smtp-w${workerInfo.workerIndex}.log`));
      try {
        await use(sink);
      } finally {
        await sink.stop();
      }
    },
    { scope: "worker" },
  ],
  linkingProvider: [
    async ({}, use, workerInfo) => {
      mkdirSync(LOGS, { recursive: true });
      const provider = new OidcProvider();
      const webPort = await freePort();
      await provider.start(`http://localhost:${webPort}/api/auth/oidc/callback`, `-linking-w${workerInfo.workerIndex}`);
      provider.webPort = webPort;
      try {
        await use(provider);
      } finally {
        await provider.stop();
      }
    },
    { scope: "worker", timeout: 60_000 },
  ],
  linkingStack: [
    async ({ linkingProvider, mailSink }, use, workerInfo) => {
      const stack = new Stack(
        { ...linkingProvider.apiEnv("Test IdP"), PARLEY_SMTP_URL: mailSink.smtpUrl },
        `-linking-w${workerInfo.workerIndex}`,
      );
      stack.webPort = linkingProvider.webPort;
      try {
        await stack.start();
        await use(stack);
      } finally {
        await stack.stop();
      }
    },
    { scope: "worker", timeout: 180_000 },
  ],
  baseURL: async ({ linkingStack }, use) => {
    await use(linkingStack.localhostUrl);
  },
});
