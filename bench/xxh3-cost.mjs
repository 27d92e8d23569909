// `npm run bench:xxh3`: what XXH3-64 costs against xxh64 in this wasm, where
// the 64×64→128-bit multiply it needs is built from four 32×32→64 products.
// hashPacked (keys already in one buffer, so no string encoding is timed) over
// URL-like keys and fixed-size random keys, both through the API (which also
// copies keys into wasm memory and results out) and as the bare wasm loop over
// keys already in wasm memory; and a standard filter's addPacked/hasPacked
// with each hash. Runs alternate between the two hashes
// and the median is reported, so a busy machine skews both alike. ≈ 20 s.
import { BloomFilter, hashNames, hashPacked } from "bloomkit";
// An arena of its own (a wasm memory and the core over it), to time the hash loop without the copies around it.
import { Arena } from "../dist/arena.js";
import { machine, progress, table } from "./report.mjs";
import { pack, rng, urls } from "./keys.mjs";

const HASHES = ["xxh64", "xxh3"];
const ROUNDS = 7;
const encoder = new TextEncoder();
const random = rng(41);

/** Median of the ms per run of each function, run in turn ROUNDS times after one warm-up each. */
function alternate(fns) {
  const times = fns.map(() => []);
  fns.forEach((fn) => fn());
  for (let r = 0; r < ROUNDS; r++) {
    fns.forEach((fn, i) => {
      const start = performance.now();
      fn();
      times[i].push(performance.now() - start);
    });
  }
  return times.map((t) => t.sort((a, b) => a - b)[t.length >> 1]);
}

const sets = [];
progress("preparing keys");
const urlKeys = urls(1_000_000, "xxh3-cost", 42).map((key) => encoder.encode(key));
sets.push({ label: `URL-like (≈ ${Math.round(urlKeys.reduce((s, k) => s + k.length, 0) / urlKeys.length)} B)`, packed: pack(urlKeys) });
for (const size of [8, 16, 32, 52, 100, 300]) {
  const count = Math.min(1_000_000, Math.floor(32_000_000 / size));
  sets.push({ label: `${size} B random`, packed: pack(Array.from({ length: count }, () => new Uint8Array(size).map(() => Math.floor(random() * 256)))) });
}

const arena = new Arena();
const rows = [];
const row = (label, count, ms) => {
  const [ns64, ns3] = ms.map((t) => (t * 1e6) / count);
  rows.push([label, count.toLocaleString("en-US"), ns64.toFixed(1), ns3.toFixed(1), `${(ns64 / ns3).toFixed(2)}×`]);
};
for (const { label, packed } of sets) {
  progress(`hashPacked, ${label}`);
  const count = packed.ends.length;
  row(`hashPacked, ${label}`, count, alternate(HASHES.map((name) => () => hashPacked(name, packed.bytes, packed.ends))));
  // The same keys copied into wasm memory once; only the wasm loop is timed.
  // Keys, then u32 ends aligned to 4, then u64 hashes aligned to 8: up to 16 bytes of padding between them.
  const block = arena.alloc(packed.bytes.length + count * 12 + 16);
  const ends = block + packed.bytes.length + ((4 - (packed.bytes.length & 3)) & 3);
  const out = block + packed.bytes.length + count * 4 + 8 - ((packed.bytes.length + count * 4) & 7);
  arena.u8().set(packed.bytes, block);
  arena.u32().set(packed.ends, ends >>> 2);
  const ids = HASHES.map((name) => hashNames.indexOf(name));
  row(`in wasm, ${label}`, count, alternate(ids.map((id) => () => arena.core.hashPacked(id, block, ends, count, 0, 0, out))));
  arena.free(block);
}

// A standard filter (n = 1,000,000, p = 1%) with each hash: the hash's share of a filter call.
const members = sets[0].packed;
const absent = pack(urls(1_000_000, "xxh3-absent", 43).map((key) => encoder.encode(key)));
const filters = HASHES.map((hash) => BloomFilter.create(1_000_000, 0.01, { hash }));
progress("filter addPacked");
row("BloomFilter addPacked, URL-like, p = 1%", 1_000_000, alternate(filters.map((f) => () => f.addPacked(members.bytes, members.ends))));
progress("filter hasPacked");
row("BloomFilter hasPacked, absent URL-like keys", 1_000_000, alternate(filters.map((f) => () => f.hasPacked(absent.bytes, absent.ends))));
filters.forEach((f) => f.dispose());

const env = machine();
console.log(`${env.cpu}, ${env.cores} cores; Node ${env.node} (V8 ${env.v8}); median of ${ROUNDS} alternating runs\n`);
console.log(table(["operation", "keys", "xxh64 ns/key", "xxh3 ns/key", "xxh64 ÷ xxh3"], rows));
