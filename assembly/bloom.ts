// Standard Bloom filter over an m-bit array in wasm memory. A filter is one
// block: a header, then the bits as little-endian u64 words, so bit i is
// bit (i & 7) of byte (i >> 3) whatever the word size.
//
// Indices come from one of two strategies:
// - double: Kirsch–Mitzenmacher g_i = h1 + i·h2 over one 64- or 128-bit key
//   hash, each g_i mapped to [0, m) by multiply-shift (no modulo bias);
// - independent: k separately computed hashes, each taken modulo m, the way
//   seed 000's C program combines six functions.
//
// Folding (the seeds' compressed filter) ORs the halves of the array
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
  secondHashOf,
  independentIndex,
  doubleIndex,
  keyStep,
  intHash,
  intKeyAt,
} from "./indices";
import { findNewline, keyEnd } from "./lines";

export { FILTER_HEADER };

/** Bytes of the u64 words holding `bits` bits. */
// @ts-ignore: decorator
@inline function wordBytes(bits: u64): u64 {
  return ((bits + 63) >> 6) << 3;
}

/** Sets bit `idx`; returns it if it was 0 before (as a mask), else 0. */
// @ts-ignore: decorator
@inline function setBit(data: usize, idx: u64): u64 {
  const addr = data + <usize>((idx >> 6) << 3);
  const word = load<u64>(addr);
  const bit: u64 = <u64>1 << (idx & 63);
  store<u64>(addr, word | bit);
  return ~word & bit;
}

/** True when bit `idx` is set. */
// @ts-ignore: decorator
@inline function testBit(data: usize, idx: u64): bool {
  return (load<u64>(data + <usize>((idx >> 6) << 3)) & (<u64>1 << (idx & 63))) != 0;
}

/** Sets the k bits of double hashing from (h, h2); true when at least one was 0 before. */
// @ts-ignore: decorator
@inline function insertHashed(filter: usize, h: u64, h2: u64): bool {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const base = load<u64>(filter, F_BASE_BITS);
  const data = filter + FILTER_HEADER;
  let fresh: u64 = 0;
  for (let i: u32 = 0; i < k; i++) {
    fresh |= setBit(data, doubleIndex(h, m, base));
    h += h2;
  }
  return fresh != 0;
}

/** True when all k bits of double hashing from (h, h2) are set. */
// @ts-ignore: decorator
@inline function containsHashed(filter: usize, h: u64, h2: u64): bool {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const base = load<u64>(filter, F_BASE_BITS);
  const data = filter + FILTER_HEADER;
  for (let i: u32 = 0; i < k; i++) {
    if (!testBit(data, doubleIndex(h, m, base))) return false;
    h += h2;
  }
  return true;
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
  return insertHashed(filter, h, keyStep());
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

/**
 * ORs `src`'s array, folded `factor` times, into `dst` (initialised with
 * m / factor bits, a multiple of 64): dst word j |= src words j, j + w, j + 2w …
 */
export function bloomFold(src: usize, dst: usize, factor: u32): void {
  const words = <usize>(load<u64>(dst, F_BITS) >> 6);
  const from = src + FILTER_HEADER;
  const to = dst + FILTER_HEADER;
  for (let t: usize = 0; t < <usize>factor; t++) {
    const part = from + ((t * words) << 3);
    for (let j: usize = 0; j < words; j++) {
      const at = to + (j << 3);
      store<u64>(at, load<u64>(at) | load<u64>(part + (j << 3)));
    }
  }
}

/** dst = a OR b (union) or a AND b (intersection), word by word; all three have the same m. */
export function bloomCombine(dst: usize, a: usize, b: usize, intersect: u32): void {
  const bytes = <usize>wordBytes(load<u64>(dst, F_BITS));
  const x = a + FILTER_HEADER, y = b + FILTER_HEADER, z = dst + FILTER_HEADER;
  if (intersect) for (let j: usize = 0; j < bytes; j += 8) store<u64>(z + j, load<u64>(x + j) & load<u64>(y + j));
  else for (let j: usize = 0; j < bytes; j += 8) store<u64>(z + j, load<u64>(x + j) | load<u64>(y + j));
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
 * Adds `count` packed keys: key i is the bytes from keys + ends[i-1] to
 * keys + ends[i], where ends are u32 offsets and key 0 starts at `start`.
 * (A caller copying a slice of a larger packed buffer passes
 * keys = copy − start, wrapping mod 2^32, and the original ends unchanged.)
 * When `out` is not 0, out[i] = 1 when key i was probably present before it
 * was added. Returns how many keys set a new bit.
 */
export function bloomAddPacked(filter: usize, keys: usize, ends: usize, count: u32, start: u32, out: usize): u32 {
  let fresh: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const end = load<u32>(ends + (<usize>i << 2));
    const isNew = insertKey(filter, keys + start, end - start);
    fresh += <u32>isNew;
    if (out) store<u8>(out + i, <u8>!isNew);
    start = end;
  }
  return fresh;
}

/** Queries `count` packed keys (layout as in bloomAddPacked) into out[i] ∈ {0, 1}; returns how many are present. */
export function bloomHasPacked(filter: usize, keys: usize, ends: usize, count: u32, start: u32, out: usize): u32 {
  let present: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const end = load<u32>(ends + (<usize>i << 2));
    const hit = containsKey(filter, keys + start, end - start);
    present += <u32>hit;
    store<u8>(out + i, <u8>hit);
    start = end;
  }
  return present;
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
  const h2 = keyStep();
  for (let i: u32 = 0; i < k; i++) {
    store<f64>(out + (<usize>i << 3), <f64>doubleIndex(h, m, base));
    h += h2;
  }
}

