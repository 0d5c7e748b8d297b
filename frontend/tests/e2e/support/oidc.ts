import { randomBytes } from "node:crypto";
import path from "node:path";
import { freePort, startProcess, stopProcess, waitForOk, type Managed } from "./processes";

/** The backend's local OpenID provider (npm `oidc-provider`; scripts/setup.sh installs it). */
const PROVIDER_DIR = path.resolve(__dirname, "../../../../backend/tests/fakes/oidc");
const LOG_DIR = path.resolve(__dirname, "../../../test-results/logs");

export interface OidcIdentity {
  sub: string;
  email: string;
  email_verified: boolean;
  preferred_username: string;
  name: string;
}

/**
 * A real OpenID provider in its own process, for one redirect URI. It has no login page: each
 * sign-in is the identity last set with `setIdentity`, and consent is granted at once.
 */
export class OidcProvider {
  readonly clientId = "parley-e2e";
  readonly clientSecret = randomBytes(16).toString("hex");
  port = 0;
  /** The UI port its redirect URI names. */
  webPort = 0;
  private process: Managed | null = null;

  get issuer(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(redirectUri: string, name: string): Promise<void> {
    this.port = await freePort();
    const logFile = path.join(LOG_DIR, `oidc${name}.log`);
    this.process = startProcess(`"${process.execPath}" server.mjs`, {
      cwd: PROVIDER_DIR,
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "development",
        PORT: String(this.port),
        CLIENT_ID: this.clientId,
        CLIENT_SECRET: this.clientSecret,
        REDIRECT_URIS: redirectUri,
      },
      logFile,
    });
    await waitForOk(`${this.issuer}/.well-known/openid-configuration`, this.process, 30_000, "The OpenID provider", logFile);
  }

  /** Who the next sign-in at the provider is. */
  async setIdentity(identity: OidcIdentity): Promise<void> {
    const response = await fetch(`${this.issuer}/_identity`, { method: "POST", body: JSON.stringify(identity) });
    if (response.status !== 204) throw new Error(`the OpenID provider refused the identity: ${response.status}`);
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
