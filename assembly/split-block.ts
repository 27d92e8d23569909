// Split-block Bloom filter, as the Apache Parquet specification defines it
// (BloomFilter.md): blocks of 256 bits as eight u32 words; xxh64 (seed 0) of
// the key; the block from the high 32 bits by multiply-shift; one bit set in
// each word, bit (low32 · salt[i]) >> 27 of word i. The bitset is the Parquet
// one byte for byte (little-endian words). Each key touches one 32-byte block,
// set and tested with v128 operations.

import { xxh64 } from "./xxh64";
import { Hashed, OP_ADD, SOURCE_HASHES, SOURCE_U32, sourceHash } from "./batch";

/** The specification's eight salt constants. */
// @ts-ignore: decorator
@inline const SALT_0: u32 = 0x47b6137b;
// @ts-ignore: decorator
@inline const SALT_1: u32 = 0x44974d91;
// @ts-ignore: decorator
@inline const SALT_2: u32 = 0x8824ad5b;
// @ts-ignore: decorator
@inline const SALT_3: u32 = 0xa2b7289d;
// @ts-ignore: decorator
@inline const SALT_4: u32 = 0x705495c7;
// @ts-ignore: decorator
@inline const SALT_5: u32 = 0x2df1424b;
// @ts-ignore: decorator
@inline const SALT_6: u32 = 0x9efc4947;
// @ts-ignore: decorator
@inline const SALT_7: u32 = 0x5c6bfb31;

/**
 * Header: the blocks in this block of memory, the blocks of the whole filter
 * and the first of them held here (a filter larger than one wasm memory is
 * held in segments, each a run of consecutive blocks: a key's block is the
 * specification's over the whole filter, so the segments put together are
 * its Parquet bitset); then the blocks at SBBF_HEADER.
 */
// @ts-ignore: decorator
@inline const S_BLOCKS: usize = 0;
// @ts-ignore: decorator
@inline const S_TOTAL: usize = 4;
// @ts-ignore: decorator
@inline const S_FIRST: usize = 8;
// @ts-ignore: decorator
@inline export const SBBF_HEADER: usize = 32;

export function sbbfBlockBytes(blocks: f64): f64 {
  return <f64>SBBF_HEADER + blocks * 32;
}

/** Writes the header of a segment of `blocks` blocks, from block `first` of a filter of `total` (a whole filter: total = blocks, first = 0). */
export function sbbfInit(filter: usize, blocks: u32, total: u32, first: u32): void {
  store<u32>(filter, blocks, S_BLOCKS);
  store<u32>(filter, total, S_TOTAL);
  store<u32>(filter, first, S_FIRST);
}


/** The specification's block of a hash in a filter of `total` blocks: ((h >> 32) · total) >> 32. */
// @ts-ignore: decorator
@inline function globalBlock(total: u64, h: u64): u32 {
  return <u32>(((h >> 32) * total) >> 32);
}

/** Where the block of a hash is held: `data` is the segment's first block, the number `first` of the whole filter's `total`. */
// @ts-ignore: decorator
@inline function blockAt(data: usize, total: u64, first: u32, h: u64): usize {
  return data + (<usize>(globalBlock(total, h) - first) << 5);
}

/** The block of a hash, reading the header. */
// @ts-ignore: decorator
@inline function blockOf(filter: usize, h: u64): usize {
  return blockAt(filter + SBBF_HEADER, <u64>load<u32>(filter, S_TOTAL), load<u32>(filter, S_FIRST), h);
}

/**
 * Constant vectors in linear memory: salts 0–3, salts 4–7, then what
 * bitOfLane needs. Loaded into locals once per call: V8 rebuilds a v128.const
 * inside a loop on every iteration, a load before the loop it keeps in a register.
 */
