// Binary fuse filters (Graf & Lemire, "Binary Fuse Filters: Fast and Smaller
// Than Xor Filters", ACM JEA 2022), 3-wise, with 8- or 16-bit fingerprints,
// over 64-bit key hashes (xxh64 with seed 0 of a key's bytes, intHash with
// seed 0 of an integer key). The array of fingerprints is cut into segments of
// a power-of-two length; a key mixed with the filter's seed picks one slot in
// each of three consecutive segments, and is present when its fingerprint
// equals the XOR of the three slots. Construction is in fuse-build.ts.

import { reduce } from "./reduce";
import { intHash, intKey } from "./indices";
import { Hashed, SOURCE_HASHES, SOURCE_U32, sourceHash } from "./batch";

/** Header field offsets; the fingerprints follow at FUSE_HEADER. */
// @ts-ignore: decorator
@inline export const FUSE_SEED: usize = 0; // u64: the mix seed under which the keys peeled
// @ts-ignore: decorator
@inline export const FUSE_SIZE: usize = 8; // u32: distinct keys
// @ts-ignore: decorator
@inline export const FUSE_BITS: usize = 12; // u32: fingerprint bits, 8 or 16
// @ts-ignore: decorator
@inline export const FUSE_SEGMENT_LENGTH: usize = 16; // u32: slots per segment, a power of two
// @ts-ignore: decorator
@inline export const FUSE_SEGMENT_MASK: usize = 20; // u32: segment length − 1
// @ts-ignore: decorator
@inline export const FUSE_SEGMENT_COUNT: usize = 24; // u32: segments a key's first slot can fall in
// @ts-ignore: decorator
@inline export const FUSE_FIRST_RANGE: usize = 28; // u32: segment count · segment length, the range of a first slot
// @ts-ignore: decorator
@inline export const FUSE_ARRAY_LENGTH: usize = 32; // u32: fingerprints, (segment count + 2) · segment length
/** Bytes before the fingerprints (16-aligned). */
// @ts-ignore: decorator
@inline export const FUSE_HEADER: usize = 48;

/** Segment lengths: at least 4 slots, at most 2^18 (the paper's cap, beyond which locality is lost for no gain). */
// @ts-ignore: decorator
@inline const MIN_SEGMENT_LENGTH: u32 = 4;
// @ts-ignore: decorator
@inline const MAX_SEGMENT_BITS: u32 = 18;
/** Most keys one filter holds: keeps the slot count below 2^32. */
// @ts-ignore: decorator
@inline export const FUSE_MAX_SIZE: u32 = 1 << 31;

/** MurmurHash3's fmix64 multipliers: the mix of a key hash with the seed. */
// @ts-ignore: decorator
@inline const FMIX_C1: u64 = 0xFF51AFD7ED558CCD;
// @ts-ignore: decorator
@inline const FMIX_C2: u64 = 0xC4CEB9FE1A85EC53;

/** fmix64(hash + seed): a bijection of the key hash, so distinct keys stay distinct under every seed. */
// @ts-ignore: decorator
@inline export function fuseMix(hash: u64, seed: u64): u64 {
  let h = hash + seed;
  h = (h ^ (h >> 33)) * FMIX_C1;
  h = (h ^ (h >> 33)) * FMIX_C2;
  return h ^ (h >> 33);
}

/** Slot of a mixed hash in its first segment: floor(m · firstRange / 2^64). */
// @ts-ignore: decorator
@inline export function firstSlot(m: u64, firstRange: u64): u32 {
  return <u32>reduce(m, firstRange);
}

/** Slot in the second segment: one segment on, low bits replaced by bits 18… of m. */
// @ts-ignore: decorator
@inline export function secondSlot(h0: u32, m: u64, segmentLength: u32): u32 {
  return (h0 + segmentLength) ^ (<u32>(m >> 18) & (segmentLength - 1));
}

/** Slot in the third segment: two segments on, low bits replaced by bits 0… of m. */
// @ts-ignore: decorator
@inline export function thirdSlot(h0: u32, m: u64, segmentLength: u32): u32 {
  return (h0 + (segmentLength << 1)) ^ (<u32>m & (segmentLength - 1));
}

/** The key's fingerprint, before truncation to the filter's width. */
// @ts-ignore: decorator
@inline export function fingerprintOf(m: u64): u32 {
  return <u32>(m ^ (m >> 32));
}

/** Address of slot `i` of a fingerprint array of T (u8 or u16). */
// @ts-ignore: decorator
@inline export function slotAt<T>(fingerprints: usize, i: u32): usize {
  return fingerprints + (<usize>i << alignof<T>());
}

/** Bits of a T fingerprint set: 0xFF or 0xFFFF. */
// @ts-ignore: decorator
@inline function widthMask<T>(): u32 {
  return (<u32>1 << (<u32>sizeof<T>() << 3)) - 1;
}

/** Slots per segment for `size` keys: 2^⌊ln(size) / ln(3.33) + 2.25⌋ (the paper's fit), within [4, 2^18]. */
export function segmentLengthFor(size: u32): u32 {
  if (size <= 1) return MIN_SEGMENT_LENGTH;
  const exponent = <u32>Math.floor(Math.log(<f64>size) / Math.log(3.33) + 2.25);
  return max<u32>(MIN_SEGMENT_LENGTH, <u32>1 << min<u32>(exponent, MAX_SEGMENT_BITS));
}

