// The suite of `npm run bench`, run once per Node by bench/results.mjs: every
// bloomkit filter type against `bloomfilter`, `bloom-filters` and a JS Set,
// in one run, on URL-like keys from a fixed seed:
//   1. n = 1e6: string, packed-byte and integer keys; add, query of members, query of absent keys;
//   2. n = 1e7: the same without `bloom-filters` (≈ 20 µs a key: minutes a pass);
//   3. filters larger than 256 MB: sized for 3e8 keys, and 1 GiB, holding 1e7 keys;
//   4. the deletable filters against `bloom-filters`' own, with remove;
// Section 5, the binary fuse filters (bench/fuse.mjs), runs in a process of
// its own under each Node (results.mjs), not after these sections' gigabytes.
// With BENCH_JSON=path it writes its rows there as JSON for results.mjs to
// merge; without, it prints this run's tables. BENCH_KEYS=n runs sections 1
// and 4 alone at n keys.
import { writeFileSync } from "node:fs";
import { Bench } from "tinybench";
import { SplitBlockBloomFilter, hashPacked, optimal, splitBlockFalsePositiveRate } from "bloomkit";
import { bloomFiltersLib, bloomfilterLib, bloomkitLibs, deletableLibs, setLib } from "./libs.mjs";
import { measure } from "./measure.mjs";
import { machine, progress } from "./report.mjs";
import { pack, urls } from "./keys.mjs";
import { deletableTable, filterTable, runLabel } from "./merge.mjs";

const P = 0.01;
const SMALL = Number(process.env.BENCH_KEYS ?? 1_000_000);
const FULL = process.env.BENCH_KEYS === undefined;
const LARGE = 10_000_000;
const DELETABLE = 200_000;
// Section 3's 1 GiB split-block filter: 2^25 − 2 blocks of 32 bytes; the C section queries one of the same size.
const GIB_BLOCKS = 2 ** 25 - 2;
const encoder = new TextEncoder();

/** A filter's size in MiB, as the section 3 rows name it. */
function mib(bits) {
  return `${Math.round(bits / 8 / 2 ** 20)} MiB`;
}

/** Members, absent probes, their packed bytes, and integer keys 0 … n − 1 (members) and n … 2n − 1 (absent). */
function dataset(n) {
  progress(`building ${n.toLocaleString("en-US")} keys`);
  const keys = urls(n, "member", 1);
  const probes = urls(n, "absent", 2);
  return {
    keys,
    probes,
    packedKeys: pack(keys.map((key) => encoder.encode(key))),
    packedProbes: pack(probes.map((key) => encoder.encode(key))),
    memberInts: Uint32Array.from({ length: n }, (_, i) => i),
    absentInts: Uint32Array.from({ length: n }, (_, i) => n + i),
  };
}

/** Runs `libs` on `data` one after another (each drops its filters before the next starts). */
async function run(libs, data, passes, section) {
  const rows = [];
  for (const lib of libs) for (const row of await measure(lib, data, passes)) rows.push({ ...row, section });
  return rows;
}

/**
 * The floors: only writing the strings into a buffer as UTF-8 (Buffer#utf8Write,
 * the fastest way measured), under every string row; only hashing the packed
 * keys in wasm, with xxh3 (the standard, counting, scalable and cuckoo filters'
 * default) and with xxh64 (the split-block filter's), under every packed row.
 */
async function baselines(data, section, passes) {
  // As measure() times the filters: `passes` passes after exactly one warm-up (tinybench's default adds 250 ms of them).
  const bench = new Bench({ iterations: passes, time: 0, warmupIterations: 1, warmupTime: 0 });
  const target = Buffer.from(new WebAssembly.Memory({ initial: 64 }).buffer);
  bench.add("UTF-8 encode only", () => {
    let at = 0;
    for (const key of data.probes) {
      if (at > 3_000_000) at = 0;
      at += target.utf8Write(key, at);
    }
  });
  bench.add("xxh3 of the packed keys only", () => hashPacked("xxh3", data.packedProbes.bytes, data.packedProbes.ends));
  bench.add("xxh64 of the packed keys only", () => hashPacked("xxh64", data.packedProbes.bytes, data.packedProbes.ends));
  await bench.run();
  const n = data.probes.length;
  return bench.tasks.map((t) => ({ section, lib: "(baseline)", op: t.name, kind: "", keyKind: "", n, nsPerKey: (t.result.latency.mean * 1e6) / n, fpr: NaN, bitsPerKey: NaN }));
}

