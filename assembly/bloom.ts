// Standard Bloom filter over an m-bit array in wasm memory. A filter is one
// block: a header, then the bits as little-endian u64 words, so bit i is
// bit (i & 7) of byte (i >> 3) whatever the word size.
//
// Indices come from one of three strategies:
// - triple: g_i = h1 + i·h2 + i(i−1)/2·h3 over one 64- or 128-bit key hash
//   (h2 and h3 mixes of it), each g_i mapped to [0, m) by multiply-shift (no
//   modulo bias), stepped as g += d, d += h3;
// - double: Kirsch–Mitzenmacher g_i = h1 + i·h2, the same with h3 = 0 (the
//   default before triple: its records keep it);
// - independent: k separately computed hashes, each taken modulo m, the way
//   the classic crawler de-duplication program in C combines six string hashes.
//
// Folding (the compressed Bloom filter: a finished filter shrunk to m/2, m/4 …
// before it is sent over a network) ORs the halves of the array
// together: a folded filter keeps the m it was created with as its base, maps
// a key with that base, then takes the index modulo the current m. Bit j of the
// folded array is the OR of bits j, j + m, j + 2m … of the original, so every
// key's bits stay set.

import {
  F_BITS,
  F_HASHES,
  F_HASH,
  F_SEED,
  F_STRATEGY,
  F_IDS,
  F_BASE_BITS,
  MAX_INDEPENDENT,
  FILTER_HEADER,
  STRATEGY_INDEPENDENT,
  firstHash,
  thirdHash,
  thirdHashFor,
  hashOfThirdIndex,
  stepFromThirdIndex,
  secondHashOf,
  independentIndex,
  doubleIndex,
  keyStep,
} from "./indices";
import { Hashed, OP_ADD, OP_HAS, SOURCE_HASHES, SOURCE_U32, sourceHash } from "./batch";
import { reduce } from "./reduce";

export { FILTER_HEADER };

/** Bytes of the u64 words holding `bits` bits. */
// @ts-ignore: decorator
@inline function wordBytes(bits: u64): u64 {
  return ((bits + 63) >> 6) << 3;
}

/**
 * Sets bit `idx`; returns it if it was 0 before (as a mask), else 0. The
 * shared build (threads enabled: bloomkit-shared.wasm) sets it with an atomic
 * OR, so threads adding to one filter at once never lose each other's bits;
 * a bit once set stays set, so it reads first and writes only a bit still 0
 * (a key already present costs no write, and its cache line is not taken
 * from the other cores).
 */
// @ts-ignore: decorator
@inline function setBit(data: usize, idx: u64): u64 {
  const addr = data + <usize>((idx >> 6) << 3);
  const bit: u64 = <u64>1 << (idx & 63);
  if (ASC_FEATURE_THREADS) {
    if ((load<u64>(addr) & bit) != 0) return 0;
    return ~atomic.or<u64>(addr, bit) & bit;
  }
  const word = load<u64>(addr);
  store<u64>(addr, word | bit);
  return ~word & bit;
}

/** True when bit `idx` is set. */
// @ts-ignore: decorator
@inline function testBit(data: usize, idx: u64): bool {
  return (load<u64>(data + <usize>((idx >> 6) << 3)) & (<u64>1 << (idx & 63))) != 0;
}

/** Sets the k bits of hashing from (h, h2, h3) (h3 = 0: double hashing); true when at least one was 0 before. */
// @ts-ignore: decorator
@inline function insertHashed(filter: usize, h: u64, h2: u64, h3: u64): bool {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const base = load<u64>(filter, F_BASE_BITS);
  const data = filter + FILTER_HEADER;
  let fresh: u64 = 0;
  for (let i: u32 = 0; i < k; i++) {
    fresh |= setBit(data, doubleIndex(h, m, base));
    h += h2;
    h2 += h3;
  }
  return fresh != 0;
}

/**
 * True when the first two of the k ≥ 2 bits of hashing from (h, h2, …)
 * are set, read with no branch between them: an absent key is turned away
 * by one branch that goes its way three times in four, instead of a coin
 * toss at every bit. Measured (10^6 keys, k = 7, Node 20 and 24): hasInts
 * of absent keys 25 -> 21 ns/key, members 2-3% slower.
 */
