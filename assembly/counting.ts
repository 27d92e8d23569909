// Counting Bloom filter: m counters of 4, 8 or 16 bits instead of bits, so
// keys can be removed. The header and indexing are the Bloom filter's
// (indices.ts), so a counting filter and a standard one with the same m, k
// and hashing map every key to the same positions. Each key touches its
// distinct indices once. A counter at its maximum sticks: never incremented
// or decremented again, so no later removal can produce a false negative.

import { FILTER_HEADER, F_BASE_BITS, F_BITS, F_HASHES, F_SEED, F_STRATEGY, STRATEGY_INDEPENDENT, distinctIndices, distinctIndicesHashed, doubleIndex, firstHash, hashOfThirdIndex, indexBuffer, keyStep, secondHashOf, stepFromThirdIndex, thirdHash, thirdHashFor } from "./indices";
import { reduce } from "./reduce";
import { Hashed, OP_ADD, OP_COUNT, OP_HAS, SOURCE_HASHES, SOURCE_U32, sourceHash } from "./batch";

/** Counter value at `idx` for `width`-bit counters. */
// @ts-ignore: decorator
@inline function getCounter(data: usize, width: u32, idx: u64): u32 {
  if (width == 4) return (<u32>load<u8>(data + <usize>(idx >> 1)) >> (<u32>(idx & 1) << 2)) & 0xF;
  if (width == 8) return load<u8>(data + <usize>idx);
  return load<u16>(data + (<usize>idx << 1));
}

/** Adds 1 to the counter at `idx` unless it is at its maximum (one load, one store); returns its value before. */
// @ts-ignore: decorator
@inline function bumpCounter(data: usize, width: u32, idx: u64): u32 {
  if (width == 4) {
    const at = data + <usize>(idx >> 1);
    const shift = <u32>(idx & 1) << 2;
    const byte = <u32>load<u8>(at);
    const c = (byte >> shift) & 0xF;
    // Below 15 the nibble's + 1 never carries into its neighbour.
    store<u8>(at, <u8>(byte + (<u32>(c < 0xF) << shift)));
    return c;
  }
  if (width == 8) {
    const at = data + <usize>idx;
    const c = <u32>load<u8>(at);
    store<u8>(at, <u8>(c + <u32>(c < 0xFF)));
    return c;
  }
  const at = data + (<usize>idx << 1);
  const c = <u32>load<u16>(at);
  store<u16>(at, <u16>(c + <u32>(c < 0xFFFF)));
  return c;
}

/** Takes 1 from the counter at `idx`, which is above 0, unless it is at its maximum (where it sticks). */
// @ts-ignore: decorator
@inline function dropCounter(data: usize, width: u32, idx: u64): void {
  if (width == 4) {
    const at = data + <usize>(idx >> 1);
    const shift = <u32>(idx & 1) << 2;
    const byte = <u32>load<u8>(at);
    // Above 0 the nibble's − 1 never borrows from its neighbour.
    store<u8>(at, <u8>(byte - (<u32>(((byte >> shift) & 0xF) < 0xF) << shift)));
  } else if (width == 8) {
    const at = data + <usize>idx;
    const c = <u32>load<u8>(at);
    store<u8>(at, <u8>(c - <u32>(c < 0xFF)));
  } else {
    const at = data + (<usize>idx << 1);
    const c = <u32>load<u16>(at);
    store<u16>(at, <u16>(c - <u32>(c < 0xFFFF)));
  }
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
  const indices = indexBuffer();
  let present: u32 = 1;
  for (let i: u32 = 0; i < n; i++) present &= <u32>(bumpCounter(data, width, load<u64>(indices + (<usize>i << 3))) != 0);
  return present;
}

/**
 * True when the k indices double hashing takes with step h2 in an unfolded
 * filter of m counters are certainly distinct: g_i and g_j = g_i + (j − i)·h2
 * (mod 2^64) map to the same index only when they are less than 2^64 / m
 * apart, and every step d·h2, d < k, is at least a power of two above that
 * from 0 on either side. Fails for about 2k/m of keys, which take
 * distinctIndicesHashed's k² comparisons instead.
 */
