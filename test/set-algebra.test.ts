// Union, intersection and folding of BloomFilters.
import { describe, expect, it } from "vitest";
import { BloomFilter } from "../bindings/index.js";
import { ones, rng, urls } from "./helpers.js";

const a = urls(30_000, "set-a", 51);
const b = urls(30_000, "set-b", 52);
const shared = urls(10_000, "set-shared", 53);
const probes = urls(300_000, "set-absent", 54);

function build(keys: string[], options?: Parameters<typeof BloomFilter.create>[2]) {
  return BloomFilter.create(80_000, 0.01, options).addMany(keys);
}

describe("union", () => {
  it("answers exactly like a filter built from both key sets, operands unchanged", () => {
    const left = build([...a, ...shared]);
    const right = build([...b, ...shared]);
    const [leftFill, rightFill] = [left.fillRatio, right.fillRatio];
    const both = left.union(right);
    const direct = build([...a, ...shared, ...b]);
    expect(both.fillRatio).toBe(direct.fillRatio);
    expect(Array.from(both.hasMany(probes))).toEqual(Array.from(direct.hasMany(probes)));
    expect(ones(both.hasMany([...a, ...b, ...shared]))).toBe(70_000);
    expect([left.fillRatio, right.fillRatio]).toEqual([leftFill, rightFill]);
    expect(Math.abs(both.count - 70_000) / 70_000).toBeLessThan(0.02);
  });

  it("has a size of at least each operand's: every key either counted is in it (a union with an empty filter said fewer keys than the filter)", () => {
    const random = rng(58);
    for (let trial = 0; trial < 40; trial++) {
      const n = 100 + Math.floor(random() * 3_000);
      // Near or past capacity, where the fill's estimate strays most.
      const left = BloomFilter.create(n, 0.01).addMany(urls(Math.floor(n * (0.5 + random())), `union-size-${trial}`, 60 + trial));
      const right = BloomFilter.create(n, 0.01).addMany(urls(Math.floor(n * 0.05 * random()), `union-size-other-${trial}`, 100 + trial));
      const both = left.union(right);
      expect(both.size, `trial ${trial}`).toBeGreaterThanOrEqual(Math.max(left.size, right.size));
      expect(both.size, `trial ${trial}`).toBeLessThanOrEqual(left.size + right.size);
      // With nothing on the other side the union is the filter itself: the same bits, and the same size.
      const alone = left.union(BloomFilter.create(n, 0.01));
      expect(alone.size, `trial ${trial}`).toBe(left.size);
      expect(alone.serialize(), `trial ${trial}`).toEqual(left.serialize());
      expect(BloomFilter.deserialize(both.serialize()).size, `trial ${trial}`).toBe(both.size);
    }
  });
});

describe("intersect", () => {
  it("keeps every shared key, and its FPR is higher than a filter of the shared keys alone", () => {
    // Both operands at capacity, so the rates are large enough to measure.
    const atCapacity = (keys: string[]) => BloomFilter.create(40_000, 0.05).addMany(keys);
    const left = atCapacity([...a, ...shared]);
    const right = atCapacity([...b, ...shared]);
    const common = left.intersect(right);
    expect(ones(common.hasMany(shared))).toBe(shared.length);
    const onlyShared = atCapacity(shared);
    const fprCommon = ones(common.hasMany(probes)) / probes.length;
    const fprShared = ones(onlyShared.hasMany(probes)) / probes.length;
    expect(fprShared).toBeGreaterThan(0);
    expect(fprCommon).toBeGreaterThan(3 * fprShared);
    // Keys of one side only mostly drop out.
    expect(ones(common.hasMany(a)) / a.length).toBeLessThan(0.1);
    expect(common.count).toBeLessThanOrEqual(Math.min(left.count, right.count));
  });
});

