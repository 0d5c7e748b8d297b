import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { Stack } from "./stack";

const PYTHON = path.resolve(__dirname, "../../../../.venv/bin/python");

// Connects to the stack's database ($DATABASE_URL, else the embedded server in its data dir,
// found by the socket its postmaster.pid names) and runs one statement; JSON in and out.
const SCRIPT = `
import asyncio, json, os, sys
import asyncpg

async def main():
    query, args = sys.argv[1], json.loads(sys.argv[2])
    url = os.environ.get("DATABASE_URL")
    if url:
        conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    else:
        pid = open(os.path.join(os.environ["PARLEY_DATA_DIR"], "pgdata", "postmaster.pid")).read().split("\\n")
        conn = await asyncpg.connect(host=pid[4], port=int(pid[3]), user="postgres", database="parley")
    try:
        rows = await conn.fetch(query, *args)
    finally:
        await conn.close()
    print(json.dumps([dict(r) for r in rows], default=str))

asyncio.run(main())
`;

/**
 * One SQL statement on the stack's own database, as something other than the API would write
 * it (a row stored before a rule existed, say). `$1`… take `args`; jsonb columns take text
 * (`$2::jsonb`).
 */
export async function sql(stack: Stack, query: string, ...args: unknown[]): Promise<Record<string, unknown>[]> {
  const { stdout } = await promisify(execFile)(PYTHON, ["-c", SCRIPT, query, JSON.stringify(args)], {
    env: { ...process.env, PARLEY_DATA_DIR: stack.dataDir },
  });
  return JSON.parse(stdout) as Record<string, unknown>[];
}