// @ts-ignore: decorator
@inline function spreadApart(h2: u64, k: u32, m: u64): bool {
  const zeros = <u32>clz(m);
  if (zeros >= 63) return false; // m = 1: every index is 0
  const gap: u64 = <u64>1 << (zeros + 1); // 2^64 / 2^⌊log2 m⌋ ≥ 2^64 / m
  let step = h2;
  for (let d: u32 = 1; d < k; d++) {
    if (step < gap || step > 0 - gap) return false;
    step += h2;
  }
  return true;
}

/** True when `idx` is one of the first `n` indices in indexBuffer() (compared with no branch). */
// @ts-ignore: decorator
@inline function seenBefore(idx: u64, n: u32): bool {
  const buffer = indexBuffer();
  let seen = false;
  for (let j: u32 = 0; j < n; j++) seen |= load<u64>(buffer + (<usize>j << 3)) == idx;
  return seen;
}

/**
 * Writes the k indices of triple hashing from (h, h2, h3) in an unfolded
 * filter of m counters to indexBuffer(); true when they are all distinct.
 * Under triple hashing each pair of indices has its own difference, so
 * there is no O(k) test like spreadApart's: each index is compared with the
 * ones before it, in the buffer it is read back from.
 * Measured in one process (10^6 keys, k = 7, Node 20): addInts 67 ns/key
 * with double hashing's test, 89 with the k² pairwise test over g values
 * that spreadApart makes for one step, 82 with this one, 93-95 adding each
 * counter as its index is found (dropTriple's way, against 84-87 here).
 */
// @ts-ignore: decorator
@inline function tripleApart(h: u64, h2: u64, h3: u64, k: u32, m: u64): bool {
  const buffer = indexBuffer();
  let repeated = false;
  for (let i: u32 = 0; i < k; i++) {
    const idx = reduce(h, m);
    repeated |= seenBefore(idx, i);
    store<u64>(buffer + (<usize>i << 3), idx);
    h += h2;
    h2 += h3;
  }
  return !repeated;
}

/**
 * Takes 1 from each distinct counter of the key of hashes (h, h2, h3) under
 * triple hashing in an unfolded filter, in one pass: an index is taken from
 * only the first time it comes (seenBefore). The caller has checked that
 * every counter is above 0. Measured in one process against tripleApart
 * then removeIndices (10^6 keys, k = 7, Node 20, three runs): removeInts
 * 103-110 -> 93-96 ns/key; adds were slower this way (see tripleApart).
 */
// @ts-ignore: decorator
@inline function dropTriple(data: usize, width: u32, h: u64, h2: u64, h3: u64, k: u32, m: u64): void {
  const buffer = indexBuffer();
  for (let i: u32 = 0; i < k; i++) {
    const idx = reduce(h, m);
    if (!seenBefore(idx, i)) dropCounter(data, width, idx);
    store<u64>(buffer + (<usize>i << 3), idx);
    h += h2;
    h2 += h3;
  }
}

/**
 * addIndices for the key of hashes (h, h2, h3) (h3 = 0: double hashing).
 * Triple hashing's distinct indices are added from tripleApart's buffer.
 * Under double hashing, when its indices are certainly distinct
 * (spreadApart), they are added as they are computed, with no buffer of
 * indices and no comparisons; bumpCounter reads
 * and writes each counter once, with no branch. Measured with both builds in
 * one process (1e6 keys, k = 7, 4-bit counters, 4.8 MB): addInts 73-78 ->
 * 51-52 ns/key (Node 20) and 76 -> 57 (Node 24), addPacked 95-109 -> 69,
 * addMany 1.15-1.21x; the same adds in cache (1e4 keys) 46.5 -> 28.5.
 */