const MASK_CONSTANTS: usize = memory.data<u32>([
  SALT_0, SALT_1, SALT_2, SALT_3,
  SALT_4, SALT_5, SALT_6, SALT_7,
  0x01010101, 0x01010101, 0x01010101, 0x01010101, // copies a lane's low byte to all four
  0x18100800, 0x18100800, 0x18100800, 0x18100800, // bytes 0, 8, 16, 24: the first bit of each byte
  0x08040201, 0x80402010, 0, 0, // 1 << j for j < 8, then zeros
], 16);

/**
 * 1 << y in each u32 lane (y < 32). wasm SIMD has no per-lane variable shift
 * and V8's unsigned float-to-int conversion is long on x64, so each byte j of
 * a lane looks bit y − 8j up in a byte table (zero outside 0…7): a multiply
 * spreads y to the four bytes, a subtract and a swizzle do the rest.
 * Measured here against 2^y built as an f32: 5.0 against 5.8 ns/key.
 */
// @ts-ignore: decorator
@inline function bitOfLane(y: v128, spread: v128, firstBits: v128, table: v128): v128 {
  return i8x16.swizzle(table, i8x16.sub(i32x4.mul(y, spread), firstBits));
}

/** Word masks for words 0–3 (salts `salts`): lane i is 1 << ((key · salt_i) >> 27). */
// @ts-ignore: decorator
@inline function maskHalf(key: v128, salts: v128, spread: v128, firstBits: v128, table: v128): v128 {
  return bitOfLane(i32x4.shr_u(i32x4.mul(key, salts), 27), spread, firstBits, table);
}

/** ORs `mask` into the u64 at `at` atomically (no write for an empty mask); the bits of it that were 0 before. */
// @ts-ignore: decorator
@inline function orWord(at: usize, mask: u64): u64 {
  return mask == 0 ? 0 : mask & ~atomic.or<u64>(at, mask);
}

/**
 * Sets the eight bits a hash selects in `block`; true when at least one was 0
 * before. The shared build reads the block first and sets the bits still 0
 * with atomic ORs on its u64 words (wasm has no atomic v128), so concurrent
 * adds never lose a bit and a key already present costs no write.
 */
// @ts-ignore: decorator
@inline function setBlock(block: usize, low: v128, high: v128): bool {
  if (ASC_FEATURE_THREADS) {
    const missingLow = v128.andnot(low, v128.load(block));
    const missingHigh = v128.andnot(high, v128.load(block, 16));
    if (!v128.any_true(v128.or(missingLow, missingHigh))) return false;
    return (
      orWord(block, i64x2.extract_lane(missingLow, 0)) |
      orWord(block + 8, i64x2.extract_lane(missingLow, 1)) |
      orWord(block + 16, i64x2.extract_lane(missingHigh, 0)) |
      orWord(block + 24, i64x2.extract_lane(missingHigh, 1))
    ) != 0;
  }
  const a = v128.load(block);
  const b = v128.load(block, 16);
  v128.store(block, v128.or(a, low));
  v128.store(block, v128.or(b, high), 16);
  return v128.any_true(v128.or(v128.andnot(low, a), v128.andnot(high, b)));
}

/** True when all eight bits are set in `block`. */
// @ts-ignore: decorator
@inline function testBlock(block: usize, low: v128, high: v128): bool {
  return !v128.any_true(v128.or(v128.andnot(low, v128.load(block)), v128.andnot(high, v128.load(block, 16))));
}

/** maskHalf of a hash for words 0–3 (`salts` 0) or 4–7 (`salts` 16), its constants loaded here: for the one-key-at-a-time paths. */
// @ts-ignore: decorator
@inline function hashMask(h: u64, salts: usize): v128 {
  const c = MASK_CONSTANTS;
  return maskHalf(i32x4.splat(<u32>h), v128.load(c + salts), v128.load(c, 32), v128.load(c, 48), v128.load(c, 64));
}

/** Sets the key's eight bits; true when at least one was 0 before. */
// @ts-ignore: decorator
@inline function insertHash(filter: usize, h: u64): bool {
  return setBlock(blockOf(filter, h), hashMask(h, 0), hashMask(h, 16));
}