// @ts-ignore: decorator
@inline function firstTwoSet(data: usize, m: u64, base: u64, h: u64, h2: u64): bool {
  return testBit(data, doubleIndex(h, m, base)) & testBit(data, doubleIndex(h + h2, m, base));
}

/** True when bits 2 … k − 1 of hashing from (h, h2, h3) are set. */
// @ts-ignore: decorator
@inline function restSet(data: usize, m: u64, base: u64, k: u32, h: u64, h2: u64, h3: u64): bool {
  h = hashOfThirdIndex(h, h2, h3);
  h2 = stepFromThirdIndex(h2, h3);
  for (let i: u32 = 2; i < k; i++) {
    if (!testBit(data, doubleIndex(h, m, base))) return false;
    h += h2;
    h2 += h3;
  }
  return true;
}

/**
 * True when all k bits of hashing from (h, h2) are set; h3 is mixed from h2
 * only for keys whose first two bits are set (most absent keys stop there).
 */
// @ts-ignore: decorator
@inline function containsHashed(filter: usize, h: u64, h2: u64): bool {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const base = load<u64>(filter, F_BASE_BITS);
  const data = filter + FILTER_HEADER;
  if (k < 2) return testBit(data, doubleIndex(h, m, base));
  return firstTwoSet(data, m, base, h, h2) && restSet(data, m, base, k, h, h2, thirdHash(filter, h2));
}

/**
 * True when one of the layers at `filters` (u32 addresses, oldest first)
 * holds the key of hashes (h, h2), asked newest first. Reading every layer's
 * first two bits in one pass before finishing any was slower for members
 * (hasInts, 5 layers: 56 -> 86 ns/key) than this loop (54 -> 51). Tried
 * again on 2026-11-28 (10^6 URL keys, 5 layers, one process, both builds
 * taken in turn, 11 rounds): in the batch loop hasInts of members took 2.1x
 * as long and hasMany 1.3x; for single keys only (bloomLayersKey), has of
 * members 1.07x (Node 20) and 1.24x (Node 24), absent keys 1.02-1.06x.
 */
// @ts-ignore: decorator
@inline function layersContain(filters: usize, layers: u32, h: u64, h2: u64): bool {
  for (let j = <i32>layers - 1; j >= 0; j--) if (containsHashed(load<u32>(filters + (<usize>j << 2)), h, h2)) return true;
  return false;
}

/** Sets the key's k bits; true when at least one of them was 0 before. */
// @ts-ignore: decorator
@inline function insertKey(filter: usize, key: usize, len: usize): bool {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const data = filter + FILTER_HEADER;
  let fresh: u64 = 0;
  if (load<u32>(filter, F_STRATEGY) == STRATEGY_INDEPENDENT) {
    // h mod m equals (h mod base) mod m: m divides the base.
    for (let i: u32 = 0; i < k; i++) fresh |= setBit(data, independentIndex(filter, i, key, len, m));
    return fresh != 0;
  }
  const h = firstHash(filter, key, len);
  const h2 = keyStep();
  return insertHashed(filter, h, h2, thirdHash(filter, h2));
}

/** True when all of the key's k bits are set. */
// @ts-ignore: decorator
@inline function containsKey(filter: usize, key: usize, len: usize): bool {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const data = filter + FILTER_HEADER;
  if (load<u32>(filter, F_STRATEGY) == STRATEGY_INDEPENDENT) {
    for (let i: u32 = 0; i < k; i++) if (!testBit(data, independentIndex(filter, i, key, len, m))) return false;
    return true;
  }
  const h = firstHash(filter, key, len);
  return containsHashed(filter, h, keyStep());
}

/** Block size for a filter of `bits` bits (f64 so JS passes a plain number). */
export function bloomBlockBytes(bits: f64): f64 {
  return <f64>(<u64>FILTER_HEADER + wordBytes(<u64>bits));
}

/** Writes the header of a filter into a zeroed block from `alloc`. */
export function bloomInit(filter: usize, bits: f64, hashes: u32, hashId: u32, seed: u32, strategy: u32): void {
  store<u64>(filter, <u64>bits, F_BITS);
  store<u32>(filter, hashes, F_HASHES);
  store<u32>(filter, hashId, F_HASH);
  store<u32>(filter, seed, F_SEED);
  store<u32>(filter, strategy, F_STRATEGY);
  store<u64>(filter, <u64>bits, F_BASE_BITS);
}

