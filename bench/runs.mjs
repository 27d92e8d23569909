// The Nodes a bench runs under, and one script's run under one of them in a
// child process of its own that writes its rows as JSON: shared by `npm run
// bench` (results.mjs) and `npm run bench:fuse` (fuse.mjs).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { node24 } from "./node24.mjs";

const cache = new URL("./.cache/", import.meta.url).pathname;

/** The Nodes to run under, [{ label, path }], and the labels of those that cannot run, with why. */
export function nodes() {
  const running = { label: `Node ${process.versions.node.split(".")[0]}`, path: process.execPath };
  const lts = node24();
  if (lts.path === undefined) return { list: [running], notRun: [{ label: "Node 24", reason: lts.reason }] };
  // Under Node 24 itself there is no Node 20 to run beside it: the report says so rather than count one Node as both.
  if (lts.path === running.path) return { list: [running], notRun: [{ label: "Node 20", reason: "the bench ran under Node 24; run it under Node 20 for both" }] };
  return { list: [running, { label: "Node 24", path: lts.path }], notRun: [] };
}

/**
 * Runs `script` under one Node in a child process (its progress on this terminal), which writes its rows as JSON
 * to bench/.cache/<name>-<Node>-<size>.json (`size` names the key count, so that a reduced run's rows never pass for
 * a full run's); returns them. With `reuse` (BENCH_REUSE_SUITES), the JSON of the last run when there is one, with
 * when it was written.
 */
export function runJson(node, script, name, { args = [], size, reuse = false, note = "" }) {
  mkdirSync(cache, { recursive: true });
  const json = `${cache}${name}-${node.label.replace(/\W+/g, "")}-${size}.json`;
  if (reuse && existsSync(json)) {
    console.error(`\n${node.label}: the rows of the last run, from ${json}`);
    return { ...JSON.parse(readFileSync(json, "utf8")), reusedFrom: statSync(json).mtime.toISOString().slice(0, 16).replace("T", " ") + " UTC" };
  }
  const shown = `bench/${script.split("/").pop()}`;
  console.error(`\n${node.label} (${node.path}): ${shown}${note}`);
  const result = spawnSync(node.path, [...args, script], { stdio: "inherit", env: { ...process.env, BENCH_JSON: json } });
  if (result.status !== 0) throw new Error(`${shown} under ${node.label} failed (exit ${result.status ?? result.signal})`);
  return JSON.parse(readFileSync(json, "utf8"));
}
