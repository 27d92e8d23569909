// `npm run bench:fuse`: BinaryFuseFilter (8- and 16-bit) beside the
// split-block filter sized for the same rates (2^-8 and 2^-16), on URL keys,
// packed bytes and integers, and `bloom-filters`' XorFilter (pure JS, about
// 90 µs a key: timed on PEER_KEYS keys only). Each row: build or query
// ns/key, bits/key and the false-positive rate measured on absent keys.
// BENCH_KEYS=n sets the key count (default 10^6). Prints a Markdown table.
// `npm run bench` runs the same section (fuseSection) under each Node and
// merges its rows with the other filters'.
import { Bench } from "tinybench";
import bloomFilters from "bloom-filters";
import { BinaryFuseFilter, SplitBlockBloomFilter } from "bloomkit";
import { machine, progress } from "./report.mjs";
import { fuseTable, runLabel } from "./merge.mjs";
import { pack, urls } from "./keys.mjs";

const encoder = new TextEncoder();
const ones = (flags) => flags.reduce((sum, flag) => sum + flag, 0);

/** The binary fuse section at N keys: rows { lib, op, keyKind, n, nsPerKey, bitsPerKey, fpr }, and the keys peers were timed on. */
export async function fuseSection(N) {
const PEER_KEYS = Math.min(N, 20_000);
progress("building keys");
const keys = urls(N, "member", 1);
const probes = urls(N, "absent", 2);
const packedKeys = pack(keys.map((key) => encoder.encode(key)));
const packedProbes = pack(probes.map((key) => encoder.encode(key)));
const memberInts = Uint32Array.from({ length: N }, (_, i) => i);
const absentInts = Uint32Array.from({ length: N }, (_, i) => N + i);
const rows = [];

/**
 * Times `ops` ({ name: [keyKind, fn] }) over n keys into `rows`: the median of 11 passes after a warm-up (one pass
 * when `slow`). A query pass over 10^6 integer keys takes 5–15 ms, which one collection or interrupt doubles: with
 * the mean of 5, the same row measured 8.5 and 16.9 ns/key in one run.
 */
async function time(rows, lib, n, ops, quality, slow = false) {
  progress(`${lib}: timing`);
  const bench = new Bench(slow ? { iterations: 1, time: 0, warmup: false } : { iterations: 11, time: 0, warmupIterations: 1 });
  for (const [op, [, fn]] of Object.entries(ops)) bench.add(op, fn);
  // In the suite this section follows the 10^7-key sections: without a full collection first, V8 collects their
  // gigabytes on the other core while the first rows are timed (fuse queries measured 3× slower, and uneven).
  globalThis.gc?.();
  await bench.run();
  for (const task of bench.tasks) {
    const keyKind = ops[task.name][0];
    const { bitsPerKey, fpr } = quality[keyKind];
    if (!task.result || task.result.state !== "completed") throw new Error(`${lib} ${task.name} did not complete: ${task.result?.error ?? task.result?.state}`);
    rows.push({ lib, op: task.name, keyKind, n, nsPerKey: (task.result.latency.p50 * 1e6) / n, bitsPerKey, fpr });
  }
}

/** Fails the run on a lost key: a benchmark of a filter that loses keys measures nothing. */
function allPresent(lib, answers) {
  if (ones(answers) !== answers.length) throw new Error(`${lib} lost ${answers.length - ones(answers)} keys`);
}

for (const fingerprintBits of [8, 16]) {
  const lib = `bloomkit BinaryFuseFilter ${fingerprintBits}-bit`;
  progress(`${lib}: building`);
  const byString = BinaryFuseFilter.build(keys, { fingerprintBits });
  const byInt = BinaryFuseFilter.buildInts(memberInts, { fingerprintBits });
  allPresent(lib, byString.hasMany(keys));
  allPresent(lib, byInt.hasInts(memberInts));
  const quality = {
    string: { bitsPerKey: byString.bitsPerItem, fpr: ones(byString.hasMany(probes)) / N },
    bytes: { bitsPerKey: byString.bitsPerItem, fpr: ones(byString.hasPacked(packedProbes.bytes, packedProbes.ends)) / N },
    int: { bitsPerKey: byInt.bitsPerItem, fpr: ones(byInt.hasInts(absentInts)) / N },
  };
  await time(rows, lib, N, {
    "build": ["string", () => BinaryFuseFilter.build(keys, { fingerprintBits }).dispose()],
    "hasMany (members)": ["string", () => byString.hasMany(keys)],
    "hasMany (absent)": ["string", () => byString.hasMany(probes)],
    "buildPacked": ["bytes", () => BinaryFuseFilter.buildPacked(packedKeys.bytes, packedKeys.ends, { fingerprintBits }).dispose()],
    "hasPacked (members)": ["bytes", () => byString.hasPacked(packedKeys.bytes, packedKeys.ends)],
    "hasPacked (absent)": ["bytes", () => byString.hasPacked(packedProbes.bytes, packedProbes.ends)],
    "buildInts (u32)": ["int", () => BinaryFuseFilter.buildInts(memberInts, { fingerprintBits }).dispose()],
    "hasInts (u32, members)": ["int", () => byInt.hasInts(memberInts)],
    "hasInts (u32, absent)": ["int", () => byInt.hasInts(absentInts)],
  }, quality);
  byString.dispose();
  byInt.dispose();
}

for (const fingerprintBits of [8, 16]) {
  const p = 2 ** -fingerprintBits;
  const lib = `bloomkit SplitBlockBloomFilter p = 2^-${fingerprintBits}`;
  progress(`${lib}: filling`);
  const byString = SplitBlockBloomFilter.create(N, p, { powerOfTwo: false }).addMany(keys);
  const byInt = SplitBlockBloomFilter.create(N, p, { powerOfTwo: false }).addInts(memberInts);
  allPresent(lib, byString.hasMany(keys));
  allPresent(lib, byInt.hasInts(memberInts));
  const quality = {
    string: { bitsPerKey: byString.bits / N, fpr: ones(byString.hasMany(probes)) / N },
    bytes: { bitsPerKey: byString.bits / N, fpr: ones(byString.hasPacked(packedProbes.bytes, packedProbes.ends)) / N },
    int: { bitsPerKey: byInt.bits / N, fpr: ones(byInt.hasInts(absentInts)) / N },
  };
  await time(rows, lib, N, {
    "addMany": ["string", () => SplitBlockBloomFilter.create(N, p, { powerOfTwo: false }).addMany(keys).dispose()],
    "hasMany (members)": ["string", () => byString.hasMany(keys)],
    "hasMany (absent)": ["string", () => byString.hasMany(probes)],
    "addPacked": ["bytes", () => SplitBlockBloomFilter.create(N, p, { powerOfTwo: false }).addPacked(packedKeys.bytes, packedKeys.ends).dispose()],
    "hasPacked (members)": ["bytes", () => byString.hasPacked(packedKeys.bytes, packedKeys.ends)],
    "hasPacked (absent)": ["bytes", () => byString.hasPacked(packedProbes.bytes, packedProbes.ends)],
    "addInts (u32)": ["int", () => SplitBlockBloomFilter.create(N, p, { powerOfTwo: false }).addInts(memberInts).dispose()],
    "hasInts (u32, members)": ["int", () => byInt.hasInts(memberInts)],
    "hasInts (u32, absent)": ["int", () => byInt.hasInts(absentInts)],
  }, quality);
  byString.dispose();
  byInt.dispose();
}

{
  const lib = "bloom-filters XorFilter 8-bit";
  const peerKeys = keys.slice(0, PEER_KEYS);
  const peerProbes = probes.slice(0, PEER_KEYS);
  progress(`${lib}: building`);
  const filter = bloomFilters.XorFilter.create(peerKeys, 8);
  const quality = { string: { bitsPerKey: (filter._filter.length * 8) / PEER_KEYS, fpr: peerProbes.filter((key) => filter.has(key)).length / PEER_KEYS } };
  await time(rows, lib, PEER_KEYS, {
    "create": ["string", () => bloomFilters.XorFilter.create(peerKeys, 8)],
    "has (members)": ["string", () => peerKeys.forEach((key) => filter.has(key))],
    "has (absent)": ["string", () => peerProbes.forEach((key) => filter.has(key))],
  }, quality, true);
}

return { rows, peerKeys: PEER_KEYS };
}

if (import.meta.url === new URL(process.argv[1], "file:").href) {
  const N = Number(process.env.BENCH_KEYS ?? 1_000_000);
  const env = machine();
  const section = await fuseSection(N);
  console.log(`Binary fuse filters, ${N.toLocaleString("en-US")} URL keys (integers 0 … n − 1), ${env.cpu}, ${env.cores} cores, Node ${env.node}\n`);
  console.log(fuseTable([{ label: runLabel(env), fuse: section.rows }]));
}
