// `npm run bench`: bloomkit's filters against pure-JS peers in one run, on
// URL-like keys from a fixed seed. Section 1: standard Bloom filters (1e6 keys,
// same m and k for all) against `bloomfilter` and `bloom-filters`. Section 2:
// deletable filters (counting, cuckoo) against `bloom-filters`' own.
// Prints tables and writes bench/RESULTS.md.
import { writeFileSync } from "node:fs";
import { Bench } from "tinybench";
import { BloomFilter, CountingBloomFilter, CuckooFilter, SplitBlockBloomFilter, optimal } from "bloomkit";
import { BloomFilter as JsBloomFilter } from "bloomfilter";
import bloomFilters from "bloom-filters";
import { machine, progress, table } from "./report.mjs";
import { pack, urls } from "./keys.mjs";

const N = Number(process.env.BENCH_KEYS ?? 1_000_000);
const N_DELETABLE = Math.min(N, 200_000);
const P = 0.01;
const encoder = new TextEncoder();
const members = urls(N, "member", 1);
const absent = urls(N, "absent", 2);
const membersPacked = pack(members.map((key) => encoder.encode(key)));
const absentPacked = pack(absent.map((key) => encoder.encode(key)));

/**
 * Measures one library: fills a filter with `n` members and probes `n`
 * absent keys (FPR, no false negatives), then times per-key add, query of
 * absent keys and, where it can, remove; `batch` adds bloomkit's batch forms.
 */
async function measure(lib, n) {
  const keys = members.slice(0, n);
  const probes = absent.slice(0, n);
  progress(`${lib.name}: filling a filter with ${n.toLocaleString("en-US")} keys and probing it`);
  const filled = lib.make();
  // A cuckoo filter's add returns false when it is full: those keys were never stored.
  const stored = keys.filter((key) => lib.add(filled, key) !== false);
  let falseNegatives = 0;
  for (const key of stored) if (!lib.has(filled, key)) falseNegatives++;
  // bloomkit must never lose a key; a peer that does is reported, not hidden.
  if (falseNegatives > 0 && lib.batch) throw new Error(`${lib.name} has ${falseNegatives} false negatives`);
  let falsePositives = 0;
  for (const key of probes) if (lib.has(filled, key)) falsePositives++;
  const quality = { fpr: falsePositives / n, bitsPerKey: lib.bitsOf(filled) / n, stored: stored.length / n, falseNegatives: falseNegatives / stored.length };

  const bench = new Bench(lib.slow ? { iterations: 1, time: 0, warmup: false } : { iterations: 5, time: 0, warmupIterations: 1 });
  const task = (label, fn, setup) => {
    let filter;
    bench.add(label, () => fn(filter), {
      beforeEach: () => {
        if (setup === "empty") filter = lib.make();
        if (setup === "full") {
          filter = lib.make();
          lib.fill(filter, keys);
        }
      },
      afterEach: () => setup && lib.drop(filter),
      beforeAll: () => {
        if (!setup) filter = filled;
      },
    });
  };
  task("add", (f) => {
    for (const key of keys) lib.add(f, key);
  }, "empty");
  task("query (absent)", (f) => {
    for (const key of probes) lib.has(f, key);
  });
  if (lib.remove) {
    task("remove", (f) => {
      for (const key of keys) lib.remove(f, key);
    }, "full");
  }
  if (lib.batch) {
    const packedKeys = { bytes: membersPacked.bytes.subarray(0, membersPacked.ends[n - 1]), ends: membersPacked.ends.subarray(0, n) };
    const packedProbes = { bytes: absentPacked.bytes.subarray(0, absentPacked.ends[n - 1]), ends: absentPacked.ends.subarray(0, n) };
    task("addMany", (f) => f.addMany(keys), "empty");
    task("hasMany (absent)", (f) => f.hasMany(probes));
    task("addPacked", (f) => f.addPacked(packedKeys.bytes, packedKeys.ends), "empty");
    task("hasPacked (absent)", (f) => f.hasPacked(packedProbes.bytes, packedProbes.ends));
    if (lib.remove) task("removeMany", (f) => f.removeMany(keys), "full");
  }
  if (lib.ints) {
    // Integer keys 0 … n−1 as members, n … 2n−1 as absent keys: no encoding at all.
    const memberInts = Uint32Array.from({ length: n }, (_, i) => i);
    const absentInts = Uint32Array.from({ length: n }, (_, i) => n + i);
    task("addInts (u32)", (f) => f.addInts(memberInts), "empty");
    task("hasInts (u32, absent)", (f) => f.hasInts(absentInts));
  }
  progress(`${lib.name}: timing`);
  await bench.run();
  lib.drop(filled);
  return bench.tasks.map((t) => {
    if (!t.result || t.result.state !== "completed") throw new Error(`${lib.name} ${t.name} did not complete: ${t.result?.error ?? t.result?.state}`);
    return { lib: lib.name, op: t.name, nsPerKey: (t.result.latency.mean * 1e6) / n, ...quality };
  });
}

