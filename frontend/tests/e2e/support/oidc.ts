import { randomBytes } from "node:crypto";
import path from "node:path";
import { freePort, startProcess, stopProcess, waitForOk, type Managed } from "./processes";

const SCRIPT = path.join(__dirname, "oidc-provider.mjs");
const LOG_DIR = path.resolve(__dirname, "../../../test-results/logs");

/** The local OpenID provider (oidc-provider.mjs) in its own process, for one redirect URI. */
export class OidcProvider {
  readonly clientId = "parley-e2e";
  readonly clientSecret = randomBytes(16).toString("hex");
  port = 0;
  private process: Managed | null = null;

  get issuer(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(redirectUri: string, name: string): Promise<void> {
    this.port = await freePort();
    const logFile = path.join(LOG_DIR, `oidc${name}.log`);
    const args = [SCRIPT, "--port", String(this.port), "--client-id", this.clientId, "--client-secret", this.clientSecret, "--redirect-uri", redirectUri];
    this.process = startProcess(`"${process.execPath}" ${args.map((a) => `"${a}"`).join(" ")}`, {
      cwd: path.dirname(SCRIPT),
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "development" },
      logFile,
    });
    await waitForOk(`${this.issuer}/.well-known/openid-configuration`, this.process, 30_000, "The OpenID provider", logFile);
  }

  /** What the API needs to use this provider. */
  apiEnv(displayName: string): Record<string, string> {
    return {
      PARLEY_OIDC_ISSUER: this.issuer,
      PARLEY_OIDC_CLIENT_ID: this.clientId,
      PARLEY_OIDC_CLIENT_SECRET: this.clientSecret,
      PARLEY_OIDC_NAME: displayName,
    };
  }

  async stop(): Promise<void> {
    if (this.process) await stopProcess(this.process);
    this.process = null;
  }
}
