// Counting Bloom filter: m counters of 4, 8 or 16 bits instead of bits, so
// keys can be removed. The header and indexing are the Bloom filter's
// (indices.ts), so a counting filter and a standard one with the same m, k
// and hashing map every key to the same positions. Each key touches its
// distinct indices once. A counter at its maximum sticks: never incremented
// or decremented again, so no later removal can produce a false negative.

import { FILTER_HEADER, F_BITS, F_SEED, distinctIndices, distinctIndicesHashed, indexBuffer, intHash, intKeyAt, secondHashOf } from "./indices";

/** Counter value at `idx` for `width`-bit counters. */
// @ts-ignore: decorator
@inline function getCounter(data: usize, width: u32, idx: u64): u32 {
  if (width == 4) return (<u32>load<u8>(data + <usize>(idx >> 1)) >> (<u32>(idx & 1) << 2)) & 0xF;
  if (width == 8) return load<u8>(data + <usize>idx);
  return load<u16>(data + (<usize>idx << 1));
}

/** Sets the counter at `idx` to `value` (< 2^width). */
// @ts-ignore: decorator
@inline function setCounter(data: usize, width: u32, idx: u64, value: u32): void {
  if (width == 4) {
    const at = data + <usize>(idx >> 1);
    const shift = <u32>(idx & 1) << 2;
    store<u8>(at, <u8>((<u32>load<u8>(at) & ~(0xF << shift)) | (value << shift)));
  } else if (width == 8) store<u8>(data + <usize>idx, <u8>value);
  else store<u16>(data + (<usize>idx << 1), <u16>value);
}

/** Bytes of `counters` counters of `width` bits, rounded to whole u64 words. */
// @ts-ignore: decorator
@inline function counterBytes(counters: u64, width: u32): u64 {
  return (((counters * <u64>width + 63) >> 6) << 3);
}

/** Block size for m counters of `width` bits. */
export function countingBlockBytes(counters: f64, width: u32): f64 {
  return <f64>(<u64>FILTER_HEADER + counterBytes(<u64>counters, width));
}

// The per-key operations below work on the key's `n` distinct indices,
// already in indexBuffer() (from distinctIndices or distinctIndicesHashed).

/**
 * Adds the key: each distinct counter + 1 unless saturated. Returns 1 when
 * the key was probably present before (every counter already > 0).
 */
// @ts-ignore: decorator
@inline function addIndices(filter: usize, width: u32, n: u32): u32 {
  const data = filter + FILTER_HEADER;
  const max: u32 = (1 << width) - 1;
  const indices = indexBuffer();
  let present: u32 = 1;
  for (let i: u32 = 0; i < n; i++) {
    const idx = load<u64>(indices + (<usize>i << 3));
    const c = getCounter(data, width, idx);
    if (c == 0) present = 0;
    if (c < max) setCounter(data, width, idx, c + 1);
  }
  return present;
}

/** The smallest of the key's counters: 0 = definitely absent. */
// @ts-ignore: decorator
@inline function minOfIndices(filter: usize, width: u32, n: u32): u32 {
  const data = filter + FILTER_HEADER;
  const indices = indexBuffer();
  let least: u32 = 0xFFFFFFFF;
  for (let i: u32 = 0; i < n; i++) {
    const c = getCounter(data, width, load<u64>(indices + (<usize>i << 3)));
    if (c < least) least = c;
  }
  return least;
}

/** Removes the key: if every counter is > 0, each unsaturated one − 1, and 1 is returned; else nothing changes and 0 is returned. */
// @ts-ignore: decorator
@inline function removeIndices(filter: usize, width: u32, n: u32): u32 {
  const data = filter + FILTER_HEADER;
  const max: u32 = (1 << width) - 1;
  const indices = indexBuffer();
  for (let i: u32 = 0; i < n; i++) if (getCounter(data, width, load<u64>(indices + (<usize>i << 3))) == 0) return 0;
  for (let i: u32 = 0; i < n; i++) {
    const idx = load<u64>(indices + (<usize>i << 3));
    const c = getCounter(data, width, idx);
    if (c < max) setCounter(data, width, idx, c - 1);
  }
  return 1;
}

