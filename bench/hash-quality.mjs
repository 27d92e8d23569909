// Quality measures for a hash over a batch of outputs: avalanche bias,
// chi-square uniformity, collisions. Outputs come as Uint32Array (32-bit
// names) or BigUint64Array (64-bit names, murmur3_128's h1).
import { rng } from "./keys.mjs";

/** The outputs as u32 words: one per key for 32-bit names, two (low, high) for 64-bit. */
function words(hashes) {
  return hashes instanceof Uint32Array ? hashes : new Uint32Array(hashes.buffer, hashes.byteOffset, hashes.length * 2);
}

/**
 * Avalanche: for `count` random 16-byte keys, flips each of the 128 input bits
 * and records how often each output bit flips. Returns the worst and the mean
 * bias |2·P(flip) − 1| over all (input bit, output bit) pairs, in percent
 * (0 = every output bit flips half the time).
 */
export function avalanche(hashPacked, count = 10_000) {
  const random = rng(77);
  const KEY = 16;
  const variants = KEY * 8 + 1;
  const bytes = new Uint8Array(count * variants * KEY);
  const ends = new Uint32Array(count * variants);
  for (let k = 0; k < count; k++) {
    const base = new Uint8Array(KEY).map(() => Math.floor(random() * 256));
    for (let v = 0; v < variants; v++) {
      const at = (k * variants + v) * KEY;
      bytes.set(base, at);
      if (v > 0) bytes[at + ((v - 1) >> 3)] ^= 1 << ((v - 1) & 7);
      ends[k * variants + v] = at + KEY;
    }
  }
  const out = words(hashPacked(bytes, ends));
  const perKey = out.length / ends.length;
  const outBits = perKey * 32;
  const flips = new Float64Array((variants - 1) * outBits);
  for (let k = 0; k < count; k++) {
    const base = k * variants * perKey;
    for (let v = 1; v < variants; v++) {
      for (let w = 0; w < perKey; w++) {
        let x = out[base + w] ^ out[base + v * perKey + w];
        while (x !== 0) {
          const bit = 31 - Math.clz32(x & -x);
          flips[(v - 1) * outBits + w * 32 + bit]++;
          x &= x - 1;
        }
      }
    }
  }
  let worst = 0;
  let total = 0;
  for (const f of flips) {
    const bias = Math.abs((2 * f) / count - 1);
    worst = Math.max(worst, bias);
    total += bias;
  }
  return { worst: worst * 100, mean: (total / flips.length) * 100 };
}

/** χ² of the low 16 bits (h mod 2^16, the bits a modulo reduction uses) against uniform, divided by its 65,535 degrees of freedom (≈ 1 is uniform). */
export function chiSquare16(hashes) {
  const w = words(hashes);
  const step = hashes instanceof Uint32Array ? 1 : 2;
  const buckets = new Float64Array(65_536);
  for (let i = 0; i < w.length; i += step) buckets[w[i] & 0xffff]++;
  const expected = hashes.length / 65_536;
  let chi = 0;
  for (const b of buckets) chi += ((b - expected) ** 2) / expected;
  return chi / 65_535;
}

/**
 * Pairs of keys (all distinct) with equal full-width outputs, and how many a
 * random function would give: a value that k keys share is k(k − 1)/2 pairs,
 * the count the expected value n(n − 1)/2 / 2^bits is of (counting adjacent
 * equal outputs instead gave k − 1, which for hashes with few distinct values,
 * hflp, hf and bp, is n − distinct rather than the pairs).
 */
export function collisions(hashes) {
  const sorted = hashes.slice().sort();
  let equal = 0;
  let run = 1;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === sorted[i - 1]) run++;
    else {
      equal += (run * (run - 1)) / 2;
      run = 1;
    }
  }
  const space = hashes instanceof Uint32Array ? 2 ** 32 : 2 ** 64;
  return { equal, expected: (hashes.length * (hashes.length - 1)) / (2 * space) };
}