/** Sets the base m of a filter (for a folded one: the m it was created with). */
export function bloomSetBaseBits(filter: usize, baseBits: f64): void {
  store<u64>(filter, <u64>baseBits, F_BASE_BITS);
}

/** The base m of a filter. */
export function bloomBaseBits(filter: usize): f64 {
  return <f64>load<u64>(filter, F_BASE_BITS);
}

/** Sets the id of independent hash `i` (< 32). */
export function bloomSetIndependentHash(filter: usize, i: u32, hashId: u32): void {
  if (i < MAX_INDEPENDENT) store<u8>(filter + F_IDS + i, <u8>hashId);
}

/** Adds one key; returns 1 when it set a new bit (it was definitely absent). */
export function bloomAdd(filter: usize, key: usize, len: usize): u32 {
  return <u32>insertKey(filter, key, len);
}

/** Queries one key; 1 = probably present. */
export function bloomHas(filter: usize, key: usize, len: usize): u32 {
  return <u32>containsKey(filter, key, len);
}

/**
 * Runs OP_ADD or OP_HAS over `count` packed keys (layout as in
 * hashPackedKeys), hashing each key's bytes: the path of filters whose
 * indices need the bytes (the independent strategy). out[i] = 1 when key i
 * was probably present (before it was added). Returns how many keys set a
 * new bit (add) or were present (has).
 */
export function bloomBytes(filter: usize, op: u32, keys: usize, ends: usize, count: u32, start: u32, out: usize): u32 {
  let total: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const end = load<u32>(ends + (<usize>i << 2));
    if (op == OP_HAS) {
      const hit = containsKey(filter, keys + start, end - start);
      total += <u32>hit;
      store<u8>(out + i, <u8>hit);
    } else {
      const isNew = insertKey(filter, keys + start, end - start);
      total += <u32>isNew;
      store<u8>(out + i, <u8>!isNew);
    }
    start = end;
  }
  return total;
}

/** Number of set bits (f64: it can exceed 2^32). */
export function bloomSetBits(filter: usize): f64 {
  const data = filter + FILTER_HEADER;
  const end = data + <usize>wordBytes(load<u64>(filter, F_BITS));
  let total: u64 = 0;
  for (let p = data; p < end; p += 8) total += popcnt<u64>(load<u64>(p));
  return <f64>total;
}

/** Writes the key's k bit indices as f64 to `out` (for display and tests; exact below 2^53). */
export function bloomPositions(filter: usize, key: usize, len: usize, out: usize): void {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  if (load<u32>(filter, F_STRATEGY) == STRATEGY_INDEPENDENT) {
    for (let i: u32 = 0; i < k; i++) store<f64>(out + (<usize>i << 3), <f64>independentIndex(filter, i, key, len, m));
    return;
  }
  const base = load<u64>(filter, F_BASE_BITS);
  let h = firstHash(filter, key, len);
  let h2 = keyStep();
  const h3 = thirdHash(filter, h2);
  for (let i: u32 = 0; i < k; i++) {
    store<f64>(out + (<usize>i << 3), <f64>doubleIndex(h, m, base));
    h += h2;
    h2 += h3;
  }
}

/**
 * Adds to filters above this many bits (4 MiB, twice the L2 cache of the
 * machine measured) take the grouped loop. Measured here (1e6 integer keys,
 * k = 7): add 255 -> 160 ns/key at 16 MB and 246 -> 142 at 64 MB, but
 * 50 -> 80 at 1.2 MB; queries gained nothing (68 vs 66 at 16 MB) and always
 * take the direct loop.
 */
// @ts-ignore: decorator
@inline const GROUPED_ABOVE_BITS: u64 = 32 << 20;

/** Keys handled per group in the grouped loop: indices for all of them first, then their memory. */
// @ts-ignore: decorator
@inline const GROUP: u32 = 16;
/** Bytes of the room the grouped loop needs for one group's indices (k ≤ 256 each). */
// @ts-ignore: decorator
@inline export const BLOOM_GROUP_BYTES: u32 = (GROUP * 256) << 3;

/** Second hash of key i: from `hashes2` when given (128-bit hashes), else derived from the first. */
// @ts-ignore: decorator
@inline function secondAt(hashes2: usize, i: u32, h: u64): u64 {
  return hashes2 != 0 ? load<u64>(hashes2 + (<usize>i << 3)) : secondHashOf(h);
}

