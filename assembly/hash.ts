// The hash family behind one id each, in the order of HASH_NAMES in
// bindings/hash.ts: single keys, packed batches, and the dispatch the filters use.

import { rsHash, jsHash, pjwHash, elfHash, bkdrHash, sdbmHash, djbHash, dekHash, bpHash, seedFnvHash, apHash, hflpHash, hfHash, strHash, tianlHash } from "./classic";
import { fnv1_32, fnv1a_32, fnv1a_64 } from "./fnv";
import { murmur3_32, murmur3_128, murmurHigh } from "./murmur3";
import { xxh32 } from "./xxh32";
import { xxh64 } from "./xxh64";
import { xxh3 } from "./xxh3";

// @ts-ignore: decorator
@inline export const HASH_FNV1A_64: u32 = 17;
// @ts-ignore: decorator
@inline export const HASH_MURMUR3_128: u32 = 19;
// @ts-ignore: decorator
@inline export const HASH_XXH64: u32 = 21;
// @ts-ignore: decorator
@inline export const HASH_XXH3: u32 = 22;
/** Number of hash ids. */
// @ts-ignore: decorator
@inline export const HASH_COUNT: u32 = 23;

/** Output width in bits of hash `id`: 32, 64 or 128. */
export function hashBits(id: u32): u32 {
  if (id == HASH_FNV1A_64 || id == HASH_XXH64 || id == HASH_XXH3) return 64;
  if (id == HASH_MURMUR3_128) return 128;
  return id < HASH_COUNT ? 32 : 0;
}

/** Hash `id` of a key, widened to u64 (murmur3_128 gives h1 and leaves h2 in murmurHigh). */
export function hashAny(id: u32, p: usize, len: usize, seed: u32): u64 {
  switch (id) {
    case 0: return rsHash(p, len);
    case 1: return jsHash(p, len);
    case 2: return pjwHash(p, len);
    case 3: return elfHash(p, len);
    case 4: return bkdrHash(p, len);
    case 5: return sdbmHash(p, len);
    case 6: return djbHash(p, len);
    case 7: return dekHash(p, len);
    case 8: return bpHash(p, len);
    case 9: return seedFnvHash(p, len);
    case 10: return apHash(p, len);
    case 11: return hflpHash(p, len);
    case 12: return hfHash(p, len);
    case 13: return strHash(p, len);
    case 14: return tianlHash(p, len);
    case 15: return fnv1_32(p, len);
    case 16: return fnv1a_32(p, len);
    case 17: return fnv1a_64(p, len);
    case 18: return murmur3_32(p, len, seed);
    case 19: return murmur3_128(p, len, seed);
    case 20: return xxh32(p, len, seed);
    case 21: return xxh64(p, len, <u64>seed);
    default: return xxh3(p, len, <u64>seed);
  }
}

/**
 * hashAny with xxh64 (the split-block filter's, as Parquet requires) inlined: the filters' per-key hash. xxh3
 * inlined here as well made the wasm 17 KB larger for no measurable gain
 * (≈ 1 ns/key in a filter's addPacked/hasPacked, within the noise).
 */
// @ts-ignore: decorator
@inline export function filterHash(id: u32, p: usize, len: usize, seed: u32): u64 {
  if (id == HASH_XXH64) return xxh64(p, len, <u64>seed);
  return hashAny(id, p, len, seed);
}

/** Hashes one key into `out`: u32 for 32-bit ids, u64 for 64-bit, h1 then h2 for murmur3_128. */
export function hashKey(id: u32, p: usize, len: usize, seed: u32, out: usize): void {
  const h = hashAny(id, p, len, seed);
  const bits = hashBits(id);
  if (bits == 32) store<u32>(out, <u32>h);
  else store<u64>(out, h);
  if (bits == 128) store<u64>(out, murmurHigh, 8);
}

/**
 * Hashes `count` packed keys (layout as in bloomAddPacked) into `out`:
 * u32 per key for 32-bit ids, u64 per key (h1 for murmur3_128) otherwise.
 */
export function hashPacked(id: u32, keys: usize, ends: usize, count: u32, start: u32, seed: u32, out: usize): void {
  // xxh64 and xxh3 get loops of their own so they inline without the dispatch.
  if (id == HASH_XXH64) {
    for (let i: u32 = 0; i < count; i++) {
      const end = load<u32>(ends + (<usize>i << 2));
      store<u64>(out + (<usize>i << 3), xxh64(keys + start, end - start, <u64>seed));
      start = end;
    }
    return;
  }
  if (id == HASH_XXH3) {
    for (let i: u32 = 0; i < count; i++) {
      const end = load<u32>(ends + (<usize>i << 2));
      store<u64>(out + (<usize>i << 3), xxh3(keys + start, end - start, <u64>seed));
      start = end;
    }
    return;
  }
  const wide = hashBits(id) > 32;
  for (let i: u32 = 0; i < count; i++) {
    const end = load<u32>(ends + (<usize>i << 2));
    const h = hashAny(id, keys + start, end - start, seed);
    if (wide) store<u64>(out + (<usize>i << 3), h);
    else store<u32>(out + (<usize>i << 2), <u32>h);
    start = end;
  }
}
