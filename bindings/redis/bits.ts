// Bit order between bloomkit and Redis. bloomkit keeps bit i of a filter in
// bit (i & 7) of byte i >> 3, counting from the least significant bit; Redis's
// SETBIT, GETBIT and BITFIELD count from the most significant bit of each
// byte. Bit i is therefore sent as Redis offset 8·(i >> 3) + 7 − (i & 7):
// then a Redis string's bytes are the filter's bytes, and whole bit arrays
// move between the two (GETRANGE, SETRANGE) as they are.

/** The Redis bit offset of bloomkit bit `index` (below 2^32, as in one Redis string). */
export function redisOffset(index: number): number {
  const bit = index % 8;
  return index - bit + 7 - bit;
}
