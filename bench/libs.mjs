// The libraries the benchmarks compare, behind one adapter shape:
//   make() → a filter; drop(f); bitsOf(f) → bits its table uses (or null: measured from the heap);
//   add(f, key) / has(f, key) per string key; fill(f, keys) the fastest way;
//   batch: bloomkit's addMany/hasMany/addPacked/hasPacked; ints: addInts(f, u32s) / hasInts(f, u32s);
//   slow: one timed pass only; remove(f, key) where the structure deletes.
import { BloomFilter, CountingBloomFilter, CuckooFilter, ScalableBloomFilter, SplitBlockBloomFilter } from "bloomkit";
import { BloomFilter as JsBloomFilter } from "bloomfilter";
import bloomFilters from "bloom-filters";

/** Fills a JS structure one key at a time through its own add. */
const fillEach = (f, keys) => {
  for (const key of keys) f.add(key);
};

/** Integer keys for a JS structure with add(number) and `has`: one call per key. */
function intsEach(has) {
  return {
    add: (f, keys) => {
      for (let i = 0; i < keys.length; i++) f.add(keys[i]);
    },
    has: (f, keys) => {
      const out = new Uint8Array(keys.length);
      for (let i = 0; i < keys.length; i++) out[i] = has(f, keys[i]) ? 1 : 0;
      return out;
    },
  };
}

/** A bloomkit filter: every batch and integer form. */
function bloomkit(name, make, bitsOf, overrides = {}) {
  return {
    name,
    make,
    bitsOf,
    add: (f, key) => f.add(key),
    has: (f, key) => f.has(key),
    fill: (f, keys) => f.addMany(keys),
    drop: (f) => f.dispose(),
    batch: true,
    ints: { add: (f, keys) => f.addInts(keys), has: (f, keys) => f.hasInts(keys) },
    ...overrides,
  };
}

/** The five bloomkit filter types, each sized for n keys at rate p (counting: the standard m and k). */
export function bloomkitLibs(n, p, { m, k }) {
  return [
    bloomkit("bloomkit BloomFilter", () => BloomFilter.withSize(m, k), (f) => f.bits),
    bloomkit("bloomkit SplitBlockBloomFilter", () => SplitBlockBloomFilter.create(n, p), (f) => f.bits),
    // Starts at a sixteenth of n, so the keys spread over five layers.
    bloomkit("bloomkit ScalableBloomFilter", () => ScalableBloomFilter.create(Math.ceil(n / 16), p), (f) => f.bits),
    bloomkit("bloomkit CountingBloomFilter", () => CountingBloomFilter.withSize(m, k), (f) => f.bits),
    // A full cuckoo filter's add() throws; tryAdd answers false, as the quality check expects of a key not stored.
    bloomkit("bloomkit CuckooFilter", () => CuckooFilter.create(n, p), (f) => f.bits, {
      add: (f, key) => f.tryAdd(key),
      fill: (f, keys) => f.tryAddMany(keys),
      ints: { add: (f, keys) => f.tryAddInts(keys), has: (f, keys) => f.hasInts(keys) },
    }),
  ];
}

/** The pure-JS `bloomfilter` package: strings only (numbers are converted with v + ""). */
export function bloomfilterLib({ m, k }) {
  return {
    name: "bloomfilter",
    make: () => new JsBloomFilter(m, k),
    bitsOf: (f) => f.m,
    add: (f, key) => f.add(key),
    has: (f, key) => f.test(key),
    fill: fillEach,
    drop: () => {},
    ints: intsEach((f, key) => f.test(key)),
  };
}

/** A `bloom-filters` structure: its per-key cost is ≈ 20 µs, so one timed pass. */
function bloomFiltersPeer(name, make, bitsOf) {
  return { name, make, bitsOf, add: (f, key) => f.add(key), has: (f, key) => f.has(key), fill: fillEach, drop: () => {}, slow: true };
}

/** `bloom-filters`' BloomFilter. */
export function bloomFiltersLib({ m, k }) {
  return bloomFiltersPeer("bloom-filters BloomFilter", () => new bloomFilters.BloomFilter(m, k), (f) => f.size);
}

/** A JS Set: exact (no false positives), at the memory the heap shows. */
export function setLib() {
  return {
    name: "JS Set",
    make: () => new Set(),
    bitsOf: null,
    add: (f, key) => f.add(key),
    has: (f, key) => f.has(key),
    fill: fillEach,
    drop: (f) => f.clear(),
    ints: intsEach((f, key) => f.has(key)),
  };
}

/** The deletable filters of both libraries, for the section against `bloom-filters`' own. */
export function deletableLibs(n, p, counting) {
  const [, , , bloomkitCounting, bloomkitCuckoo] = bloomkitLibs(n, p, counting);
  const withRemove = (lib) => ({ ...lib, remove: (f, key) => f.remove(key) });
  return [
    withRemove({ ...bloomkitCounting, ints: undefined }),
    withRemove(
      // Each counter is an array of two numbers (a bit and a count), so its size is measured from the heap, as a JS
      // Set's is: counted as one 64-bit number a counter, it showed 613 bits/key where the heap grows by about 4,350 (200,000 keys, Node 20 and 24).
      // The keys are flat strings by then (bloomkit's filter ran on them first), so the heap counts the filter alone.
      bloomFiltersPeer("bloom-filters CountingBloomFilter", () => new bloomFilters.CountingBloomFilter(counting.m, counting.k), null),
    ),
    withRemove({ ...bloomkitCuckoo, ints: undefined }),
    withRemove(
      // Fingerprints are hex strings: 4 bits a character.
      bloomFiltersPeer("bloom-filters CuckooFilter", () => bloomFilters.CuckooFilter.create(n, p), (f) => f._size * f._bucketSize * f._fingerprintLength * 4),
    ),
  ];
}