/** The direct loop: hash source T (see sourceHash), then set or test, key by key. */
function runDirect<T>(filter: usize, op: u32, src: usize, hashes2: usize, count: u32, out: usize): u32 {
  const seed = <u64>load<u32>(filter, F_SEED);
  const strategy = load<u32>(filter, F_STRATEGY);
  let total: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const h = sourceHash<T>(src, i, seed);
    const h2 = secondAt(hashes2, i, h);
    if (op == OP_HAS) {
      const hit = containsHashed(filter, h, h2);
      store<u8>(out + i, <u8>hit);
      total += <u32>hit;
    } else {
      const fresh = insertHashed(filter, h, h2, thirdHashFor(strategy, h2));
      store<u8>(out + i, <u8>!fresh);
      total += <u32>fresh;
    }
  }
  return total;
}

/**
 * Adds to a large filter in groups: the indices of GROUP keys first (into
 * `room`, BLOOM_GROUP_BYTES), then one load of each of their words in a pass
 * that only reads, so the cache misses overlap, then the bits are set.
 */
function addGrouped<T>(filter: usize, src: usize, hashes2: usize, count: u32, out: usize, room: usize): u32 {
  const seed = <u64>load<u32>(filter, F_SEED);
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const base = load<u64>(filter, F_BASE_BITS);
  const data = filter + FILTER_HEADER;
  const strategy = load<u32>(filter, F_STRATEGY);
  let total: u32 = 0;
  let sink: u64 = 0;
  for (let first: u32 = 0; first < count; first += GROUP) {
    const group = min<u32>(GROUP, count - first);
    for (let g: u32 = 0; g < group; g++) {
      let h = sourceHash<T>(src, first + g, seed);
      let h2 = secondAt(hashes2, first + g, h);
      const h3 = thirdHashFor(strategy, h2);
      const at = room + ((<usize>g * <usize>k) << 3);
      for (let j: u32 = 0; j < k; j++) {
        store<u64>(at + (<usize>j << 3), doubleIndex(h, m, base));
        h += h2;
        h2 += h3;
      }
    }
    for (let g: u32 = 0; g < group; g++) {
      const at = room + ((<usize>g * <usize>k) << 3);
      for (let j: u32 = 0; j < k; j++) sink ^= load<u64>(data + <usize>((load<u64>(at + (<usize>j << 3)) >> 6) << 3));
    }
    for (let g: u32 = 0; g < group; g++) {
      const at = room + ((<usize>g * <usize>k) << 3);
      let fresh: u64 = 0;
      for (let j: u32 = 0; j < k; j++) fresh |= setBit(data, load<u64>(at + (<usize>j << 3)));
      total += <u32>(fresh != 0);
      store<u8>(out + first + g, <u8>(fresh == 0));
    }
  }
  // Keep the touch pass from being optimised away.
  if (sink == 0x9E3779B97F4A7C15) store<u8>(out, load<u8>(out));
  return total;
}

/** Keys per group in the grouped query. */
// @ts-ignore: decorator
@inline const QUERY_GROUP: u32 = 64;
/** Bytes the grouped query keeps per key that passed its first two bits: h and h2 (h3 is mixed from h2 again). */
// @ts-ignore: decorator
@inline const QUERY_KEPT: u32 = 16;
// The grouped query keeps QUERY_KEPT bytes and a u32 slot per key in the room of the grouped add.
assert(QUERY_GROUP * (QUERY_KEPT + 4) <= BLOOM_GROUP_BYTES);

/**
 * Queries in groups of QUERY_GROUP keys. Each key's first two bits are read
 * with no branch, so the loads of different keys overlap; the keys whose two
 * bits are set (a quarter of absent keys) keep their hashes in `room`, and
 * only they read the rest. Where three in four keys or more got past their
 * first two bits, the next group is asked key by key instead (runDirect's
 * way): for members the grouped pass only adds stores. Measured in one
 * process against runDirect (10^6 keys, k = 7, Node 20, medians of 8
 * alternating passes): hasInts absent 20.8-21.7 -> 16.7-17.0 ns/key, half
 * members half absent in random order 26.4 -> 20.5, members 0.98-1.08x;
 * hasPacked absent 34.5 -> 30.1-31.6, members 0.92-0.99x. Reading bits 2
 * and 3 the same way too was faster for absent keys (16.8 -> 15.2) and
 * slower for the mixed stream (21.0 -> 21.8) and members, so not kept.
 */