// @ts-ignore: decorator
@inline function addHashed(filter: usize, width: u32, h: u64, h2: u64, h3: u64): u32 {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const unfolded = load<u64>(filter, F_BASE_BITS) == m;
  if (unfolded && h3 != 0 && tripleApart(h, h2, h3, k, m)) return addIndices(filter, width, k);
  if (!unfolded || h3 != 0 || !spreadApart(h2, k, m)) return addIndices(filter, width, distinctIndicesHashed(filter, h, h2, h3));
  const data = filter + FILTER_HEADER;
  let present: u32 = 1;
  for (let i: u32 = 0; i < k; i++) {
    present &= <u32>(bumpCounter(data, width, reduce(h, m)) != 0);
    h += h2;
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
  const indices = indexBuffer();
  for (let i: u32 = 0; i < n; i++) if (getCounter(data, width, load<u64>(indices + (<usize>i << 3))) == 0) return 0;
  for (let i: u32 = 0; i < n; i++) dropCounter(data, width, load<u64>(indices + (<usize>i << 3)));
  return 1;
}

/**
 * The smallest of the k counters hashing from (h, h2) picks (h3 mixed from h2 only past the first two). A query
 * needs no distinct indices (a repeated counter cannot change a minimum), so
 * it skips distinctIndicesHashed's k² comparisons and buffer. Measured on 1e6
 * URL keys, k = 7, 4-bit counters (4.8 MB): hasPacked 86 -> 57-65 ns/key,
 * hasInts 60 -> 35. A counter at 0 makes the minimum 0, so the first two
 * counters, read together, decide by one branch whether the other k − 2 are
 * read (as the standard filter's firstTwoSet): most absent keys read 2 of
 * the k. Measured (1e6 keys, k = 7): hasInts of absent keys 34.8 -> 22.5
 * ns/key, members unchanged; stopping at any counter at 0 made members 7-11%
 * slower.
 */
// @ts-ignore: decorator
@inline function minOfHashed(filter: usize, width: u32, h: u64, h2: u64): u32 {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const base = load<u64>(filter, F_BASE_BITS);
  const data = filter + FILTER_HEADER;
  let least = getCounter(data, width, doubleIndex(h, m, base));
  if (k < 2) return least;
  least = min(least, getCounter(data, width, doubleIndex(h + h2, m, base)));
  if (least == 0) return 0;
  const h3 = thirdHash(filter, h2);
  h = hashOfThirdIndex(h, h2, h3);
  h2 = stepFromThirdIndex(h2, h3);
  for (let i: u32 = 2; i < k; i++) {
    least = min(least, getCounter(data, width, doubleIndex(h, m, base)));
    h += h2;
    h2 += h3;
  }
  return least;
}

/**
 * removeIndices for the key of hashes (h, h2, h3) (h3 = 0: double hashing): whether
 * every counter is above 0 needs no distinct indices (minOfHashed); under
 * triple hashing dropTriple takes 1 from each distinct counter, and under
 * double hashing, when they are certainly distinct (spreadApart), they are
 * taken 1 from as they are computed, as addHashed adds. Measured in one process (1e6 keys, k = 7,
 * 4-bit counters): removeInts 69.8 -> 63.2 ns/key, removePacked 95.6 -> 86.0.
 */
// @ts-ignore: decorator
@inline function removeHashed(filter: usize, width: u32, h: u64, h2: u64, h3: u64): u32 {
  if (minOfHashed(filter, width, h, h2) == 0) return 0;
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const unfolded = load<u64>(filter, F_BASE_BITS) == m;
  const data = filter + FILTER_HEADER;
  if (unfolded && h3 != 0) {
    dropTriple(data, width, h, h2, h3, k, m);
    return 1;
  }
  if (!unfolded || h3 != 0 || !spreadApart(h2, k, m)) return removeIndices(filter, width, distinctIndicesHashed(filter, h, h2, h3));
  for (let i: u32 = 0; i < k; i++) {
    dropCounter(data, width, reduce(h, m));
    h += h2;
  }
  return 1;
}

/** A query's answer for key i from the smallest of its counters, written to `out` as applyOp writes it; returns what applyOp returns. */
// @ts-ignore: decorator
@inline function answerQuery(op: u32, least: u32, i: u32, out: usize): u32 {
  if (op == OP_COUNT) {
    store<u32>(out + (<usize>i << 2), least);
    return 0;
  }
  store<u8>(out + i, <u8>(least > 0));
  return <u32>(least > 0);
}

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
 * Runs `op` over packed keys (layout as in hashPackedKeys), hashing each
 * key's bytes: the path of filters whose indices need the bytes (the
 * independent strategy). `out` gets one byte per key (add: 1 = was present
 * before; has: 1 = present; remove: 1 = removed) or, for OP_COUNT, one u32
 * per key. Returns the sum of the bytes.
 */
