// How a key becomes k indices, shared by every structure indexed like a Bloom
// filter (standard and counting). The structures share one 64-byte header:
// m, k, the hash choice, seed, strategy, the independent hash list and the
// base m for folded filters.

import { reduce } from "./reduce";
import { filterHash, hashAny, HASH_MURMUR3_128 } from "./hash";
import { murmurHigh } from "./murmur3";

/** Header field offsets. */
// @ts-ignore: decorator
@inline export const F_BITS: usize = 0; // u64 m
// @ts-ignore: decorator
@inline export const F_HASHES: usize = 8; // u32 k
// @ts-ignore: decorator
@inline export const F_HASH: usize = 12; // u32 hash id (double hashing)
// @ts-ignore: decorator
@inline export const F_SEED: usize = 16; // u32 hash seed
// @ts-ignore: decorator
@inline export const F_STRATEGY: usize = 20; // u32, STRATEGY_*
// @ts-ignore: decorator
@inline export const F_IDS: usize = 24; // u8 × MAX_INDEPENDENT hash ids (independent)
// @ts-ignore: decorator
@inline export const F_BASE_BITS: usize = 56; // u64 m before any fold
/** Most hashes an independent-strategy filter can list. */
// @ts-ignore: decorator
@inline export const MAX_INDEPENDENT: u32 = 32;
/** Bytes before the first bit word; keeps the words 16-byte aligned. */
// @ts-ignore: decorator
@inline export const FILTER_HEADER: usize = 64;

// @ts-ignore: decorator
@inline export const STRATEGY_DOUBLE: u32 = 0;
// @ts-ignore: decorator
@inline export const STRATEGY_INDEPENDENT: u32 = 1;
// @ts-ignore: decorator
@inline export const STRATEGY_TRIPLE: u32 = 2;

/** splitmix64's finaliser constant, used to derive the second hash. */
// @ts-ignore: decorator
@inline const MIX_C1: u64 = 0xBF58476D1CE4E5B9;

/** h2 of the key last hashed by firstHash. */
let step: u64 = 0;

/** Second Kirsch–Mitzenmacher hash, a bijective mix of the first so one 64-bit key hash feeds both. */
// @ts-ignore: decorator
@inline function secondHash(h: u64): u64 {
  h ^= h >> 31;
  h *= MIX_C1;
  return h ^ (h >> 29);
}

/** h1 of a key for double hashing; leaves h2 in `step` (murmur3_128's own h2, else a mix of h1). */
// @ts-ignore: decorator
@inline export function firstHash(filter: usize, key: usize, len: usize): u64 {
  const id = load<u32>(filter, F_HASH);
  const seed = load<u32>(filter, F_SEED);
  const h = filterHash(id, key, len, seed);
  step = id == HASH_MURMUR3_128 ? murmurHigh : secondHash(h);
  return h;
}

/** Bit index i of a key under the independent strategy. */
// @ts-ignore: decorator
@inline export function independentIndex(filter: usize, i: u32, key: usize, len: usize, m: u64): u64 {
  return hashAny(load<u8>(filter + F_IDS + i), key, len, load<u32>(filter, F_SEED)) % m;
}

/** murmur3's finaliser constant, used to derive the third hash from the second. */
// @ts-ignore: decorator
@inline const MIX_C3: u64 = 0xFF51AFD7ED558CCD;

/**
 * The third hash of triple hashing, g_i = h1 + i·h2 + i(i−1)/2·h3, as a mix of
 * h2 (0 under double hashing, whose g_i it then gives). Why a third: with two,
 * a key whose (h1, h2) lies within about 1/m of a member's in both shares all
 * k bits with it, which adds about 3/(k·m) to the rate (100 keys at p = 10^-6
 * measured 5.3·10^-5); with h3 too such keys are a factor m rarer.
 */
// @ts-ignore: decorator
@inline export function thirdHashFor(strategy: u32, h2: u64): u64 {
  if (strategy != STRATEGY_TRIPLE) return 0;
  h2 ^= h2 >> 33;
  h2 *= MIX_C3;
  return h2 ^ (h2 >> 33);
}

/** thirdHashFor the strategy in a filter's header. */
// @ts-ignore: decorator
@inline export function thirdHash(filter: usize, h2: u64): u64 {
  return thirdHashFor(load<u32>(filter, F_STRATEGY), h2);
}

/**
 * g_2 = h1 + 2·h2 + h3 of hashing from (h1, h2, h3): where the loops that
 * read the first two indices on their own (most absent keys stop there) go on.
 */
