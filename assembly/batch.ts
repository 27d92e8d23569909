// The first half of every batch: keys become 64-bit hashes. Packed keys and
// newline-delimited lines (the one line splitter every filter type and the
// CLI use) are hashed here into a u64 array, and each filter's kernel then
// runs over that array, or over integer keys it hashes itself. Splitting
// "prepare" from "probe" this way (RocksDB's bloom_impl.h does the same)
// lets one hash pass serve every layer of a scalable filter and every
// segment of a filter larger than one memory.

import { xxh64 } from "./xxh64";
import { xxh3 } from "./xxh3";
import { hashAny, HASH_MURMUR3_128, HASH_XXH3, HASH_XXH64 } from "./hash";
import { murmurHigh } from "./murmur3";
import { intHash } from "./indices";
import { findNewline, keyEnd } from "./lines";

/** Where a kernel's keys come from: precomputed hashes (u64), or integer keys (u32 or u64) it hashes itself. */
// @ts-ignore: decorator
@inline export const SOURCE_HASHES: u32 = 0;
// @ts-ignore: decorator
@inline export const SOURCE_U32: u32 = 1;
// @ts-ignore: decorator
@inline export const SOURCE_U64: u32 = 2;

/** Kernel operations. Add answers 1 when the key was probably present before. */
// @ts-ignore: decorator
@inline export const OP_ADD: u32 = 0;
// @ts-ignore: decorator
@inline export const OP_HAS: u32 = 1;
// @ts-ignore: decorator
@inline export const OP_REMOVE: u32 = 2;
// @ts-ignore: decorator
@inline export const OP_COUNT: u32 = 3;
/** For filters that store duplicates (cuckoo): answers 1 when the key is probably present (nothing stored), 0 when it was stored, 2 when it did not fit. */
// @ts-ignore: decorator
@inline export const OP_TEST_AND_ADD: u32 = 4;

/** The type argument of the kernels' loops that stands for precomputed hashes (u32 and u64 stand for integer keys). */
export type Hashed = i64;

/** Hash i of a source: loaded when T is Hashed, else integer key i (of type T) mixed with `seed`. */
// @ts-ignore: decorator
@inline export function sourceHash<T>(src: usize, i: u32, seed: u64): u64 {
  if (isSigned<T>()) return load<u64>(src + (<usize>i << 3));
  return intHash(<u64>load<T>(src + (<usize>i << alignof<T>())), seed);
}

/**
 * A key's hash with the given hash id and seed; 128-bit murmur3 leaves its
 * second half in murmurHigh. xxh64 and xxh3 are inlined: every string,
 * packed and line batch of every filter is hashed here, once.
 */
// @ts-ignore: decorator
@inline function keyHash(id: u32, seed: u32, key: usize, len: usize): u64 {
  if (id == HASH_XXH64) return xxh64(key, len, <u64>seed);
  if (id == HASH_XXH3) return xxh3(key, len, <u64>seed);
  return hashAny(id, key, len, seed);
}

/** Stores key i's hash, and for 128-bit hashes its second half at `hashes2` (when not 0). */
// @ts-ignore: decorator
@inline function storeHash(id: u32, i: u32, h: u64, hashes: usize, hashes2: usize): void {
  store<u64>(hashes + (<usize>i << 3), h);
  if (hashes2 != 0 && id == HASH_MURMUR3_128) store<u64>(hashes2 + (<usize>i << 3), murmurHigh);
}

/**
 * Hashes `count` packed keys: key i is the bytes from keys + ends[i-1] to
 * keys + ends[i] (u32 offsets; key 0 starts at `start`). A caller that copied
 * a slice of a larger packed buffer passes keys = copy − start, wrapping
 * mod 2^32, and the original ends unchanged.
 */
export function hashPackedKeys(id: u32, seed: u32, keys: usize, ends: usize, count: u32, start: u32, hashes: usize, hashes2: usize): void {
  for (let i: u32 = 0; i < count; i++) {
    const end = load<u32>(ends + (<usize>i << 2));
    storeHash(id, i, keyHash(id, seed, keys + start, end - start), hashes, hashes2);
    start = end;
  }
}

/**
 * Hashes newline-delimited keys in [buf, buf + len). A key is a line without
 * its "\n" and without one trailing "\r"; with `final` 0 a last line with no
 * "\n" is left for the next call. Handles at most `maxLines` lines;
 * `lineEnds` (if not 0) gets each line's end offset after its "\n", as u32.
 * Returns the lines handled and writes the bytes they took, as u32, to `consumed`.
 */
export function hashLines(id: u32, seed: u32, buf: usize, len: u32, final: u32, maxLines: u32, hashes: usize, hashes2: usize, lineEnds: usize, consumed: usize): u32 {
  let at: u32 = 0;
  let lines: u32 = 0;
  while (lines < maxLines && at < len) {
    const end = findNewline(buf, at, len);
    if (end == len && !final) break;
    storeHash(id, lines, keyHash(id, seed, buf + at, keyEnd(buf, at, end) - at), hashes, hashes2);
    at = end < len ? end + 1 : end;
    if (lineEnds) store<u32>(lineEnds + (<usize>lines << 2), at);
    lines++;
  }
  store<u32>(consumed, at);
  return lines;
}

/**
 * Turns up to `maxLines` newline-delimited lines at `buf` into packed keys in
 * place, for kernels that need a key's bytes rather than one hash (the
 * independent strategy): lines split as hashLines does, key i ending at
 * keyEnds[i] (u32, from `buf`). Returns the lines handled and writes the bytes
 * of the original buffer they took to `consumed`; `lineEnds` as in hashLines.
 */
export function compactLines(buf: usize, len: u32, final: u32, maxLines: u32, keyEnds: usize, lineEnds: usize, consumed: usize): u32 {
  let at: u32 = 0;
  let packed: u32 = 0;
  let lines: u32 = 0;
  while (lines < maxLines && at < len) {
    const end = findNewline(buf, at, len);
    if (end == len && !final) break;
    const keyLength = keyEnd(buf, at, end) - at;
    memory.copy(buf + packed, buf + at, keyLength);
    packed += keyLength;
    store<u32>(keyEnds + (<usize>lines << 2), packed);
    at = end < len ? end + 1 : end;
    if (lineEnds) store<u32>(lineEnds + (<usize>lines << 2), at);
    lines++;
  }
  store<u32>(consumed, at);
  return lines;
}

/** dst |= src (or &= with `intersect`), `bytes` a multiple of 8: unions and folds of filters, piece by piece. */
export function combineWords(dst: usize, src: usize, bytes: usize, intersect: u32): void {
  if (intersect) for (let j: usize = 0; j < bytes; j += 8) store<u64>(dst + j, load<u64>(dst + j) & load<u64>(src + j));
  else for (let j: usize = 0; j < bytes; j += 8) store<u64>(dst + j, load<u64>(dst + j) | load<u64>(src + j));
}