/** Bytes of the buffer the last bloomLines call consumed. */
let linesConsumed: u32 = 0;

/** How far the last bloomLines call got into its buffer. */
export function bloomLinesConsumed(): u32 {
  return linesConsumed;
}

// @ts-ignore: decorator
@inline const LINES_ADD: u32 = 0;
// @ts-ignore: decorator
@inline const LINES_HAS: u32 = 1;

/**
 * Runs op over newline-delimited keys in [buf, buf + len): 0 add, 1 has,
 * 2 test-and-add. A key is a line without its "\n" and without one trailing
 * "\r"; when `final` is 0 a last line with no "\n" is left for the next call.
 * Handles at most `maxLines` lines; out[i] = the answer for line i (add: 1 =
 * was present before); `lineEnds` (if not 0) gets each line's end offset
 * after its "\n", as u32. Returns the lines handled; bloomLinesConsumed()
 * tells the bytes they took. `fresh` (if not 0) receives, as u32, how many set a new bit.
 */
export function bloomLines(filter: usize, op: u32, buf: usize, len: u32, final: u32, maxLines: u32, out: usize, lineEnds: usize, fresh: usize): u32 {
  let at: u32 = 0;
  let lines: u32 = 0;
  let added: u32 = 0;
  while (lines < maxLines && at < len) {
    const end = findNewline(buf, at, len);
    if (end == len && !final) break;
    const key = buf + at;
    const keyLen = keyEnd(buf, at, end) - at;
    let answer: u32;
    if (op == LINES_HAS) answer = <u32>containsKey(filter, key, keyLen);
    else {
      const isNew = insertKey(filter, key, keyLen);
      added += <u32>isNew;
      answer = <u32>!isNew;
    }
    store<u8>(out + lines, <u8>answer);
    at = end < len ? end + 1 : end;
    if (lineEnds) store<u32>(lineEnds + (<usize>lines << 2), at);
    lines++;
  }
  linesConsumed = at;
  if (fresh) store<u32>(fresh, added);
  return lines;
}

/**
 * Adds to filters above this many bits (4 MiB, twice the L2 cache of the
 * machine measured) take the grouped integer loop. Measured here (1e6 keys,
 * k = 7): add 255 -> 160 ns/key at 16 MB and 246 -> 142 at 64 MB, but
 * 50 -> 80 at 1.2 MB; queries gained nothing (68 vs 66 at 16 MB) and always
 * take the direct loop.
 */
// @ts-ignore: decorator
@inline const GROUPED_ABOVE_BITS: u64 = 32 << 20;

/** The integer loop for filters that fit in cache: hash, then set or test, key by key. */
function intsDirect(filter: usize, op: u32, keys: usize, count: u32, wide: u32, out: usize): u32 {
  const seed = <u64>load<u32>(filter, F_SEED);
  let total: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const h = intHash(intKeyAt(keys, i, wide), seed);
    const h2 = secondHashOf(h);
    const r = op == 0 ? !insertHashed(filter, h, h2) : containsHashed(filter, h, h2);
    store<u8>(out + i, <u8>r);
    total += <u32>(op == 0 ? !r : r);
  }
  return total;
}

/** Integer keys handled per group: indices for all of them first, then their memory. */
// @ts-ignore: decorator
@inline const INT_GROUP: u32 = 16;
/** Room for one group's indices (k ≤ 256 each). */
const GROUP_INDICES: usize = memory.data(<i32>(INT_GROUP * 256) << 3, 8);

/**
 * op 0 add (out[i] = 1 when key i was probably present before), 1 has, over
 * `count` integer keys at `keys`: u32 when `wide` is 0, u64 otherwise (a u32
 * key is the u64 key of the same value). Double hashing only. Adds to a large
 * filter go in groups: their indices are computed first and their words
 * loaded once in a pass that only reads (so the cache misses overlap), then
 * the bits are set. Returns the keys that set a new bit (add) or were
 * present (has).
 */
export function bloomInts(filter: usize, op: u32, keys: usize, count: u32, wide: u32, out: usize): u32 {
  if (op != 0 || load<u64>(filter, F_BITS) <= GROUPED_ABOVE_BITS) return intsDirect(filter, op, keys, count, wide, out);
  const seed = <u64>load<u32>(filter, F_SEED);
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const base = load<u64>(filter, F_BASE_BITS);
  const data = filter + FILTER_HEADER;
  let total: u32 = 0;
  let sink: u64 = 0;
  for (let first: u32 = 0; first < count; first += INT_GROUP) {
    const group = min<u32>(INT_GROUP, count - first);
    for (let g: u32 = 0; g < group; g++) {
      const i = first + g;
      let h = intHash(intKeyAt(keys, i, wide), seed);
      const h2 = secondHashOf(h);
      const at = GROUP_INDICES + ((<usize>g * <usize>k) << 3);
      for (let j: u32 = 0; j < k; j++) {
        store<u64>(at + (<usize>j << 3), doubleIndex(h, m, base));
        h += h2;
      }
    }
    for (let g: u32 = 0; g < group; g++) {
      const at = GROUP_INDICES + ((<usize>g * <usize>k) << 3);
      for (let j: u32 = 0; j < k; j++) sink ^= load<u64>(data + <usize>((load<u64>(at + (<usize>j << 3)) >> 6) << 3));
    }
    for (let g: u32 = 0; g < group; g++) {
      const at = GROUP_INDICES + ((<usize>g * <usize>k) << 3);
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