/** True when all eight of the key's bits are set. */
// @ts-ignore: decorator
@inline function containsHash(filter: usize, h: u64): bool {
  return testBlock(blockOf(filter, h), hashMask(h, 0), hashMask(h, 16));
}

/**
 * The segment of each of `count` keys (u32 at `out`) for a filter of
 * `total` blocks held in segments of `perSegment` blocks; keys as sbbfRun takes them.
 */
export function sbbfRoute(source: u32, src: usize, count: u32, total: u32, perSegment: u32, out: usize): void {
  for (let i: u32 = 0; i < count; i++) {
    const h = source == SOURCE_HASHES ? sourceHash<Hashed>(src, i, 0) : source == SOURCE_U32 ? sourceHash<u32>(src, i, 0) : sourceHash<u64>(src, i, 0);
    store<u32>(out + (<usize>i << 2), globalBlock(<u64>total, h) / perSegment);
  }
}

/** OP_ADD or OP_HAS for one key of `len` bytes: 1 when it was probably present (before it was added). */
export function sbbfKey(filter: usize, op: u32, key: usize, len: usize): u32 {
  const h = xxh64(key, len, 0);
  return op == OP_ADD ? <u32>!insertHash(filter, h) : <u32>containsHash(filter, h);
}

/** The false-positive rate given the bits now: the mean over blocks of Π_i (set bits of word i / 32). */
export function sbbfFalsePositiveRate(filter: usize): f64 {
  const blocks = load<u32>(filter, S_BLOCKS);
  let sum: f64 = 0;
  for (let b: u32 = 0; b < blocks; b++) {
    const block = filter + SBBF_HEADER + (<usize>b << 5);
    let product: f64 = 1;
    for (let i: usize = 0; i < 8; i++) product *= <f64>popcnt<u32>(load<u32>(block + (i << 2))) / 32;
    sum += product;
  }
  return sum / <f64>blocks;
}

/** Set bits in all (f64: it can exceed 2^32). */
export function sbbfSetBits(filter: usize): f64 {
  const end = filter + SBBF_HEADER + (<usize>load<u32>(filter, S_BLOCKS) << 5);
  let total: u64 = 0;
  for (let p = filter + SBBF_HEADER; p < end; p += 8) total += popcnt<u64>(load<u64>(p));
  return <f64>total;
}

/** Filters above this many blocks (8 MiB) take the grouped loops. */
// @ts-ignore: decorator
@inline const GROUPED_ABOVE_BLOCKS: u32 = 1 << 18;

/**
 * Keys per group in the grouped loops. Measured on 10^7 integer queries of a
 * 1 GiB filter, in one process: groups of 8, 16 and 32 all took 39-42 ns a key;
 * a software pipeline touching the block 16 keys ahead of each test took 58-59
 * (a touch in wasm is a load, which holds up the loop where a prefetch would not).
 */
// @ts-ignore: decorator
@inline const GROUP: u32 = 16;
/** Bytes of the room the grouped loop needs: one block address per key of a group. */
// @ts-ignore: decorator
@inline export const SBBF_GROUP_BYTES: u32 = GROUP << 2;

/**
 * OP_ADD or OP_HAS over `count` keys from `source`: SOURCE_HASHES (xxh64
 * hashes with seed 0, as the specification fixes, at `src`) or integer keys
 * (SOURCE_U32/U64, mixed by intHash with seed 0). out[i] = 1 when key i was
 * probably present (before it was added). `room` is SBBF_GROUP_BYTES of
 * scratch. Returns the keys that set a new bit (add) or were present (has).
 */
export function sbbfRun(filter: usize, op: u32, source: u32, src: usize, count: u32, out: usize, room: usize): u32 {
  const grouped = load<u32>(filter, S_BLOCKS) > GROUPED_ABOVE_BLOCKS;
  if (source == SOURCE_HASHES) return grouped ? runGrouped<Hashed>(filter, op, src, count, out, room) : runDirect<Hashed>(filter, op, src, count, out);
  if (source == SOURCE_U32) return grouped ? runGrouped<u32>(filter, op, src, count, out, room) : runDirect<u32>(filter, op, src, count, out);
  return grouped ? runGrouped<u64>(filter, op, src, count, out, room) : runDirect<u64>(filter, op, src, count, out);
}