describe("intersect's size (README figures)", () => {
  it("is the fill's estimate, above the keys in common; the operands' estimates less the union's come close", () => {
    const shown = [
      { common: [] as string[], size: 6_450, estimate: -40 },
      { common: shared, size: 16_478, estimate: 9_997 },
    ];
    for (const { common, size, estimate } of shown) {
      const left = build([...a, ...common]);
      const right = build([...b, ...common]);
      const both = left.intersect(right);
      expect(both.size).toBe(size);
      expect(both.expectedFalsePositiveRate() / both.falsePositiveRate()).toBeCloseTo(1, 3); // the n of its own rate
      expect(Math.round(left.estimatedCount() + right.estimatedCount() - left.union(right).estimatedCount())).toBe(estimate);
    }
  });
});

describe("compatibility", () => {
  it("refuses to combine filters that differ, naming the difference", () => {
    const base = BloomFilter.withSize(10_000, 5);
    expect(() => base.union(BloomFilter.withSize(20_000, 5))).toThrow(/^cannot union filters with different bits \(m\): this filter's is 10000, other's is 20000$/);
    expect(() => base.intersect(BloomFilter.withSize(10_000, 4))).toThrow(/different hashes \(k\): this filter's is 5, other's is 4/);
    expect(() => base.union(BloomFilter.withSize(10_000, 5, { seed: 9 }))).toThrow(/different seed: this filter's is 0, other's is 9/);
    expect(() => base.union(BloomFilter.withSize(10_000, 5, { hash: "murmur3_128" }))).toThrow(/different hash: this filter's is xxh3, other's is murmur3_128/);
    expect(() => base.union(BloomFilter.withSize(10_000, 5, { hash: ["djb", "sdbm", "bkdr", "rs", "js"] }))).toThrow(/different strategy/);
    expect(() => base.union({} as BloomFilter)).toThrow(TypeError);
    // A RedisBloomFilter's toBloomFilter() copy is in as many segments as it has Redis keys.
    const inSegments = BloomFilter.inSegments(base.bits * 64, 5, base.hashing, 2);
    expect(() => BloomFilter.withSize(base.bits * 64, 5).union(inSegments)).toThrow(/^cannot union filters with different segments: this filter's is 1, other's is 2$/);
  });
});