function hasGrouped<T>(filter: usize, src: usize, hashes2: usize, count: u32, out: usize, room: usize): u32 {
  const seed = <u64>load<u32>(filter, F_SEED);
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const base = load<u64>(filter, F_BASE_BITS);
  const data = filter + FILTER_HEADER;
  const strategy = load<u32>(filter, F_STRATEGY);
  const slots = room + <usize>(QUERY_GROUP * QUERY_KEPT);
  let total: u32 = 0;
  let direct = false;
  for (let first: u32 = 0; first < count; first += QUERY_GROUP) {
    const group = min<u32>(QUERY_GROUP, count - first);
    // How many keys of this group passed their first two bits (all present ones do).
    let passed: u32 = 0;
    if (direct) {
      // runDirect's loop, with the header read once: calling runDirect on the group's range measured 0.95-0.99x for members.
      for (let g: u32 = 0; g < group; g++) {
        const h = sourceHash<T>(src, first + g, seed);
        const h2 = secondAt(hashes2, first + g, h);
        const hit = firstTwoSet(data, m, base, h, h2) && restSet(data, m, base, k, h, h2, thirdHashFor(strategy, h2));
        store<u8>(out + first + g, <u8>hit);
        passed += <u32>hit;
      }
      total += passed;
    } else {
      for (let g: u32 = 0; g < group; g++) {
        const h = sourceHash<T>(src, first + g, seed);
        const h2 = secondAt(hashes2, first + g, h);
        const both = firstTwoSet(data, m, base, h, h2);
        store<u8>(out + first + g, 0);
        // Written for every key, kept (the count moves on) only for those that passed.
        const at = room + <usize>(passed * QUERY_KEPT);
        store<u64>(at, h);
        store<u64>(at, h2, 8);
        store<u32>(slots + (<usize>passed << 2), g);
        passed += <u32>both;
      }
      for (let j: u32 = 0; j < passed; j++) {
        const at = room + <usize>(j * QUERY_KEPT);
        const h2 = load<u64>(at, 8);
        const hit = restSet(data, m, base, k, load<u64>(at), h2, thirdHashFor(strategy, h2));
        store<u8>(out + first + load<u32>(slots + (<usize>j << 2)), <u8>hit);
        total += <u32>hit;
      }
    }
    direct = passed << 2 >= group * 3;
  }
  return total;
}

/** runDirect or, for adds to a large filter, addGrouped; queries of k ≥ 2 bits hasGrouped. */
// @ts-ignore: decorator
@inline function run<T>(filter: usize, op: u32, src: usize, hashes2: usize, count: u32, out: usize, room: usize): u32 {
  if (op == OP_ADD && load<u64>(filter, F_BITS) > GROUPED_ABOVE_BITS) return addGrouped<T>(filter, src, hashes2, count, out, room);
  if (op == OP_HAS && load<u32>(filter, F_HASHES) >= 2) return hasGrouped<T>(filter, src, hashes2, count, out, room);
  return runDirect<T>(filter, op, src, hashes2, count, out);
}

/**
 * The segment of each of `count` keys (u32 at `out`) for a filter held in
 * `segments` segments: the second hash mapped onto [0, segments) by
 * multiply-shift, so the segment is independent of a key's indices within
 * it. Keys as bloomRun takes them; integer keys mixed with `seed`.
 */
export function bloomRoute(source: u32, src: usize, hashes2: usize, count: u32, seed: u32, segments: u32, out: usize): void {
  for (let i: u32 = 0; i < count; i++) {
    const h = source == SOURCE_HASHES ? sourceHash<Hashed>(src, i, 0) : source == SOURCE_U32 ? sourceHash<u32>(src, i, <u64>seed) : sourceHash<u64>(src, i, <u64>seed);
    store<u32>(out + (<usize>i << 2), <u32>reduce(secondAt(source == SOURCE_HASHES ? hashes2 : 0, i, h), <u64>segments));
  }
}

/**
 * The k indices (as f64, within the segment) of each of `count` keys, as
 * bloomRun takes them, at out + 8·k·i, for a filter given by its numbers
 * alone (`bits` and `baseBits` per segment, `hashes`, `seed`, `strategy`
 * STRATEGY_DOUBLE or STRATEGY_TRIPLE): what the page
 * shows for a key, and where a copy kept elsewhere (Redis) sets and tests
 * bits, with no block of bits in this memory.
 */
