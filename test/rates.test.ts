// The rate formulas against what filters measure, from empty to saturated:
// splitBlockFalsePositiveRate (closed form or a bounded sum) and
// falsePositiveRateFor, each at many fills, and the loss a de-duplication
// pass has while its filter fills, which is what the CLI predicts with them.
import { describe, expect, it } from "vitest";
import { BloomFilter, SplitBlockBloomFilter, falsePositiveRateFor, splitBlockBytesFor, splitBlockFalsePositiveRate } from "../bindings/index.js";
import { ones, rng } from "./helpers.js";

/** `count` random u32 keys (repeats possible, as with any hash: the filters see them as random). */
function randomInts(count: number, random: () => number): Uint32Array {
  const keys = new Uint32Array(count);
  for (let i = 0; i < count; i++) keys[i] = Math.floor(random() * 2 ** 32);
  return keys;
}

/** Mean and standard error of a sample. */
function meanAndError(values: number[]): { mean: number; error: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1);
  return { mean, error: Math.sqrt(variance / values.length) };
}

describe("splitBlockFalsePositiveRate", () => {
  it("is right where the old Poisson loop failed: ≈ 1 at 746 keys in one block, never above 1, monotone", () => {
    expect(splitBlockFalsePositiveRate(746, 1)).toBeCloseTo((1 - (31 / 32) ** 746) ** 8, 12);
    expect(splitBlockFalsePositiveRate(746, 1)).toBeGreaterThan(0.9999999);
    let previous = 0;
    for (let n = 0; n <= 5000; n += 7) {
      const rate = splitBlockFalsePositiveRate(n, 3);
      expect(rate, `n = ${n}`).toBeGreaterThanOrEqual(previous - 1e-15);
      expect(rate).toBeLessThanOrEqual(1);
      previous = rate;
    }
    expect(splitBlockFalsePositiveRate(0, 10)).toBe(0);
  });

  it("returns at once for any count, however large (a bounded sum, no loop over n / blocks)", () => {
    expect(splitBlockFalsePositiveRate(2 ** 53 - 1, 1)).toBe(1);
    expect(splitBlockFalsePositiveRate(2 ** 53 - 1, 2 ** 32 - 1)).toBe(1);
    expect(splitBlockFalsePositiveRate(1e6, 2 ** 32 - 1)).toBeGreaterThan(0);
    // At low fill the sum is exact where the closed form's terms would cancel: one key in 10^9 blocks.
    expect(splitBlockFalsePositiveRate(1, 1e9) / (1e-9 * (1 / 32) ** 8)).toBeCloseTo(1, 6);
  });

  it("refuses blocks = 0, Infinity, NaN, fractions, and counts that are not finite numbers ≥ 0", () => {
    for (const blocks of [0, -1, Infinity, NaN, 1.5]) expect(() => splitBlockFalsePositiveRate(10, blocks), String(blocks)).toThrow(RangeError);
    expect(() => splitBlockFalsePositiveRate(10, 0)).toThrow(/blocks .*got 0/);
    for (const n of [-1, Infinity, NaN]) expect(() => splitBlockFalsePositiveRate(n, 4), String(n)).toThrow(/^n must be a finite number ≥ 0, got/);
    expect(() => splitBlockFalsePositiveRate("10" as never, 4)).toThrow(TypeError);
    expect(() => splitBlockFalsePositiveRate(10, 4n as never)).toThrow(TypeError);
  });

  // Fills from empty to saturated, in keys per block; per block count, enough filters that the mean is tight.
  const FILLS = [0.5, 2, 8, 20, 40, 64, 65, 100, 150, 250, 400, 1000];
  it.each([
    [1, 400],
    [16, 60],
    [512, 30],
  ])("matches the mean rate of random filters of %i blocks at every fill (%i filters each)", (blocks, filters) => {
    const random = rng(blocks);
    for (const fill of FILLS) {
      const n = Math.max(1, Math.round(fill * blocks));
      const rates: number[] = [];
      for (let t = 0; t < filters; t++) {
        using filter = SplitBlockBloomFilter.withSize(blocks).addInts(randomInts(n, random));
        rates.push(filter.falsePositiveRate());
      }
      const { mean, error } = meanAndError(rates);
      const expected = splitBlockFalsePositiveRate(n, blocks);
      expect(Math.abs(mean - expected), `${blocks} blocks, ${n} keys: mean ${mean} ± ${error}, formula ${expected}`).toBeLessThanOrEqual(5 * error + 1e-12 + 1e-3 * expected);
    }
  });

  it("the filter's own rate is what many probes measure (so the means above are measured rates)", () => {
    const random = rng(77);
    for (const [blocks, n] of [[1, 60], [64, 64 * 30], [64, 64 * 150]]) {
      using filter = SplitBlockBloomFilter.withSize(blocks).addInts(randomInts(n, random));
      const probes = 200_000;
      const measured = ones(filter.hasInts(randomInts(probes, random))) / probes;
      const rate = filter.falsePositiveRate();
      const sd = Math.sqrt((rate * (1 - rate)) / probes);
      expect(Math.abs(measured - rate), `${blocks} blocks, ${n} keys`).toBeLessThanOrEqual(5 * sd + 1e-6);
    }
  });

  it("estimatedCount() inverts the expected fill (within 3% up to 100 keys a block)", () => {
    const random = rng(5);
    for (const n of [1000, 10_000, 100_000]) {
      using filter = SplitBlockBloomFilter.withSize(1000).addInts(randomInts(n, random));
      expect(filter.estimatedCount() / n, `n = ${n}`).toBeCloseTo(1, 1);
      expect(Math.abs(filter.estimatedCount() / n - 1)).toBeLessThan(0.03);
    }
  });

  it("the exact sizing (powerOfTwo: false) answers at once for any p, refusing what no filter reaches", () => {
    expect(() => splitBlockBytesFor(100, 1e-300, false)).toThrow(/needs more than 140737488355328 blocks/);
    expect(() => SplitBlockBloomFilter.create(100, 1e-300, { powerOfTwo: false })).toThrow(RangeError);
    const bytes = splitBlockBytesFor(10_000, 0.001, false);
    expect(splitBlockFalsePositiveRate(10_000, bytes / 32)).toBeLessThanOrEqual(0.001);
    expect(splitBlockFalsePositiveRate(10_000, bytes / 32 - 1)).toBeGreaterThan(0.001);
  });

  it("the Parquet sizing (the default) refuses past 2^47 blocks as the exact one does, and answers below it for planning", () => {
    // Was 2.09e298 and 5.4e39 bytes: numbers no filter, file or disk holds.
    const refusal = /^a split-block filter for n = (1e\+298 at p = 0\.01|100 at p = 1e-300) needs more than 140737488355328 blocks \(4096\.00 TiB\)$/;
    expect(() => splitBlockBytesFor(1e298, 0.01)).toThrow(refusal);
    expect(() => splitBlockBytesFor(100, 1e-300)).toThrow(refusal);
    expect(() => splitBlockBytesFor(1e298, 0.01)).toThrow(RangeError);
    // Past what one filter holds but within the bound: a number to plan with (2 TiB), as with powerOfTwo: false.
    expect(splitBlockBytesFor(1e12, 0.01)).toBe(2 ** 41);
    expect(() => SplitBlockBloomFilter.sizeFor(1e12, 0.01)).toThrow(/a filter holds at most 4294967295/);
  });

  it("expectedFalsePositiveRate(items) names a bad count", () => {
    using filter = SplitBlockBloomFilter.withSize(4);
    expect(filter.expectedFalsePositiveRate()).toBe(0);
    for (const items of [-1, Infinity, NaN]) expect(() => filter.expectedFalsePositiveRate(items)).toThrow(/^items must be a finite number ≥ 0, got/);
    for (const items of ["10", { valueOf: () => 10 }, 10n]) expect(() => filter.expectedFalsePositiveRate(items as never)).toThrow(TypeError);
  });
});

