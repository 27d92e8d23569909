// The page's pure helpers, in Node: web/format.js (how numbers and keys read
// on the page) and web/limits.js (how large a filter it makes).
import { describe, expect, it } from "vitest";
import { CuckooFilter, fingerprintBitsFor } from "../dist/index.js";
// @ts-expect-error: plain JavaScript without types, served to the browser as it is
import { count, perKey, percent, quoted, rate } from "../web/format.js";
// @ts-expect-error: as above
import { keysAxisTop } from "../web/chart.js";
// @ts-expect-error: as above
import { CUCKOO_LOAD, MAX_CELLS, MAX_RATE, MIN_RATE, SLOTS } from "../web/limits.js";

const UNIT_SIZES: Record<string, number> = { billion: 1e9, trillion: 1e12, quadrillion: 1e15 };

/** "1 in 4.5 billion" → { value: 4.5e9, mantissa: "4.5", unit: "billion" }; undefined when it does not read so. */
function readOneIn(text: string): { value: number; mantissa: string; unit?: string } | undefined {
  const match = /^1 in ([\d.,]+)(?: (billion|trillion|quadrillion))?$/.exec(text);
  if (!match) return undefined;
  const mantissa = match[1];
  return { value: Number(mantissa.replaceAll(",", "")) * (match[2] ? UNIT_SIZES[match[2]] : 1), mantissa, unit: match[2] };
}

/** Significant digits written: "1,200" → 2, "4.5" → 2, "10,000" → 1. */
function significantDigits(mantissa: string): number {
  const digits = mantissa.replace(/[.,]/g, "").replace(/^0+/, "");
  return mantissa.includes(".") ? digits.length : digits.replace(/0+$/, "").length;
}

describe("percent", () => {
  it("never says 0.0% of a fill above 0, nor 100.0% of one below 1", () => {
    // 3 keys at k = 7 in 16,777,216 bits; the same filter with 3 bits clear.
    expect(percent(21 / 16_777_216)).toBe("<0.1%");
    expect(percent(1 - 3 / 16_777_216)).toBe(">99.9%");
    expect([percent(0), percent(1), percent(0.342), percent(0.0005), percent(0.999)]).toEqual(["0.0%", "100.0%", "34.2%", "0.1%", "99.9%"]);
  });
});

describe("perKey", () => {
  it("writes bits per key to within 5% of m / n, however few: 1 bit for 100 keys is not 0.0 per key", () => {
    for (const [m, n] of [[1, 100], [8, 1000], [1, 3], [959, 100], [8, 16_777_216], [16_777_216, 1]]) {
      const shown = Number(perKey(m / n).replaceAll(",", ""));
      expect(Math.abs(shown - m / n) / (m / n), `m = ${m}, n = ${n}: ${perKey(m / n)}`).toBeLessThan(0.05);
    }
    expect(perKey(959 / 100)).toBe("9.6");
    expect(perKey(1 / 100)).toBe("0.01");
  });
});

