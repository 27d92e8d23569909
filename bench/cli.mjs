// `npm run bench:cli`: `bloomkit dedup` against `sort -u` and `awk '!seen[$0]++'`
// on 10,000,000 URL lines with about 30% repeats. Measures wall time, MB/s
// and peak memory with GNU time, and the unique lines bloomkit wrongly drops.
// Writes bench/CLI.md. Needs GNU time (Debian package `time`), sort and awk.
import { execFileSync, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { machine, progress, table } from "./report.mjs";
import { rng } from "./keys.mjs";

const LINES = Number(process.env.BENCH_LINES ?? 10_000_000);
const cache = new URL("./.cache/", import.meta.url).pathname;
mkdirSync(cache, { recursive: true });
const input = `${cache}urls-${LINES}.txt`;
const TIME = "/usr/bin/time";
if (!existsSync(TIME)) throw new Error("bench:cli needs GNU time at /usr/bin/time (apt-get install time)");

/** Writes the input once: URLs from a fixed seed, each line a repeat of an earlier one with probability 0.3. */
async function generate() {
  if (existsSync(input)) return;
  const random = rng(2026);
  const hosts = ["www.example.com", "news.example.org", "shop.example.net", "blog.example.io", "cdn.example.cn"];
  const out = createWriteStream(`${input}.partial`);
  let batch = [];
  for (let i = 0; i < LINES; i++) {
    const id = i > 0 && random() < 0.3 ? Math.floor(random() * i) : i;
    const r = rng(id);
    batch.push(`https://${hosts[id % 5]}/${Math.floor(r() * 1e9).toString(36)}/${id}?ref=${Math.floor(r() * 1e6)}`);
    if (batch.length === 100_000) {
      if (!out.write(batch.join("\n") + "\n")) await new Promise((resolve) => out.once("drain", resolve));
      batch = [];
      progress(`writing ${input}: ${((100 * i) / LINES).toFixed(0)}%`);
    }
  }
  out.write(batch.join("\n") + (batch.length ? "\n" : ""));
  await new Promise((resolve) => out.end(resolve));
  execFileSync("mv", [`${input}.partial`, input]);
}

/** Runs a shell command under GNU time; returns wall seconds and peak RSS in MB. */
function timed(label, command) {
  progress(`running ${label}`);
  const result = spawnSync(TIME, ["-f", "%e %M", "sh", "-c", command], { encoding: "utf8", maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`${label} failed: ${result.stderr}`);
  const [seconds, kb] = result.stderr.trim().split("\n").pop().split(" ").map(Number);
  return { label, command, seconds, peakMB: kb / 1024, stderr: result.stderr };
}

const countLines = (path) => Number(execFileSync("sh", ["-c", `wc -l < '${path}'`], { encoding: "utf8" }).trim());

await generate();
const sizeMB = statSync(input).size / 1e6;
const bin = new URL("../dist/cli/main.js", import.meta.url).pathname;
const runs = [
  timed("bloomkit dedup", `node '${bin}' dedup '${input}' -o '${cache}out-bloomkit.txt' --quiet`),
  timed("sort -u (LC_ALL=C)", `LC_ALL=C sort -u '${input}' -o '${cache}out-sort.txt'`),
  timed("awk '!seen[$0]++'", `awk '!seen[$0]++' '${input}' > '${cache}out-awk.txt'`),
];
const exactUnique = countLines(`${cache}out-awk.txt`);
const keptByBloomkit = countLines(`${cache}out-bloomkit.txt`);
const lost = exactUnique - keptByBloomkit;
const expectedLoss = /wrongly dropped as repeats \(false positives\): ([\d.]+)/.exec(runs[0].stderr)?.[1];
const fastestPeer = Math.min(runs[1].seconds, runs[2].seconds);

const rows = runs.map((r) => [
  r.label,
  r.seconds.toFixed(2),
  (sizeMB / r.seconds).toFixed(1),
  r.peakMB.toFixed(0),
  r === runs[0] ? `${(fastestPeer / r.seconds).toFixed(2)}×` : "",
  r === runs[0] ? `${((100 * r.peakMB) / runs[2].peakMB).toFixed(1)}%` : "",
]);
const summary = table(["command", "wall s", "MB/s", "peak MB", "speed-up vs faster peer", "memory vs awk"], rows);
const env = machine();
const report = `# CLI benchmark: de-duplicating a crawler's URL file

Written by \`npm run bench:cli\` (bench/cli.mjs) on ${env.date}.
Machine: ${env.cpu}, ${env.cores} cores, ${env.memory}; ${env.os}; Node ${env.node}.

Input: ${LINES.toLocaleString("en-US")} URL lines, ${sizeMB.toFixed(0)} MB, about 30% of them repeats of earlier lines (fixed seed), ${exactUnique.toLocaleString("en-US")} distinct. Each command reads the file and writes its result to a file; wall time and peak resident memory from GNU time. \`sort -u\` runs with \`LC_ALL=C\` (byte order, its fastest setting) and, unlike the other two, does not keep the input order.

${summary}

bloomkit kept ${keptByBloomkit.toLocaleString("en-US")} lines, dropping ${lost.toLocaleString("en-US")} distinct lines as false positives (${((100 * lost) / exactUnique).toFixed(4)}% of them; its own estimate: ${expectedLoss}). It used its defaults: a filter sized from the file size at p = 0.001.
`;
console.log(summary);
console.log(`\nlost ${lost} of ${exactUnique} distinct lines (expected ${expectedLoss})`);
if (LINES === 10_000_000) {
  writeFileSync(new URL("./CLI.md", import.meta.url), report);
  console.log("wrote bench/CLI.md");
}
