// Integer keys on the counting, cuckoo and scalable filters: the same key
// space and hash as BloomFilter.addInts, every operation in batches.
import { describe, expect, it } from "vitest";
import { BloomFilter, CountingBloomFilter, CuckooFilter, ScalableBloomFilter, deserialize } from "../bindings/index.js";
import { distinctInts, firstDifference, ones } from "./helpers.js";

const members = distinctInts(200_000, true, 131); // more than one wasm call's worth of counts (32,768 per call)
const absent = distinctInts(500_000, false, 132);

describe("CountingBloomFilter integer keys", () => {
  it("take the positions BloomFilter.addInts gives them, with the same m, k and seed", () => {
    const counting = CountingBloomFilter.withSize(1 << 20, 7, { seed: 9 }).addInts(members);
    const standard = BloomFilter.withSize(1 << 20, 7, { seed: 9 }).addInts(members);
    expect(firstDifference(counting.toBloomFilter().bitArray(), standard.bitArray())).toBe(-1);
  });

  it("have no false negatives, the formula's rate, and count and remove like string keys", () => {
    const filter = CountingBloomFilter.create(members.length, 0.01);
    filter.addInts(members).addInts(members.subarray(0, 1000));
    expect(filter.size).toBe(members.length + 1000);
    expect(ones(filter.hasInts(members))).toBe(members.length);
    const measured = ones(filter.hasInts(absent)) / absent.length;
    const predicted = filter.expectedFalsePositiveRate(members.length);
    expect(measured).toBeGreaterThan(0.85 * predicted);
    expect(measured).toBeLessThan(1.15 * predicted);

    const counts = filter.countInts(members);
    expect(counts.length).toBe(members.length);
    expect(counts.subarray(0, 1000).every((c) => c >= 2)).toBe(true);
    expect(counts.subarray(1000).every((c) => c >= 1)).toBe(true);
    // Exact unless every counter is shared: nearly all keys added once read 1.
    expect(counts.subarray(1000).filter((c) => c === 1).length).toBeGreaterThan(0.95 * (members.length - 1000));

    expect(ones(filter.removeInts(members))).toBe(members.length);
    expect(filter.size).toBe(1000);
    expect(ones(filter.hasInts(members.subarray(0, 1000)))).toBe(1000); // added twice, removed once
    expect(ones(filter.removeInts(members.subarray(0, 1000)))).toBe(1000);
    expect(filter.fillRatio).toBe(0);
    expect(ones(filter.removeInts(members.subarray(0, 10)))).toBe(0);
    expect(filter.size).toBe(0);
  });

  it("count a 32-bit key as the 64-bit key of the same value, and one at a time as in a batch", () => {
    const batch = CountingBloomFilter.withSize(4096, 5).addInts(Uint32Array.from([3, 3, 8, 0xffffffff]));
    expect(Array.from(batch.countInts(BigUint64Array.from([3n, 8n, 0xffffffffn, 4n])))).toEqual([2, 1, 1, 0]);
    const single = CountingBloomFilter.withSize(4096, 5);
    for (const key of [3, 3, 8, 0xffffffff]) single.addInts(Uint32Array.of(key));
    expect(firstDifference(single.serialize(), batch.serialize())).toBe(-1);
  });

  it("survive serialization with the same answers", () => {
    const filter = CountingBloomFilter.create(10_000, 0.01).addInts(members.subarray(0, 10_000));
    const copy = deserialize(filter.serialize()) as CountingBloomFilter;
    expect(firstDifference(copy.hasInts(absent), filter.hasInts(absent))).toBe(-1);
    expect(firstDifference(new Uint8Array(copy.countInts(members.subarray(0, 10_000)).buffer), new Uint8Array(filter.countInts(members.subarray(0, 10_000)).buffer))).toBe(-1);
  });

  it("reject other arrays and the independent strategy, changing nothing", () => {
    const filter = CountingBloomFilter.withSize(1000, 3);
    expect(() => filter.addInts([1, 2] as unknown as Uint32Array)).toThrow(/keys must be a Uint32Array or a BigUint64Array, got/);
    expect(() => filter.removeInts(new Float64Array(2) as unknown as Uint32Array)).toThrow(TypeError);
    const independent = CountingBloomFilter.create(100, 0.01, { hash: ["xxh32", "djb"] });
    expect(() => independent.addInts(Uint32Array.of(1))).toThrow(/integer keys need triple or double hashing/);
    expect(filter.size).toBe(0);
    expect(filter.fillRatio).toBe(0);
    expect(independent.size).toBe(0);
  });
});

