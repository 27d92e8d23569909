// Statistical properties: measured false-positive rate at capacity, and
// uniform bit positions for any m (including m ≥ 2^32, the wide reduction).
import { describe, expect, it } from "vitest";
import { BloomFilter } from "../bindings/index.js";
import { ones, urls } from "./helpers.js";

const PROBES = 1_000_000;
const MEMBERS = 100_000;
const probes = urls(PROBES, "absent", 99);

describe("false-positive rate at capacity", () => {
  it.each([0.1, 0.01, 0.001])("stays within [0.8p, 1.2p] for p = %s on 1,000,000 non-member probes", (p) => {
    const members = urls(MEMBERS, "present", 5);
    const filter = BloomFilter.create(MEMBERS, p);
    filter.addMany(members);
    expect(ones(filter.hasMany(members))).toBe(MEMBERS); // no false negatives
    const measured = ones(filter.hasMany(probes)) / PROBES;
    expect(measured).toBeGreaterThanOrEqual(0.8 * p);
    expect(measured).toBeLessThanOrEqual(1.2 * p);
    // The fill-based estimate agrees with what was measured.
    expect(Math.abs(filter.falsePositiveRate() - measured) / p).toBeLessThan(0.15);
  });
});

/** Chi-square statistic of counts against a uniform expectation. */
function chiSquare(counts: number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  const expected = total / counts.length;
  return counts.reduce((sum, c) => sum + ((c - expected) ** 2) / expected, 0);
}

describe("bit positions", () => {
  it("are uniform over an m that is not a power of two (chi-square, 1000 buckets)", () => {
    const m = 1_000_003;
    const filter = BloomFilter.withSize(m, 7);
    const buckets = new Array(1000).fill(0);
    for (const key of urls(100_000, "uniform", 8)) {
      for (const position of filter.positions(key)) buckets[Math.floor((position * 1000) / m)]++;
    }
    // df = 999: mean 999, sd ≈ 44.7; 1250 is more than 5 sd out.
    expect(chiSquare(buckets)).toBeLessThan(1250);
  });

  it("reach every bit of a tiny filter evenly", () => {
    const filter = BloomFilter.withSize(13, 3);
    const counts = new Array(13).fill(0);
    for (const key of urls(20_000, "tiny", 9)) for (const position of filter.positions(key)) counts[position]++;
    // df = 12: mean 12, sd ≈ 4.9.
    expect(chiSquare(counts)).toBeLessThan(45);
  });

  it("cover a filter of more than 2^32 bits, with no false negatives there", () => {
    const m = 1.5 * 2 ** 32; // 768 MiB: exercises the 64 × 64-bit reduction
    const filter = BloomFilter.withSize(m, 4);
    try {
      const keys = urls(20_000, "wide", 10);
      let high = 0;
      const thirds = [0, 0, 0];
      for (const key of keys) {
        for (const position of filter.positions(key)) {
          expect(position).toBeLessThan(m);
          if (position >= 2 ** 32) high++;
          thirds[Math.floor((position * 3) / m)]++;
        }
      }
      // A third of the positions lie above 2^32.
      expect(high / (keys.length * 4)).toBeGreaterThan(0.32);
      expect(high / (keys.length * 4)).toBeLessThan(0.35);
      expect(chiSquare(thirds)).toBeLessThan(20);
      filter.addMany(keys);
      expect(ones(filter.hasMany(keys))).toBe(keys.length);
      expect(ones(filter.hasMany(probes.slice(0, 100_000)))).toBe(0);
    } finally {
      filter.dispose();
    }
  });
});
