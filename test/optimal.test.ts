import { describe, expect, it } from "vitest";
import { falsePositiveRateFor, optimal } from "../bindings/index.js";

const LN2 = Math.LN2;

describe("optimal", () => {
  it("reproduces the seeds' example: n = 10,000, p = 0.001 → m = 143,776, k = 10", () => {
    const r = optimal({ n: 10_000, p: 0.001 });
    expect(r.m).toBe(143_776);
    expect(r.k).toBe(10);
    expect(r.n).toBe(10_000);
    expect(r.bitsPerItem).toBeCloseTo(14.3776, 10);
    expect(r.bytes).toBe(17_972);
    // p is recomputed for the rounded k, and stays close to the target.
    expect(r.p).toBeCloseTo(Math.pow(1 - Math.exp((-10 * 10_000) / 143_776), 10), 15);
    expect(Math.abs(r.p - 0.001) / 0.001).toBeLessThan(0.01);
  });

  it("follows m = −n ln p / (ln 2)² and k = round(m/n · ln 2) over a grid", () => {
    for (const n of [1, 7, 100, 12_345, 1e6, 1e9]) {
      for (const p of [0.5, 0.1, 0.01, 1e-3, 1e-6, 1e-12]) {
        const r = optimal({ n, p });
        expect(r.m).toBe(Math.ceil((-n * Math.log(p)) / (LN2 * LN2)));
        expect(r.k).toBe(Math.max(1, Math.round((r.m / n) * LN2)));
        expect(r.p).toBe(falsePositiveRateFor(n, r.m, r.k));
      }
    }
  });

  it("gives the best k and its rate for { m, n }", () => {
    const r = optimal({ m: 1_000_000, n: 100_000 });
    expect(r.k).toBe(7); // 10 bits/key · ln 2 = 6.93
    expect(r.p).toBeCloseTo(Math.pow(1 - Math.exp(-0.7), 7), 12);
    // No other k does better.
    for (let k = 1; k <= 20; k++) expect(falsePositiveRateFor(100_000, 1_000_000, k)).toBeGreaterThanOrEqual(r.p);
  });

  it("gives the capacity for { m, k, p }: the largest n whose rate stays ≤ p", () => {
    const r = optimal({ m: 143_776, k: 10, p: 0.001 });
    expect(falsePositiveRateFor(r.n, 143_776, 10)).toBeLessThanOrEqual(0.001);
    expect(falsePositiveRateFor(r.n + 1, 143_776, 10)).toBeGreaterThan(0.001);
    // The seeds' m for n = 10,000 gives p = 0.00100002 there, a hair above 0.001,
    // so the honest capacity is one less (hur.st rounds up and says 10,000).
    expect(falsePositiveRateFor(10_000, 143_776, 10)).toBeGreaterThan(0.001);
    expect(r.n).toBe(9_999);
    expect(r.p).toBe(falsePositiveRateFor(r.n, 143_776, 10));
  });

  it("gives the rate for { n, m, k }", () => {
    expect(optimal({ n: 5000, m: 40_000, k: 3 }).p).toBeCloseTo(Math.pow(1 - Math.exp((-3 * 5000) / 40_000), 3), 15);
  });

  it("gives the smallest m for { n, p, k } and the fewest hashes for { n, m, p }", () => {
    const m = optimal({ n: 1000, p: 0.01, k: 4 }).m;
    expect(falsePositiveRateFor(1000, m, 4)).toBeLessThanOrEqual(0.01);
    expect(falsePositiveRateFor(1000, m - 1, 4)).toBeGreaterThan(0.01);
    const k = optimal({ n: 1000, m: 20_000, p: 0.01 }).k;
    expect(falsePositiveRateFor(1000, 20_000, k)).toBeLessThanOrEqual(0.01);
    expect(falsePositiveRateFor(1000, 20_000, k - 1)).toBeGreaterThan(0.01);
  });

  it("gives k = −log₂ p and its capacity for { m, p }", () => {
    const r = optimal({ m: 958_506, p: 0.01 });
    expect(r.k).toBe(7);
    expect(r.n).toBe(optimal({ m: 958_506, k: 7, p: 0.01 }).n);
    expect(Math.abs(r.n - 100_000)).toBeLessThan(500);
  });

  it("rejects bad values, naming them", () => {
    expect(() => optimal({ n: 0, p: 0.1 })).toThrow(RangeError);
    expect(() => optimal({ n: -5, p: 0.1 })).toThrow(/n must be a positive finite number, got -5/);
    expect(() => optimal({ n: NaN, p: 0.1 })).toThrow(/got NaN/);
    expect(() => optimal({ n: Infinity, p: 0.1 })).toThrow(/got Infinity/);
    expect(() => optimal({ n: 10, p: 0 })).toThrow(/p must be between 0 and 1 \(exclusive\), got 0/);
    expect(() => optimal({ n: 10, p: 1 })).toThrow(RangeError);
    expect(() => optimal({ n: 10, p: 1.5 })).toThrow(/got 1.5/);
    expect(() => optimal({ n: 10, m: 10.5 })).toThrow(/m must be an integer from 1 to .*, got 10.5/);
    expect(() => optimal({ n: 10, m: 100, k: 0 })).toThrow(/k must be an integer from 1 to 256, got 0/);
    expect(() => optimal({ n: "10" as unknown as number, p: 0.1 })).toThrow(TypeError);
    expect(() => optimal({ n: 10 })).toThrow(/must hold .*got \{ n \}/);
    expect(() => optimal({ n: 10, p: 0.1, m: 100, k: 3 })).toThrow(/got \{ n, p, m, k \}/);
    expect(() => optimal(null as unknown as {})).toThrow(TypeError);
    expect(() => optimal({ n: 1000, m: 100, p: 1e-9 })).toThrow(/cannot reach p = 1e-9/);
    expect(() => optimal({ m: 4, k: 3, p: 1e-9 })).toThrow(/cannot hold even one item/);
  });
});