export function countingBytes(filter: usize, width: u32, op: u32, keys: usize, ends: usize, count: u32, start: u32, out: usize): u32 {
  let total: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const end = load<u32>(ends + (<usize>i << 2));
    total += applyOp(filter, width, op, distinctIndices(filter, keys + start, end - start), i, out);
    start = end;
  }
  return total;
}

/** `op` for one key of `len` bytes, its answer written to out[0] as countingBytes does; returns the answer. */
export function countingKey(filter: usize, width: u32, op: u32, key: usize, len: usize, out: usize): u32 {
  if (load<u32>(filter, F_STRATEGY) == STRATEGY_INDEPENDENT) applyOp(filter, width, op, distinctIndices(filter, key, len), 0, out);
  else {
    const h = firstHash(filter, key, len);
    const h2 = keyStep();
    if (op == OP_HAS || op == OP_COUNT) answerQuery(op, minOfHashed(filter, width, h, h2), 0, out);
    else {
      const h3 = thirdHash(filter, h2);
      store<u8>(out, <u8>(op == OP_ADD ? addHashed(filter, width, h, h2, h3) : removeHashed(filter, width, h, h2, h3)));
    }
  }
  return op == OP_COUNT ? load<u32>(out) : <u32>load<u8>(out);
}

/** The loop of countingRun for one kind of source (see sourceHash). */
function runSource<T>(filter: usize, width: u32, op: u32, src: usize, hashes2: usize, count: u32, out: usize): u32 {
  const seed = <u64>load<u32>(filter, F_SEED);
  const strategy = load<u32>(filter, F_STRATEGY);
  let total: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const h = sourceHash<T>(src, i, seed);
    const h2 = hashes2 != 0 ? load<u64>(hashes2 + (<usize>i << 3)) : secondHashOf(h);
    if (op == OP_HAS || op == OP_COUNT) total += answerQuery(op, minOfHashed(filter, width, h, h2), i, out);
    else {
      const h3 = thirdHashFor(strategy, h2);
      const answer = op == OP_ADD ? addHashed(filter, width, h, h2, h3) : removeHashed(filter, width, h, h2, h3);
      store<u8>(out + i, <u8>answer);
      total += answer;
    }
  }
  return total;
}

/**
 * Runs `op` over `count` keys of a double- or triple-hashing filter from `source`, as
 * bloomRun takes them, so a counting filter and a standard one with the same
 * m, k and hashing put every key at the same positions. `out` as in countingBytes.
 */
export function countingRun(filter: usize, width: u32, op: u32, source: u32, src: usize, hashes2: usize, count: u32, out: usize): u32 {
  if (source == SOURCE_HASHES) return runSource<Hashed>(filter, width, op, src, hashes2, count, out);
  if (source == SOURCE_U32) return runSource<u32>(filter, width, op, src, 0, count, out);
  return runSource<u64>(filter, width, op, src, 0, count, out);
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

/**
 * The standard filter's bits of counters 64·from … 64·(from + words) − 1, as
 * `words` u64 at `out` (bit i set where counter i > 0; counters past m read
 * 0). A range, so that the bits of a counting filter too large to have its
 * standard filter beside it can go out in pieces through a scratch area.
 */
export function countingToBloomWords(filter: usize, width: u32, from: u32, words: u32, out: usize): void {
  const m = load<u64>(filter, F_BITS);
  const data = filter + FILTER_HEADER;
  for (let w: u32 = 0; w < words; w++) {
    const base = (<u64>from + w) << 6;
    const end = min<u64>(base + 64, m);
    let word: u64 = 0;
    for (let i = base; i < end; i++) word |= <u64>(getCounter(data, width, i) != 0) << (i - base);
    store<u64>(out + (<usize>w << 3), word);
  }
}

/** Reads counter i (for display and tests). */
export function countingCounter(filter: usize, width: u32, i: f64): u32 {
  return getCounter(filter + FILTER_HEADER, width, <u64>i);
}