describe("falsePositiveRateFor", () => {
  it("refuses counts below 0, m ≤ 0 and k outside 1 to 256, naming them", () => {
    expect(() => falsePositiveRateFor(-1, 10, 1)).toThrow(/^n must be a finite number ≥ 0, got -1/);
    expect(() => falsePositiveRateFor(Infinity, 10, 1)).toThrow(RangeError);
    expect(() => falsePositiveRateFor(1, 0, 1)).toThrow(/^m must be a positive finite number, got 0/);
    expect(() => falsePositiveRateFor(1, 10, 0)).toThrow(/^k must be an integer from 1 to 256, got 0/);
    expect(() => falsePositiveRateFor(1, 10, 1.5)).toThrow(RangeError);
    expect(() => falsePositiveRateFor("1" as never, 10, 1)).toThrow(TypeError);
    expect(falsePositiveRateFor(0, 10, 3)).toBe(0);
  });

  it("matches the mean rate of Bloom filters at every fill, empty to saturated (m = 20,000, k = 5)", () => {
    const m = 20_000;
    const k = 5;
    const random = rng(11);
    for (const perBit of [0.01, 0.05, 0.1, 0.2, 0.4, 0.8, 1.5, 3]) {
      const n = Math.round(perBit * m);
      const rates: number[] = [];
      for (let t = 0; t < 8; t++) {
        using filter = BloomFilter.withSize(m, k).addInts(randomInts(n, random));
        rates.push(filter.falsePositiveRate());
      }
      const { mean } = meanAndError(rates);
      const expected = falsePositiveRateFor(n, m, k);
      // The formula is the fill's expectation raised to the k-th power: within 2% (and 1e-7) of the mean at m = 20,000.
      expect(Math.abs(mean - expected), `n = ${n}: mean ${mean}, formula ${expected}`).toBeLessThanOrEqual(0.02 * expected + 1e-7);
    }
  });
});

