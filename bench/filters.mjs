// `npm run bench`: add and query 1,000,000 URL-like keys with bloomkit and the
// pure-JS peers `bloomfilter` and `bloom-filters`, all with the same m and k,
// in one run. Prints a table and writes bench/RESULTS.md.
import { writeFileSync } from "node:fs";
import { Bench } from "tinybench";
import { BloomFilter, optimal } from "bloomkit";
import { BloomFilter as JsBloomFilter } from "bloomfilter";
import bloomFilters from "bloom-filters";
import { machine, progress, table } from "./report.mjs";
import { pack, urls } from "./keys.mjs";

const N = Number(process.env.BENCH_KEYS ?? 1_000_000);
const P = 0.01;
const { m, k } = optimal({ n: N, p: P });
const members = urls(N, "member", 1);
const absent = urls(N, "absent", 2);
const encoder = new TextEncoder();

const membersPacked = pack(members.map((key) => encoder.encode(key)));
const absentPacked = pack(absent.map((key) => encoder.encode(key)));

/** One library under test: how to make an empty filter, add one key, and test one key. */
const libraries = [
  {
    name: "bloomkit",
    make: () => BloomFilter.withSize(m, k),
    add: (f, key) => f.add(key),
    has: (f, key) => f.has(key),
    bitsOf: (f) => f.bits,
    drop: (f) => f.dispose(),
    batch: true,
  },
  {
    name: "bloomfilter",
    make: () => new JsBloomFilter(m, k),
    add: (f, key) => f.add(key),
    has: (f, key) => f.test(key),
    bitsOf: (f) => f.m,
    drop: () => {},
  },
  {
    name: "bloom-filters",
    make: () => new bloomFilters.BloomFilter(m, k),
    add: (f, key) => f.add(key),
    has: (f, key) => f.has(key),
    bitsOf: (f) => f.size,
    drop: () => {},
    slow: true, // ≈ 20 µs/key: one timed pass is already 20 s
  },
];

/** Runs `fn(filter)` as a benchmark task; `fresh` makes a new filter per iteration (for adds). */
function task(bench, lib, label, fn, { fresh, filled }) {
  let filter;
  bench.add(`${lib.name} ${label}`, () => fn(filter), {
    beforeEach: () => {
      if (fresh) filter = lib.make();
    },
    afterEach: () => {
      if (fresh) lib.drop(filter);
    },
    beforeAll: () => {
      if (!fresh) filter = filled;
    },
  });
}

const rows = [];
const fpr = new Map();
for (const lib of libraries) {
  progress(`${lib.name}: filling a filter with ${N.toLocaleString("en-US")} keys and probing it`);
  const filled = lib.make();
  for (const key of members) lib.add(filled, key);
  let falseNegatives = 0;
  for (const key of members) if (!lib.has(filled, key)) falseNegatives++;
  let falsePositives = 0;
  for (const key of absent) if (lib.has(filled, key)) falsePositives++;
  if (falseNegatives > 0) throw new Error(`${lib.name} has ${falseNegatives} false negatives`);
  fpr.set(lib.name, { rate: falsePositives / N, bitsPerKey: lib.bitsOf(filled) / N });

  const bench = new Bench(lib.slow ? { iterations: 1, time: 0, warmup: false } : { iterations: 5, time: 0, warmupIterations: 1 });
  const loop = (op) => (f) => {
    for (const key of op === "add" ? members : absent) lib[op](f, key);
  };
  task(bench, lib, "add", loop("add"), { fresh: true });
  task(bench, lib, "query (absent)", loop("has"), { filled });
  if (lib.batch) {
    task(bench, lib, "addMany", (f) => f.addMany(members), { fresh: true });
    task(bench, lib, "hasMany (absent)", (f) => f.hasMany(absent), { filled });
    task(bench, lib, "addPacked", (f) => f.addPacked(membersPacked.bytes, membersPacked.ends), { fresh: true });
    task(bench, lib, "hasPacked (absent)", (f) => f.hasPacked(absentPacked.bytes, absentPacked.ends), { filled });
  }
  progress(`${lib.name}: timing`);
  await bench.run();
  for (const t of bench.tasks) {
    if (!t.result || t.result.state !== "completed") throw new Error(`${t.name} did not complete: ${t.result?.error ?? t.result?.state}`);
    rows.push({ lib: lib.name, op: t.name.slice(lib.name.length + 1), nsPerKey: (t.result.latency.mean * 1e6) / N });
  }
  lib.drop(filled);
}

// Baseline: only moving the strings into a wasm-sized buffer as UTF-8, no hashing,
// the floor under every string-key row above.
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
  rows.push({ lib: "(baseline)", op: "UTF-8 encode only", nsPerKey: (baseline.tasks[0].result.latency.mean * 1e6) / N });
}

const peer = (op) => rows.find((r) => r.lib === "bloomfilter" && r.op === (op.startsWith("add") ? "add" : "query (absent)"));
const lines = rows.map((r) => {
  const base = peer(r.op);
  const { rate, bitsPerKey } = fpr.get(r.lib) ?? { rate: NaN, bitsPerKey: NaN };
  return [
    r.lib,
    r.op,
    r.nsPerKey.toFixed(1),
    (1e3 / r.nsPerKey).toFixed(2),
    r.lib === "(baseline)" ? "" : `${(base.nsPerKey / r.nsPerKey).toFixed(2)}×`,
    Number.isNaN(bitsPerKey) ? "" : bitsPerKey.toFixed(2),
    Number.isNaN(rate) ? "" : `${(rate * 100).toFixed(3)}%`,
  ];
});
const header = ["library", "operation", "ns/key", "Mops/s", "vs bloomfilter", "bits/key", "measured FPR"];
const summary = table(header, lines);
const env = machine();
console.log(summary);

const report = `# Benchmark results

Written by \`npm run bench\` (bench/filters.mjs) on ${env.date}.

- Machine: ${env.cpu}, ${env.cores} cores, ${env.memory}; ${env.os}
- Node ${env.node}, V8 ${env.v8}
- Keys: ${N.toLocaleString("en-US")} URL-like strings (≈ ${Math.round(membersPacked.bytes.length / N)} bytes of UTF-8 each) from a fixed seed; a disjoint set of ${N.toLocaleString("en-US")} for the absent-key queries and the FPR.
- Every filter has the same m = ${m.toLocaleString("en-US")} bits and k = ${k} (n = ${N.toLocaleString("en-US")}, p = ${P}; theory ${(optimal({ n: N, m, k }).p * 100).toFixed(3)}%).
- ns/key is the mean time of one pass over all keys divided by the keys (tinybench; 5 timed passes after 1 warm-up, 1 pass for \`bloom-filters\`). "vs bloomfilter" is \`bloomfilter\`'s time for the same kind of operation (add or query) divided by this row's: above 1× is faster.
- add/query rows call the library once per key; the bloomkit batch rows (\`addMany\`, \`hasMany\`) pass the whole array of strings, the packed rows one buffer of UTF-8 bytes with end offsets.
- The baseline row only writes the same strings as UTF-8 into a buffer (\`Buffer#utf8Write\`, the fastest way measured): every string-key row pays at least this before any hashing.

${summary}
`;
if (N === 1_000_000) {
  writeFileSync(new URL("./RESULTS.md", import.meta.url), report);
  console.log("\nwrote bench/RESULTS.md");
} else {
  console.log(`\nBENCH_KEYS=${N}: a reduced run, bench/RESULTS.md left as it is`);
}