describe("CuckooFilter integer keys", () => {
  it("store every key up to capacity, with no false negatives and the filter's rate", () => {
    const filter = CuckooFilter.create(members.length, 0.01);
    expect(ones(filter.tryAddInts(members))).toBe(members.length);
    expect(filter.size).toBe(members.length);
    expect(ones(filter.hasInts(members))).toBe(members.length);
    const measured = ones(filter.hasInts(absent)) / absent.length;
    expect(measured).toBeLessThan(0.01 * 1.2);
    const predicted = filter.expectedFalsePositiveRate();
    expect(measured).toBeGreaterThan(0.7 * predicted);
    expect(measured).toBeLessThan(1.3 * predicted);
  });

  it("count and remove integer keys; a 32-bit key is the 64-bit key of the same value", () => {
    const filter = CuckooFilter.create(1000, 0.001);
    expect(Array.from(filter.tryAddInts(Uint32Array.from([5, 5, 6])))).toEqual([1, 1, 1]);
    expect(Array.from(filter.countInts(BigUint64Array.from([5n, 6n, 7n])))).toEqual([2, 1, 0]);
    expect(Array.from(filter.removeInts(BigUint64Array.from([5n, 7n])))).toEqual([1, 0]);
    expect(Array.from(filter.hasInts(Uint32Array.from([5, 6, 7])))).toEqual([1, 1, 0]);
    expect(filter.size).toBe(2);
  });

  it("report a full filter per key and lose nothing stored before", () => {
    const filter = CuckooFilter.withSize(64, 16); // 256 slots
    const stored = filter.tryAddInts(members.subarray(0, 1000));
    const kept = members.subarray(0, 1000).filter((_, i) => stored[i] === 1);
    expect(kept.length).toBeGreaterThan(0.9 * 256);
    expect(kept.length).toBeLessThanOrEqual(256);
    expect(filter.size).toBe(kept.length);
    expect(ones(filter.hasInts(kept))).toBe(kept.length);
  });

  it("give the same slots one at a time as in a batch, and survive serialization", () => {
    const keys = members.subarray(0, 5000);
    const batch = CuckooFilter.create(5000, 0.01);
    batch.addInts(keys);
    const single = CuckooFilter.create(5000, 0.01);
    for (const key of keys) single.addInts(Uint32Array.of(key));
    expect(firstDifference(single.serialize(), batch.serialize())).toBe(-1);
    const copy = CuckooFilter.deserialize(batch.serialize());
    expect(firstDifference(copy.hasInts(absent), batch.hasInts(absent))).toBe(-1);
  });

  it("reject other arrays, changing nothing", () => {
    const filter = CuckooFilter.create(100, 0.01);
    expect(() => filter.addInts(Int32Array.of(1) as unknown as Uint32Array)).toThrow(/got an Int32Array/);
    expect(filter.size).toBe(0);
  });
});