describe("the loss of a de-duplication pass", () => {
  // A pass keeps a line unless the filter says it was seen. A line taken for a
  // repeat sets no bit, so after d distinct lines the filter holds exactly what
  // d random keys give: the expected loss is Σ_{d < D} rate(d), D the distinct lines.
  it.each([
    ["split-block, 64 blocks", 64, 40],
    ["split-block, 1 block (saturates)", 1, 2000],
  ])("%s: Σ rate(d) over the distinct lines is the loss measured", (_, blocks, perBlock) => {
    const distinct = blocks * perBlock;
    const random = rng(blocks + perBlock);
    const trials = 20;
    const losses: number[] = [];
    for (let t = 0; t < trials; t++) {
      using filter = SplitBlockBloomFilter.withSize(blocks);
      losses.push(ones(filter.testAndAddInts(randomInts(distinct, random))));
    }
    let predicted = 0;
    for (let d = 0; d < distinct; d++) predicted += splitBlockFalsePositiveRate(d, blocks);
    const { mean, error } = meanAndError(losses);
    expect(Math.abs(mean - predicted), `mean ${mean} ± ${error}, predicted ${predicted}`).toBeLessThanOrEqual(5 * error + 0.01 * predicted);
  });

  it("Bloom (m = 8,192, k = 4, 20,000 distinct lines): Σ falsePositiveRateFor(d) is the loss measured", () => {
    const random = rng(3);
    const losses: number[] = [];
    for (let t = 0; t < 10; t++) {
      using filter = BloomFilter.withSize(8192, 4);
      losses.push(ones(filter.testAndAddInts(randomInts(20_000, random))));
    }
    let predicted = 0;
    for (let d = 0; d < 20_000; d++) predicted += falsePositiveRateFor(d, 8192, 4);
    const { mean, error } = meanAndError(losses);
    expect(Math.abs(mean - predicted), `mean ${mean} ± ${error}, predicted ${predicted}`).toBeLessThanOrEqual(5 * error + 0.01 * predicted);
  });
});