export function bloomIndicesOf(bits: f64, baseBits: f64, hashes: u32, seed: u32, strategy: u32, source: u32, src: usize, hashes2: usize, count: u32, out: usize): void {
  const m = <u64>bits;
  const base = <u64>baseBits;
  const mix = <u64>seed;
  for (let i: u32 = 0; i < count; i++) {
    let h = source == SOURCE_HASHES ? sourceHash<Hashed>(src, i, 0) : source == SOURCE_U32 ? sourceHash<u32>(src, i, mix) : sourceHash<u64>(src, i, mix);
    let h2 = secondAt(source == SOURCE_HASHES ? hashes2 : 0, i, h);
    const h3 = thirdHashFor(strategy, h2);
    const at = out + ((<usize>i * <usize>hashes) << 3);
    for (let j: u32 = 0; j < hashes; j++) {
      store<f64>(at + (<usize>j << 3), <f64>doubleIndex(h, m, base));
      h += h2;
      h2 += h3;
    }
  }
}

/**
 * OP_ADD or OP_HAS over `count` keys of a double- or triple-hashing filter, from
 * `source`: SOURCE_HASHES (u64 hashes at `src`, second halves of 128-bit
 * hashes at `hashes2` or 0) or integer keys (SOURCE_U32/U64 at `src`, mixed
 * with the filter's seed). out[i] = 1 when key i was probably present
 * (before it was added). `room` is BLOOM_GROUP_BYTES of scratch. Returns the
 * keys that set a new bit (add) or were present (has).
 */
export function bloomRun(filter: usize, op: u32, source: u32, src: usize, hashes2: usize, count: u32, out: usize, room: usize): u32 {
  if (source == SOURCE_HASHES) return run<Hashed>(filter, op, src, hashes2, count, out, room);
  if (source == SOURCE_U32) return run<u32>(filter, op, src, 0, count, out, room);
  return run<u64>(filter, op, src, 0, count, out, room);
}

/** The loop of bloomLayers for one kind of source (see sourceHash). */
function layersRun<T>(filters: usize, layers: u32, op: u32, src: usize, hashes2: usize, count: u32, out: usize, room: u32): u32 {
  const last = load<u32>(filters + (<usize>(layers - 1) << 2));
  const seed = <u64>load<u32>(last, F_SEED);
  const strategy = load<u32>(last, F_STRATEGY);
  let fresh: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const h = sourceHash<T>(src, i, seed);
    const h2 = secondAt(hashes2, i, h);
    const present = layersContain(filters, layers, h, h2);
    store<u8>(out + i, <u8>present);
    if (!present && op == OP_ADD) {
      if (fresh == room) return i; // the last layer is full: key i waits for the next
      insertHashed(last, h, h2, thirdHashFor(strategy, h2));
      fresh++;
    }
  }
  return count;
}

/**
 * The layers of a scalable filter, all in this memory and sharing their
 * hashing (u32 addresses at `filters`, oldest first): OP_HAS answers 1 where
 * any layer holds key i; OP_ADD also adds each key no layer holds to the last
 * one, in order, and stops at the first such key past the `room`-th (the
 * last layer is full: only a new layer takes it), which it leaves unhandled.
 * Keys as bloomRun takes them. Returns the keys handled.
 */
export function bloomLayers(filters: usize, layers: u32, op: u32, source: u32, src: usize, hashes2: usize, count: u32, out: usize, room: u32): u32 {
  if (source == SOURCE_HASHES) return layersRun<Hashed>(filters, layers, op, src, hashes2, count, out, room);
  if (source == SOURCE_U32) return layersRun<u32>(filters, layers, op, src, 0, count, out, room);
  return layersRun<u64>(filters, layers, op, src, 0, count, out, room);
}

/**
 * bloomLayers for one key of `len` bytes, hashed as the layers hash it (the
 * last layer's header gives the hash and seed): one call for a single key
 * instead of a hash call and a probe call. Returns 1 when a layer held it.
 */
export function bloomLayersKey(filters: usize, layers: u32, op: u32, key: usize, len: usize): u32 {
  const last = load<u32>(filters + (<usize>(layers - 1) << 2));
  const h = firstHash(last, key, len);
  const h2 = keyStep();
  if (layersContain(filters, layers, h, h2)) return 1;
  if (op == OP_ADD) insertHashed(last, h, h2, thirdHash(last, h2));
  return 0;
}
