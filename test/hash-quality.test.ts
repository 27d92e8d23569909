// What bench/hash-quality.mjs computes for bench/HASHES.md: checked on inputs
// whose answers are known exactly, and its avalanche figure on a hash with a
// known bias.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hashPacked } from "../bindings/index.js";
import { avalanche, chiSquare16, collisions } from "../bench/hash-quality.mjs";

describe("bench/hash-quality.mjs", () => {
  it("collisions counts pairs of keys with equal outputs (a value k keys share is k(k−1)/2 pairs)", () => {
    expect(collisions(Uint32Array.from([1, 2, 3])).equal).toBe(0);
    expect(collisions(Uint32Array.from([5, 5])).equal).toBe(1);
    expect(collisions(Uint32Array.from([7, 7, 7])).equal).toBe(3);
    expect(collisions(Uint32Array.from([9, 9, 9, 9, 1, 1])).equal).toBe(6 + 1);
    expect(collisions(BigUint64Array.from([2n ** 63n, 2n ** 63n, 2n ** 63n, 4n])).equal).toBe(3);
    // A constant hash over n keys: every one of the n(n−1)/2 pairs collides, the figure the expected value is in.
    const n = 1000;
    const constant = collisions(new Uint32Array(n));
    expect(constant.equal).toBe((n * (n - 1)) / 2);
    expect(constant.expected).toBeCloseTo((n * (n - 1)) / 2 / 2 ** 32, 12);
  });

  it("chiSquare16 is 0 for perfectly even low 16 bits and n for n outputs in one bucket", () => {
    const even = Uint32Array.from({ length: 65_536 * 2 }, (_, i) => (i & 0xffff) | ((i >>> 16) << 20));
    expect(chiSquare16(even)).toBe(0);
    // All n in one bucket: χ² = (n − e)²/e + 65,535·e with e = n/65,536, which is n·65,535; over 65,535 df, n.
    expect(chiSquare16(new Uint32Array(1000).fill(0x12340000))).toBeCloseTo(1000, 6);
    // 64-bit outputs use their low word.
    expect(chiSquare16(BigUint64Array.from({ length: 65_536 }, (_, i) => (BigInt(i) << 32n) | BigInt(i)))).toBe(0);
  });

  it("avalanche: the identity on the first 4 bytes flips exactly one output bit per input bit", () => {
    const firstWord = (bytes: Uint8Array, ends: Uint32Array) =>
      Uint32Array.from(ends, (end) => (bytes[end - 16] | (bytes[end - 15] << 8) | (bytes[end - 14] << 16) | (bytes[end - 13] << 24)) >>> 0);
    const { worst, mean } = avalanche(firstWord, 50);
    expect(worst).toBe(100);
    // 128 × 32 pairs: 32 always flip (bias 1), the rest never (bias 1): every pair is fully biased.
    expect(mean).toBe(100);
  });

  it("avalanche: a good hash shows only sampling noise, mean |bias| ≈ √(2/π)/√count", () => {
    const count = 2000;
    const { worst, mean } = avalanche((bytes: Uint8Array, ends: Uint32Array) => hashPacked("xxh3", bytes, ends), count);
    const noise = Math.sqrt(2 / Math.PI) / Math.sqrt(count); // E|2·Bin(n, ½)/n − 1|
    expect(mean / 100).toBeGreaterThan(noise * 0.95);
    expect(mean / 100).toBeLessThan(noise * 1.05);
    expect(worst / 100).toBeLessThan(6 / Math.sqrt(count));
  });
});

describe("bench/hashes.mjs's report", () => {
  it("names the strategy its filters run (DEFAULT_STRATEGY, triple since it changed), not a hard-coded one", () => {
    // Its filters take no strategy, so they run the default; the prose written to HASHES.md said "double hashing" after triple became it.
    const source = readFileSync(new URL("../bench/hashes.mjs", import.meta.url), "utf8");
    const report = source.slice(source.indexOf('new URL("./HASHES.md"'));
    expect(report.match(/\b(?:double|triple) hashing/g)).toBeNull();
    expect(report.split("${DEFAULT_STRATEGY} hashing").length - 1).toBe(3);
    expect(source).not.toMatch(/strategy:/); // no filter of the bench names a strategy of its own
  });
});