/** bloomkit's batch-capable filters share these. */
const bloomkitLib = (name, make) => ({
  name,
  make,
  add: (f, key) => f.add(key),
  has: (f, key) => f.has(key),
  fill: (f, keys) => f.addMany(keys),
  bitsOf: (f) => ("counterBits" in f ? f.bits * f.counterBits : "fingerprintBits" in f ? f.capacity * f.fingerprintBits : f.bits),
  drop: (f) => f.dispose(),
  batch: true,
});
const jsLib = (name, make, extra = {}) => ({
  name,
  make,
  add: (f, key) => f.add(key),
  has: (f, key) => f.has(key),
  fill: (f, keys) => {
    for (const key of keys) f.add(key);
  },
  drop: () => {},
  ...extra,
});

// --- Section 1: standard Bloom filters ----------------------------------------
const { m, k } = optimal({ n: N, p: P });
const standard = [
  { ...bloomkitLib("bloomkit BloomFilter", () => BloomFilter.withSize(m, k)), ints: true },
  { ...bloomkitLib("bloomkit SplitBlockBloomFilter", () => SplitBlockBloomFilter.create(N, P)), ints: true },
  jsLib("bloomfilter", () => new JsBloomFilter(m, k), { has: (f, key) => f.test(key), bitsOf: (f) => f.m }),
  jsLib("bloom-filters BloomFilter", () => new bloomFilters.BloomFilter(m, k), { bitsOf: (f) => f.size, slow: true }),
];
const standardRows = [];
for (const lib of standard) standardRows.push(...(await measure(lib, N)));

// Baseline: only moving the strings into a wasm-sized buffer as UTF-8, no
// hashing: the floor under every string-key row.
{
  const baseline = new Bench({ iterations: 5, time: 0, warmupIterations: 1 });
  const target = Buffer.from(new WebAssembly.Memory({ initial: 64 }).buffer);
  baseline.add("UTF-8 encode only", () => {
    let at = 0;
    for (const key of absent) {
      if (at > 3_000_000) at = 0;
      at += target.utf8Write(key, at);
    }
  });
  await baseline.run();
  standardRows.push({ lib: "(baseline)", op: "UTF-8 encode only", nsPerKey: (baseline.tasks[0].result.latency.mean * 1e6) / N, fpr: NaN, bitsPerKey: NaN, stored: undefined });
}

// --- Section 2: deletable filters -------------------------------------------------
const counting = optimal({ n: N_DELETABLE, p: P });
const deletable = [
  bloomkitLib("bloomkit CountingBloomFilter", () => CountingBloomFilter.withSize(counting.m, counting.k)),
  jsLib("bloom-filters CountingBloomFilter", () => new bloomFilters.CountingBloomFilter(counting.m, counting.k), {
    remove: (f, key) => f.remove(key),
    bitsOf: (f) => f.size * 64, // one JS number (8 bytes) per counter
    slow: true,
  }),
  bloomkitLib("bloomkit CuckooFilter", () => CuckooFilter.create(N_DELETABLE, P)),
  jsLib("bloom-filters CuckooFilter", () => bloomFilters.CuckooFilter.create(N_DELETABLE, P), {
    remove: (f, key) => f.remove(key),
    bitsOf: (f) => f._size * f._bucketSize * f._fingerprintLength * 4, // fingerprints are hex strings: 4 bits a character
    slow: true,
  }),
];
for (const lib of deletable.filter((l) => l.batch)) lib.remove = (f, key) => f.remove(key);
const deletableRows = [];
for (const lib of deletable) deletableRows.push(...(await measure(lib, N_DELETABLE)));