// @ts-ignore: decorator
@inline export function hashOfThirdIndex(h: u64, h2: u64, h3: u64): u64 {
  return h + ((h2 << 1) + h3);
}

/** The step from g_2 to g_3, h2 + 2·h3: each step is h3 more than the one before. */
// @ts-ignore: decorator
@inline export function stepFromThirdIndex(h2: u64, h3: u64): u64 {
  return h2 + (h3 << 1);
}

/** The second hash for a given first one (what firstHash leaves in `step` for 64-bit hashes). */
// @ts-ignore: decorator
@inline export function secondHashOf(h: u64): u64 {
  return secondHash(h);
}

/** h2 of the key last hashed by firstHash. */
// @ts-ignore: decorator
@inline export function keyStep(): u64 {
  return step;
}

/** Double- or triple-hashing index: g mapped onto the base m, then folded onto the current m. */
// @ts-ignore: decorator
@inline export function doubleIndex(g: u64, m: u64, base: u64): u64 {
  const idx = reduce(g, base);
  return base == m ? idx : idx % m;
}

/** Most hashes a filter can have (bindings' MAX_HASHES). */
// @ts-ignore: decorator
@inline export const MAX_HASHES: u32 = 256;
/** Room for one key's indices. */
const INDEX_BUFFER: usize = memory.data(<i32>MAX_HASHES << 3, 8);

/** Appends idx to the first n entries of INDEX_BUFFER unless it is there already; returns the new count. */
// @ts-ignore: decorator
@inline function appendDistinct(n: u32, idx: u64): u32 {
  for (let j: u32 = 0; j < n; j++) if (load<u64>(INDEX_BUFFER + (<usize>j << 3)) == idx) return n;
  store<u64>(INDEX_BUFFER + (<usize>n << 3), idx);
  return n + 1;
}

/** The distinct indices of hashing from (h, h2, h3) (h3 = 0: double hashing), written as u64 to indexBuffer(); returns how many (≤ k). */
export function distinctIndicesHashed(filter: usize, h: u64, h2: u64, h3: u64): u32 {
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  const base = load<u64>(filter, F_BASE_BITS);
  let n: u32 = 0;
  for (let i: u32 = 0; i < k; i++) {
    n = appendDistinct(n, doubleIndex(h, m, base));
    h += h2;
    h2 += h3;
  }
  return n;
}

/** The key's distinct indices, written as u64 to indexBuffer(); returns how many (≤ k). */
export function distinctIndices(filter: usize, key: usize, len: usize): u32 {
  if (load<u32>(filter, F_STRATEGY) != STRATEGY_INDEPENDENT) {
    const h = firstHash(filter, key, len);
    return distinctIndicesHashed(filter, h, step, thirdHash(filter, step));
  }
  const m = load<u64>(filter, F_BITS);
  const k = load<u32>(filter, F_HASHES);
  let n: u32 = 0;
  for (let i: u32 = 0; i < k; i++) n = appendDistinct(n, independentIndex(filter, i, key, len, m));
  return n;
}

/** splitmix64's increment and second finaliser constant. */
// @ts-ignore: decorator
@inline const GOLDEN: u64 = 0x9E3779B97F4A7C15;
// @ts-ignore: decorator
@inline const MIX_C2: u64 = 0x94D049BB133111EB;

/** A 64-bit hash of an integer key: splitmix64's finaliser over key + (seed + 1)·φ. */
// @ts-ignore: decorator
@inline export function intHash(x: u64, seed: u64): u64 {
  x += (seed + 1) * GOLDEN;
  x = (x ^ (x >> 30)) * MIX_C1;
  x = (x ^ (x >> 27)) * MIX_C2;
  return x ^ (x >> 31);
}

/** Integer key i of an array of T (u32 or u64), as u64: for loops compiled once per key width. */
// @ts-ignore: decorator
@inline export function intKey<T>(keys: usize, i: u32): u64 {
  return <u64>load<T>(keys + (<usize>i << alignof<T>()));
}

/** Integer key i of an array of u32 (wide 0) or u64 keys, as u64. */
// @ts-ignore: decorator
@inline export function intKeyAt(keys: usize, i: u32, wide: u32): u64 {
  return wide ? intKey<u64>(keys, i) : intKey<u32>(keys, i);
}

/** Where distinctIndices writes. */
// @ts-ignore: decorator
@inline export function indexBuffer(): usize {
  return INDEX_BUFFER;
}
