// Direct access to the hash functions, for tests against reference vectors.

import { xxh64 } from "./xxh64";

/** xxh64 of one key, returned as two u32 halves through `out` (JS numbers stay exact). */
export function hashXxh64(key: usize, len: usize, seedLo: u32, seedHi: u32, out: usize): void {
  const h = xxh64(key, len, (<u64>seedHi << 32) | seedLo);
  store<u32>(out, <u32>h);
  store<u32>(out, <u32>(h >> 32), 4);
}
