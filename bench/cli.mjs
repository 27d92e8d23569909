// `npm run bench:cli`: `bloomkit dedup` against `sort -u` and `awk '!seen[$0]++'`
// on 10,000,000 URL lines with about 30% repeats. Measures wall time, MB/s
// and peak memory with GNU time, and the unique lines bloomkit wrongly drops.
// Then `bloomkit intersect` of that file with a second one, with a filter
// larger than 4 GiB (the memory model's segments), against awk's exact
// answer. Writes bench/CLI.md. Needs GNU time (Debian package `time`), sort and awk.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { machine, progress, table } from "./report.mjs";
import { crawlFile, crawlFileB } from "./url-files.mjs";

const LINES = Number(process.env.BENCH_LINES ?? 10_000_000);
const cache = new URL("./.cache/", import.meta.url).pathname;
mkdirSync(cache, { recursive: true });
const TIME = "/usr/bin/time";
if (!existsSync(TIME)) throw new Error("bench:cli needs GNU time at /usr/bin/time (apt-get install time)");

/** Runs a shell command under GNU time; returns wall seconds and peak RSS in MB. */
function timed(label, command) {
  progress(`running ${label}`);
  const result = spawnSync(TIME, ["-f", "%e %M", "sh", "-c", command], { encoding: "utf8", maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`${label} failed: ${result.stderr}`);
  const [seconds, kb] = result.stderr.trim().split("\n").pop().split(" ").map(Number);
  return { label, command, seconds, peakMB: kb / 1024, stderr: result.stderr };
}

const countLines = (path) => Number(execFileSync("sh", ["-c", `wc -l < '${path}'`], { encoding: "utf8" }).trim());

const input = await crawlFile(LINES);
const sizeMB = statSync(input).size / 1e6;
const bin = new URL("../dist/cli/main.js", import.meta.url).pathname;
const runs = [
  timed("bloomkit dedup", `node '${bin}' dedup '${input}' -o '${cache}out-bloomkit.txt' --quiet`),
  // The default uses a worker thread per core (bench/THREADS.md); one thread is the leanest in memory.
  timed("bloomkit dedup --threads 1", `node '${bin}' dedup '${input}' -o '${cache}out-bloomkit-1.txt' --quiet --threads 1`),
  timed("sort -u (LC_ALL=C)", `LC_ALL=C sort -u '${input}' -o '${cache}out-sort.txt'`),
  timed("awk '!seen[$0]++'", `awk '!seen[$0]++' '${input}' > '${cache}out-awk.txt'`),
];
// Threads change how fast, never what: the outputs must be the same bytes.
if (spawnSync("cmp", ["-s", `${cache}out-bloomkit.txt`, `${cache}out-bloomkit-1.txt`]).status !== 0) throw new Error("dedup wrote different output with --threads 1");
const exactUnique = countLines(`${cache}out-awk.txt`);
const keptByBloomkit = countLines(`${cache}out-bloomkit.txt`);
const lost = exactUnique - keptByBloomkit;
const expectedLoss = /wrongly dropped as repeats \(false positives\): ([\d.]+)/.exec(runs[0].stderr)?.[1];
const [sortRun, awkRun] = [runs[2], runs[3]];
const fastestPeer = Math.min(sortRun.seconds, awkRun.seconds);
const ours = (r) => r.label.startsWith("bloomkit");

const rows = runs.map((r) => [
  r.label,
  r.seconds.toFixed(2),
  (sizeMB / r.seconds).toFixed(1),
  r.peakMB.toFixed(0),
  ours(r) ? `${(fastestPeer / r.seconds).toFixed(2)}×` : "",
  ours(r) ? `${((100 * r.peakMB) / awkRun.peakMB).toFixed(1)}%` : "",
]);
const summary = table(["command", "wall s", "MB/s", "peak MB", "speed-up vs faster peer", "memory vs awk"], rows);

// intersect with the filter of the 5-billion-URL problem, --n 5G --p 0.01: 5.6 GiB, more than one wasm
// memory holds, so it is held in two segments (the files are smaller: the filter is sized for the problem).
const inputB = await crawlFileB(LINES);
const INTERSECT_ARGS = "--n 5G --p 0.01 --memory 6GiB";
const intersectRuns = [
  timed(`bloomkit intersect ${INTERSECT_ARGS}`, `node '${bin}' intersect '${input}' '${inputB}' ${INTERSECT_ARGS} -o '${cache}out-intersect.txt' --quiet`),
  timed("awk (exact)", `awk 'NR==FNR { seen[$0]; next } $0 in seen' '${input}' '${inputB}' > '${cache}out-intersect-awk.txt'`),
];
const exactCommon = countLines(`${cache}out-intersect-awk.txt`);
const foundCommon = countLines(`${cache}out-intersect.txt`);
const intersectSummary = table(
  ["command", "wall s", "peak MB", "lines written", "false matches"],
  intersectRuns.map((r, i) => [r.label, r.seconds.toFixed(2), r.peakMB.toFixed(0), (i === 0 ? foundCommon : exactCommon).toLocaleString("en-US"), i === 0 ? (foundCommon - exactCommon).toLocaleString("en-US") : "0"]),
);
const intersectReport = /each line of .* passes with probability ([\d.e-]+)/.exec(intersectRuns[0].stderr)?.[1];
const env = machine();
const report = `# CLI benchmark: de-duplicating a crawler's URL file

Written by \`npm run bench:cli\` (bench/cli.mjs) on ${env.date}.
Machine: ${env.cpu}, ${env.cores} cores, ${env.memory}; ${env.os}; Node ${env.node}.

Input: ${LINES.toLocaleString("en-US")} URL lines, ${sizeMB.toFixed(0)} MB, about 30% of them repeats of earlier lines (fixed seed), ${exactUnique.toLocaleString("en-US")} distinct. Each command reads the file and writes its result to a file; wall time and peak resident memory from GNU time. \`sort -u\` runs with \`LC_ALL=C\` (byte order, its fastest setting) and, unlike the other two, does not keep the input order.

${summary}

bloomkit kept ${keptByBloomkit.toLocaleString("en-US")} lines, dropping ${lost.toLocaleString("en-US")} distinct lines as false positives (${((100 * lost) / exactUnique).toFixed(4)}% of them; its own estimate: ${expectedLoss}). It used its defaults: a filter sized from the file size at p = 0.001.

## intersect with a filter larger than 4 GiB

A second file of ${LINES.toLocaleString("en-US")} lines, about half of them lines of the first (fixed seed). \`bloomkit intersect A B ${INTERSECT_ARGS}\` builds the Bloom filter of the classic problem, two files of 5 billion URLs at p = 1%: 5.6 GiB, more than one wasm memory holds, so it is held in two segments; awk's exact answer holds every line of A in memory.

${intersectSummary}

False matches are lines bloomkit wrote that awk did not (bloomkit's own estimate of a line's chance to pass: ${intersectReport}).
`;
console.log(summary);
console.log(`\nlost ${lost} of ${exactUnique} distinct lines (expected ${expectedLoss})`);
console.log(`\n${intersectSummary}`);
if (LINES === 10_000_000) {
  writeFileSync(new URL("./CLI.md", import.meta.url), report);
  console.log("wrote bench/CLI.md");
}
