// Maps a uniform 64-bit value onto [0, m) by multiply-shift (Lemire):
// floor(x · m / 2^64). Unlike x % m it needs no division, and with a 64-bit x
// the largest bucket gets at most one value more than the smallest out of
// 2^64 / m, so the bias is below m / 2^64 (≤ 2^-30 for the largest filter).

// @ts-ignore: decorator
@inline const LOW32: u64 = 0xFFFFFFFF;

/** High 64 bits of the 128-bit product a · b. */
// @ts-ignore: decorator
@inline export function mulHigh64(a: u64, b: u64): u64 {
  const aLo = a & LOW32, aHi = a >> 32;
  const bLo = b & LOW32, bHi = b >> 32;
  const lolo = aLo * bLo;
  const lohi = aLo * bHi;
  const hilo = aHi * bLo;
  const mid = (lolo >> 32) + (lohi & LOW32) + (hilo & LOW32);
  return aHi * bHi + (lohi >> 32) + (hilo >> 32) + (mid >> 32);
}

/** floor(x · m / 2^64): two multiplies when m < 2^32, four otherwise. */
// @ts-ignore: decorator
@inline export function reduce(x: u64, m: u64): u64 {
  if (m <= LOW32) return ((x >> 32) * m + (((x & LOW32) * m) >> 32)) >> 32;
  return mulHigh64(x, m);
}
