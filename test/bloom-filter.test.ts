// BloomFilter behaviour: keys, batches, packed keys, properties, disposal.
import { describe, expect, it } from "vitest";
import { BloomFilter } from "../bindings/index.js";
import { ones, pack, randomBytes, rng, urls } from "./helpers.js";

const utf8 = new TextEncoder();

describe("BloomFilter basics", () => {
  it("sizes itself from n and p with the issue's formulas", () => {
    const filter = BloomFilter.create(10_000, 0.001);
    expect(filter.bits).toBe(143_776);
    expect(filter.hashes).toBe(10);
    expect(filter.count).toBe(0);
    expect(filter.fillRatio).toBe(0);
    expect(filter.estimatedCount()).toBe(0);
    expect(filter.falsePositiveRate()).toBe(0);
    const small = BloomFilter.create(1, 0.9);
    expect(small.hashes).toBe(1); // k = round(0.15 · ln 2) = 0, raised to 1
  });

  it("takes m and k directly", () => {
    const filter = BloomFilter.withSize(1000, 3, { seed: 42 });
    expect([filter.bits, filter.hashes, filter.seed]).toEqual([1000, 3, 42]);
  });

  it("has no false negatives for any key type", () => {
    const filter = BloomFilter.create(5_000, 0.01);
    const keys: (string | Uint8Array)[] = [
      "",
      "布隆过滤器",
      "数据过滤算法之布隆过滤(Bloom Filter)",
      "naïve café ☕ 🚀",
      "x".repeat(10_000),
      "ascii prefix then 中文 " + "y".repeat(300),
      new Uint8Array(0),
      new Uint8Array([0, 255, 128, 10, 13]),
      ...urls(2000, "member"),
      ...randomBytes(2000, 64),
    ];
    for (const key of keys) filter.add(key);
    for (const key of keys) expect(filter.has(key)).toBe(true);
    expect(ones(filter.hasMany(keys))).toBe(keys.length);
  });

  it("hashes a string as its UTF-8 bytes (lone surrogates as U+FFFD, like TextEncoder)", () => {
    const filter = BloomFilter.create(100, 0.001);
    for (const text of ["", "abc", "布隆", "🚀x", "a\uD800b", "z".repeat(257) + "é"]) {
      filter.add(text);
      expect(filter.has(utf8.encode(text))).toBe(true);
      expect(filter.positions(text)).toEqual(filter.positions(utf8.encode(text)));
    }
    expect(filter.positions("a\uD800b")).toEqual(filter.positions(new Uint8Array([0x61, 0xef, 0xbf, 0xbd, 0x62])));
  });

  it("testAndAdd reports whether the key was present before", () => {
    const filter = BloomFilter.create(1000, 0.001);
    expect(filter.testAndAdd("https://example.com/")).toBe(false);
    expect(filter.testAndAdd("https://example.com/")).toBe(true);
    expect(filter.has("https://example.com/")).toBe(true);
    expect(filter.count).toBe(1);
  });

  it("counts keys that set a new bit; estimatedCount and fill follow the formulas", () => {
    const filter = BloomFilter.create(20_000, 0.01);
    const keys = urls(20_000, "count");
    filter.addMany(keys);
    filter.addMany(keys.slice(0, 5000)); // repeats set no new bit
    expect(filter.count).toBeLessThanOrEqual(20_000);
    expect(filter.count).toBeGreaterThan(20_000 * 0.99);
    const estimate = filter.estimatedCount();
    expect(Math.abs(estimate - 20_000) / 20_000).toBeLessThan(0.02);
    const x = Math.round(filter.fillRatio * filter.bits);
    expect(estimate).toBeCloseTo((-filter.bits / filter.hashes) * Math.log(1 - x / filter.bits), 6);
    expect(filter.falsePositiveRate()).toBeCloseTo(Math.pow(filter.fillRatio, filter.hashes), 12);
    // About half the bits are set at capacity with the optimal k.
    expect(filter.fillRatio).toBeGreaterThan(0.45);
    expect(filter.fillRatio).toBeLessThan(0.55);
  });

  it("gives k positions in [0, m) that are the bits add sets", () => {
    const filter = BloomFilter.withSize(1000, 5);
    const positions = filter.positions("hello");
    expect(positions).toHaveLength(5);
    for (const p of positions) expect(Number.isInteger(p) && p >= 0 && p < 1000).toBe(true);
    filter.add("hello");
    expect(Math.round(filter.fillRatio * 1000)).toBe(new Set(positions).size);
  });

  it("returns the filter from add and addMany for chaining", () => {
    const filter = BloomFilter.create(10, 0.01);
    expect(filter.add("a").addMany(["b"]).addPacked(new Uint8Array([99]), new Uint32Array([1]))).toBe(filter);
    expect(Array.from(filter.hasMany(["a", "b", "c"]))).toEqual([1, 1, 1]);
  });
});

