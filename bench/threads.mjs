// `npm run bench:threads`: one shared filter of about 100 MB (a BloomFilter
// of 100 MiB, k = 7, and a SplitBlockBloomFilter of 100 MiB), queried and
// added to by 1, 2 … all cores' worker threads at once. The work is fixed
// (BENCH_KEYS integer keys, a quarter as many URL lines) and split evenly
// between the threads, so the speed-up is the scaling. The 1-thread private
// row is the same work on a private filter: what sharing costs (atomic ORs
// on adds, hashes copied into the shared memory). The "private copies" rows
// are the control: the same split of the work, each thread on a private copy
// of its own, nothing shared, so they scale as far as the machine lets any
// threads scale (other jobs, memory latency); a last table measures that
// cost in cache, where misses do not hide it. Each cell is the best of
// BENCH_ROUNDS runs (default 3): on a machine others share, the least disturbed.
// Then the CLI's --threads on the 10,000,000-line crawl log of bench:cli
// (CLI_LINES): dedup, intersect with the second file, build, and query of
// a split-block filter of the log with the log itself on standard input,
// each the best of BENCH_CLI_ROUNDS (default 5) runs taken in turn with each
// thread count, so a drift in the machine's speed hits them alike.
import { spawnSync } from "node:child_process";
import { closeSync, openSync, rmSync } from "node:fs";
import os from "node:os";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { BloomFilter, SplitBlockBloomFilter } from "bloomkit";
import { machine, progress, table } from "./report.mjs";
import { urls } from "./keys.mjs";
import { crawlFile, crawlFileB } from "./url-files.mjs";

const INTS = Number(process.env.BENCH_KEYS ?? 2_000_000);
const LINES = Math.floor(INTS / 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MIB = 2 ** 20;
const CLI_LINES = Number(process.env.CLI_LINES ?? 10_000_000);
/** Runs of each CLI command and thread count (the best is kept), interleaved. */
const CLI_ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 5);
const encoder = new TextEncoder();

/** The keys every thread builds the same way: integers 0…INTS−1 (all added), and URL lines, those added first and those added in the timed adds. */
function buildKeys() {
  const ints = Uint32Array.from({ length: INTS }, (_, i) => i);
  const lines = encoder.encode(urls(LINES, "member", 1).join("\n") + "\n");
  const fresh = encoder.encode(urls(LINES, "fresh", 2).join("\n") + "\n");
  return { ints, lines, fresh };
}

/** Part `part` of `parts` of a lines buffer, cut at line ends. */
function linesPart(buffer, part, parts) {
  const cut = (p) => {
    if (p === 0) return 0;
    if (p === parts) return buffer.length;
    return buffer.indexOf(10, Math.floor((buffer.length * p) / parts)) + 1;
  };
  return buffer.subarray(cut(part), cut(part + 1));
}

/** Part `part` of `parts` of the integer keys. */
function intsPart(ints, part, parts) {
  return ints.subarray(Math.floor((ints.length * part) / parts), Math.floor((ints.length * (part + 1)) / parts));
}

/** Runs `op` on `filter` over part `part` of `parts` of the keys; returns the keys it took. */
function work(filter, keys, op, part, parts) {
  if (op === "hasInts") {
    const answers = filter.hasInts(intsPart(keys.ints, part, parts));
    if (answers.includes(0)) throw new Error("a key added is absent: the benchmark measures nothing");
    return answers.length;
  }
  if (op === "hasLines") return filter.hasLines(linesPart(keys.lines, part, parts)).length;
  filter.addLines(linesPart(keys.fresh, part, parts));
  return Math.ceil(LINES / parts);
}

/** The 100 MiB filters, holding the integer keys and the first URL lines. */
function makeFilters(shared, keys) {
  const filters = {
    BloomFilter: BloomFilter.withSize(100 * MIB * 8, 7, { shared }),
    SplitBlockBloomFilter: SplitBlockBloomFilter.withSize((100 * MIB) / 32, { shared }),
  };
  for (const filter of Object.values(filters)) filter.addInts(keys.ints).addLines(keys.lines);
  return filters;
}

