// Binary fuse filters (Graf & Lemire, "Binary Fuse Filters: Fast and Smaller
// Than Xor Filters", ACM JEA 2022), 3-wise, with 8- or 16-bit fingerprints,
// over 64-bit keys: a hash of a key's bytes (xxh3 with seed 0; xxh64 in
// filters of record version 1), or an integer key itself (mixed by intHash
// first in version 1). The array of fingerprints is cut into segments of a
// power-of-two length; a key mixed with the filter's seed picks one slot in
// each of three consecutive segments, and is present when its fingerprint
// equals the XOR of the three slots. Construction is in fuse-build.ts.

import { reduce } from "./reduce";
import { intKey } from "./indices";
import { Hashed, SOURCE_HASHES, SOURCE_U32, SOURCE_U64, sourceHash } from "./batch";
import { hashAny } from "./hash";

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
// @ts-ignore: decorator
@inline export const FUSE_VERSION: usize = 36; // u32: the record version whose key mapping the filter was built under
/** Bytes before the fingerprints (16-aligned). */
// @ts-ignore: decorator
@inline export const FUSE_HEADER: usize = 48;

/**
 * The record version builds write. Version 2 takes an integer key as its own
 * 64-bit key (fuseMix is a bijection, as in the paper's code, which mixes raw
 * 64-bit keys) and hashes bytes with xxh3; version 1 (still read) ran integers
 * through intHash first and hashed bytes with xxh64. Measured in one process,
 * 10^6 keys, 8-bit, two runs: hasInts 6.1-7.7 -> 5.3-5.8 ns/key (members),
 * hasPacked 23.8-26.6 -> 16.6-17.2; the split-block filter, bound to xxh64 by
 * Parquet, takes 5.9-7.8 and 23.6-26.1.
 */
// @ts-ignore: decorator
@inline export const FUSE_RECORD_VERSION: u32 = 2;

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
  store<u64>(filter, 0, FUSE_SEED);
  store<u32>(filter, size, FUSE_SIZE);
  store<u32>(filter, fingerprintBits, FUSE_BITS);
  fuseSetLayout(filter, segmentLength, segmentCountFor(size, segmentLength));
  store<u32>(filter, FUSE_RECORD_VERSION, FUSE_VERSION);
}

/**
 * Sets the segments of a filter: `segmentCount` segments of `segmentLength`
 * slots, and the fields that follow from them. A build may take the halved
 * layout (halvedSegmentLength) of the same array length; a loaded record
 * sets the one it was built in.
 */
export function fuseSetLayout(filter: usize, segmentLength: u32, segmentCount: u32): void {
  store<u32>(filter, segmentLength, FUSE_SEGMENT_LENGTH);
  store<u32>(filter, segmentLength - 1, FUSE_SEGMENT_MASK);
  store<u32>(filter, segmentCount, FUSE_SEGMENT_COUNT);
  store<u32>(filter, segmentCount * segmentLength, FUSE_FIRST_RANGE);
  store<u32>(filter, (segmentCount + 2) * segmentLength, FUSE_ARRAY_LENGTH);
}

/**
 * The other layout of the same slots: segments half as long, 2 · count + 2
 * of them ((2S + 4) · L/2 = (S + 2) · L), or 0 when the segments are as
 * short as they get. Just past a step of segmentLengthFor (about 11,200 to
 * 12,400 keys, 12 or 13 segments of 1,024 slots) the paper's layout peels
 * under a few percent of seeds; the halved one peels as the sizes before the
 * step do (FastFilter/xorfilter's fix, which tries it once every four seeds).
 */
export function halvedSegmentLength(segmentLength: u32): u32 {
  return segmentLength > MIN_SEGMENT_LENGTH ? segmentLength >> 1 : 0;
}

