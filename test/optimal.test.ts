import { describe, expect, it } from "vitest";
import { BloomFilter, CountingBloomFilter, doubleHashingExcess, falsePositiveRateFor, optimal } from "../bindings/index.js";

const LN2 = Math.LN2;

describe("optimal", () => {
  it("reproduces hur.st's worked example: n = 10,000, p = 0.001 → m = 143,776, k = 10", () => {
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

  it("gives the best whole k for { n, m } where rounding m/n · ln 2 would not (k* = 2.49: 3 beats 2)", () => {
    const n = 100_000;
    const m = 359_878;
    expect((m / n) * LN2).toBeCloseTo(2.494, 3);
    expect(falsePositiveRateFor(n, m, 3)).toBeLessThan(falsePositiveRateFor(n, m, 2));
    expect(optimal({ n, m }).k).toBe(3);
    // And { n, m, p } finds the k that reaches p instead of calling it unreachable.
    const p = falsePositiveRateFor(n, m, 3);
    expect(p).toBeLessThan(falsePositiveRateFor(n, m, 2));
    expect(optimal({ n, m, p }).k).toBe(3);
  });

  it("gives the capacity for { m, k, p }: the largest n whose rate stays ≤ p", () => {
    const r = optimal({ m: 143_776, k: 10, p: 0.001 });
    expect(falsePositiveRateFor(r.n, 143_776, 10)).toBeLessThanOrEqual(0.001);
    expect(falsePositiveRateFor(r.n + 1, 143_776, 10)).toBeGreaterThan(0.001);
    // hur.st's m for n = 10,000 gives p = 0.00100002 there, a hair above 0.001,
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
    // A misspelt name is refused, not read as missing: { n, fpr } is not { n }.
    expect(() => optimal({ n: 1000, p: 0.01, x: 1 } as {})).toThrow(new TypeError('unknown option "x" in input; known options: n, p, m, k'));
    expect(() => optimal({ n: 1000, fpr: 0.01 } as {})).toThrow(/unknown option "fpr" in input/);
    expect(() => optimal({ n: 1000, m: 100, p: 1e-9 })).toThrow(/cannot reach p = 1e-9/);
    expect(() => optimal({ m: 4, k: 3, p: 1e-9 })).toThrow(/cannot hold even one item/);
  });

  describe("what p is", () => {
    /** The formula written out here, not through falsePositiveRateFor (which uses expm1). */
    const rate = (n: number, m: number, k: number) => Math.pow(1 - Math.exp((-k * n) / m), k);
    /** ln p from −0.01 down to −35 (p from 0.99 to 6e−16), 1/1000 apart. */
    const asked = Array.from({ length: 35_000 }, (_, i) => Math.exp(-0.01 - i / 1000));

    it("is the rate of the returned n, m and k by the formula, whichever form was asked", () => {
      const results = [
        optimal({ n: 1e6, p: 0.01 }),
        optimal({ n: 1000, p: 0.01, k: 4 }),
        optimal({ n: 100_000, m: 1_000_000 }),
        optimal({ n: 5000, m: 40_000, k: 3 }),
        optimal({ n: 1000, m: 20_000, p: 0.01 }),
        optimal({ m: 143_776, k: 10, p: 0.001 }),
        optimal({ m: 958_506, p: 0.01 }),
      ];
      for (const r of results) expect(Math.abs(r.p / rate(r.n, r.m, r.k) - 1), JSON.stringify(r)).toBeLessThan(1e-12);
    });

    it("for { n, p }: hur.st's m and k, whose rate can be a little above the p asked (k is rounded)", () => {
      const r = optimal({ n: 1e6, p: 0.01 });
      expect([r.m, r.k]).toEqual([9_585_059, 7]); // hur.st's figures
      expect(r.p).toBeGreaterThan(0.01);
      expect(r.p).toBeCloseTo(0.0100392, 7);
      // Not m's fault: with the real-valued best k, m / n · ln 2 = 6.64, this m reaches 0.01.
      expect(rate(r.n, r.m, (r.m / r.n) * LN2)).toBeLessThanOrEqual(0.01);
    });

    it("for { n, p }: at most 0.75 % above p ≤ 1 %, 1.3 % above p ≤ 5 %, 12 % above any p, as documented (and those bounds are reached)", () => {
      const worst = { "0.01": 0, "0.05": 0, "1": 0 };
      for (const p of asked) {
        for (const n of [1e6, 1e12]) {
          const excess = optimal({ n, p }).p / p;
          if (p <= 0.01) worst["0.01"] = Math.max(worst["0.01"], excess);
          if (p <= 0.05) worst["0.05"] = Math.max(worst["0.05"], excess);
          worst["1"] = Math.max(worst["1"], excess);
        }
      }
      expect(worst["0.01"]).toBeLessThanOrEqual(1.0075);
      expect(worst["0.01"]).toBeGreaterThan(1.007);
      expect(worst["0.05"]).toBeLessThanOrEqual(1.013);
      expect(worst["0.05"]).toBeGreaterThan(1.0125);
      expect(worst["1"]).toBeLessThanOrEqual(1.12);
      expect(worst["1"]).toBeGreaterThan(1.11);
    });

    it("never exceeds the p asked in { n, p, k }, { n, m, p }, { m, k, p } and { m, p }", () => {
      for (const p of asked.filter((_, i) => i % 50 === 0)) {
        const n = 100_000;
        const m = optimal({ n, p }).m;
        for (const k of p < 1e-9 ? [3, 7, 20] : [1, 3, 7, 20]) {
          // (k = 1 below p = 1e−9 would need more than 2^53 bits.)
          const sized = optimal({ n, p, k });
          expect(sized.p, `n, p = ${p}, k = ${k}`).toBeLessThanOrEqual(p);
          // The capacity of that m with that k: at least n (it holds n at rate ≤ p), its own rate at most p.
          const capacity = optimal({ m: sized.m, k, p });
          expect(capacity.p, `m, k = ${k}, p = ${p}`).toBeLessThanOrEqual(p);
          expect(capacity.n, `m, k = ${k}, p = ${p}`).toBeGreaterThanOrEqual(n);
        }
        // An m that some k reaches p with (k = 3's smallest m), for the fewest-hashes form.
        expect(optimal({ n, m: optimal({ n, p, k: 3 }).m, p }).p, `n, m, p = ${p}`).toBeLessThanOrEqual(p);
        expect(optimal({ m, p }).p, `m, p = ${p}`).toBeLessThanOrEqual(p);
      }
    });
  });
});

describe("optimal({ n, p, k }) past what floating point holds", () => {
  it("names n, p and k, not an m the caller never gave", () => {
    expect(() => optimal({ n: 100, p: 1e-310, k: 1 })).toThrow(new RangeError("no number of bits reaches p = 1e-310 for n = 100 with k = 1: give a larger p, a smaller n or more hashes"));
    expect(() => optimal({ n: 1e300, p: 1e-10, k: 1 })).toThrow(/^no number of bits reaches p = 1e-10 for n = 1e\+300 with k = 1/);
  });
});

describe("optimal's m is one it takes as an m", () => {
  it("refuses n and p whose m would pass 2^53 − 1, naming n and p", () => {
    expect(() => optimal({ n: 1e15, p: 0.01 })).toThrow(
      new RangeError("n = 1000000000000000 and p = 0.01 need m = 9585058377367440 bits, more than the 9007199254740991 (2^53 − 1) the calculator takes: give a smaller n or a larger p"),
    );
    expect(() => optimal({ n: 1e300, p: 0.5 })).toThrow(/^n = 1e\+300 and p = 0\.5 need m = 1\.44\d*e\+300 bits, more than the 9007199254740991/);
    expect(() => optimal({ n: 1e15, p: 0.01, k: 7 })).toThrow(/^n = 1000000000000000 and p = 0\.01 with k = 7 need m = \d+ bits, more than the 9007199254740991/);
    // Not "needs k = Infinity hash functions": m overflows, and no k follows from it.
    expect(() => optimal({ n: 1e308, p: 0.01 })).toThrow(/^n = 1e\+308 and p = 0\.01 need more bits than the 9007199254740991 \(2\^53 − 1\) the calculator takes/);
  });

  it("leaves a filter's create() its own bound and words", () => {
    expect(() => BloomFilter.create(1e15, 0.01)).toThrow(/^a filter for expectedItems = 1000000000000000 at falsePositiveRate = 0\.01 needs \d+ bits \(1089\.69 TiB\); a filter holds at most/);
    expect(() => CountingBloomFilter.create(1e15, 0.01)).toThrow(/^a counting filter for expectedItems = 1000000000000000 at falsePositiveRate = 0\.01 needs/);
  });

  it("gives an m up to 2^53 − 1, which it takes back", () => {
    const r = optimal({ n: 9e14, p: 0.01 });
    expect(r.m).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
    expect(r.m).toBeGreaterThan(2 ** 52);
    expect(optimal({ n: r.n, m: r.m }).k).toBe(r.k);
  });
});

describe("doubleHashingExcess", () => {
  it("is 3/(k·m) for a filter of 1,918 bits (the smallest measured) or more about half full at n, undefined elsewhere, and checks its arguments", () => {
    // 100 keys at 1e-6 (m = 2,876, k = 20) measured 5.7e-5 with double hashing where its fill predicts 9e-7 and the formula 1e-6 (examples/small-filter-rates.mjs).
    const { bits: m, hashes: k } = BloomFilter.sizeFor(100, 1e-6);
    expect(doubleHashingExcess(100, m, k)).toBe(3 / (k * m));
    // A handful of bits (8 bits, 8 hashes, 1 key measured 0.24, not the formula plus 3/(k·m)), and filters far from half full.
    expect(doubleHashingExcess(1, 8, 8)).toBeUndefined();
    // The smallest filter measured, and one half full below it, where it claimed the same though nothing was measured.
    const smallest = BloomFilter.sizeFor(100, 1e-4);
    expect(smallest.bits).toBe(1918);
    expect(doubleHashingExcess(100, smallest.bits, smallest.hashes)).toBe(3 / (smallest.hashes * smallest.bits));
    expect(doubleHashingExcess(104, 1500, 10)).toBeUndefined();
    expect(doubleHashingExcess(10, 100_000, 7)).toBeUndefined();
    expect(doubleHashingExcess(100_000, 100_000, 7)).toBeUndefined();
    expect(() => doubleHashingExcess(-1, 1000, 7)).toThrow(RangeError);
    expect(() => doubleHashingExcess(10, 1000, 0)).toThrow(/k/);
  });
});
