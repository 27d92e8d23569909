// Bad input: a clear TypeError or RangeError naming the value, and the filter unchanged.
import { describe, expect, it } from "vitest";
import { BinaryFuseFilter, BloomFilter, CountingBloomFilter, CuckooFilter, MAX_FILTER_BITS, MAX_SEGMENT_BITS, ScalableBloomFilter, SplitBlockBloomFilter } from "../bindings/index.js";

/** Everything observable about a filter, to show a failed call changed nothing. */
function snapshot(filter: BloomFilter) {
  return { count: filter.count, fill: filter.fillRatio, answers: Array.from(filter.hasMany(["a", "b", "c", "d"])) };
}

describe("BloomFilter.create and withSize reject bad parameters", () => {
  it.each([
    [0, /expectedItems must be a positive finite number, got 0/],
    [-3, /got -3/],
    [NaN, /got NaN/],
    [Infinity, /got Infinity/],
    [-Infinity, /got -Infinity/],
  ])("n = %s", (n, message) => {
    expect(() => BloomFilter.create(n, 0.01)).toThrow(RangeError);
    expect(() => BloomFilter.create(n, 0.01)).toThrow(message);
  });

  it.each([0, 1, -0.1, 1.5, NaN, Infinity])("p = %s", (p) => {
    expect(() => BloomFilter.create(100, p)).toThrow(RangeError);
    expect(() => BloomFilter.create(100, p)).toThrow(new RegExp(`falsePositiveRate must be between 0 and 1 \\(exclusive\\), got ${p}`));
  });

  it("non-numbers are TypeErrors", () => {
    expect(() => BloomFilter.create("100" as unknown as number, 0.01)).toThrow(TypeError);
    expect(() => BloomFilter.create("100" as unknown as number, 0.01)).toThrow(/expectedItems must be a number, got "100"/);
    expect(() => BloomFilter.create(100, null as unknown as number)).toThrow(/falsePositiveRate must be a number, got null/);
    expect(() => BloomFilter.withSize(10n as unknown as number, 3)).toThrow(/bits must be a number, got 10n/);
  });

  it.each([
    [0, 3, /bits must be an integer from 1 to \d+, got 0/],
    [10.5, 3, /bits must be an integer .*got 10.5/],
    [-8, 3, /got -8/],
    [100, 0, /hashes must be an integer from 1 to 256, got 0/],
    [100, 2.5, /hashes .*got 2.5/],
    [100, 257, /got 257/],
  ])("withSize(%s, %s)", (bits, hashes, message) => {
    expect(() => BloomFilter.withSize(bits, hashes)).toThrow(RangeError);
    expect(() => BloomFilter.withSize(bits, hashes)).toThrow(message);
  });

  it("says what the size limit is", () => {
    // A segment is one wasm memory (4 GiB) less its first page of static data, the 2 MiB scratch reserve and the 64-byte header; a filter has up to 64.
    expect(MAX_SEGMENT_BITS).toBe(Math.floor((2 ** 32 - 65536 - 2 * 2 ** 20 - 64) / 8) * 64);
    expect(MAX_FILTER_BITS).toBe(64 * MAX_SEGMENT_BITS);
    expect(() => BloomFilter.withSize(MAX_FILTER_BITS + 64, 1)).toThrow(new RegExp(`from 1 to ${MAX_FILTER_BITS}`));
    expect(() => BloomFilter.create(1e12, 0.01)).toThrow(RangeError);
    expect(() => BloomFilter.create(1e12, 0.01)).toThrow(/needs 9585058380800 bits \(1\.09 TiB\); a filter holds at most 2197915926528 bits \(255\.87 GiB\)/);
    // Past floating point, the size in words, not a k of Infinity or a table of Infinity bytes.
    for (const create of [() => BloomFilter.create(1e308, 0.01), () => CountingBloomFilter.create(1e308, 0.01), () => ScalableBloomFilter.create(1e308, 0.01)]) {
      expect(create).toThrow(/^a filter for (expectedItems|initialCapacity) = 1e\+308 at falsePositiveRate = 0\.01 needs more bits than any filter holds$/);
    }
    // The independent strategy too (k fixed by the list): an m past floating point, from a tiny p or a huge n.
    for (const [hash, n, p] of [[["djb"], 1e10, 1e-300], [["djb", "sdbm"], 1e308, 0.01]] as const) {
      const words = new RegExp(`^a filter for expectedItems = ${String(n).replace("+", "\\+")} at falsePositiveRate = ${p} needs more bits than any filter holds$`);
      expect(() => BloomFilter.create(n, p, { hash: [...hash] })).toThrow(words);
      expect(() => BloomFilter.sizeFor(n, p, { hash: [...hash] })).toThrow(words);
      expect(() => CountingBloomFilter.create(n, p, { hash: [...hash] })).toThrow(words);
    }
    expect(() => CuckooFilter.create(1e308, 0.01)).toThrow(/needs [\d.e+]+ buckets of 16-bit fingerprints \(more bytes than a number holds\); one filter holds at most 268435456 buckets of 16-bit fingerprints \(2\.00 GiB\)$/);
    // Above one segment, withSize needs bits that split into equal segments of whole words.
    expect(() => BloomFilter.withSize(MAX_SEGMENT_BITS + 1, 1)).toThrow(/needs 2 segments of equal size .* give a multiple of 128/);
  });

  it("rejects bad options", () => {
    expect(() => BloomFilter.create(10, 0.1, { seed: -1 })).toThrow(/options.seed must be an integer from 0 to 4294967295, got -1/);
    expect(() => BloomFilter.create(10, 0.1, { seed: 1.5 })).toThrow(RangeError);
    expect(() => BloomFilter.create(10, 0.1, { sede: 1 } as object)).toThrow(/unknown option "sede" in options; known options: seed/);
    expect(() => BloomFilter.create(10, 0.1, "x" as unknown as object)).toThrow(/options must be an object, got "x"/);
  });
});

