// `npm run bench:fuse`: BinaryFuseFilter (8- and 16-bit) beside the
// split-block filter sized for the same rates (2^-8 and 2^-16), on URL keys,
// packed bytes and integers, and `bloom-filters`' XorFilter (pure JS, about
// 90 µs a key: timed on PEER_KEYS keys only). Each row: build or query
// ns/key, bits/key and the false-positive rate measured on absent keys:
// FPR_CHUNKS chunks of n absent keys of each kind (2^-16 is 15 hits in 10^6
// probes, too few to tell a rate 30% off), the first of them the keys the
// queries are timed on. Then, at LARGE_KEYS (default 10^7) integer keys, the
// build, the queries and the FPR (on 10 · LARGE_KEYS absent keys) again,
// where the arrays no longer fit the caches.
// BENCH_KEYS=n sets the key count (default 10^6), BENCH_FUSE_LARGE the large
// one (0 leaves it out). Run directly, it runs under this Node and Node 24
// (bench/runs.mjs) and writes bench/FUSE.md with issue 18's checks; with
// BENCH_JSON=path it writes its own rows there as JSON instead: `npm run
// bench` (results.mjs) runs it so under each Node, in a process of its own,
// as section 5 of its report.
import { writeFileSync } from "node:fs";
import { Bench } from "tinybench";
import bloomFilters from "bloom-filters";
import { BinaryFuseFilter, SplitBlockBloomFilter } from "bloomkit";
import { fileURLToPath } from "node:url";
import { machine, progress } from "./report.mjs";
import { runLabel } from "./merge.mjs";
import { commitNow, fuseMarkdown } from "./fuse-markdown.mjs";
import { fuseLib, splitBlockLib } from "./fuse-targets.mjs";
import { nodes, runJson } from "./runs.mjs";
import { pack, urls } from "./keys.mjs";

const encoder = new TextEncoder();
const ones = (flags) => flags.reduce((sum, flag) => sum + flag, 0);

/** Chunks of absent keys each filter's FPR is measured on (at n keys a chunk). */
const FPR_CHUNKS = 16;
/** Absent integer keys per member key in the large part's FPR. */
const LARGE_PROBES_PER_KEY = 10;

/** ns per key of a tinybench task's one pass over n keys; `what` names it when the pass failed. */
function nsPerKey(task, n, what) {
  if (!task.result || task.result.state !== "completed") throw new Error(`${what} did not complete: ${task.result?.error ?? task.result?.state}`);
  return (task.result.latency.mean * 1e6) / n;
}

/** Passes of each task; a task's figure is the median of its passes. */
const ROUNDS = 11;

/**
 * Times every task of `suites` ([{ lib, n, ops: { name: [keyKind, fn] }, quality }]) into `rows`, round-robin:
 * each of ROUNDS rounds runs every task once (in the first after warm-up passes of it, at least one and for 250 ms), in an order turned by
 * one each round, and a task's ns/key is the median of its rounds. A query pass over 10^6 integer keys takes 5–15
 * ms, which one collection or a neighbour on this shared machine doubles; timed one task after another (the median
 * of 11 passes each), the same run measured a fuse filter's hasInts at 37.2 ns/key under one Node and 8.2 under
 * the other, so the fuse and split-block rows it compares were taken minutes and machine states apart. Round-robin,
 * a busy stretch falls on every task alike. The section runs with --single-threaded-gc (bench/results.mjs, and
 * npm run bench:fuse): the collector's helper threads, marking the 2·10^6 URL strings this process holds after
 * the string rows allocated, took the second of this machine's two cores from the passes that followed. With
 * them, the 8-bit filter's hasInts of absent keys measured 8.3-8.4 ns/key in three runs with the string rows in
 * the round, and 4.3-4.6 in three without them; with collections in this thread alone, 4.4 with every bloomkit row.
 */
