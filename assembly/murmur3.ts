// MurmurHash3 (Austin Appleby, SMHasher): x86_32 and x64_128.

// @ts-ignore: decorator
@inline const M32_C1: u32 = 0xCC9E2D51;
// @ts-ignore: decorator
@inline const M32_C2: u32 = 0x1B873593;
// @ts-ignore: decorator
@inline const M128_C1: u64 = 0x87C37B91114253D5;
// @ts-ignore: decorator
@inline const M128_C2: u64 = 0x4CF5AD432745937F;

/** The high 64 bits (h2) of the last murmur3_128 call. */
export let murmurHigh: u64 = 0;

/** Mixes one 32-bit block before it enters the state. */
// @ts-ignore: decorator
@inline function mixK32(k: u32): u32 {
  return rotl<u32>(k * M32_C1, 15) * M32_C2;
}

/** murmur3's 32-bit finaliser. */
// @ts-ignore: decorator
@inline function fmix32(h: u32): u32 {
  h ^= h >> 16;
  h *= 0x85EBCA6B;
  h ^= h >> 13;
  h *= 0xC2B2AE35;
  return h ^ (h >> 16);
}

/** murmur3's 64-bit finaliser. */
// @ts-ignore: decorator
@inline function fmix64(k: u64): u64 {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCD;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53;
  return k ^ (k >> 33);
}

export function murmur3_32(p: usize, len: usize, seed: u32): u32 {
  let h = seed;
  const blocksEnd = p + (len & ~3);
  for (let q = p; q < blocksEnd; q += 4) {
    h ^= mixK32(load<u32>(q));
    h = rotl<u32>(h, 13) * 5 + 0xE6546B64;
  }
  const tail = len & 3;
  if (tail != 0) {
    let k: u32 = 0;
    for (let i: usize = 0; i < tail; i++) k |= <u32>load<u8>(blocksEnd + i) << (<u32>i << 3);
    h ^= mixK32(k);
  }
  return fmix32(h ^ <u32>len);
}

/** murmur3 x64_128: returns h1 and leaves h2 in `murmurHigh`. */
export function murmur3_128(p: usize, len: usize, seed: u32): u64 {
  let h1 = <u64>seed, h2 = <u64>seed;
  const blocksEnd = p + (len & ~15);
  for (let q = p; q < blocksEnd; q += 16) {
    h1 ^= rotl<u64>(load<u64>(q) * M128_C1, 31) * M128_C2;
    h1 = (rotl<u64>(h1, 27) + h2) * 5 + 0x52DCE729;
    h2 ^= rotl<u64>(load<u64>(q, 8) * M128_C2, 33) * M128_C1;
    h2 = (rotl<u64>(h2, 31) + h1) * 5 + 0x38495AB5;
  }
  const tail = len & 15;
  if (tail != 0) {
    let k1: u64 = 0, k2: u64 = 0;
    for (let i: usize = 0; i < tail; i++) {
      const byte = <u64>load<u8>(blocksEnd + i);
      if (i < 8) k1 |= byte << (<u64>i << 3);
      else k2 |= byte << (<u64>(i - 8) << 3);
    }
    if (tail > 8) h2 ^= rotl<u64>(k2 * M128_C2, 33) * M128_C1;
    h1 ^= rotl<u64>(k1 * M128_C1, 31) * M128_C2;
  }
  h1 ^= <u64>len;
  h2 ^= <u64>len;
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 += h2;
  h2 += h1;
  murmurHigh = h2;
  return h1;
}