describe("bad keys leave the filter unchanged", () => {
  const filter = BloomFilter.create(1000, 0.01);
  filter.addMany(["a", "b"]);
  const before = snapshot(filter);

  it.each([
    [123, /key must be a string or a Uint8Array, got 123/],
    [null, /got null/],
    [undefined, /got undefined/],
    [{}, /got an object/],
    [[1, 2], /got an array of length 2/],
    [new Uint16Array(2), /got a Uint16Array/],
    [new ArrayBuffer(2), /got an ArrayBuffer/],
    [new Int32Array(2), /got an Int32Array/],
    [Symbol("k"), /got Symbol\(k\)/],
  ])("single key %s", (key, message) => {
    for (const call of [() => filter.add(key as string), () => filter.has(key as string), () => filter.testAndAdd(key as string)]) {
      expect(call).toThrow(TypeError);
      expect(call).toThrow(message);
    }
    expect(snapshot(filter)).toEqual(before);
  });

  it("a bad key anywhere in a batch rejects the whole batch before adding any", () => {
    const keys = ["c", "d", ...Array.from({ length: 40_000 }, (_, i) => `k${i}`), 7, "e"];
    expect(() => filter.addMany(keys as string[])).toThrow(/keys\[40002\] must be a string or a Uint8Array, got 7/);
    expect(() => filter.testAndAddMany(keys as string[])).toThrow(TypeError);
    expect(() => filter.hasMany(keys as string[])).toThrow(TypeError);
    expect(snapshot(filter)).toEqual(before);
  });

  it("batches must be arrays", () => {
    expect(() => filter.addMany("abc" as unknown as string[])).toThrow(/keys must be an array of strings or Uint8Arrays, got "abc"/);
    expect(() => filter.hasMany(new Set(["a"]) as unknown as string[])).toThrow(/got a Set/);
    expect(snapshot(filter)).toEqual(before);
  });

  it("packed keys with bad offsets or types are rejected", () => {
    const bytes = new Uint8Array([99, 100, 101]);
    expect(() => filter.addPacked(bytes, new Uint32Array([1, 3, 2]))).toThrow(/ends\[2\] = 2 must be ≥ ends\[1\] = 3 and ≤ bytes.length = 3/);
    // The first end is after 0, not after an "ends[-1]".
    expect(() => filter.addPacked(bytes, new Uint32Array([4]))).toThrow(new RangeError("ends[0] = 4 must be ≥ 0 and ≤ bytes.length = 3"));
    expect(() => filter.addPacked(bytes, new Uint32Array([1, 4]))).toThrow(RangeError);
    expect(() => filter.hasPacked(bytes, new Uint32Array([9]))).toThrow(RangeError);
    expect(() => filter.addPacked([99] as unknown as Uint8Array, new Uint32Array([1]))).toThrow(/bytes must be a Uint8Array, got an array of length 1/);
    expect(() => filter.addPacked(bytes, [1, 2] as unknown as Uint32Array)).toThrow(/ends must be a Uint32Array/);
    expect(() => filter.addPacked(bytes, new Int32Array([1]) as unknown as Uint32Array)).toThrow(TypeError);
    expect(snapshot(filter)).toEqual(before);
  });
});

describe("new Filter() from JavaScript (the constructors are private in the types)", () => {
  it.each([
    [BloomFilter, "BloomFilter.create(expectedItems, falsePositiveRate)"],
    [SplitBlockBloomFilter, "SplitBlockBloomFilter.create(expectedItems, falsePositiveRate)"],
    [ScalableBloomFilter, "ScalableBloomFilter.create(initialCapacity, falsePositiveRate)"],
    [CountingBloomFilter, "CountingBloomFilter.create(expectedItems, falsePositiveRate)"],
    [CuckooFilter, "CuckooFilter.create(expectedItems, falsePositiveRate)"],
    [BinaryFuseFilter, "BinaryFuseFilter.build(keys)"],
  ] as const)("%o says how a filter is made, whatever it is given", (type, way) => {
    const make = type as unknown as new (...args: unknown[]) => unknown;
    // new SplitBlockBloomFilter(100) is withSize(100), with no error to give; no other filter is made from one number.
    // new BinaryFuseFilter(10, 8) would be a filter of 10 keys holding none of them.
    const made = type === BinaryFuseFilter ? [[10, 8], [10, 16]] : [];
    for (const args of [[], ...(type === SplitBlockBloomFilter ? [[1.5], [0]] : [[100]]), [100, 0.01], ["100"], ...made]) {
      let thrown: unknown;
      try {
        new make(...args);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, `new ${type.name}(${args.join(", ")})`).toBeInstanceOf(TypeError);
      expect((thrown as Error).message).toContain(`a ${type.name} is made by ${way}`);
      expect((thrown as Error).message).toMatch(/or deserialize\(bytes\), not by new \w+\(\)$/);
    }
  });
});