describe("fold", () => {
  it("create(n, p, { foldable: true }) picks an m that folds, at most 1/16 larger", () => {
    const plain = BloomFilter.create(100_000, 0.01);
    const foldable = BloomFilter.create(100_000, 0.01, { foldable: true });
    expect(foldable.bits).toBeGreaterThanOrEqual(plain.bits);
    expect(foldable.bits).toBeLessThanOrEqual(plain.bits * (1 + 1 / 16));
    expect(foldable.maxFoldFactor).toBeGreaterThanOrEqual(256);
    expect(plain.maxFoldFactor).toBe(1); // 958,506 is not a multiple of 128
  });

  it("create(n, p, { foldable: true }) folds at least by 2 however small the filter (100 keys at 1% was 960 bits, maxFoldFactor 1)", () => {
    for (let n = 1; n <= 300; n++) {
      for (const p of [0.1, 0.01, 0.001]) {
        const plain = BloomFilter.create(n, p);
        const foldable = BloomFilter.create(n, p, { foldable: true });
        expect(foldable.maxFoldFactor, `n = ${n}, p = ${p}: ${foldable.bits} bits`).toBeGreaterThanOrEqual(2);
        expect(foldable.bits - plain.bits).toBeLessThanOrEqual(Math.max(127, plain.bits / 16));
        const keys = Array.from({ length: n }, (_, i) => `small-fold-${i}`);
        expect(ones(foldable.addMany(keys).fold(2).hasMany(keys))).toBe(n);
      }
    }
  });

  it.each([2, 4, 8])("by %i: no false negatives, and the FPR of m / factor bits", (factor) => {
    const keys = urls(40_000, "fold", 55);
    const filter = BloomFilter.create(80_000, 0.01, { foldable: true }).addMany(keys);
    const folded = filter.fold(factor);
    expect(folded.bits).toBe(filter.bits / factor);
    expect(folded.count).toBe(filter.count);
    expect(ones(folded.hasMany(keys))).toBe(keys.length);
    const measured = ones(folded.hasMany(probes)) / probes.length;
    const expected = folded.expectedFalsePositiveRate(keys.length);
    expect(measured).toBeGreaterThan(0.85 * expected);
    expect(measured).toBeLessThan(1.15 * expected);
    // Adding after folding keeps the indexing consistent with the keys before it.
    folded.add("after the fold");
    expect(folded.has("after the fold")).toBe(true);
    expect(filter.has("after the fold")).toBe(false); // the original is unchanged
  });

  it("folding twice by 2 equals folding once by 4, and folded filters union", () => {
    const keys = urls(5_000, "fold-twice", 56);
    const filter = BloomFilter.create(50_000, 0.01, { foldable: true }).addMany(keys);
    const twice = filter.fold(2).fold(2);
    const once = filter.fold(4);
    expect(Array.from(twice.hasMany(probes.slice(0, 50_000)))).toEqual(Array.from(once.hasMany(probes.slice(0, 50_000))));
    const other = BloomFilter.create(50_000, 0.01, { foldable: true }).addMany(["x", "y"]).fold(4);
    const both = once.union(other);
    expect(ones(both.hasMany([...keys, "x", "y"]))).toBe(keys.length + 2);
    expect(() => once.union(filter)).toThrow(/different bits/);
  });

  it("works with the independent strategy too", () => {
    const keys = urls(2_000, "fold-indep", 57);
    const filter = BloomFilter.create(20_000, 0.01, { foldable: true, hash: ["xxh32", "murmur3_32", "fnv1a_32", "djb", "sdbm", "bkdr", "js"] });
    const folded = filter.addMany(keys).fold(2);
    expect(ones(folded.hasMany(keys))).toBe(keys.length);
  });

  it("rejects factors it cannot apply", () => {
    const filter = BloomFilter.create(10_000, 0.01, { foldable: true });
    expect(() => filter.fold(3)).toThrow(/must be a power of two from 2 up to maxFoldFactor/);
    expect(() => filter.fold(1)).toThrow(RangeError);
    expect(() => filter.fold(filter.maxFoldFactor * 2)).toThrow(/maxFoldFactor = /);
    expect(() => BloomFilter.withSize(1000, 3).fold(2)).toThrow(/cannot fold 1000 bits by 2/);
    expect(() => BloomFilter.withSize(1000, 3, { foldable: true } as object)).toThrow(/foldable is for create/);
  });

  it("says, for any factor it refuses, the factors it takes: powers of two from 2 up to maxFoldFactor, not 2 to 2^53 − 1", () => {
    const filter = BloomFilter.create(10_000, 0.01, { foldable: true });
    const max = filter.maxFoldFactor;
    for (const factor of [1, 0, -2, 2.5, max * 2 + 0.5, Number.NaN]) {
      expect(() => filter.fold(factor)).toThrow(new RangeError(
        `cannot fold ${filter.bits} bits by ${factor}: the factor must be a power of two from 2 up to maxFoldFactor = ${max} ` +
          "(m / factor a whole number of 64-bit words)",
      ));
    }
    // Folded as far as it goes: told so, not to create it foldable, which it was.
    const folded = filter.fold(max);
    expect(folded.maxFoldFactor).toBe(1);
    expect(() => folded.fold(2)).toThrow(
      new RangeError(`cannot fold ${folded.bits} bits by 2: the factor must be a power of two from 2 up to maxFoldFactor = 1 (m / factor a whole number of 64-bit words); it is folded as far as it goes (from ${filter.bits} bits)`),
    );
    expect(() => filter.fold("2" as never)).toThrow(new TypeError('factor must be a number, got "2"'));
    // maxFoldFactor 1: a filter that cannot fold is told so for the factor maxFoldFactor gives too.
    const plain = BloomFilter.withSize(1000, 3);
    expect(plain.maxFoldFactor).toBe(1);
    expect(() => plain.fold(plain.maxFoldFactor)).toThrow(/^cannot fold 1000 bits by 1: .* up to maxFoldFactor = 1 /);
  });
});