describe("ScalableBloomFilter integer keys", () => {
  it("grow to 100× the initial capacity with no false negatives and a rate ≤ p", () => {
    const filter = ScalableBloomFilter.create(2000, 0.01);
    const answers = filter.testAndAddInts(members);
    expect(filter.layers).toBeGreaterThan(5);
    expect(ones(answers)).toBeLessThan(0.01 * members.length);
    expect(ones(filter.hasInts(members))).toBe(members.length);
    expect(ones(filter.hasInts(absent)) / absent.length).toBeLessThan(0.01);
  });

  it("flag repeats across layers and within a batch, in order", () => {
    const filter = ScalableBloomFilter.create(10, 0.001);
    const stream = BigUint64Array.from([1n, 2n, 1n, ...Array.from({ length: 50 }, (_, i) => BigInt(100 + i)), 2n, 2n ** 40n, 2n ** 40n]);
    const flags = Array.from(filter.testAndAddInts(stream));
    expect(flags.slice(0, 3)).toEqual([0, 0, 1]);
    expect(flags.slice(-3)).toEqual([1, 0, 1]);
    expect(filter.layers).toBeGreaterThan(1);
    expect(Array.from(filter.hasInts(Uint32Array.from([1, 2, 149])))).toEqual([1, 1, 1]);
  });

  it("answer the same after serialization, and reject bad input changing nothing", () => {
    const filter = ScalableBloomFilter.create(1000, 0.01).addInts(members.subarray(0, 20_000));
    const copy = ScalableBloomFilter.deserialize(filter.serialize());
    expect(firstDifference(copy.hasInts(absent), filter.hasInts(absent))).toBe(-1);
    const count = filter.count;
    expect(() => filter.addInts([1] as unknown as Uint32Array)).toThrow(TypeError);
    const independent = ScalableBloomFilter.create(100, 0.01, { hash: ["xxh32", "djb"] });
    expect(() => independent.addInts(Uint32Array.of(1))).toThrow(/integer keys need triple or double hashing/);
    expect(filter.count).toBe(count);
    expect(independent.count).toBe(0);
  });
});

describe("ScalableBloomFilter lines", () => {
  const text = "alpha\r\nbeta\n\ngamma\r\r\nalpha\ndelta"; // CRLF, an empty line, "\r" kept once, a repeat, no final newline

  it("read lines as BloomFilter.addLines does", () => {
    const bytes = new TextEncoder().encode(text);
    const standard = BloomFilter.create(1000, 0.001, { seed: 3 });
    const standardFlags = standard.testAndAddLines(bytes);
    const scalable = ScalableBloomFilter.create(1000, 0.001, { seed: 3 });
    const scalableFlags = scalable.testAndAddLines(bytes);
    expect(Array.from(scalableFlags)).toEqual(Array.from(standardFlags));
    expect(Array.from(scalableFlags)).toEqual([0, 0, 0, 0, 1, 0]);
    expect(scalable.hasMany(["alpha", "beta", "", "gamma\r", "delta", "gamma"])).toEqual(Uint8Array.from([1, 1, 1, 1, 1, 0]));
    expect(Array.from(scalable.hasLines(new TextEncoder().encode("beta\r\ngamma\nzeta\n")))).toEqual([1, 0, 0]);
  });

  it("grow across layers like addMany on the same keys", () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `https://example.com/${i % 20_000}`);
    const byLines = ScalableBloomFilter.create(1000, 0.01);
    const flags = byLines.testAndAddLines(new TextEncoder().encode(keys.join("\n") + "\n"));
    const byArray = ScalableBloomFilter.create(1000, 0.01);
    expect(Array.from(flags)).toEqual(Array.from(byArray.testAndAddMany(keys)));
    expect(firstDifference(byLines.serialize(), byArray.serialize())).toBe(-1);
    expect(ones(flags.subarray(20_000))).toBe(10_000);
  });

  it("reject a buffer that is not bytes", () => {
    const filter = ScalableBloomFilter.create(10, 0.01);
    expect(() => filter.addLines("a\nb" as unknown as Uint8Array)).toThrow(/buffer must be a Uint8Array of newline-delimited keys, got/);
    expect(filter.count).toBe(0);
  });
});
