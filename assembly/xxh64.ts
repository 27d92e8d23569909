// xxHash64 (Yann Collet), the reference algorithm of xxhash.h, over raw bytes.

// @ts-ignore: decorator
@inline export const XXH64_P1: u64 = 0x9E3779B185EBCA87;
// @ts-ignore: decorator
@inline export const XXH64_P2: u64 = 0xC2B2AE3D27D4EB4F;
// @ts-ignore: decorator
@inline export const XXH64_P3: u64 = 0x165667B19E3779F9;
// @ts-ignore: decorator
@inline export const XXH64_P4: u64 = 0x85EBCA77C2B2AE63;
// @ts-ignore: decorator
@inline export const XXH64_P5: u64 = 0x27D4EB2F165667C5;

/** One accumulator round over an 8-byte lane. */
// @ts-ignore: decorator
@inline export function round(acc: u64, lane: u64): u64 {
  return rotl<u64>(acc + lane * XXH64_P2, 31) * XXH64_P1;
}

/** Folds an accumulator into the converged hash. */
// @ts-ignore: decorator
@inline function mergeRound(acc: u64, val: u64): u64 {
  return (acc ^ round(0, val)) * XXH64_P1 + XXH64_P4;
}

/** The four accumulators of a run of 32-byte stripes, converged into one hash. */
// @ts-ignore: decorator
@inline export function converge(v1: u64, v2: u64, v3: u64, v4: u64): u64 {
  let h = rotl<u64>(v1, 1) + rotl<u64>(v2, 7) + rotl<u64>(v3, 12) + rotl<u64>(v4, 18);
  h = mergeRound(h, v1);
  h = mergeRound(h, v2);
  h = mergeRound(h, v3);
  return mergeRound(h, v4);
}

/** xxh64 of `len` bytes at `ptr` with `seed`. */
// @ts-ignore: decorator
@inline export function xxh64(ptr: usize, len: usize, seed: u64): u64 {
  const end = ptr + len;
  let h: u64;
  if (len >= 32) {
    const limit = end - 32;
    let v1 = seed + XXH64_P1 + XXH64_P2;
    let v2 = seed + XXH64_P2;
    let v3 = seed;
    let v4 = seed - XXH64_P1;
    do {
      v1 = round(v1, load<u64>(ptr));
      v2 = round(v2, load<u64>(ptr, 8));
      v3 = round(v3, load<u64>(ptr, 16));
      v4 = round(v4, load<u64>(ptr, 24));
      ptr += 32;
    } while (ptr <= limit);
    h = converge(v1, v2, v3, v4);
  } else {
    h = seed + XXH64_P5;
  }
  return finish(h + <u64>len, ptr, end);
}

/** The converged hash `h` (length added) over the last bytes [ptr, end), fewer than 32, then the final avalanche. */
// @ts-ignore: decorator
@inline export function finish(h: u64, ptr: usize, end: usize): u64 {
  while (ptr + 8 <= end) {
    h ^= round(0, load<u64>(ptr));
    h = rotl<u64>(h, 27) * XXH64_P1 + XXH64_P4;
    ptr += 8;
  }
  if (ptr + 4 <= end) {
    h ^= <u64>load<u32>(ptr) * XXH64_P1;
    h = rotl<u64>(h, 23) * XXH64_P2 + XXH64_P3;
    ptr += 4;
  }
  while (ptr < end) {
    h ^= <u64>load<u8>(ptr) * XXH64_P5;
    h = rotl<u64>(h, 11) * XXH64_P1;
    ptr++;
  }
  h ^= h >> 33;
  h *= XXH64_P2;
  h ^= h >> 29;
  h *= XXH64_P3;
  h ^= h >> 32;
  return h;
}
