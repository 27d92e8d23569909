// `npm run bench:cli`: `bloomkit dedup` against `sort -u` and `awk '!seen[$0]++'`
// on 10,000,000 URL lines with 23% repeats. Measures wall time, MB/s
// and peak memory with GNU time, and the unique lines bloomkit wrongly drops.
// Then `bloomkit intersect` of that file with a second one, with a filter
// larger than 4 GiB (the memory model's segments), against awk's exact
// answer; and dedup of the file on standard input, through a pipe and
// redirected. Writes bench/CLI.md. Needs GNU time (Debian package `time`), sort and awk.
// `npm run bench` runs the dedup part under each Node through dedupRuns.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { machine, progress, table, wallRange } from "./report.mjs";
import { crawlFile, crawlFileB } from "./url-files.mjs";
import { node24 } from "./node24.mjs";

const cache = new URL("./.cache/", import.meta.url).pathname;
const TIME = "/usr/bin/time";
const bin = new URL("../dist/cli/main.js", import.meta.url).pathname;

/** Why the CLI runs cannot be timed here, or undefined when they can. */
export function gnuTimeMissing() {
  return existsSync(TIME) ? undefined : "GNU time is not installed at /usr/bin/time (apt-get install time)";
}

/** Runs a shell command under GNU time; returns wall seconds and peak RSS in MB. */
export function timed(label, command) {
  progress(`running ${label}`);
  const result = spawnSync(TIME, ["-f", "%e %M", "sh", "-c", command], { encoding: "utf8", maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`${label} failed: ${result.stderr}`);
  const [seconds, kb] = result.stderr.trim().split("\n").pop().split(" ").map(Number);
  // %M is KiB; MB here are 10^6 bytes, as the input's size and MB/s are.
  return { label, command, seconds, peakMB: (kb * 1024) / 1e6, stderr: result.stderr };
}

/**
 * `command args…` run once more, its resident set sampled (bench/rss-split.mjs):
 * { peakMB, anonymousMB, fileMB }, the process's own memory apart from the
 * pages of the files it runs from (Node's binary), which GNU time counts too.
 */
function rssSplit(label, command, args) {
  progress(`sampling the memory of ${label}`);
  const result = spawnSync(process.execPath, [new URL("./rss-split.mjs", import.meta.url).pathname, command, ...args], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${label} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** The number of lines of a file. */
export const countLines = (path) => Number(execFileSync("sh", ["-c", `wc -l < '${path}'`], { encoding: "utf8" }).trim());

/** Timed runs of each bloomkit configuration and of `sort -u` (awk, at 19 s a run, runs once): the median is reported. */
const DEDUP_ROUNDS = Number(process.env.BENCH_DEDUP_ROUNDS ?? 3);

/** The median run of `runs` (by wall time), with the range of wall times and the largest peak memory of them all. */
function medianRun(runs) {
  const sorted = [...runs].sort((a, b) => a.seconds - b.seconds);
  const median = sorted[(sorted.length - 1) >> 1];
  return { ...median, runs: runs.length, fastest: sorted[0].seconds, slowest: sorted.at(-1).seconds, peakMB: Math.max(...runs.map((r) => r.peakMB)) };
}

/**
 * Times `bloomkit dedup` of `input` under each of `nodes` ([{ label, path }]),
 * with its default threads and with --threads 1, and `sort -u`, DEDUP_ROUNDS
 * times each in turn (so a slow stretch of this shared machine falls on all
 * alike), then awk once; each output is removed before its run, so no run
 * pays for unlinking the last run's 400 MB (the rename over it took 73 ms of
 * a dedup in a profile). Fails unless every bloomkit output is the same bytes
 * (threads and Nodes change how fast, never what). Returns { input, sizeMB,
 * rounds, bloomkit: [{ node, threads, label, seconds (the median), fastest,
 * slowest, peakMB (the largest), stderr, split and idle: rssSplit's parts of
 * its peak and of an idle Node's }], sort, awk, exactUnique, kept }.
 */
export function dedupRuns(input, nodes) {
  mkdirSync(cache, { recursive: true });
  // Read the input once untimed, so the first timed run does not pay for the disk alone (after the suites' 11 GB
  // processes it did: 3.50 s against 1.15–1.23 s for the runs after it).
  spawnSync("cat", [input], { stdio: ["ignore", "ignore", "inherit"] });
  const configurations = nodes.flatMap((node, i) =>
    ["default", 1].map((threads) => ({
      node,
      threads,
      out: `${cache}out-bloomkit${i ? `-node${i}` : ""}${threads === 1 ? "-1" : ""}.txt`,
      flag: threads === 1 ? " --threads 1" : "",
    })),
  );
  const sortOut = `${cache}out-sort.txt`;
  const runsOf = new Map(configurations.map((config) => [config, []]));
  const sortRuns = [];
  for (let round = 0; round < DEDUP_ROUNDS; round++) {
    for (const config of configurations) {
      rmSync(config.out, { force: true });
      // The default uses a worker thread per core (bench/THREADS.md); one thread is the leanest in memory.
      const command = `'${config.node.path}' '${bin}' dedup '${input}' -o '${config.out}' --quiet${config.flag}`;
      runsOf.get(config).push(timed(`bloomkit dedup${config.flag} under ${config.node.label}, round ${round + 1} of ${DEDUP_ROUNDS}`, command));
    }
    rmSync(sortOut, { force: true });
    sortRuns.push(timed(`sort -u (LC_ALL=C), round ${round + 1} of ${DEDUP_ROUNDS}`, `LC_ALL=C sort -u '${input}' -o '${sortOut}'`));
  }
  const bloomkit = configurations.map((config) => {
    const label = `bloomkit dedup${config.flag}`;
    const args = [bin, "dedup", input, "-o", config.out, "--quiet", ...(config.threads === 1 ? ["--threads", "1"] : [])];
    const split = rssSplit(`${label} under ${config.node.label}`, config.node.path, args);
    // What the same Node holds doing nothing: its own start-up, and the binary's pages it touches.
    const idle = rssSplit(`an idle Node (${config.node.label})`, config.node.path, ["-e", "setTimeout(() => {}, 200)"]);
    return { ...medianRun(runsOf.get(config)), label, node: config.node.label, threads: config.threads, out: config.out, split, idle };
  });
  const sort = { ...medianRun(sortRuns), label: "sort -u (LC_ALL=C)" };
  rmSync(`${cache}out-awk.txt`, { force: true });
  const awk = { ...medianRun([timed("awk '!seen[$0]++'", `awk '!seen[$0]++' '${input}' > '${cache}out-awk.txt'`)]), label: "awk '!seen[$0]++'" };
  for (const run of bloomkit.slice(1)) {
    if (spawnSync("cmp", ["-s", bloomkit[0].out, run.out]).status !== 0) {
      throw new Error(`dedup under ${run.node} with threads ${run.threads} wrote other bytes than under ${bloomkit[0].node} with threads ${bloomkit[0].threads}`);
    }
  }
  return {
    input,
    sizeMB: statSync(input).size / 1e6,
    rounds: DEDUP_ROUNDS,
    bloomkit,
    sort,
    awk,
    exactUnique: countLines(`${cache}out-awk.txt`),
    kept: countLines(bloomkit[0].out),
  };
}

/**
 * `bloomkit dedup` of the same file on standard input, under each of `nodes`:
 * through a pipe from cat (its length unknown: the filter grows, with the
 * default threads and with --threads 1), and redirected from the file (sized
 * as the file is), DEDUP_ROUNDS times each in turn, with `cat | cat` alone as
 * the pipe's own cost. Fails unless every pipe run wrote the same bytes and
 * every redirected run the bytes of `fileOut` (the file's own dedup).
 */
function stdinRuns(input, nodes, fileOut) {
  const configurations = nodes.flatMap((node, i) => [
    { node, how: "pipe", flag: "", out: `${cache}out-stdin-pipe-${i}.txt` },
    { node, how: "pipe", flag: " --threads 1", out: `${cache}out-stdin-pipe-${i}-1.txt` },
    { node, how: "redirect", flag: " --threads 1", out: `${cache}out-stdin-redirect-${i}.txt` },
  ]);
  const runsOf = new Map(configurations.map((config) => [config, []]));
  const catRuns = [];
  for (let round = 0; round < DEDUP_ROUNDS; round++) {
    for (const config of configurations) {
      rmSync(config.out, { force: true });
      const dedup = `'${config.node.path}' '${bin}' dedup - -o '${config.out}' --quiet${config.flag}`;
      const command = config.how === "pipe" ? `cat '${input}' | ${dedup}` : `${dedup} < '${input}'`;
      runsOf.get(config).push(timed(`bloomkit dedup of standard input (${config.how}${config.flag}) under ${config.node.label}, round ${round + 1} of ${DEDUP_ROUNDS}`, command));
    }
    catRuns.push(timed(`cat | cat, round ${round + 1} of ${DEDUP_ROUNDS}`, `cat '${input}' | cat > /dev/null`));
  }
  const runs = configurations.map((config) => ({ ...medianRun(runsOf.get(config)), label: `${config.how === "pipe" ? "cat log \\| bloomkit dedup" : "bloomkit dedup - < log"}${config.flag}`, ...config }));
  const pipes = runs.filter((run) => run.how === "pipe");
  for (const run of runs) {
    const same = run.how === "pipe" ? pipes[0].out : fileOut;
    if (spawnSync("cmp", ["-s", same, run.out]).status !== 0) throw new Error(`${run.label} under ${run.node.label} wrote other bytes than ${same}`);
  }
  return { runs, cat: { ...medianRun(catRuns), label: "cat log \\| cat (the pipe alone)" }, kept: countLines(pipes[0].out) };
}

/** bench:cli: dedup and intersect under the running Node; writes bench/CLI.md at 10^7 lines. */
async function main() {
  const LINES = Number(process.env.BENCH_LINES ?? 10_000_000);
  const missing = gnuTimeMissing();
  if (missing) throw new Error(`bench:cli needs ${missing}`);
  mkdirSync(cache, { recursive: true });
  const input = await crawlFile(LINES);
  // dedup under the running Node and, when it can be fetched, Node 24 (the current LTS), in the same run.
  const lts = node24();
  const nodes = [{ label: `Node ${process.versions.node}`, path: process.execPath }];
  if (lts.path !== undefined && lts.path !== process.execPath) nodes.push({ label: `Node ${execFileSync(lts.path, ["-p", "process.versions.node"], { encoding: "utf8" }).trim()}`, path: lts.path });
  const dedup = dedupRuns(input, nodes);
  const { sizeMB, exactUnique, kept: keptByBloomkit } = dedup;
  const runs = [...dedup.bloomkit, dedup.sort, dedup.awk];
  const lost = exactUnique - keptByBloomkit;
  const expectedLoss = /wrongly dropped as repeats \(false positives\): ([\d.]+)/.exec(runs[0].stderr)?.[1];
  const [sortRun, awkRun] = [dedup.sort, dedup.awk];
  const fastestPeer = Math.min(sortRun.seconds, awkRun.seconds);
  const ours = (r) => r.label.startsWith("bloomkit");

  const rows = runs.map((r) => [
    ours(r) && nodes.length > 1 ? `${r.label} (${r.node})` : r.label,
    r.seconds.toFixed(2),
    wallRange(r),
    (sizeMB / r.seconds).toFixed(1),
    r.peakMB.toFixed(0),
    ours(r) ? `${(fastestPeer / r.seconds).toFixed(2)}×` : "",
    ours(r) ? `${((100 * r.peakMB) / awkRun.peakMB).toFixed(1)}%` : "",
  ]);
  const summary = table(["command", "wall s", "runs", "MB/s", "peak MB", "speed-up vs faster peer", "memory vs awk"], rows);

  // The same file on standard input: through a pipe (a growing filter) and redirected (sized as the file).
  const stdin = stdinRuns(input, nodes, dedup.bloomkit[0].out);
  const layers = /a growing .*?of (\d+) layers?, [\d,]+ bits \(([\d.,]+ \w+)\)/.exec(stdin.runs[0].stderr);
  const fileFilter = /\(a split-block Bloom filter of [\d,]+ bits \(([\d.,]+ \w+)\)\)/.exec(dedup.bloomkit[0].stderr)?.[1];
  const stdinExpected = /wrongly dropped as repeats \(false positives\): ([\d.]+)/.exec(stdin.runs[0].stderr)?.[1];
  const stdinSummary = table(
    ["command", "wall s", "runs", "peak MB", "vs the file's path"],
    [
      ...stdin.runs.map((r) => {
        const fromFile = dedup.bloomkit.find((b) => b.node === r.node.label && (r.flag ? b.threads === 1 : b.threads !== 1));
        return [nodes.length > 1 ? `${r.label} (${r.node.label})` : r.label, r.seconds.toFixed(2), wallRange(r), r.peakMB.toFixed(0), `${(r.seconds / fromFile.seconds).toFixed(2)}× the time`];
      }),
      [stdin.cat.label, stdin.cat.seconds.toFixed(2), wallRange(stdin.cat), stdin.cat.peakMB.toFixed(0), ""],
    ],
  );

  // intersect with the filter of the 5-billion-URL problem, --n 5G --p 0.01: 5.6 GiB, more than one wasm
  // memory holds, so it is held in two segments (the files are smaller: the filter is sized for the problem).
  const inputB = await crawlFileB(LINES);
  const INTERSECT_ARGS = "--n 5G --p 0.01 --memory 6GiB";
  const intersectRuns = [
    timed(`bloomkit intersect ${INTERSECT_ARGS}`, `'${process.execPath}' '${bin}' intersect '${input}' '${inputB}' ${INTERSECT_ARGS} -o '${cache}out-intersect.txt' --quiet`),
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
Machine: ${env.cpu}, ${env.cores} cores, ${env.memory}; ${env.os}; ${nodes.map((node) => node.label).join(" and ")} (intersect: the first).${lts.path === undefined ? ` Node 24 did not run: ${lts.reason}.` : ""}

Input: ${LINES.toLocaleString("en-US")} URL lines, ${sizeMB.toFixed(0)} MB, ${(100 * (1 - exactUnique / LINES)).toFixed(0)}% of them repeats of earlier lines (fixed seed), ${exactUnique.toLocaleString("en-US")} distinct. Each command reads the file and writes its result to a new file (the last run's output is removed first, untimed); wall time and peak resident memory from GNU time. bloomkit and \`sort -u\` run ${dedup.rounds} times each, taken in turn: "wall s" is the median run, "peak MB" the largest of the runs; awk runs once. \`sort -u\` runs with \`LC_ALL=C\` (byte order, its fastest setting) and, unlike the other two, does not keep the input order.

${summary}

bloomkit kept ${keptByBloomkit.toLocaleString("en-US")} lines, dropping ${lost.toLocaleString("en-US")} distinct lines as false positives (${((100 * lost) / exactUnique).toFixed(4)}% of them; its own estimate: ${expectedLoss}). It used its defaults: a filter sized from the file size at p = 0.001.

## dedup of standard input

The same file on standard input, ${dedup.rounds} runs of each taken in turn (median and range as above): through a pipe from \`cat\`, whose length bloomkit cannot know, so its filter grows (layers of split-block filters, the first for 1,000,000 lines, each next for twice as many at a tighter rate; here ${layers?.[1]} of them, ${layers?.[2]}), and redirected from the file, which bloomkit sizes and reads as the file itself (the same output as the rows above). "vs the file's path" compares with the row above of the same Node and threads.

${stdinSummary}

Through the pipe, bloomkit kept ${stdin.kept.toLocaleString("en-US")} lines, dropping ${(exactUnique - stdin.kept).toLocaleString("en-US")} distinct lines as false positives (its own estimate: ${stdinExpected}), against ${lost.toLocaleString("en-US")} for the file's own filter; its layers hold ${layers?.[2]}, the file's filter ${fileFilter}. The layers' rates add up to at most p, as the one filter's does, but each layer is sized for its own lines at a tighter rate.

## intersect with a filter larger than 4 GiB

A second file of ${LINES.toLocaleString("en-US")} lines, about half of them lines of the first (fixed seed). \`bloomkit intersect A B ${INTERSECT_ARGS}\` builds the Bloom filter of the classic problem, two files of 5 billion URLs at p = 1%: 5.6 GiB, more than one wasm memory holds, so it is held in two segments; awk's exact answer holds every line of A in memory.

${intersectSummary}

False matches are lines bloomkit wrote that awk did not (bloomkit's own estimate of a line's chance to pass: ${intersectReport}).
`;
  console.log(summary);
  console.log(`\nlost ${lost} of ${exactUnique} distinct lines (expected ${expectedLoss})`);
  console.log(`\n${stdinSummary}`);
  console.log(`\n${intersectSummary}`);
  if (LINES === 10_000_000) {
    writeFileSync(new URL("./CLI.md", import.meta.url), report);
    console.log("wrote bench/CLI.md");
  }
}

if (import.meta.url === new URL(process.argv[1], "file:").href) await main();
