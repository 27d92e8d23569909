// Deterministic key generators for the tests (URL keys are shared with the benchmarks).
import { pack, rng, urls } from "../bench/keys.mjs";

export { pack, rng, urls };

/** `count` random byte strings of length 0 to maxLength. */
export function randomBytes(count: number, maxLength: number, seed = 2): Uint8Array[] {
  const random = rng(seed);
  return Array.from({ length: count }, () => {
    const key = new Uint8Array(Math.floor(random() * (maxLength + 1)));
    for (let i = 0; i < key.length; i++) key[i] = Math.floor(random() * 256);
    return key;
  });
}

/** Number of ones in a 0/1 result array. */
export function ones(flags: Uint8Array): number {
  let total = 0;
  for (const flag of flags) total += flag;
  return total;
}

/**
 * Index of the first byte where two arrays differ, the shorter length when
 * one is a prefix of the other, or -1 when they are equal. For large arrays,
 * where a deep toEqual takes tens of seconds; a failure still says where.
 */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))) return -1;
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i++) if (a[i] !== b[i]) return i;
  return shorter;
}

/** `count` distinct u32 keys from a fixed seed; `odd` picks odd or even ones so two sets stay disjoint. */
export function distinctInts(count: number, odd: boolean, seed: number): Uint32Array {
  const random = rng(seed);
  const seen = new Set<number>();
  while (seen.size < count) seen.add(((Math.floor(random() * 2 ** 31) << 1) | (odd ? 1 : 0)) >>> 0);
  return Uint32Array.from(seen);
}
