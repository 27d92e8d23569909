// XXH3-64 (Yann Collet, xxhash.h v0.8) with a seed, over raw bytes: one fixed
// formula per length class up to 240 bytes, stripes above (xxh3-long.ts).

import { mulFold64, mulFoldPair } from "./mul128";
import { SECRET, secret32, secret64, avalanche, avalanche64 } from "./xxh3-secret";
import { XXH64_P1 } from "./xxh64";
import { xxh3Long } from "./xxh3-long";

/** Multiplier of rrmxmx, the stronger mix for 4–8-byte inputs. */
// @ts-ignore: decorator
@inline const RRMXMX_MUL: u64 = 0x9FB21C651E98DF25;
/** Longest input of the mid-size formula; longer ones take stripes. */
// @ts-ignore: decorator
@inline const MIDSIZE_MAX: usize = 240;
/** Secret offset of the 129–240-byte formula's rounds after the eighth. */
// @ts-ignore: decorator
@inline const MIDSIZE_START: usize = 3;
/** Secret offset of that formula's last 16 bytes: 136 (the smallest secret) − 17. */
// @ts-ignore: decorator
@inline const MIDSIZE_LAST: usize = 119;

/**
 * XXH3's 16-byte step before its multiply: the input's two u64 halves XOR the
 * secret's at `secretOffset` plus `signs` (seed, −seed). mulFoldPair of two
 * such steps gives both steps' results.
 */
// @ts-ignore: decorator
@inline function keyed16(p: usize, secretOffset: usize, signs: v128): v128 {
  return v128.xor(v128.load(p), i64x2.add(v128.load(SECRET + secretOffset), signs));
}

/** The sum of a pair's two u64 lanes. */
// @ts-ignore: decorator
@inline function laneSum(pair: v128): u64 {
  return i64x2.extract_lane(pair, 0) + i64x2.extract_lane(pair, 1);
}

/** rrmxmx (after Pelle Evensen): a strong mix for inputs not yet multiplied. */
// @ts-ignore: decorator
@inline function rrmxmx(h: u64, len: u64): u64 {
  h ^= rotl<u64>(h, 49) ^ rotl<u64>(h, 24);
  h *= RRMXMX_MUL;
  h ^= (h >> 35) + len;
  h *= RRMXMX_MUL;
  return h ^ (h >> 28);
}

/** 1–3 bytes: first, middle and last byte and the length in one u32. */
// @ts-ignore: decorator
@inline function len1to3(p: usize, len: usize, seed: u64): u64 {
  const combined: u32 = (<u32>load<u8>(p) << 16) | (<u32>load<u8>(p + (len >> 1)) << 24) | <u32>load<u8>(p + len - 1) | (<u32>len << 8);
  return avalanche64(<u64>combined ^ ((secret32(0) ^ secret32(4)) + seed));
}

/** 4–8 bytes: the first and last four bytes in one u64. */
// @ts-ignore: decorator
@inline function len4to8(p: usize, len: usize, seed: u64): u64 {
  seed ^= <u64>bswap<u32>(<u32>seed) << 32;
  const input = <u64>load<u32>(p + len - 4) + (<u64>load<u32>(p) << 32);
  return rrmxmx(input ^ ((secret64(8) ^ secret64(16)) - seed), <u64>len);
}

/** 9–16 bytes: the first and last eight bytes, multiplied together. */
// @ts-ignore: decorator
@inline function len9to16(p: usize, len: usize, seed: u64): u64 {
  const lo = load<u64>(p) ^ ((secret64(24) ^ secret64(32)) + seed);
  const hi = load<u64>(p + len - 8) ^ ((secret64(40) ^ secret64(48)) - seed);
  return avalanche(<u64>len + bswap<u64>(lo) + hi + mulFold64(lo, hi));
}

/** 17–128 bytes: 16-byte steps taken in pairs from both ends towards the middle. */
// @ts-ignore: decorator
@inline function len17to128(p: usize, len: usize, seed: u64): u64 {
  const signs = i64x2(seed, 0 - seed);
  const end = p + len;
  let sum = mulFoldPair(keyed16(p, 0, signs), keyed16(end - 16, 16, signs));
  if (len > 32) {
    sum = i64x2.add(sum, mulFoldPair(keyed16(p + 16, 32, signs), keyed16(end - 32, 48, signs)));
    if (len > 64) {
      sum = i64x2.add(sum, mulFoldPair(keyed16(p + 32, 64, signs), keyed16(end - 48, 80, signs)));
      if (len > 96) sum = i64x2.add(sum, mulFoldPair(keyed16(p + 48, 96, signs), keyed16(end - 64, 112, signs)));
    }
  }
  return avalanche(<u64>len * XXH64_P1 + laneSum(sum));
}

/** 129–240 bytes: eight steps and a mix, then the remaining whole steps and the last 16 bytes. */
function len129to240(p: usize, len: usize, seed: u64): u64 {
  const signs = i64x2(seed, 0 - seed);
  let sum = i64x2.splat(0);
  for (let at: usize = 0; at < 128; at += 32) {
    sum = i64x2.add(sum, mulFoldPair(keyed16(p + at, at, signs), keyed16(p + at + 16, at + 16, signs)));
  }
  const h = avalanche(<u64>len * XXH64_P1 + laneSum(sum));
  // Steps 8 … len/16 − 1 read the secret from byte 3 on; the last 16 bytes from 119.
  const steps = (len >> 4) << 4;
  sum = i64x2.splat(0);
  let at: usize = 128;
  for (; at + 16 < steps; at += 32) {
    sum = i64x2.add(sum, mulFoldPair(keyed16(p + at, at - 128 + MIDSIZE_START, signs), keyed16(p + at + 16, at - 112 + MIDSIZE_START, signs)));
  }
  const last = keyed16(p + len - 16, MIDSIZE_LAST, signs);
  // A step left over pairs with the last 16 bytes; otherwise those pair with zeros, whose fold is 0.
  sum = i64x2.add(sum, at < steps ? mulFoldPair(keyed16(p + at, at - 128 + MIDSIZE_START, signs), last) : mulFoldPair(last, i64x2.splat(0)));
  return avalanche(h + laneSum(sum));
}

/** XXH3-64 of `len` bytes at `ptr` with `seed` (XXH3_64bits_withSeed). */
// @ts-ignore: decorator
@inline export function xxh3(ptr: usize, len: usize, seed: u64): u64 {
  if (len <= 16) {
    if (len > 8) return len9to16(ptr, len, seed);
    if (len >= 4) return len4to8(ptr, len, seed);
    if (len > 0) return len1to3(ptr, len, seed);
    return avalanche64(seed ^ (secret64(56) ^ secret64(64)));
  }
  if (len <= 128) return len17to128(ptr, len, seed);
  if (len <= MIDSIZE_MAX) return len129to240(ptr, len, seed);
  return xxh3Long(ptr, len, seed);
}