describe("rate", () => {
  // Every unit's edge, from just below (where rounding reaches the next unit) to just above, and the decades between.
  const edges = [1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
  const factors = [0.9, 0.949, 0.95, 0.9949, 0.995, 0.996, 0.999, 0.9999, 1, 1.0001, 1.004, 1.05, 1.5];
  const oneIns = [...edges.flatMap((edge) => factors.map((factor) => edge * factor)), ...Array.from({ length: 2000 }, (_, i) => 10 ** (4 + (11 * i) / 2000))].filter((n) => n > 1e4);

  it("reads 1 in N with two significant digits, in the largest unit the rounded N reaches", () => {
    for (const asked of oneIns) {
      const value = 1 / asked;
      const oneIn = 1 / value; // what rate() sees: 1/(1/x) need not be x
      const text = rate(value);
      if (oneIn >= 1e15) {
        expect(text, `1/${oneIn}`).toBe("below 1 in a quadrillion");
        continue;
      }
      const read = readOneIn(text);
      expect(read, `1/${oneIn}: ${text}`).toBeDefined();
      const { value: shown, mantissa, unit } = read!;
      expect(Math.abs(shown - oneIn) / oneIn, `1/${oneIn}: ${text}`).toBeLessThanOrEqual(0.05);
      expect(significantDigits(mantissa), `1/${oneIn}: ${text}`).toBeLessThanOrEqual(2);
      // No "1,000 billion" and no "1,000,000,000": a unit's number stays below 1,000, and N without a unit below a billion.
      const number = Number(mantissa.replaceAll(",", ""));
      if (unit) expect(number, `1/${oneIn}: ${text}`).toBeGreaterThanOrEqual(1);
      if (unit) expect(number, `1/${oneIn}: ${text}`).toBeLessThan(1000);
      else expect(number, `1/${oneIn}: ${text}`).toBeLessThan(1e9);
    }
  });

  it("says 1 in 1 trillion for 1/9.99e11 and 1 in 1 billion for 1/9.99e8, as the reviewer expected", () => {
    expect(rate(1 / 9.99e11)).toBe("1 in 1 trillion");
    expect(rate(1 / 9.99e8)).toBe("1 in 1 billion");
  });
});

describe("quoted", () => {
  it("writes a short key whole, in quotes", () => {
    for (const key of ["a", "https://example.com/", "x".repeat(200)]) expect(quoted(key)).toBe(`“${key}”`);
  });

  it("writes a long key's start and its length, in a few hundred characters however long the key", () => {
    for (const length of [201, 1000, 1_000_000, 50_000_000]) {
      const key = "k".repeat(length);
      const text = quoted(key);
      expect(text.length, `${length}`).toBeLessThan(300);
      expect(text.startsWith(`“${key.slice(0, 100)}`), `${length}`).toBe(true);
      expect(text, `${length}`).toContain(`…” (${count(length)} characters)`);
    }
  });

  it("cuts between characters, never between the two halves of an emoji", () => {
    for (let before = 195; before <= 201; before++) {
      const text = quoted(`${"a".repeat(before)}${"😀".repeat(100)}`);
      const shown = text.slice(1, text.indexOf("…"));
      expect(shown.length, `${before}`).toBeGreaterThan(190);
      expect(shown.isWellFormed(), `${before}: ${shown.slice(-3)}`).toBe(true);
    }
  });
});

describe("the cuckoo words", () => {
  // The page sizes cuckoo tables with CuckooFilter.sizeFor; SLOTS and CUCKOO_LOAD only word its messages, and must say what the library does.
  it("SLOTS and CUCKOO_LOAD are the library's bucket size and load: the largest n the page takes fills its most slots, the next needs twice as many", () => {
    const filter = CuckooFilter.create(100, 0.01);
    try {
      expect(filter.bucketSize).toBe(SLOTS);
    } finally {
      filter.dispose();
    }
    const largest = Math.floor(MAX_CELLS * CUCKOO_LOAD);
    expect(CuckooFilter.sizeFor(largest, 0.01).capacity).toBe(MAX_CELLS);
    expect(CuckooFilter.sizeFor(largest + 1, 0.01).capacity).toBe(2 * MAX_CELLS);
  });
});

describe("the rates p's field takes", () => {
  it("are the library's, above 0 and below 1: MIN_RATE and MAX_RATE are the numbers next to 0 and 1", () => {
    expect(MIN_RATE).toBeGreaterThan(0);
    expect(MIN_RATE / 2).toBe(0);
    expect(MAX_RATE).toBeLessThan(1);
    expect((MAX_RATE + 1) / 2).toBe(1);
    // The library takes both as rates: the fingerprints' own limit refuses the least, not the range check.
    expect(fingerprintBitsFor(MAX_RATE)).toBe(8);
    expect(() => fingerprintBitsFor(MIN_RATE)).toThrow(/^p = 5e-324 needs \d+-bit fingerprints/);
  });
});

describe("the keys axis of the charts", () => {
  it("ends at a whole number whose half is whole too, at or above the largest n shown, so every tick sits at the n it is labelled with", () => {
    // n = 1 at 1% gave an axis to 1.5 whose ticks, 0, 0.75 and 1.5, were labelled 0, 1 and 2.
    for (const nMax of [0, 0.3, 1, 1.05, 1.5, 2, 2.1, 5 * 1.5, 7.5, 99.9, 150, 1_000_001 * 1.05, 2 ** 24 * 1.5]) {
      const top = keysAxisTop(nMax);
      expect(top).toBeGreaterThanOrEqual(nMax);
      expect(Number.isInteger(top / 2), `${nMax} → ${top}`).toBe(true);
      expect(count(top / 2)).toBe((top / 2).toLocaleString("en-US"));
      // No more room than a tick's rounding needs.
      expect(top - Math.max(nMax, 1)).toBeLessThan(2);
    }
  });
});