/** The loop for filters that fit in cache: hash, then set or test, key by key. */
function runDirect<T>(filter: usize, op: u32, src: usize, count: u32, out: usize): u32 {
  const wholeBlocks = <u64>load<u32>(filter, S_TOTAL);
  const first0 = load<u32>(filter, S_FIRST);
  const data = filter + SBBF_HEADER;
  const c = MASK_CONSTANTS;
  const salts0 = v128.load(c), salts1 = v128.load(c, 16);
  const spread = v128.load(c, 32), firstBits = v128.load(c, 48), table = v128.load(c, 64);
  let total: u32 = 0;
  if (op == OP_ADD) {
    for (let i: u32 = 0; i < count; i++) {
      const h = sourceHash<T>(src, i, 0);
      const key = i32x4.splat(<u32>h);
      const fresh = setBlock(
        blockAt(data, wholeBlocks, first0, h),
        maskHalf(key, salts0, spread, firstBits, table),
        maskHalf(key, salts1, spread, firstBits, table),
      );
      store<u8>(out + i, <u8>!fresh);
      total += <u32>fresh;
    }
  } else {
    for (let i: u32 = 0; i < count; i++) {
      const h = sourceHash<T>(src, i, 0);
      const key = i32x4.splat(<u32>h);
      const hit = testBlock(
        blockAt(data, wholeBlocks, first0, h),
        maskHalf(key, salts0, spread, firstBits, table),
        maskHalf(key, salts1, spread, firstBits, table),
      );
      store<u8>(out + i, <u8>hit);
      total += <u32>hit;
    }
  }
  return total;
}

/**
 * The loop for large filters: hash a group of keys and load one byte of each
 * key's block (independent loads, so their cache and TLB misses overlap),
 * then set or test the group's blocks, which are in cache by then.
 */
function runGrouped<T>(filter: usize, op: u32, src: usize, count: u32, out: usize, room: usize): u32 {
  const wholeBlocks = <u64>load<u32>(filter, S_TOTAL);
  const first0 = load<u32>(filter, S_FIRST);
  const data = filter + SBBF_HEADER;
  const c = MASK_CONSTANTS;
  const salts0 = v128.load(c), salts1 = v128.load(c, 16);
  const spread = v128.load(c, 32), firstBits = v128.load(c, 48), table = v128.load(c, 64);
  let total: u32 = 0;
  let sink: u32 = 0;
  for (let first: u32 = 0; first < count; first += GROUP) {
    const group = min<u32>(GROUP, count - first);
    for (let g: u32 = 0; g < group; g++) {
      const block = blockAt(data, wholeBlocks, first0, sourceHash<T>(src, first + g, 0));
      store<u32>(room + (<usize>g << 2), <u32>block);
      sink += load<u8>(block);
    }
    for (let g: u32 = 0; g < group; g++) {
      // The hash again: cheaper than storing and reloading it.
      const h = sourceHash<T>(src, first + g, 0);
      const block = <usize>load<u32>(room + (<usize>g << 2));
      const key = i32x4.splat(<u32>h);
      const low = maskHalf(key, salts0, spread, firstBits, table);
      const high = maskHalf(key, salts1, spread, firstBits, table);
      if (op == OP_ADD) {
        const fresh = setBlock(block, low, high);
        store<u8>(out + first + g, <u8>!fresh);
        total += <u32>fresh;
      } else {
        const hit = testBlock(block, low, high);
        store<u8>(out + first + g, <u8>hit);
        total += <u32>hit;
      }
    }
  }
  // Keep the touch loads from being optimised away.
  if (sink == 0xFFFFFFFF) store<u8>(out, load<u8>(out));
  return total;
}