/** Slots wanted before rounding to segments: size · max(1.125, 0.875 + 0.25 · ln(10^6) / ln(size)). */
function capacityFor(size: u32): f64 {
  if (size <= 1) return 0;
  const factor = max<f64>(1.125, 0.875 + (0.25 * Math.log(1000000.0)) / Math.log(<f64>size));
  return Math.round(<f64>size * factor);
}

/** Segments a first slot can fall in: the capacity in whole segments, less the two the last key reaches past. */
export function segmentCountFor(size: u32, segmentLength: u32): u32 {
  const segments = <i64>Math.ceil(capacityFor(size) / <f64>segmentLength) - 2;
  return segments < 1 ? 1 : <u32>segments;
}

/** Fingerprint slots of a filter of `size` keys. */
// @ts-ignore: decorator
@inline export function arrayLengthFor(size: u32): u64 {
  const segmentLength = segmentLengthFor(size);
  return (<u64>segmentCountFor(size, segmentLength) + 2) * segmentLength;
}

/** Bytes of a filter block for `size` distinct keys: header and fingerprints, rounded up to 8 bytes. */
export function fuseBlockBytes(size: u32, fingerprintBits: u32): f64 {
  return <f64>(<u64>FUSE_HEADER + ((arrayLengthFor(size) * (fingerprintBits >> 3) + 7) & ~7));
}

/** Writes the header of a filter of `size` keys (seed 0, fingerprints untouched); the block has fuseBlockBytes. */
export function fuseInit(filter: usize, size: u32, fingerprintBits: u32): void {
  const segmentLength = segmentLengthFor(size);
  const segmentCount = segmentCountFor(size, segmentLength);
  store<u64>(filter, 0, FUSE_SEED);
  store<u32>(filter, size, FUSE_SIZE);
  store<u32>(filter, fingerprintBits, FUSE_BITS);
  store<u32>(filter, segmentLength, FUSE_SEGMENT_LENGTH);
  store<u32>(filter, segmentLength - 1, FUSE_SEGMENT_MASK);
  store<u32>(filter, segmentCount, FUSE_SEGMENT_COUNT);
  store<u32>(filter, segmentCount * segmentLength, FUSE_FIRST_RANGE);
  store<u32>(filter, (segmentCount + 2) * segmentLength, FUSE_ARRAY_LENGTH);
}



export function fuseSize(filter: usize): u32 {
  return load<u32>(filter, FUSE_SIZE);
}

export function fuseFingerprintBits(filter: usize): u32 {
  return load<u32>(filter, FUSE_BITS);
}

export function fuseSegmentLength(filter: usize): u32 {
  return load<u32>(filter, FUSE_SEGMENT_LENGTH);
}

export function fuseSegmentCount(filter: usize): u32 {
  return load<u32>(filter, FUSE_SEGMENT_COUNT);
}

export function fuseArrayLength(filter: usize): u32 {
  return load<u32>(filter, FUSE_ARRAY_LENGTH);
}

/** Low and high halves of the seed (the binding's numbers are not u64). */
export function fuseSeedLow(filter: usize): u32 {
  return <u32>load<u64>(filter, FUSE_SEED);
}

export function fuseSeedHigh(filter: usize): u32 {
  return <u32>(load<u64>(filter, FUSE_SEED) >> 32);
}

/** Sets the seed of a loaded filter (its fingerprints were built under it). */
export function fuseSetSeed(filter: usize, low: u32, high: u32): void {
  store<u64>(filter, (<u64>high << 32) | low, FUSE_SEED);
}

/** True when the key of 64-bit hash `hash` is probably in a filter of T fingerprints (header fields passed in, for loops). */
// @ts-ignore: decorator
@inline function probe<T>(fingerprints: usize, seed: u64, firstRange: u64, segmentLength: u32, hash: u64): bool {
  const m = fuseMix(hash, seed);
  const h0 = firstSlot(m, firstRange);
  const h1 = secondSlot(h0, m, segmentLength);
  const h2 = thirdSlot(h0, m, segmentLength);
  const f = fingerprintOf(m) ^ <u32>load<T>(slotAt<T>(fingerprints, h0)) ^ <u32>load<T>(slotAt<T>(fingerprints, h1)) ^ <u32>load<T>(slotAt<T>(fingerprints, h2));
  return (f & widthMask<T>()) == 0;
}

/** True when the fingerprint of mixed hash `m`, whose first slot is `h0`, equals the XOR of its three slots. */
// @ts-ignore: decorator
@inline function matches<T>(fingerprints: usize, m: u64, h0: u32, segmentLength: u32): bool {
  const f = fingerprintOf(m) ^ <u32>load<T>(slotAt<T>(fingerprints, h0)) ^ <u32>load<T>(slotAt<T>(fingerprints, secondSlot(h0, m, segmentLength))) ^ <u32>load<T>(slotAt<T>(fingerprints, thirdSlot(h0, m, segmentLength)));
  return (f & widthMask<T>()) == 0;
}