if (!isMainThread) {
  const keys = buildKeys();
  const filters = { BloomFilter: BloomFilter.fromShared(workerData.bloom), SplitBlockBloomFilter: SplitBlockBloomFilter.fromShared(workerData.split) };
  // The control: a private copy per thread, the same work with nothing shared, measures what the machine gives.
  const copies = makeFilters(false, keys);
  parentPort.on("message", ({ name, op, part, parts, copy }) => {
    work((copy ? copies : filters)[name], keys, op, part, parts);
    parentPort.postMessage("done");
  });
  parentPort.postMessage("ready");
} else {
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const counts = [...new Set([1, 2, cores])].filter((n) => n <= Math.max(2, cores)).sort((a, b) => a - b);
  progress("building keys and filters");
  const keys = buildKeys();
  const shared = makeFilters(true, keys);
  const single = makeFilters(false, keys);
  progress("starting workers");
  const workers = await Promise.all(
    Array.from({ length: Math.max(...counts) }, () => {
      const worker = new Worker(new URL(import.meta.url), { workerData: { bloom: shared.BloomFilter.share(), split: shared.SplitBlockBloomFilter.share() } });
      return new Promise((resolve) => worker.once("message", () => resolve(worker)));
    }),
  );

  /** Wall time of `op` split over `parts` workers, all started at once, on the shared filter or (`copy`) each worker's private copy. */
  async function timed(name, op, parts, copy = false) {
    const started = performance.now();
    await Promise.all(
      workers.slice(0, parts).map(
        (worker, part) =>
          new Promise((resolve) => {
            worker.once("message", resolve);
            worker.postMessage({ name, op, part, parts, copy });
          }),
      ),
    );
    return performance.now() - started;
  }

  const rows = [];
  for (const name of ["BloomFilter", "SplitBlockBloomFilter"]) {
    for (const op of ["hasInts", "hasLines", "addLines"]) {
      const keysOf = op === "hasInts" ? INTS : LINES;
      const best = async (run) => {
        let min = Infinity;
        for (let r = 0; r < ROUNDS; r++) min = Math.min(min, await run());
        return min;
      };
      progress(`${name} ${op}: private`);
      const privateMs = await best(async () => {
        const started = performance.now();
        work(single[name], keys, op, 0, 1);
        return performance.now() - started;
      });
      rows.push([name, op, keysOf.toLocaleString("en-US"), "1 (private)", ((privateMs * 1e6) / keysOf).toFixed(1), (keysOf / privateMs / 1e3).toFixed(2), ""]);
      for (const copy of [false, true]) {
        let one = 0;
        for (const parts of counts) {
          progress(`${name} ${op}: ${parts} thread${parts > 1 ? "s" : ""}${copy ? ", private copies" : ""}`);
          const ms = await best(() => timed(name, op, parts, copy));
          if (parts === 1) one = ms;
          const threads = `${parts}${copy ? " (private copies)" : ""}`;
          rows.push([name, op, keysOf.toLocaleString("en-US"), threads, ((ms * 1e6) / keysOf).toFixed(1), (keysOf / ms / 1e3).toFixed(2), `${(one / ms).toFixed(2)}×`]);
        }
      }
    }
  }
  for (const worker of workers) await worker.terminate();

  // What the atomic ORs cost where cache misses do not hide them: one thread, a filter of 2 MiB.
  const cacheRows = [];
  const smallKeys = Uint32Array.from({ length: INTS / 2 }, (_, i) => Math.imul(i, 2654435761) >>> 0);
  const small = {
    BloomFilter: (shared) => BloomFilter.withSize(16 * MIB, 7, { shared }),
    SplitBlockBloomFilter: (shared) => SplitBlockBloomFilter.withSize((2 * MIB) / 32, { shared }),
  };
  for (const [name, make] of Object.entries(small)) {
    for (const sharedFilter of [false, true]) {
      progress(`${name} in cache: ${sharedFilter ? "shared" : "private"}`);
      const best = [Infinity, Infinity, Infinity];
      for (let r = 0; r < ROUNDS; r++) {
        const filter = make(sharedFilter);
        const steps = [() => filter.addInts(smallKeys), () => filter.addInts(smallKeys), () => filter.hasInts(smallKeys)];
        steps.forEach((step, i) => {
          const started = performance.now();
          step();
          best[i] = Math.min(best[i], performance.now() - started);
        });
        filter.dispose();
      }
      const ns = best.map((ms) => ((ms * 1e6) / smallKeys.length).toFixed(1));
      cacheRows.push([name, sharedFilter ? "shared" : "private", ...ns]);
    }
  }
  // The CLI: wall time of whole commands, best of ROUNDS; the output removed before each run (replacing a file costs its unlink).
  const logFile = await crawlFile(CLI_LINES);
  const secondFile = await crawlFileB(CLI_LINES);
  const cacheDir = new URL("./.cache/", import.meta.url).pathname;
  const bin = new URL("../dist/cli/main.js", import.meta.url).pathname;
  // query reads its keys from standard input and writes every line with its answer: a filter of the log to ask.
  const queried = `${cacheDir}query-threads.bloom`;
  const built = spawnSync(process.execPath, [bin, "build", logFile, "-o", queried, "--type", "split-block", "--quiet"], { encoding: "utf8" });
  if (built.status !== 0) throw new Error(`bloomkit build of the filter to query failed: ${built.stderr}`);
  const commands = [
    ["dedup", ["dedup", logFile, "-o", `${cacheDir}out-threads.txt`]],
    ["intersect", ["intersect", logFile, secondFile, "-o", `${cacheDir}out-threads.txt`]],
    ["build --type split-block", ["build", logFile, "-o", `${cacheDir}out-threads.bloom`, "--type", "split-block"]],
    ["build --type bloom", ["build", logFile, "-o", `${cacheDir}out-threads.bloom`, "--type", "bloom"]],
    ["query (standard input)", ["query", queried, "-"], logFile],
  ];
  const cliRows = [];
  const threadCounts = [...new Set([1, 2, os.availableParallelism()])];
  for (const [name, args, stdin] of commands) {
    // Rounds go 1, 2, … threads, then again: a machine whose speed drifts (others share it) slows every count alike.
    const fastest = new Map(threadCounts.map((threads) => [threads, Infinity]));
    for (let r = 0; r < CLI_ROUNDS; r++) {
      for (const threads of threadCounts) {
        progress(`CLI ${name} --threads ${threads}, round ${r + 1} of ${CLI_ROUNDS}`);
        rmSync(`${cacheDir}out-threads.txt`, { force: true });
        rmSync(`${cacheDir}out-threads.bloom`, { force: true });
        // query has no --quiet: its progress line shows only on a terminal, and stderr here is a pipe.
        const flags = stdin ? ["--threads", String(threads)] : ["--quiet", "--threads", String(threads)];
        const input = stdin ? openSync(stdin, "r") : "ignore";
        const output = stdin ? openSync(`${cacheDir}out-threads.txt`, "w") : "ignore";
        const started = performance.now();
        const result = spawnSync(process.execPath, [bin, ...args, ...flags], { encoding: "utf8", stdio: [input, output, "pipe"] });
        const ms = performance.now() - started;
        if (stdin) {
          closeSync(input);
          closeSync(output);
        }
        if (result.status !== 0) throw new Error(`bloomkit ${name} failed: ${result.stderr}`);
        fastest.set(threads, Math.min(fastest.get(threads), ms));
      }
    }
    const lines = name === "intersect" ? 2 * CLI_LINES : CLI_LINES;
    for (const [threads, ms] of fastest) {
      cliRows.push([`bloomkit ${name}`, threads, (ms / 1000).toFixed(2), ((ms * 1e6) / lines).toFixed(1), (lines / ms / 1e3).toFixed(2), `${(fastest.get(1) / ms).toFixed(2)}×`]);
    }
  }
  rmSync(`${cacheDir}out-threads.txt`, { force: true });
  rmSync(`${cacheDir}out-threads.bloom`, { force: true });
  rmSync(queried, { force: true });

  const m = machine();
  console.log(`bench:threads — ${m.date}, ${m.cpu}, ${m.cores} cores, ${m.memory}, ${m.os}, Node ${m.node}`);
  console.log(`Filters of 100 MiB (BloomFilter m = 838,860,800 bits, k = 7; SplitBlockBloomFilter 3,276,800 blocks); best of ${ROUNDS} runs.\n`);
  console.log(table(["filter", "operation", "keys", "threads", "ns/key (wall)", "M keys/s", "speed-up"], rows));
  console.log(`\nOne thread, a filter of 2 MiB (in cache), ${smallKeys.length.toLocaleString("en-US")} integer keys, ns/key:\n`);
  console.log(table(["filter", "memory", "add new keys", "add them again", "query them"], cacheRows));
  console.log(`\nThe CLI on ${CLI_LINES.toLocaleString("en-US")} URL lines (intersect: two files of as many), wall time with process start, best of ${CLI_ROUNDS} interleaved runs:\n`);
  console.log(table(["command", "--threads", "seconds", "ns/line", "M lines/s", "speed-up"], cliRows));
}
