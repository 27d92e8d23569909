// XXH3-64 above 240 bytes: eight u64 accumulators, kept as four v128 pairs,
// take 64-byte stripes against a secret that slides 8 bytes per stripe; every
// 16 stripes (1 KiB) they are scrambled. Finished by folding the pairs.

import { mulFoldPair } from "./mul128";
import {
  SECRET, SECRET_SIZE, seededSecretAt, avalanche,
  XXH_P32_1, XXH_P32_2, XXH_P32_3, XXH_P64_1, XXH_P64_2, XXH_P64_3, XXH_P64_4, XXH_P64_5,
} from "./xxh3-secret";

// @ts-ignore: decorator
@inline const STRIPE: usize = 64;
/** Secret bytes a stripe moves on. */
// @ts-ignore: decorator
@inline const SECRET_STEP: usize = 8;
/** Stripes between scrambles: (secret size − stripe) / step. */
// @ts-ignore: decorator
@inline const STRIPES_PER_BLOCK: usize = (SECRET_SIZE - STRIPE) / SECRET_STEP;
/** Where the last stripe's secret starts: 7 bytes before the scramble secret, so they differ. */
// @ts-ignore: decorator
@inline const LAST_STRIPE_SECRET: usize = SECRET_SIZE - STRIPE - 7;
/** Where the merge's secret starts (11: unaligned, unlike the stripes'). */
// @ts-ignore: decorator
@inline const MERGE_SECRET: usize = 11;

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

/** 16 bytes of the seeded secret at aligned `offset`: the default secret plus (seed, −seed), or (−seed, seed) at odd words. */
// @ts-ignore: decorator
@inline function secretPair(offset: usize, signs: v128): v128 {
  return i64x2.add(v128.load(SECRET + offset), signs);
}

/** 16 bytes of the seeded secret at an unaligned `offset`. */
// @ts-ignore: decorator
@inline function secretPairAt(offset: usize, seed: u64): v128 {
  return i64x2(seededSecretAt(offset, seed), seededSecretAt(offset + 8, seed));
}

/** An accumulator pair XOR the merge secret for pair `pair`. */
// @ts-ignore: decorator
@inline function mergeKey(acc: v128, pair: usize, seed: u64): v128 {
  return v128.xor(acc, secretPairAt(MERGE_SECRET + (pair << 4), seed));
}

/** XXH3-64 of `len` (> 240) bytes at `ptr` with `seed`. */
export function xxh3Long(ptr: usize, len: usize, seed: u64): u64 {
  let a0 = i64x2(XXH_P32_3, XXH_P64_1);
  let a1 = i64x2(XXH_P64_2, XXH_P64_3);
  let a2 = i64x2(XXH_P64_4, XXH_P32_2);
  let a3 = i64x2(XXH_P64_5, XXH_P32_1);
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
  a0 = accumulatePair(a0, v128.load(p), secretPairAt(LAST_STRIPE_SECRET, seed));
  a1 = accumulatePair(a1, v128.load(p, 16), secretPairAt(LAST_STRIPE_SECRET + 16, seed));
  a2 = accumulatePair(a2, v128.load(p, 32), secretPairAt(LAST_STRIPE_SECRET + 32, seed));
  a3 = accumulatePair(a3, v128.load(p, 48), secretPairAt(LAST_STRIPE_SECRET + 48, seed));
  const folds = i64x2.add(
    mulFoldPair(mergeKey(a0, 0, seed), mergeKey(a1, 1, seed)),
    mulFoldPair(mergeKey(a2, 2, seed), mergeKey(a3, 3, seed)),
  );
  return avalanche(<u64>len * XXH_P64_1 + i64x2.extract_lane(folds, 0) + i64x2.extract_lane(folds, 1));
}