/** As probe, reading the header of `filter`. */
// @ts-ignore: decorator
@inline function containsAs<T>(filter: usize, hash: u64): bool {
  return probe<T>(filter + FUSE_HEADER, load<u64>(filter, FUSE_SEED), <u64>load<u32>(filter, FUSE_FIRST_RANGE), load<u32>(filter, FUSE_SEGMENT_LENGTH), hash);
}

/** True when the key of 64-bit hash `hash` is probably in the filter; false for certain when it is not (or the filter is empty). */
// @ts-ignore: decorator
@inline export function fuseContains(filter: usize, hash: u64): bool {
  if (load<u32>(filter, FUSE_SIZE) == 0) return false;
  return load<u32>(filter, FUSE_BITS) == 8 ? containsAs<u8>(filter, hash) : containsAs<u16>(filter, hash);
}

/**
 * Queries `count` keys from `source`, as the other filters' kernels take
 * them: SOURCE_HASHES (xxh64 with seed 0 of each key's bytes, at `src`) or
 * integer keys (SOURCE_U32/U64, mixed by intHash with seed 0). out[i] = 1
 * when key i is probably present; returns the present count.
 */
export function fuseRun(filter: usize, source: u32, src: usize, count: u32, out: usize): u32 {
  if (load<u32>(filter, FUSE_SIZE) == 0) {
    memory.fill(out, 0, count);
    return 0;
  }
  const bits8 = load<u32>(filter, FUSE_BITS) == 8;
  if (source == SOURCE_HASHES) return bits8 ? runAs<u8, Hashed>(filter, src, count, out) : runAs<u16, Hashed>(filter, src, count, out);
  if (source == SOURCE_U32) return bits8 ? runAs<u8, u32>(filter, src, count, out) : runAs<u16, u32>(filter, src, count, out);
  return bits8 ? runAs<u8, u64>(filter, src, count, out) : runAs<u16, u64>(filter, src, count, out);
}

/**
 * The loop of fuseRun for T-bit fingerprints and keys of source type K (see
 * sourceHash). Four keys at a time: their hash mixes are independent chains
 * of multiplies, and written side by side the processor overlaps them.
 * Measured on integer keys, 8-bit fingerprints: 7.8 -> 6.2 ns/key at 10^4
 * keys (in cache), 10.6 -> 7.9 at 10^6; 16-bit at 10^7 stays at 48 (three
 * slots in three pages of a 22 MB array: memory, not arithmetic).
 */
function runAs<T, K>(filter: usize, src: usize, count: u32, out: usize): u32 {
  const fingerprints = filter + FUSE_HEADER;
  const seed = load<u64>(filter, FUSE_SEED);
  const firstRange = <u64>load<u32>(filter, FUSE_FIRST_RANGE);
  const segmentLength = load<u32>(filter, FUSE_SEGMENT_LENGTH);
  let total: u32 = 0;
  let i: u32 = 0;
  for (; i + 4 <= count; i += 4) {
    const m0 = fuseMix(sourceHash<K>(src, i, 0), seed);
    const m1 = fuseMix(sourceHash<K>(src, i + 1, 0), seed);
    const m2 = fuseMix(sourceHash<K>(src, i + 2, 0), seed);
    const m3 = fuseMix(sourceHash<K>(src, i + 3, 0), seed);
    const a0 = firstSlot(m0, firstRange);
    const a1 = firstSlot(m1, firstRange);
    const a2 = firstSlot(m2, firstRange);
    const a3 = firstSlot(m3, firstRange);
    const hit0 = matches<T>(fingerprints, m0, a0, segmentLength);
    const hit1 = matches<T>(fingerprints, m1, a1, segmentLength);
    const hit2 = matches<T>(fingerprints, m2, a2, segmentLength);
    const hit3 = matches<T>(fingerprints, m3, a3, segmentLength);
    store<u32>(out + i, <u32>hit0 | (<u32>hit1 << 8) | (<u32>hit2 << 16) | (<u32>hit3 << 24));
    total += <u32>hit0 + <u32>hit1 + <u32>hit2 + <u32>hit3;
  }
  for (; i < count; i++) {
    const hit = probe<T>(fingerprints, seed, firstRange, segmentLength, sourceHash<K>(src, i, 0));
    store<u8>(out + i, <u8>hit);
    total += <u32>hit;
  }
  return total;
}

/**
 * Writes the u64 key hash (intHash, seed 0) of each u32 (wide 0) or u64
 * integer key to `out`: the input of a build. It may run in place: u64 keys
 * at `out` itself, u32 keys in the upper half of `out` (key i is read before
 * hash i, which never reaches an unread key).
 */
export function fuseHashInts(keys: usize, count: u32, wide: u32, out: usize): void {
  if (wide) for (let i: u32 = 0; i < count; i++) store<u64>(out + (<usize>i << 3), intHash(intKey<u64>(keys, i), 0));
  else for (let i: u32 = 0; i < count; i++) store<u64>(out + (<usize>i << 3), intHash(intKey<u32>(keys, i), 0));
}
