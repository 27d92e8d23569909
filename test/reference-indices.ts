// The k indices of a key in a Bloom-style filter, from its 64-bit hash h1, in
// BigInt, as README's "How it works" and docs/FORMAT.md define them: what the
// wasm kernels must agree with. h2 is splitmix64's first round and a final
// xor-shift over h1 (or murmur3_128's second half), h3 murmur3's finaliser's
// first round over h2 (0 under double hashing); index i = ⌊g_i · m / 2^64⌋ with
// g_i = h1 + i·h2 + i(i−1)/2·h3 mod 2^64.

const MASK64 = (1n << 64n) - 1n;

/** (a · b) mod 2^64. */
const mul64 = (a: bigint, b: bigint) => (a * b) & MASK64;

/** h2 of a 64-bit key hash. */
export function secondOf(h1: bigint): bigint {
  const x = mul64(h1 ^ (h1 >> 31n), 0xbf58476d1ce4e5b9n);
  return x ^ (x >> 29n);
}

/** h3 of triple hashing, from h2. */
export function thirdOf(h2: bigint): bigint {
  const x = mul64(h2 ^ (h2 >> 33n), 0xff51afd7ed558ccdn);
  return x ^ (x >> 33n);
}

/** The k indices in m bits of a key of hashes (h1, h2) under triple or double hashing. */
export function indicesOf(h1: bigint, h2: bigint, strategy: "triple" | "double", k: number, m: number): number[] {
  const h3 = strategy === "triple" ? thirdOf(h2) : 0n;
  return Array.from({ length: k }, (_, i) => {
    const n = BigInt(i);
    const g = (h1 + n * h2 + ((n * (n - 1n)) / 2n) * h3) & MASK64;
    return Number((g * BigInt(m)) >> 64n);
  });
}