// --- Report ---------------------------------------------------------------------
const kind = (op) => (op.startsWith("add") ? "add" : op.startsWith("remove") ? "remove" : "query (absent)");
function rowsFor(rows, peerOf) {
  return rows.map((r) => {
    const peer = peerOf(r) && rows.find((p) => p.lib === peerOf(r) && p.op === kind(r.op));
    return [
      r.lib,
      r.op,
      r.nsPerKey.toFixed(1),
      (1e3 / r.nsPerKey).toFixed(2),
      peer ? `${(peer.nsPerKey / r.nsPerKey).toFixed(2)}×` : "",
      Number.isNaN(r.bitsPerKey) ? "" : r.bitsPerKey.toFixed(2),
      Number.isNaN(r.fpr) ? "" : `${(r.fpr * 100).toFixed(3)}%`,
      r.stored === undefined ? "" : `${(r.stored * 100).toFixed(1)}%`,
      r.falseNegatives === undefined ? "" : `${(r.falseNegatives * 100).toFixed(2)}%`,
    ];
  });
}
const header = (peer) => ["library", "operation", "ns/key", "Mops/s", `vs ${peer}`, "bits/key", "measured FPR", "keys stored", "false negatives"];
const standardTable = table(header("bloomfilter"), rowsFor(standardRows, (r) => (r.lib === "(baseline)" ? undefined : "bloomfilter")));
const deletableTable = table(
  header("bloom-filters"),
  rowsFor(deletableRows, (r) => (r.lib.includes("Counting") ? "bloom-filters CountingBloomFilter" : "bloom-filters CuckooFilter")),
);
console.log(`${standardTable}\n\n${deletableTable}`);

const env = machine();
const report = `# Benchmark results

Written by \`npm run bench\` (bench/filters.mjs) on ${env.date}.

- Machine: ${env.cpu}, ${env.cores} cores, ${env.memory}; ${env.os}
- Node ${env.node}, V8 ${env.v8}
- Keys: URL-like strings (≈ ${Math.round(membersPacked.bytes.length / N)} bytes of UTF-8 each) from a fixed seed; a disjoint set for the absent-key queries and the measured FPR.
- ns/key is the mean time of one pass over all keys divided by the keys (tinybench; 5 timed passes after 1 warm-up, 1 pass for the \`bloom-filters\` package, whose passes take tens of seconds). The "vs" column is the peer's time for the same kind of operation (add, query, remove) divided by this row's: above 1× is faster.
- add/query/remove rows call the library once per key; bloomkit's batch rows (\`addMany\`, \`hasMany\`, \`removeMany\`) pass the whole array of strings, its packed rows one buffer of UTF-8 bytes with end offsets.

## Standard Bloom filters

${N.toLocaleString("en-US")} keys; every standard filter has the same m = ${m.toLocaleString("en-US")} bits and k = ${k} (n = ${N.toLocaleString("en-US")}, p = ${P}; theory ${(optimal({ n: N, m, k }).p * 100).toFixed(3)}%); the split-block filter is sized by the Parquet guidance for the same n and p. The integer rows add the keys 0 … n − 1 from a Uint32Array and query n … 2n − 1. The baseline row only writes the same strings as UTF-8 into a buffer (\`Buffer#utf8Write\`, the fastest way measured): every string-key row pays at least this before any hashing.

${standardTable}

## Deletable filters

${N_DELETABLE.toLocaleString("en-US")} keys, p = ${P}. The counting filters share m = ${counting.m.toLocaleString("en-US")} counters and k = ${counting.k}; bloomkit's are 4-bit, \`bloom-filters\` keeps one JS number per counter. Each cuckoo filter is sized by its own library for n and p (bloomkit: 16-bit fingerprints, buckets of 4, a power-of-two bucket count with room for n at 95% load). "keys stored" is the share of the n keys the filter accepted: a cuckoo filter's add fails when it is full, and those keys are not in it (they are not counted as false negatives). "false negatives" is the share of stored keys (those whose add reported success) that the filter then says are absent: a filter must have none. bits/key counts the filter's table: counters × counter bits, slots × fingerprint bits (\`bloom-filters\` stores each fingerprint as a hex string, counted at 4 bits a character; its counters are JS numbers, 64 bits each). "remove" removes every stored member from a full filter.

${deletableTable}
`;
if (N === 1_000_000) {
  writeFileSync(new URL("./RESULTS.md", import.meta.url), report);
  console.log("\nwrote bench/RESULTS.md");
} else {
  console.log(`\nBENCH_KEYS=${N}: a reduced run, bench/RESULTS.md left as it is`);
}
