#!/usr/bin/env node
// Adds lockfile entries for platform-specific optional packages (other OSes/CPUs) that the
// package registry reachable here does not serve, so the lockfile stays complete and `npm ci`
// accepts it everywhere. npm skips these packages on platforms they are not for.
// Run after `npm install` changes package-lock.json: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const LOCK = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, "utf8"));
const packages = lock.packages;

const OSES = ["darwin", "win32", "linux", "android", "freebsd", "openharmony", "sunos", "aix", "netbsd", "openbsd"];
const CPUS = ["arm64", "x64", "ia32", "arm", "loong64", "ppc64", "riscv64", "s390x", "wasm32"];

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((part) => OSES.includes(part));
  const cpu = parts.find((part) => CPUS.includes(part));
  const entry = {};
  if (cpu) entry.cpu = [cpu];
  if (os) entry.os = [os];
  if (os === "linux" && parts.includes("gnu")) entry.libc = ["glibc"];
  if (os === "linux" && parts.includes("musl")) entry.libc = ["musl"];
  if (os === "linux" && parts.some((part) => part.startsWith("gnueabi"))) entry.libc = ["glibc"];
  if (os === "linux" && parts.some((part) => part.startsWith("musleabi"))) entry.libc = ["musl"];
  return os || cpu ? entry : null;
}

let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ""}node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec)) continue;
    packages[`node_modules/${name}`] = { version: spec, ...platform, dev: meta.dev || undefined, optional: true };
    added += 1;
  }
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform package entries`);