// @ts-ignore: decorator
@inline const OP_ADD: u32 = 0;
// @ts-ignore: decorator
@inline const OP_HAS: u32 = 1;
// @ts-ignore: decorator
@inline const OP_REMOVE: u32 = 2;
// @ts-ignore: decorator
@inline const OP_COUNT: u32 = 3;

/** Runs `op` for key i, whose `n` distinct indices are in indexBuffer(); returns its answer (0/1, or the count). */
// @ts-ignore: decorator
@inline function applyOp(filter: usize, width: u32, op: u32, n: u32, i: u32, out: usize): u32 {
  if (op == OP_COUNT) {
    store<u32>(out + (<usize>i << 2), minOfIndices(filter, width, n));
    return 0;
  }
  const r = op == OP_ADD ? addIndices(filter, width, n) : op == OP_HAS ? <u32>(minOfIndices(filter, width, n) > 0) : removeIndices(filter, width, n);
  store<u8>(out + i, <u8>r);
  return r;
}

/**
 * Runs `op` over packed keys (layout as in bloomAddPacked). `out` gets one
 * byte per key (add: 1 = was present before; has: 1 = present; remove:
 * 1 = removed) or, for count, one u32 per key. Returns the sum of the bytes.
 */
export function countingPacked(filter: usize, width: u32, op: u32, keys: usize, ends: usize, count: u32, start: u32, out: usize): u32 {
  let total: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const end = load<u32>(ends + (<usize>i << 2));
    total += applyOp(filter, width, op, distinctIndices(filter, keys + start, end - start), i, out);
    start = end;
  }
  return total;
}

/**
 * Runs `op` over integer keys (u32 when `wide` is 0, else u64), hashed and
 * indexed exactly as bloomInts does, so a counting filter and a standard one
 * with the same m, k and seed put an integer key at the same positions.
 * Double hashing only; `out` as in countingPacked.
 */
export function countingInts(filter: usize, width: u32, op: u32, keys: usize, count: u32, wide: u32, out: usize): u32 {
  const seed = <u64>load<u32>(filter, F_SEED);
  let total: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const h = intHash(intKeyAt(keys, i, wide), seed);
    total += applyOp(filter, width, op, distinctIndicesHashed(filter, h, secondHashOf(h)), i, out);
  }
  return total;
}

/** Counters at their maximum (f64: it can exceed 2^32). */
export function countingSaturated(filter: usize, width: u32): f64 {
  const m = load<u64>(filter, F_BITS);
  const data = filter + FILTER_HEADER;
  const max: u32 = (1 << width) - 1;
  let n: u64 = 0;
  for (let i: u64 = 0; i < m; i++) n += <u64>(getCounter(data, width, i) == max);
  return <f64>n;
}

/** Counters above 0. */
export function countingNonZero(filter: usize, width: u32): f64 {
  const m = load<u64>(filter, F_BITS);
  const data = filter + FILTER_HEADER;
  let n: u64 = 0;
  for (let i: u64 = 0; i < m; i++) n += <u64>(getCounter(data, width, i) != 0);
  return <f64>n;
}

/** Sets bit i of the Bloom filter `dst` (same m and header) for every counter i > 0. */
export function countingToBloom(filter: usize, width: u32, dst: usize): void {
  const m = load<u64>(filter, F_BITS);
  const data = filter + FILTER_HEADER;
  const bits = dst + FILTER_HEADER;
  for (let i: u64 = 0; i < m; i++) {
    if (getCounter(data, width, i) != 0) {
      const at = bits + <usize>((i >> 6) << 3);
      store<u64>(at, load<u64>(at) | (<u64>1 << (i & 63)));
    }
  }
}

/** Reads counter i (for display and tests). */
export function countingCounter(filter: usize, width: u32, i: f64): u32 {
  return getCounter(filter + FILTER_HEADER, width, <u64>i);
}