// --- 1. n = 1e6 (or BENCH_KEYS) ----------------------------------------------------
const small = dataset(SMALL);
const smallSizing = optimal({ n: SMALL, p: P });
const rows = await run(
  [...bloomkitLibs(SMALL, P, smallSizing), bloomfilterLib(smallSizing), bloomFiltersLib(smallSizing), setLib()],
  small,
  5,
  "small",
);
rows.push(...(await baselines(small, "small", 5)));

// --- 2. and 3. n = 1e7, and filters larger than 256 MB --------------------------------
const largeSizing = optimal({ n: LARGE, p: P });
const hugeSizing = optimal({ n: 300_000_000, p: P });
// 1 GiB standard filter (2^33 bits): the size the old memory model stopped at, beside the C section's 1 GiB split-block filter.
const gib = { m: 2 ** 33, k: 7 };
if (FULL) {
  const large = dataset(LARGE);
  rows.push(...(await run([...bloomkitLibs(LARGE, P, largeSizing), bloomfilterLib(largeSizing), setLib()], large, 2, "large")));
  rows.push(...(await baselines(large, "large", 2)));
  // Keys are 1e7 of the 3e8 the filters are sized for: what is measured is the cost of a filter far larger than cache.
  // bloomkit is timed on packed bytes and integers here (its FPR is still measured on strings).
  const packedAndInts = (lib, name, make = lib.make) => ({ ...lib, name, make, skipStrings: true });
  const [hugeBloom, hugeSplitBlock] = bloomkitLibs(LARGE, P, hugeSizing);
  const [gibBloom, gibSplitBlock] = bloomkitLibs(LARGE, P, gib);
  const huge = [
    packedAndInts(hugeBloom, `bloomkit BloomFilter (${mib(hugeSizing.m)})`),
    packedAndInts(hugeSplitBlock, "bloomkit SplitBlockBloomFilter (sized for 3e8)", () => SplitBlockBloomFilter.create(300_000_000, P)),
    { ...bloomfilterLib(hugeSizing), name: `bloomfilter (${mib(hugeSizing.m)})` },
    packedAndInts(gibBloom, "bloomkit BloomFilter (1 GiB)"),
    packedAndInts(gibSplitBlock, "bloomkit SplitBlockBloomFilter (1 GiB)", () => SplitBlockBloomFilter.withSize(GIB_BLOCKS)),
  ];
  rows.push(...(await run(huge, large, 2, "huge")));
}

// --- 4. deletable filters against bloom-filters' own -------------------------------------
const deletableSizing = optimal({ n: Math.min(SMALL, DELETABLE), p: P });
const deletableData = dataset(Math.min(SMALL, DELETABLE));
const deletableRows = await run(deletableLibs(Math.min(SMALL, DELETABLE), P, deletableSizing), deletableData, 5, "deletable");

/** The split-block filter's measured FPR on URL strings and the one its block count predicts (Σ_j Poisson(j; n/blocks)·(1 − (31/32)^j)^8). */
function splitBlockFpr() {
  const filter = SplitBlockBloomFilter.create(SMALL, P);
  const expected = splitBlockFalsePositiveRate(SMALL, filter.blocks);
  filter.dispose();
  const measured = rows.find((r) => r.section === "small" && r.lib === "bloomkit SplitBlockBloomFilter" && r.keyKind === "string").fpr;
  return { measured, expected };
}

const suite = {
  env: machine(),
  full: FULL,
  meta: {
    n: SMALL,
    p: P,
    large: LARGE,
    deletable: deletableData.keys.length,
    bytesPerKey: Math.round(small.packedKeys.bytes.length / SMALL),
    smallSizing,
    largeSizing,
    hugeSizing,
    hugeMiB: mib(hugeSizing.m),
    gibBlocks: GIB_BLOCKS,
    deletableSizing,
    splitBlockFpr: splitBlockFpr(),
  },
  rows,
  deletable: deletableRows,
};

if (process.env.BENCH_JSON) {
  writeFileSync(process.env.BENCH_JSON, JSON.stringify(suite));
} else {
  // Run alone (node bench/filters.mjs): this Node's tables; bench/results.mjs writes the report.
  const runs = [{ ...suite, label: runLabel(suite.env) }];
  const sections = FULL ? ["small", "large", "huge"] : ["small"];
  const tables = [...sections.map((section) => filterTable(runs, section)), deletableTable(runs)];
  console.log(tables.join("\n\n"));
}
