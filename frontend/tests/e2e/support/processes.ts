import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { createServer } from "node:net";

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Managed {
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** Starts a shell command in its own process group, logging to a file. */
export function startProcess(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string }): Managed {
  const log: WriteStream = createWriteStream(options.logFile, { flags: "a" });
  const child = spawn(command, { cwd: options.cwd, env: options.env, shell: "/bin/bash", detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      log.end();
      resolve(code);
    });
  });
  return { child, exited };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** SIGTERM the whole group, then SIGKILL if it has not exited after `graceMs`. */
export async function stopProcess(managed: Managed, graceMs = 10_000): Promise<void> {
  const { child } = managed;
  if (child.exitCode !== null || child.signalCode !== null) return;
  signalGroup(child, "SIGTERM");
  const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs));
  if ((await Promise.race([managed.exited, timer])) === "timeout") {
    signalGroup(child, "SIGKILL");
    await managed.exited;
  }
}

/** Polls `url` until it answers 200, or fails after `timeoutMs` (or when the process dies). */
export async function waitForOk(url: string, managed: Managed, timeoutMs: number, what: string, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let died = false;
  void managed.exited.then(() => {
    died = true;
  });
  while (Date.now() < deadline) {
    if (died) throw new Error(`${what} exited during startup; see ${logFile}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what} did not answer 200 at ${url} within ${timeoutMs} ms; see ${logFile}`);
}
