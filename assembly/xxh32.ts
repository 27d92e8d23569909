// xxHash32 (Yann Collet), the reference algorithm of xxhash.h, over raw bytes.

// @ts-ignore: decorator
@inline const XXH32_P1: u32 = 0x9E3779B1;
// @ts-ignore: decorator
@inline const XXH32_P2: u32 = 0x85EBCA77;
// @ts-ignore: decorator
@inline const XXH32_P3: u32 = 0xC2B2AE3D;
// @ts-ignore: decorator
@inline const XXH32_P4: u32 = 0x27D4EB2F;
// @ts-ignore: decorator
@inline const XXH32_P5: u32 = 0x165667B1;

/** One accumulator round over a 4-byte lane. */
// @ts-ignore: decorator
@inline function round32(acc: u32, lane: u32): u32 {
  return rotl<u32>(acc + lane * XXH32_P2, 13) * XXH32_P1;
}

export function xxh32(p: usize, len: usize, seed: u32): u32 {
  const end = p + len;
  let h: u32;
  if (len >= 16) {
    const limit = end - 16;
    let v1 = seed + XXH32_P1 + XXH32_P2;
    let v2 = seed + XXH32_P2;
    let v3 = seed;
    let v4 = seed - XXH32_P1;
    do {
      v1 = round32(v1, load<u32>(p));
      v2 = round32(v2, load<u32>(p, 4));
      v3 = round32(v3, load<u32>(p, 8));
      v4 = round32(v4, load<u32>(p, 12));
      p += 16;
    } while (p <= limit);
    h = rotl<u32>(v1, 1) + rotl<u32>(v2, 7) + rotl<u32>(v3, 12) + rotl<u32>(v4, 18);
  } else {
    h = seed + XXH32_P5;
  }
  h += <u32>len;
  while (p + 4 <= end) {
    h = rotl<u32>(h + load<u32>(p) * XXH32_P3, 17) * XXH32_P4;
    p += 4;
  }
  while (p < end) {
    h = rotl<u32>(h + <u32>load<u8>(p) * XXH32_P5, 11) * XXH32_P1;
    p++;
  }
  h ^= h >> 15;
  h *= XXH32_P2;
  h ^= h >> 13;
  h *= XXH32_P3;
  return h ^ (h >> 16);
}