describe("BloomFilter batches", () => {
  it("answers the same one key at a time and in batches", () => {
    const keys = [...urls(40_000, "batch"), ...randomBytes(5000, 40, 7)];
    const probes = [...keys.slice(0, 10_000), ...urls(60_000, "probe", 3)];
    const single = BloomFilter.create(40_000, 0.02);
    const batch = BloomFilter.create(40_000, 0.02);
    for (const key of keys) single.add(key);
    batch.addMany(keys);
    expect(batch.count).toBe(single.count);
    expect(batch.fillRatio).toBe(single.fillRatio);
    const answers = batch.hasMany(probes);
    expect(Array.from(probes, (key) => (single.has(key) ? 1 : 0))).toEqual(Array.from(answers));
    expect(ones(answers)).toBeGreaterThan(10_000); // members, plus some false positives
  });

  it("testAndAddMany matches testAndAdd key by key, duplicates within the batch included", () => {
    const base = urls(30_000, "dedup");
    const stream = [...base, ...base.slice(0, 10_000), ...base.slice(5000, 6000)];
    const single = BloomFilter.create(30_000, 0.01);
    const batch = BloomFilter.create(30_000, 0.01);
    const expected = stream.map((key) => (single.testAndAdd(key) ? 1 : 0));
    const got = batch.testAndAddMany(stream);
    expect(Array.from(got)).toEqual(expected);
    expect(ones(got.subarray(30_000))).toBe(11_000); // every repeat is caught
    expect(batch.count).toBe(single.count);
  });

  it("packed keys answer like the same keys as Uint8Arrays", () => {
    const keys = randomBytes(50_000, 80, 11);
    const { bytes, ends } = pack(keys);
    const packed = BloomFilter.create(50_000, 0.01);
    const arrays = BloomFilter.create(50_000, 0.01);
    packed.addPacked(bytes, ends);
    arrays.addMany(keys);
    expect(packed.fillRatio).toBe(arrays.fillRatio);
    expect(packed.count).toBe(arrays.count);
    expect(ones(packed.hasPacked(bytes, ends))).toBe(keys.length);
    const probes = randomBytes(20_000, 80, 12);
    const probesPacked = pack(probes);
    expect(Array.from(packed.hasPacked(probesPacked.bytes, probesPacked.ends))).toEqual(Array.from(arrays.hasMany(probes)));
  });

  it("splits batches larger than the scratch area, huge keys included", () => {
    const big = "大".repeat(1_500_000); // 4.5 MB of UTF-8, more than the default scratch
    const keys = [...urls(70_000, "chunks"), big, ...urls(10, "after")];
    const filter = BloomFilter.create(80_000, 0.01);
    filter.addMany(keys);
    expect(ones(filter.hasMany(keys))).toBe(keys.length);
    expect(filter.has(big)).toBe(true);
    const huge = new Uint8Array(3_000_000).fill(7);
    const packed = pack([new Uint8Array([1]), huge, new Uint8Array([2, 3])]);
    filter.addPacked(packed.bytes, packed.ends);
    expect(filter.has(huge)).toBe(true);
    expect(Array.from(filter.hasPacked(packed.bytes, packed.ends))).toEqual([1, 1, 1]);
  });

  it("handles empty batches and empty keys in packed form", () => {
    const filter = BloomFilter.create(10, 0.01);
    filter.addMany([]);
    expect(filter.hasMany([])).toHaveLength(0);
    expect(filter.count).toBe(0);
    filter.addPacked(new Uint8Array([5, 6]), new Uint32Array([0, 2, 2]));
    expect(filter.has(new Uint8Array(0))).toBe(true);
    expect(filter.has(new Uint8Array([5, 6]))).toBe(true);
  });
});

describe("BloomFilter seeds", () => {
  it("maps keys differently under different seeds", () => {
    const a = BloomFilter.withSize(1 << 20, 4, { seed: 1 });
    const b = BloomFilter.withSize(1 << 20, 4, { seed: 2 });
    expect(a.positions("key")).not.toEqual(b.positions("key"));
    expect(BloomFilter.withSize(1 << 20, 4, { seed: 1 }).positions("key")).toEqual(a.positions("key"));
  });
});

describe("BloomFilter disposal", () => {
  it("dispose() frees the filter; later use throws, a second dispose does nothing", () => {
    const filter = BloomFilter.create(100, 0.01);
    filter.add("a");
    filter.dispose();
    expect(filter.disposed).toBe(true);
    expect(() => filter.has("a")).toThrow(/disposed/);
    expect(() => filter.add("a")).toThrow(/disposed/);
    expect(() => filter.count).toThrow(/disposed/);
    expect(() => filter.dispose()).not.toThrow();
  });

  it("supports Symbol.dispose for `using`", () => {
    const filter = BloomFilter.create(100, 0.01);
    filter[Symbol.dispose]();
    expect(filter.disposed).toBe(true);
  });
});

describe("BloomFilter.sizeFor", () => {
  it("is the filter create() makes, for random n, p and options", () => {
    const random = rng(2026);
    const options = [undefined, { hash: "murmur3_128" as const, seed: 3 }, { foldable: true }, { hash: ["djb", "sdbm", "fnv1a_32"] as never }];
    for (let i = 0; i < 60; i++) {
      const n = Math.ceil(10 ** (random() * 6));
      const p = 10 ** (-1 - random() * 8);
      const option = options[i % options.length];
      const size = BloomFilter.sizeFor(n, p, option);
      const filter = BloomFilter.create(n, p, option);
      expect({ bits: size.bits, hashes: size.hashes }, `n = ${n}, p = ${p}`).toEqual({ bits: filter.bits, hashes: filter.hashes });
      expect(size.segments).toBe(1);
      expect(size.bytes).toBe(Math.ceil(filter.bits / 64) * 8);
      filter.dispose();
    }
  });

  it("gives create()'s errors, in its words", () => {
    for (const args of [[0, 0.01], [1000, 1], [1000, 0.01, { foldable: "yes" }], [1000, 0.01, { hashes: 3 }], [1e300, 1e-300]] as const) {
      let expected: unknown;
      try {
        BloomFilter.create(...(args as [number, number]));
      } catch (error) {
        expected = error;
      }
      expect(expected, JSON.stringify(args)).toBeInstanceOf(Error);
      expect(() => BloomFilter.sizeFor(...(args as [number, number]))).toThrow(expected as Error);
    }
  });
});