async function timeRoundRobin(rows, suites) {
  const tasks = suites.flatMap(({ lib, n, ops, quality }) => Object.entries(ops).map(([op, [keyKind, fn]]) => ({ lib, n, op, keyKind, fn, quality, ns: [] })));
  for (let round = 0; round < ROUNDS; round++) {
    progress(`binary fuse section: round ${round + 1} of ${ROUNDS}`);
    const turned = tasks.map((_, i) => tasks[(i + round) % tasks.length]);
    const bench = new Bench(round === 0 ? { iterations: 1, time: 0, warmupIterations: 1, warmupTime: 250 } : { iterations: 1, time: 0, warmup: false });
    turned.forEach((task, i) => bench.add(String(i), task.fn));
    // A collection between rounds, not in the middle of a timed pass. Run after the suite's 10^7-key sections,
    // in their process, rows that allocate measured up to 2.5× the same rows that do not (split-block hasPacked of
    // absent keys 95.3 ns/key against 37.6 for members): hence a process of its own.
    globalThis.gc?.();
    await bench.run();
    bench.tasks.forEach((timed, i) => turned[i].ns.push(nsPerKey(timed, turned[i].n, `${turned[i].lib} ${turned[i].op}`)));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  for (const { lib, n, op, keyKind, quality, ns } of tasks) rows.push({ lib, op, keyKind, n, nsPerKey: median(ns), ...quality[keyKind] });
}

/** Times `ops` over n keys into `rows` in one pass each: for the pure-JS peer, the slowest by far. */
async function timeOnce(rows, lib, n, ops, quality) {
  progress(`${lib}: timing`);
  const bench = new Bench({ iterations: 1, time: 0, warmup: false });
  for (const [op, [, fn]] of Object.entries(ops)) bench.add(op, fn);
  globalThis.gc?.();
  await bench.run();
  for (const task of bench.tasks) {
    const keyKind = ops[task.name][0];
    rows.push({ lib, op: task.name, keyKind, n, nsPerKey: nsPerKey(task, n, `${lib} ${task.name}`), ...quality[keyKind] });
  }
}

/** Fails the run on a lost key: a benchmark of a filter that loses keys measures nothing. */
function allPresent(lib, answers) {
  if (ones(answers) !== answers.length) throw new Error(`${lib} lost ${answers.length - ones(answers)} keys`);
}

/**
 * The binary fuse section at N keys, and at `large` integer keys (0: not run): rows { lib, op, keyKind, n,
 * nsPerKey, bitsPerKey, fpr, probes }, and the keys peers were timed on.
 */
export async function fuseSection(N, large = 0) {
const PEER_KEYS = Math.min(N, 20_000);
progress("building keys");
const keys = urls(N, "member", 1);
const probes = urls(N, "absent", 2);
const packedKeys = pack(keys.map((key) => encoder.encode(key)));
const packedProbes = pack(probes.map((key) => encoder.encode(key)));
const memberInts = Uint32Array.from({ length: N }, (_, i) => i);
const absentInts = Uint32Array.from({ length: N }, (_, i) => N + i);
const rows = [];
/** The bloomkit filters' tasks, timed together (timeRoundRobin), and the filters they query. */
const suites = [];
const filters = [];
/** The filters whose FPR measureQuality measures, with the quality objects their suites report. */
const measured = [];

/**
 * Fills each `quality` of `measured` ([{ byString, byInt, stringBits, intBits, quality }]: a filter of the URL keys
 * and one of the integer keys) with { string, bytes, int: { bitsPerKey, fpr, probes } }: the FPR on FPR_CHUNKS chunks
 * of N absent keys of each kind, the first chunk the timed queries' probes, each chunk made once for every filter.
 * Strings and packed bytes hash the same bytes, so their counts must agree: a difference fails the run.
 */
function measureQuality(measured) {
  const hits = measured.map(() => ({ string: 0, bytes: 0, int: 0 }));
  for (let chunk = 0; chunk < FPR_CHUNKS; chunk++) {
    progress(`FPR: chunk ${chunk + 1} of ${FPR_CHUNKS}`);
    const strings = absentChunk(chunk);
    const ints = chunk === 0 ? absentInts : Uint32Array.from({ length: N }, (_, i) => (chunk + 1) * N + i);
    measured.forEach(({ byString, byInt }, f) => {
      hits[f].string += ones(byString.hasMany(strings.keys));
      hits[f].bytes += ones(byString.hasPacked(strings.packed.bytes, strings.packed.ends));
      hits[f].int += ones(byInt.hasInts(ints));
    });
  }
  const probeCount = FPR_CHUNKS * N;
  measured.forEach(({ stringBits, intBits, quality }, f) => {
    if (hits[f].string !== hits[f].bytes) throw new Error(`hasMany and hasPacked of the same absent keys differ: ${hits[f].string} against ${hits[f].bytes} hits`);
    quality.string = { bitsPerKey: stringBits, fpr: hits[f].string / probeCount, probes: probeCount };
    quality.bytes = { bitsPerKey: stringBits, fpr: hits[f].bytes / probeCount, probes: probeCount };
    quality.int = { bitsPerKey: intBits, fpr: hits[f].int / probeCount, probes: probeCount };
  });
}

/** Absent URL keys, chunk `chunk` of FPR_CHUNKS, as strings and packed; only the first is kept (for the timed queries). */
function absentChunk(chunk) {
  if (chunk === 0) return { keys: probes, packed: packedProbes };
  const keys = urls(N, `absent${chunk}`, 2 + chunk);
  return { keys, packed: pack(keys.map((key) => encoder.encode(key))) };
}

/** The one-key rows of a filter of the URL keys: `has` called once per key, as a blocklist asks about each request. */
function oneKeyQueries(lib, filter) {
  return {
    "has (members)": ["string", () => {
      let hits = 0;
      for (let i = 0; i < keys.length; i++) hits += Number(filter.has(keys[i]));
      if (hits !== keys.length) throw new Error(`${lib}: has missed ${keys.length - hits} of its keys`);
    }],
    "has (absent)": ["string", () => {
      let hits = 0;
      for (let i = 0; i < probes.length; i++) hits += Number(filter.has(probes[i]));
      return hits;
    }],
  };
}

for (const fingerprintBits of [8, 16]) {
  const lib = fuseLib(fingerprintBits);
  progress(`${lib}: building`);
  const byString = BinaryFuseFilter.build(keys, { fingerprintBits });
  const byInt = BinaryFuseFilter.buildInts(memberInts, { fingerprintBits });
  allPresent(lib, byString.hasMany(keys));
  allPresent(lib, byInt.hasInts(memberInts));
  const quality = {};
  measured.push({ byString, byInt, stringBits: byString.bitsPerItem, intBits: byInt.bitsPerItem, quality });
  suites.push({ lib, n: N, quality, ops: {
    "build": ["string", () => BinaryFuseFilter.build(keys, { fingerprintBits }).dispose()],
    ...oneKeyQueries(lib, byString),
    "hasMany (members)": ["string", () => byString.hasMany(keys)],
    "hasMany (absent)": ["string", () => byString.hasMany(probes)],
    "buildPacked": ["bytes", () => BinaryFuseFilter.buildPacked(packedKeys.bytes, packedKeys.ends, { fingerprintBits }).dispose()],
    "hasPacked (members)": ["bytes", () => byString.hasPacked(packedKeys.bytes, packedKeys.ends)],
    "hasPacked (absent)": ["bytes", () => byString.hasPacked(packedProbes.bytes, packedProbes.ends)],
    "buildInts (u32)": ["int", () => BinaryFuseFilter.buildInts(memberInts, { fingerprintBits }).dispose()],
    "hasInts (u32, members)": ["int", () => byInt.hasInts(memberInts)],
    "hasInts (u32, absent)": ["int", () => byInt.hasInts(absentInts)],
  } });
  filters.push(byString, byInt);
}

for (const fingerprintBits of [8, 16]) {
  const p = 2 ** -fingerprintBits;
  const lib = splitBlockLib(fingerprintBits);
  progress(`${lib}: filling`);
  const byString = SplitBlockBloomFilter.create(N, p, { powerOfTwo: false }).addMany(keys);
  const byInt = SplitBlockBloomFilter.create(N, p, { powerOfTwo: false }).addInts(memberInts);
  allPresent(lib, byString.hasMany(keys));
  allPresent(lib, byInt.hasInts(memberInts));
  const quality = {};
  measured.push({ byString, byInt, stringBits: byString.bits / N, intBits: byInt.bits / N, quality });
  suites.push({ lib, n: N, quality, ops: {
    "addMany": ["string", () => SplitBlockBloomFilter.create(N, p, { powerOfTwo: false }).addMany(keys).dispose()],
    ...oneKeyQueries(lib, byString),
    "hasMany (members)": ["string", () => byString.hasMany(keys)],
    "hasMany (absent)": ["string", () => byString.hasMany(probes)],
    "addPacked": ["bytes", () => SplitBlockBloomFilter.create(N, p, { powerOfTwo: false }).addPacked(packedKeys.bytes, packedKeys.ends).dispose()],
    "hasPacked (members)": ["bytes", () => byString.hasPacked(packedKeys.bytes, packedKeys.ends)],
    "hasPacked (absent)": ["bytes", () => byString.hasPacked(packedProbes.bytes, packedProbes.ends)],
    "addInts (u32)": ["int", () => SplitBlockBloomFilter.create(N, p, { powerOfTwo: false }).addInts(memberInts).dispose()],
    "hasInts (u32, members)": ["int", () => byInt.hasInts(memberInts)],
    "hasInts (u32, absent)": ["int", () => byInt.hasInts(absentInts)],
  } });
  filters.push(byString, byInt);
}

measureQuality(measured);
await timeRoundRobin(rows, suites);
for (const filter of filters) filter.dispose();

{
  const lib = "bloom-filters XorFilter 8-bit";
  const peerKeys = keys.slice(0, PEER_KEYS);
  const peerProbes = probes.slice(0, PEER_KEYS);
  progress(`${lib}: building`);
  const filter = bloomFilters.XorFilter.create(peerKeys, 8);
  const quality = { string: { bitsPerKey: (filter._filter.length * 8) / PEER_KEYS, fpr: peerProbes.filter((key) => filter.has(key)).length / PEER_KEYS } };
  await timeOnce(rows, lib, PEER_KEYS, {
    "create": ["string", () => bloomFilters.XorFilter.create(peerKeys, 8)],
    "has (members)": ["string", () => peerKeys.forEach((key) => filter.has(key))],
    "has (absent)": ["string", () => peerProbes.forEach((key) => filter.has(key))],
  }, quality);
}

if (large > 0) rows.push(...(await largeRows(large)));
return { rows, peerKeys: PEER_KEYS, large };
}

/**
 * The integer rows at `L` keys (0 … L − 1): builds, queries of members and of L … 2L − 1, the same round-robin as
 * the rows at N; FPR on LARGE_PROBES_PER_KEY · L absent keys, in chunks of L, each chunk made once for every filter.
 */
async function largeRows(L) {
  progress(`${L} integer keys`);
  const members = Uint32Array.from({ length: L }, (_, i) => i);
  const absent = Uint32Array.from({ length: L }, (_, i) => L + i);
  // Each filter with how it is made from the members, its row of that, and its bits per key.
  const kinds = [
    ...[8, 16].map((fingerprintBits) => ({
      lib: fuseLib(fingerprintBits),
      made: "buildInts (u32)",
      make: () => BinaryFuseFilter.buildInts(members, { fingerprintBits }),
      bitsPerKey: (filter) => filter.bitsPerItem,
    })),
    ...[8, 16].map((fingerprintBits) => ({
      lib: splitBlockLib(fingerprintBits),
      made: "addInts (u32)",
      make: () => SplitBlockBloomFilter.create(L, 2 ** -fingerprintBits, { powerOfTwo: false }).addInts(members),
      bitsPerKey: (filter) => filter.bits / L,
    })),
  ];
  const filters = kinds.map(({ lib, make }) => {
    progress(`${lib}: from ${L} keys`);
    const filter = make();
    allPresent(lib, filter.hasInts(members));
    return filter;
  });
  const hits = filters.map((filter) => ones(filter.hasInts(absent)));
  const chunk = new Uint32Array(L);
  for (let c = 1; c < LARGE_PROBES_PER_KEY; c++) {
    progress(`FPR at ${L} keys: chunk ${c + 1} of ${LARGE_PROBES_PER_KEY}`);
    for (let i = 0; i < L; i++) chunk[i] = (c + 1) * L + i;
    filters.forEach((filter, f) => (hits[f] += ones(filter.hasInts(chunk))));
  }
  const probes = LARGE_PROBES_PER_KEY * L;
  const suites = kinds.map(({ lib, made, make, bitsPerKey }, f) => ({
    lib,
    n: L,
    quality: { int: { bitsPerKey: bitsPerKey(filters[f]), fpr: hits[f] / probes, probes } },
    ops: {
      [made]: ["int", () => make().dispose()],
      "hasInts (u32, members)": ["int", () => filters[f].hasInts(members)],
      "hasInts (u32, absent)": ["int", () => filters[f].hasInts(absent)],
    },
  }));
  const rows = [];
  await timeRoundRobin(rows, suites);
  for (const filter of filters) filter.dispose();
  return rows;
}

if (import.meta.url === new URL(process.argv[1], "file:").href) {
  const reduced = process.env.BENCH_KEYS !== undefined || process.env.BENCH_FUSE_LARGE !== undefined;
  const N = Number(process.env.BENCH_KEYS ?? 1_000_000);
  const LARGE = Number(process.env.BENCH_FUSE_LARGE ?? (process.env.BENCH_KEYS === undefined ? 10_000_000 : 0));
  // The large rows are told from the others by their key count.
  if (LARGE === N) throw new Error(`BENCH_FUSE_LARGE must differ from BENCH_KEYS (both ${N}); 0 leaves the large part out`);
  if (process.env.BENCH_JSON) {
    // The commit is recorded with the rows: a report made later from them (BENCH_REUSE_SUITES) names what was measured.
    writeFileSync(process.env.BENCH_JSON, JSON.stringify({ env: machine(), commit: commitNow(), ...(await fuseSection(N, LARGE)) }));
    process.exit(0);
  }
  // Under this Node and Node 24, each in a process of its own (collections in its main thread only: see ROUNDS).
  const commit = commitNow();
  const { list, notRun } = nodes();
  for (const missing of notRun) console.error(`${missing.label} is not run: ${missing.reason}`);
  const runs = list.map((node) => {
    const run = runJson(node, fileURLToPath(import.meta.url), "fuse-only", {
      args: ["--expose-gc", "--single-threaded-gc"],
      size: `${N}-${LARGE}`,
      reuse: Boolean(process.env.BENCH_REUSE_SUITES),
      note: reduced ? `, BENCH_KEYS=${N}, BENCH_FUSE_LARGE=${LARGE}` : "",
    });
    return { ...run, label: runLabel(run.env), fuse: run.rows };
  });
  const markdown = fuseMarkdown(runs, notRun, N, LARGE, commit);
  console.log(markdown);
  if (reduced) console.log("\nA reduced run: bench/FUSE.md left as it is");
  else {
    writeFileSync(new URL("./FUSE.md", import.meta.url), markdown);
    console.log("\nwrote bench/FUSE.md");
  }
}
