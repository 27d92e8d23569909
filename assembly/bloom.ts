// Standard Bloom filter over an m-bit array in wasm memory. A filter is one
// block: a small header, then the bits as little-endian u64 words, so bit i
// is bit (i & 7) of byte (i >> 3) whatever the word size.

import { xxh64 } from "./xxh64";
import { reduce } from "./reduce";

/** Header field offsets. */
// @ts-ignore: decorator
@inline const F_BITS: usize = 0; // u64 m
// @ts-ignore: decorator
@inline const F_HASHES: usize = 8; // u32 k
// @ts-ignore: decorator
@inline const F_SEED: usize = 16; // u64 hash seed
/** Bytes before the first bit word; keeps the words 16-byte aligned. */
// @ts-ignore: decorator
@inline export const FILTER_HEADER: usize = 32;

/** splitmix64's finaliser constant, used to derive the second hash. */
// @ts-ignore: decorator
@inline const MIX_C1: u64 = 0xBF58476D1CE4E5B9;

/** Second Kirsch–Mitzenmacher hash, a bijective mix of the first so one key hash feeds both. */
// @ts-ignore: decorator
@inline function secondHash(h: u64): u64 {
  h ^= h >> 31;
  h *= MIX_C1;
  return h ^ (h >> 29);
}

/** Bytes of the u64 words holding `bits` bits. */
// @ts-ignore: decorator
@inline function wordBytes(bits: u64): u64 {
  return ((bits + 63) >> 6) << 3;
}

/** Block size for a filter of `bits` bits (f64 so JS passes a plain number). */
export function bloomBlockBytes(bits: f64): f64 {
  return <f64>(<u64>FILTER_HEADER + wordBytes(<u64>bits));
}

/** Writes the header of a filter into a zeroed block from `alloc`. */
export function bloomInit(filter: usize, bits: f64, hashes: u32, seed: u32): void {
  store<u64>(filter, <u64>bits, F_BITS);
  store<u32>(filter, hashes, F_HASHES);
  store<u64>(filter, <u64>seed, F_SEED);
}

/** Sets the key's k bits; true when at least one of them was 0 before. */
// @ts-ignore: decorator
@inline function insertHash(data: usize, m: u64, k: u32, h: u64): bool {
  const step = secondHash(h);
  let fresh: u64 = 0;
  for (let i: u32 = 0; i < k; i++) {
    const idx = reduce(h, m);
    const addr = data + <usize>((idx >> 6) << 3);
    const word = load<u64>(addr);
    const bit: u64 = <u64>1 << (idx & 63);
    fresh |= ~word & bit;
    store<u64>(addr, word | bit);
    h += step;
  }
  return fresh != 0;
}

/** True when all of the key's k bits are set. */
// @ts-ignore: decorator
@inline function containsHash(data: usize, m: u64, k: u32, h: u64): bool {
  const step = secondHash(h);
  for (let i: u32 = 0; i < k; i++) {
    const idx = reduce(h, m);
    const word = load<u64>(data + <usize>((idx >> 6) << 3));
    if (!(word & (<u64>1 << (idx & 63)))) return false;
    h += step;
  }
  return true;
}

/** Adds one key; returns 1 when it set a new bit (it was definitely absent). */
export function bloomAdd(filter: usize, key: usize, len: usize): u32 {
  const h = xxh64(key, len, load<u64>(filter, F_SEED));
  return <u32>insertHash(filter + FILTER_HEADER, load<u64>(filter, F_BITS), load<u32>(filter, F_HASHES), h);
}

/** Queries one key; 1 = probably present. */
export function bloomHas(filter: usize, key: usize, len: usize): u32 {
  const h = xxh64(key, len, load<u64>(filter, F_SEED));
  return <u32>containsHash(filter + FILTER_HEADER, load<u64>(filter, F_BITS), load<u32>(filter, F_HASHES), h);
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
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const seed = load<u64>(filter, F_SEED);
  const data = filter + FILTER_HEADER;
  let fresh: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const end = load<u32>(ends + (<usize>i << 2));
    const isNew = insertHash(data, m, k, xxh64(keys + start, end - start, seed));
    fresh += <u32>isNew;
    if (out) store<u8>(out + i, <u8>!isNew);
    start = end;
  }
  return fresh;
}

/** Queries `count` packed keys (layout as in bloomAddPacked) into out[i] ∈ {0, 1}; returns how many are present. */
export function bloomHasPacked(filter: usize, keys: usize, ends: usize, count: u32, start: u32, out: usize): u32 {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const seed = load<u64>(filter, F_SEED);
  const data = filter + FILTER_HEADER;
  let present: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const end = load<u32>(ends + (<usize>i << 2));
    const hit = containsHash(data, m, k, xxh64(keys + start, end - start, seed));
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
  let h = xxh64(key, len, load<u64>(filter, F_SEED));
  const step = secondHash(h);
  for (let i: u32 = 0; i < k; i++) {
    store<f64>(out + (<usize>i << 3), <f64>reduce(h, m));
    h += step;
  }
}
