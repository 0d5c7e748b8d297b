import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, startProcess, stopProcess, waitForOk, type Managed } from "./processes";

const FRONTEND_DIR = path.resolve(__dirname, "../../..");
const LOG_DIR = path.join(FRONTEND_DIR, "test-results", "logs");

function serveCommand(port: number): string {
  const custom = process.env.PARLEY_SERVE_CMD;
  if (custom) return custom.includes("{port}") ? custom.replaceAll("{port}", String(port)) : `${custom} --port ${port}`;
  const parley = path.resolve(FRONTEND_DIR, "../.venv/bin/parley");
  return `"${parley}" serve --host 127.0.0.1 --port ${port}`;
}

async function processGone(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The real product for the browser tests: the Parley API (offline model, dev login, fresh data
 * dir with its embedded PostgreSQL, or $DATABASE_URL) and the built web UI in front of it.
 */
export class Stack {
  /** Extra environment for the API (a model other than the offline one, for example). */
  constructor(
    private readonly apiEnv: Record<string, string> = {},
    private readonly name = "",
  ) {}

  readonly dataDir = mkdtempSync(path.join(tmpdir(), "parley-e2e-"));
  readonly secret = randomBytes(24).toString("hex");
  apiPort = 0;
  webPort = 0;
  private api: Managed | null = null;
  private web: Managed | null = null;

  get apiUrl(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  /** A value of the API's extra environment (an identity provider's issuer, say). */
  apiEnvValue(name: string): string | undefined {
    return this.apiEnv[name];
  }

  get webUrl(): string {
    return `http://127.0.0.1:${this.webPort}`;
  }

  /**
   * The same UI by name: passkeys need a domain (an IP address cannot be a WebAuthn relying
   * party), so this origin is the API's first web origin (its passkeys' RP and OIDC redirect).
   */
  get localhostUrl(): string {
    return `http://localhost:${this.webPort}`;
  }

  async start(): Promise<void> {
    mkdirSync(LOG_DIR, { recursive: true });
    if (!existsSync(path.join(FRONTEND_DIR, ".next", "BUILD_ID"))) {
      throw new Error("The web UI is not built: run `npm run build` (npm run test:e2e does it for you).");
    }
    // A caller may fix the UI's port first (an identity provider must know the redirect URI).
    this.apiPort ||= await freePort();
    this.webPort ||= await freePort();
    await this.startBackend();
    const logFile = path.join(LOG_DIR, `web${this.name}.log`);
    // server.mjs, as `npm start`: it writes x-forwarded-for from the socket (plain `next start` would not).
    this.web = startProcess(`node server.mjs -H 127.0.0.1 -p ${this.webPort}`, {
      cwd: FRONTEND_DIR,
      env: { ...process.env, PARLEY_API_URL: this.apiUrl, NEXT_TELEMETRY_DISABLED: "1", PORT: String(this.webPort) },
      logFile,
    });
    await waitForOk(`${this.webUrl}/api/health`, this.web, 60_000, "The web UI (server.mjs)", logFile);
  }

  async startBackend(): Promise<void> {
    if (this.api && this.api.child.exitCode === null && this.api.child.signalCode === null) return;
    const logFile = path.join(LOG_DIR, `backend${this.name}.log`);
    this.api = startProcess(serveCommand(this.apiPort), {
      cwd: FRONTEND_DIR,
      env: {
        ...process.env,
        PARLEY_DEV_LOGIN: "1",
        PARLEY_SIGNUP: "open",
        PARLEY_MODEL: "offline",
        PARLEY_AUTH_SECRET: this.secret,
        // Where MCP clients reach this API (its OAuth issuer, and the resource its tokens are for).
        PARLEY_PUBLIC_URL: this.apiUrl,
        PARLEY_DATA_DIR: this.dataDir,
        // Cookie-authenticated writes must come from the UI's own origins.
        PARLEY_WEB_ORIGINS: `${this.localhostUrl},${this.webUrl}`,
        // What a test changes in the database (a sign-in made eleven minutes ago, say) is what
        // the next request sees: no half second of a cached credential on a fast machine.
        PARLEY_CREDENTIAL_CACHE_SECONDS: "0",
        ...this.apiEnv,
      },
      logFile,
    });
    await waitForOk(`${this.apiUrl}/api/health`, this.api, 120_000, "The Parley API", logFile);
  }

  async stopBackend(): Promise<void> {
    if (this.api) await stopProcess(this.api);
    this.api = null;
  }

  async stop(): Promise<void> {
    if (this.web) await stopProcess(this.web);
    this.web = null;
    await this.stopBackend();
    await this.stopEmbeddedPostgres();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** The API leaves its embedded PostgreSQL running for reuse; stop the one in our temp dir. */
  private async stopEmbeddedPostgres(): Promise<void> {
    const pidFile = path.join(this.dataDir, "pgdata", "postmaster.pid");
    if (!existsSync(pidFile)) return;
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    if (!Number.isInteger(pid) || pid <= 0) return;
    try {
      process.kill(pid, "SIGINT"); // PostgreSQL's "fast" shutdown
    } catch {
      return;
    }
    await processGone(pid, 15_000);
  }
}
