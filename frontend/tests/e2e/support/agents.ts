import { execFileSync } from "node:child_process";
import path from "node:path";
import type { Stack } from "./stack";

const PARLEY = path.resolve(__dirname, "../../../../.venv/bin/parley");

function mintToken(stack: Stack, args: string[]): string {
  return execFileSync(PARLEY, ["token", ...args], {
    env: { ...process.env, PARLEY_AUTH_SECRET: stack.secret, PARLEY_DATA_DIR: stack.dataDir },
    encoding: "utf8",
  }).trim();
}

/** Mints an agent's token the documented way: `parley token --user U --agent NAME`. */
export function agentToken(stack: Stack, user: string, agent: string): string {
  return mintToken(stack, ["--user", user, "--agent", agent]);
}

/**
 * A bearer token for the person, as a script of theirs would hold it (`parley token --user U`);
 * the page itself has none: its session is an HttpOnly cookie.
 */
export function personToken(stack: Stack, user: string): string {
  return mintToken(stack, ["--user", user]);
}

/** A separate agent process's view of the API: plain REST with its own token. */
export class RestAgent {
  constructor(
    private readonly stack: Stack,
    readonly user: string,
    readonly token: string,
  ) {}

  static mint(stack: Stack, user: string, agent: string): RestAgent {
    return new RestAgent(stack, user, agentToken(stack, user, agent));
  }

  async call<T = Record<string, unknown>>(method: string, rest: string, body?: unknown): Promise<{ status: number; json: T }> {
    let response: Response;
    try {
      response = await this.send(method, rest, body);
    } catch (error) {
      // The API closes idle keep-alive connections after a few seconds; a request that met
      // such a closing socket was never read, so sending it once more is safe.
      if (!String((error as Error).cause ?? "").includes("other side closed")) throw error;
      response = await this.send(method, rest, body);
    }
    const text = await response.text();
    return { status: response.status, json: (text ? JSON.parse(text) : null) as T };
  }

  private send(method: string, rest: string, body?: unknown): Promise<Response> {
    return fetch(`${this.stack.apiUrl}/api/${encodeURIComponent(this.user)}${rest}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async ok<T = Record<string, unknown>>(method: string, rest: string, body?: unknown): Promise<T> {
    const { status, json } = await this.call<T>(method, rest, body);
    if (status >= 300) throw new Error(`${method} ${rest} → ${status} ${JSON.stringify(json)}`);
    return json;
  }
}
