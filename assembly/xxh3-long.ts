// XXH3-64 above 240 bytes: eight u64 accumulators, kept as four v128 pairs,
// take 64-byte stripes against a secret that slides 8 bytes per stripe; every
// 16 stripes (1 KiB) they are scrambled. Finished by folding the pairs.

import { mulFoldPair } from "./mul128";
import { SECRET, SECRET_SIZE, avalanche, XXH_P32_1, XXH_P32_2, XXH_P32_3 } from "./xxh3-secret";
import { XXH64_P1, XXH64_P2, XXH64_P3, XXH64_P4, XXH64_P5 } from "./xxh64";

/** Input bytes per stripe. */
// @ts-ignore: decorator
@inline const STRIPE: usize = 64;
/** Secret bytes a stripe moves on. */
// @ts-ignore: decorator
@inline const SECRET_STEP: usize = 8;
/** Stripes between scrambles: (secret size − stripe) / step. */
// @ts-ignore: decorator
@inline const STRIPES_PER_BLOCK: usize = (SECRET_SIZE - STRIPE) / SECRET_STEP;
/** The aligned 16 bytes holding the start of the last stripe's secret (byte 121 = 112 + 9). */
// @ts-ignore: decorator
@inline const LAST_STRIPE_BLOCK: usize = 112;

/** acc + the lane-swapped data + (low 32 bits × high 32 bits) of data ^ secret, per u64 lane. */
// @ts-ignore: decorator
@inline function accumulatePair(acc: v128, data: v128, secret: v128): v128 {
  const key = v128.xor(data, secret);
  const lows = i32x4.shuffle(key, key, 0, 2, 0, 2);
  const highs = i32x4.shuffle(key, key, 1, 3, 1, 3);
  acc = i64x2.add(acc, i64x2.shuffle(data, data, 1, 0));
  return i64x2.add(acc, i64x2.extmul_low_i32x4_u(lows, highs));
}

/** The scramble between blocks: xorshift 47, XOR the secret, × the 32-bit prime 1. */
// @ts-ignore: decorator
@inline function scramblePair(acc: v128, secret: v128): v128 {
  acc = v128.xor(v128.xor(acc, i64x2.shr_u(acc, 47)), secret);
  return i64x2.mul(acc, i64x2.splat(XXH_P32_1));
}

/** 16 bytes of the seeded secret at `offset`, a multiple of 8: the default secret plus `signs`, (seed, −seed) from an even word. */
// @ts-ignore: decorator
@inline function secretPair(offset: usize, signs: v128): v128 {
  return i64x2.add(v128.load(SECRET + offset), signs);
}

/**
 * Pair `pair` of the last stripe's secret, which starts at byte 121 (7 before
 * the scramble's, so they differ): bytes 9…24 of two aligned seeded pairs.
 */
// @ts-ignore: decorator
@inline function lastStripeSecret(pair: usize, signs: v128): v128 {
  const at = LAST_STRIPE_BLOCK + (pair << 4);
  const lo = secretPair(at, signs);
  const hi = secretPair(at + 16, signs);
  return i8x16.shuffle(lo, hi, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24);
}

/** Pair `pair` of the merge's secret, which starts at byte 11: bytes 11…26 of two aligned seeded pairs. */
// @ts-ignore: decorator
@inline function mergeSecret(pair: usize, signs: v128): v128 {
  const at = pair << 4;
  const lo = secretPair(at, signs);
  const hi = secretPair(at + 16, signs);
  return i8x16.shuffle(lo, hi, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26);
}

/** XXH3-64 of `len` (> 240) bytes at `ptr` with `seed`. */
export function xxh3Long(ptr: usize, len: usize, seed: u64): u64 {
  let a0 = i64x2(XXH_P32_3, XXH64_P1);
  let a1 = i64x2(XXH64_P2, XXH64_P3);
  let a2 = i64x2(XXH64_P4, XXH_P32_2);
  let a3 = i64x2(XXH64_P5, XXH_P32_1);
  const even = i64x2(seed, 0 - seed);
  const odd = i64x2(0 - seed, seed);
  // Every whole stripe before the last byte; the block ends fall on every 16th.
  const stripes = (len - 1) / STRIPE;
  let p = ptr;
  let n: usize = 0;
  for (let s: usize = 0; s < stripes; s++) {
    const at = n * SECRET_STEP;
    const signs = (n & 1) != 0 ? odd : even;
    a0 = accumulatePair(a0, v128.load(p), secretPair(at, signs));
    a1 = accumulatePair(a1, v128.load(p, 16), secretPair(at + 16, signs));
    a2 = accumulatePair(a2, v128.load(p, 32), secretPair(at + 32, signs));
    a3 = accumulatePair(a3, v128.load(p, 48), secretPair(at + 48, signs));
    p += STRIPE;
    if (++n == STRIPES_PER_BLOCK) {
      const at = SECRET_SIZE - STRIPE; // word 16: even
      a0 = scramblePair(a0, secretPair(at, even));
      a1 = scramblePair(a1, secretPair(at + 16, even));
      a2 = scramblePair(a2, secretPair(at + 32, even));
      a3 = scramblePair(a3, secretPair(at + 48, even));
      n = 0;
    }
  }
  // The last 64 bytes, overlapping what came before when len is not a multiple of 64.
  p = ptr + len - STRIPE;
  a0 = accumulatePair(a0, v128.load(p), lastStripeSecret(0, even));
  a1 = accumulatePair(a1, v128.load(p, 16), lastStripeSecret(1, even));
  a2 = accumulatePair(a2, v128.load(p, 32), lastStripeSecret(2, even));
  a3 = accumulatePair(a3, v128.load(p, 48), lastStripeSecret(3, even));
  const folds = i64x2.add(
    mulFoldPair(v128.xor(a0, mergeSecret(0, even)), v128.xor(a1, mergeSecret(1, even))),
    mulFoldPair(v128.xor(a2, mergeSecret(2, even)), v128.xor(a3, mergeSecret(3, even))),
  );
  return avalanche(<u64>len * XXH64_P1 + i64x2.extract_lane(folds, 0) + i64x2.extract_lane(folds, 1));
}
