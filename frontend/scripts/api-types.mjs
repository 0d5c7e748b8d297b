#!/usr/bin/env node
// Writes lib/api-types.ts from the API's OpenAPI schema (`parley openapi`, no database needed),
// or with --check exits 1 when the committed file differs from what the schema gives.
// PARLEY_OPENAPI_CMD overrides the command that prints the schema.
import { execSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";

const OUT = new URL("../lib/api-types.ts", import.meta.url);
const HEADER = "// Generated from the API's OpenAPI schema by `npm run gen:api-types`. Do not edit by hand.\n\n";
const command = process.env.PARLEY_OPENAPI_CMD || "../.venv/bin/parley openapi";

const schema = JSON.parse(execSync(command, { cwd: new URL("..", import.meta.url), encoding: "utf8", maxBuffer: 64 << 20 }));
const contents = HEADER + astToString(await openapiTS(schema, { alphabetize: true }));

if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(OUT, "utf8");
  } catch {
    // missing counts as stale
  }
  if (current !== contents) {
    console.error("lib/api-types.ts is stale: the API changed. Run `npm run gen:api-types` in frontend/ and commit the file.");
    process.exit(1);
  }
  console.log("lib/api-types.ts matches the API's schema.");
} else {
  writeFileSync(OUT, contents);
  console.log("wrote lib/api-types.ts");
}