/** Segments of the halved layout of `segmentCount` segments: 2 · count + 2, the same slots in segments half as long. */
export function halvedSegmentCount(segmentCount: u32): u32 {
  return segmentCount * 2 + 2;
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

/**
 * Fingerprint slots that are not 0 (f64: up to 2^32). A build writes one slot
 * per distinct key and leaves the rest 0, so a record whose count exceeds its
 * size was not written by a build: the loader's check of the size field.
 */
export function fuseNonZeroSlots(filter: usize): f64 {
  const fingerprints = filter + FUSE_HEADER;
  const length = <usize>load<u32>(filter, FUSE_ARRAY_LENGTH);
  const wide = load<u32>(filter, FUSE_BITS) == 16;
  const end = fingerprints + (wide ? length << 1 : length);
  let zeros: u64 = 0;
  let p = fingerprints;
  // 16 bytes at a time: a zero lane sets its bits of the bitmask (two bits per u16 lane).
  for (; p + 16 <= end; p += 16) zeros += popcnt<u32>(i8x16.bitmask(wide ? i16x8.eq(v128.load(p), i16x8.splat(0)) : i8x16.eq(v128.load(p), i8x16.splat(0))));
  if (wide) {
    zeros >>= 1;
    for (; p < end; p += 2) zeros += <u64>(load<u16>(p) == 0);
  } else {
    for (; p < end; p++) zeros += <u64>(load<u8>(p) == 0);
  }
  return <f64>(<u64>length - zeros);
}

/** Sets the seed of a loaded filter (its fingerprints were built under it). */
export function fuseSetSeed(filter: usize, low: u32, high: u32): void {
  store<u64>(filter, (<u64>high << 32) | low, FUSE_SEED);
}

/** Sets the record version of a loaded filter, whose key mapping its fingerprints were built under (1 or 2). */
export function fuseSetVersion(filter: usize, version: u32): void {
  store<u32>(filter, version, FUSE_VERSION);
}

/** True when the key of 64-bit hash `hash` is probably in a filter of T fingerprints (header fields passed in, for loops). */
// @ts-ignore: decorator
@inline function probe<T>(fingerprints: usize, seed: u64, firstRange: u64, segmentLength: u32, hash: u64): bool {
  const m = fuseMix(hash, seed);
  return matches<T>(fingerprints, m, firstSlot(m, firstRange), segmentLength);
}

/** True when the fingerprint of mixed hash `m`, whose first slot is `h0`, equals the XOR of its three slots. */
// @ts-ignore: decorator
@inline function matches<T>(fingerprints: usize, m: u64, h0: u32, segmentLength: u32): bool {
  const f = fingerprintOf(m) ^ <u32>load<T>(slotAt<T>(fingerprints, h0)) ^ <u32>load<T>(slotAt<T>(fingerprints, secondSlot(h0, m, segmentLength))) ^ <u32>load<T>(slotAt<T>(fingerprints, thirdSlot(h0, m, segmentLength)));
  return (f & widthMask<T>()) == 0;
}

/**
 * 1 when the key of `len` bytes at `key` is probably in the filter: hashed
 * with hash `hashId` and `seed` (the record version's hash of key bytes, as
 * the bindings give it) and probed, in one call. A single key through the
 * batch path (a chunk, a hashing call, then fuseRun) cost 3-4 times the
 * split-block filter's one-key query.
 */
export function fuseHasKey(filter: usize, hashId: u32, seed: u32, key: usize, len: usize): u32 {
  if (load<u32>(filter, FUSE_SIZE) == 0) return 0;
  const hash = hashAny(hashId, key, len, seed);
  const fingerprints = filter + FUSE_HEADER;
  const mixSeed = load<u64>(filter, FUSE_SEED);
  const firstRange = <u64>load<u32>(filter, FUSE_FIRST_RANGE);
  const segmentLength = load<u32>(filter, FUSE_SEGMENT_LENGTH);
  return load<u32>(filter, FUSE_BITS) == 8
    ? <u32>probe<u8>(fingerprints, mixSeed, firstRange, segmentLength, hash)
    : <u32>probe<u16>(fingerprints, mixSeed, firstRange, segmentLength, hash);
}

/** The loops' type argument for u32 integer keys taken as they are (version 2); u32 and u64 stand for keys mixed by intHash (version 1). */
type RawU32 = i32;

/** Key i of a source as fuseMix takes it: a RawU32 widened, else as sourceHash gives it (a hash or version 2 u64 key as it is, or intHash of a u32/u64). */
// @ts-ignore: decorator
@inline function fuseKey<K>(src: usize, i: u32): u64 {
  if (isSigned<K>() && sizeof<K>() == 4) return intKey<u32>(src, i);
  return sourceHash<K>(src, i, 0);
}

/**
 * Queries `count` keys from `source`, as the other filters' kernels take
 * them: SOURCE_HASHES (the hashes of the keys' bytes, at `src`) or integer
 * keys (SOURCE_U32/U64: as they are, or through intHash with seed 0 in a
 * filter of record version 1). out[i] = 1 when key i is probably present;
 * returns the present count.
 */
export function fuseRun(filter: usize, source: u32, src: usize, count: u32, out: usize): u32 {
  if (load<u32>(filter, FUSE_SIZE) == 0) {
    memory.fill(out, 0, count);
    return 0;
  }
  const bits8 = load<u32>(filter, FUSE_BITS) == 8;
  const raw = load<u32>(filter, FUSE_VERSION) >= 2;
  if (source == SOURCE_HASHES || (source == SOURCE_U64 && raw)) return bits8 ? runAs<u8, Hashed>(filter, src, count, out) : runAs<u16, Hashed>(filter, src, count, out);
  if (source == SOURCE_U32 && raw) return bits8 ? runAs<u8, RawU32>(filter, src, count, out) : runAs<u16, RawU32>(filter, src, count, out);
  if (source == SOURCE_U32) return bits8 ? runAs<u8, u32>(filter, src, count, out) : runAs<u16, u32>(filter, src, count, out);
  return bits8 ? runAs<u8, u64>(filter, src, count, out) : runAs<u16, u64>(filter, src, count, out);
}

/**
 * The loop of fuseRun for T-bit fingerprints and keys of source type K (see
 * fuseKey). Sixteen keys at a time, all sixteen mixes written before any
 * slot is read: the mixes are independent chains of multiplies, and the 48
 * slot reads that follow are independent loads, whose cache misses the
 * processor then overlaps. Measured on integer keys, 8-bit fingerprints:
 * four keys at a time against one, 7.8 -> 6.2 ns/key at 10^4 keys (in
 * cache), 10.6 -> 7.9 at 10^6. Sixteen against four, in one process, both
 * builds taken in turn, two runs in either order: at 10^7 keys 8-bit
 * 53.3-59.4 -> 43.5-46.1 ns/key (members) and 55.8-58.1 -> 43.7-47.1
 * (absent), 16-bit 65.0-67.9 -> 54.3-56.6 and 64.5-68.5 -> 51.1-55.8; at
 * 10^6 from no change to 10% less. The same sixteen keys as four groups of
 * four, each group's mixes then its reads, were slower than four at a time
 * (10^7, 8-bit: 71.4 against 56.9). Against the loop of four keys at a
 * time, two other ways were slower or no faster at 10^7 keys (in one
 * process, both builds taken in turn). A grouped loop as the split-block
 * filter's (load a byte of each of 16 keys' three slots, then test the
 * group): 8-bit 57.0 -> 70.7 ns/key, 16-bit 64.7 -> 81.6. Taking a batch's
 * keys in the order of their first slot (a counting sort on the top bits of
 * the mix, answers written back in place):
 * 8-bit absent keys 59.9 against 60.7 ns/key with chunks of 16,384 keys,
 * 47.8-50.8 against 50.4-54.1 with batches of 2^18-2^20, 73.5 against 57.2
 * at 2^22 (the sort's scattered writes cost what the sweep saves).
 */
function runAs<T, K>(filter: usize, src: usize, count: u32, out: usize): u32 {
  const fingerprints = filter + FUSE_HEADER;
  const seed = load<u64>(filter, FUSE_SEED);
  const firstRange = <u64>load<u32>(filter, FUSE_FIRST_RANGE);
  const segmentLength = load<u32>(filter, FUSE_SEGMENT_LENGTH);
  let total: u32 = 0;
  let i: u32 = 0;
  for (; i + 16 <= count; i += 16) {
    const m0 = fuseMix(fuseKey<K>(src, i), seed);
    const m1 = fuseMix(fuseKey<K>(src, i + 1), seed);
    const m2 = fuseMix(fuseKey<K>(src, i + 2), seed);
    const m3 = fuseMix(fuseKey<K>(src, i + 3), seed);
    const m4 = fuseMix(fuseKey<K>(src, i + 4), seed);
    const m5 = fuseMix(fuseKey<K>(src, i + 5), seed);
    const m6 = fuseMix(fuseKey<K>(src, i + 6), seed);
    const m7 = fuseMix(fuseKey<K>(src, i + 7), seed);
    const m8 = fuseMix(fuseKey<K>(src, i + 8), seed);
    const m9 = fuseMix(fuseKey<K>(src, i + 9), seed);
    const m10 = fuseMix(fuseKey<K>(src, i + 10), seed);
    const m11 = fuseMix(fuseKey<K>(src, i + 11), seed);
    const m12 = fuseMix(fuseKey<K>(src, i + 12), seed);
    const m13 = fuseMix(fuseKey<K>(src, i + 13), seed);
    const m14 = fuseMix(fuseKey<K>(src, i + 14), seed);
    const m15 = fuseMix(fuseKey<K>(src, i + 15), seed);
    const hit0 = <u64>matches<T>(fingerprints, m0, firstSlot(m0, firstRange), segmentLength);
    const hit1 = <u64>matches<T>(fingerprints, m1, firstSlot(m1, firstRange), segmentLength);
    const hit2 = <u64>matches<T>(fingerprints, m2, firstSlot(m2, firstRange), segmentLength);
    const hit3 = <u64>matches<T>(fingerprints, m3, firstSlot(m3, firstRange), segmentLength);
    const hit4 = <u64>matches<T>(fingerprints, m4, firstSlot(m4, firstRange), segmentLength);
    const hit5 = <u64>matches<T>(fingerprints, m5, firstSlot(m5, firstRange), segmentLength);
    const hit6 = <u64>matches<T>(fingerprints, m6, firstSlot(m6, firstRange), segmentLength);
    const hit7 = <u64>matches<T>(fingerprints, m7, firstSlot(m7, firstRange), segmentLength);
    const hit8 = <u64>matches<T>(fingerprints, m8, firstSlot(m8, firstRange), segmentLength);
    const hit9 = <u64>matches<T>(fingerprints, m9, firstSlot(m9, firstRange), segmentLength);
    const hit10 = <u64>matches<T>(fingerprints, m10, firstSlot(m10, firstRange), segmentLength);
    const hit11 = <u64>matches<T>(fingerprints, m11, firstSlot(m11, firstRange), segmentLength);
    const hit12 = <u64>matches<T>(fingerprints, m12, firstSlot(m12, firstRange), segmentLength);
    const hit13 = <u64>matches<T>(fingerprints, m13, firstSlot(m13, firstRange), segmentLength);
    const hit14 = <u64>matches<T>(fingerprints, m14, firstSlot(m14, firstRange), segmentLength);
    const hit15 = <u64>matches<T>(fingerprints, m15, firstSlot(m15, firstRange), segmentLength);
    const low = hit0 | (hit1 << 8) | (hit2 << 16) | (hit3 << 24) | (hit4 << 32) | (hit5 << 40) | (hit6 << 48) | (hit7 << 56);
    const high = hit8 | (hit9 << 8) | (hit10 << 16) | (hit11 << 24) | (hit12 << 32) | (hit13 << 40) | (hit14 << 48) | (hit15 << 56);
    store<u64>(out + i, low);
    store<u64>(out + i, high, 8);
    total += <u32>(popcnt<u64>(low) + popcnt<u64>(high));
  }
  for (; i < count; i++) {
    const hit = probe<T>(fingerprints, seed, firstRange, segmentLength, fuseKey<K>(src, i));
    store<u8>(out + i, <u8>hit);
    total += <u32>hit;
  }
  return total;
}

/**
 * Writes each u32 integer key widened to u64 to `out`: a build's input (a
 * build writes record version 2, whose integer keys are their own 64-bit
 * keys). It may run in place, the keys in the upper half of `out` (key i is
 * read before u64 i is written, which never reaches an unread key).
 */
export function fuseWidenInts(keys: usize, count: u32, out: usize): void {
  for (let i: u32 = 0; i < count; i++) store<u64>(out + (<usize>i << 3), intKey<u32>(keys, i));
}
