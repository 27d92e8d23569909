// Filters over the hash family: triple and double hashing with each
// 64/128-bit hash, and the independent strategy of the classic crawler
// de-duplication program in C.
import { describe, expect, it } from "vitest";
import { BloomFilter, CountingBloomFilter, DEFAULT_STRATEGY, hash, hashNames, type HashName } from "../bindings/index.js";
import { ones, pack, urls } from "./helpers.js";
import { indicesOf, secondOf } from "./reference-indices.js";

const members = urls(100_000, "hashing-member", 21);
const probes = urls(500_000, "hashing-absent", 22);
const MASK64 = (1n << 64n) - 1n;

describe("triple and double hashing over each wide hash", () => {
  it.each([
    ["xxh64", "triple"],
    ["fnv1a_64", "triple"],
    ["murmur3_128", "triple"],
    ["xxh64", "double"],
    ["fnv1a_64", "double"],
    ["murmur3_128", "double"],
  ] as const)("%s with %s hashing reaches the target FPR (p = 0.01)", (name, strategy) => {
    const filter = BloomFilter.create(members.length, 0.01, strategy === DEFAULT_STRATEGY ? { hash: name } : { hash: name, strategy });
    expect(filter.hash).toBe(name);
    expect(filter.strategy).toBe(strategy);
    filter.addMany(members);
    expect(ones(filter.hasMany(members))).toBe(members.length);
    const measured = ones(filter.hasMany(probes)) / probes.length;
    expect(measured).toBeGreaterThan(0.008);
    expect(measured).toBeLessThan(0.012);
  });

  it.each(["triple", "double"] as const)("derives index i as ⌊(h1 + i·h2 + i(i−1)/2·h3 mod 2^64) · m / 2^64⌋ from murmur3_128's two halves (%s hashing)", (strategy) => {
    const m = 1_000_003;
    const filter = BloomFilter.withSize(m, 9, { hash: "murmur3_128", seed: 5, strategy });
    const counting = CountingBloomFilter.withSize(m, 9, { hash: "murmur3_128", seed: 5, strategy });
    for (const key of urls(200, "km", 23)) {
      const h = hash("murmur3_128", key, 5);
      const [h1, h2] = [h & MASK64, h >> 64n];
      const want = indicesOf(h1, h2, strategy, 9, m);
      expect(filter.positions(key)).toEqual(want);
      expect(counting.positions(key)).toEqual(want);
    }
  });

  it.each(["triple", "double"] as const)("derives h2 from xxh64's hash by a splitmix64 round, and the indices from it (%s hashing)", (strategy) => {
    const m = 65_537;
    const filter = BloomFilter.withSize(m, 12, { hash: "xxh64", seed: 7, strategy });
    for (const key of urls(200, "km-xxh64", 24)) {
      const h1 = hash("xxh64", key, 7);
      expect(filter.positions(key)).toEqual(indicesOf(h1, secondOf(h1), strategy, 12, m));
    }
  });

  it("is the strategy of a filter made with one hash and none named", () => {
    expect(DEFAULT_STRATEGY).toBe("triple");
    expect(BloomFilter.create(100, 0.01).strategy).toBe("triple");
    expect(CountingBloomFilter.create(100, 0.01).strategy).toBe("triple");
  });
});

describe("double hashing's added rate, and triple hashing without it", () => {
  // Double hashing picks a key's k bits from (h1, h2): a key whose pair is within about 1/m of a member's in
  // both shares all k bits with it, which adds about 3/(k·m) to the rate. 100 keys at p = 10^-6 (m = 2,876,
  // k = 20) measured 5·10^-5 with it; triple hashing needs h3 near as well, a factor m rarer.
  const keys = BigUint64Array.from({ length: 100 }, (_, i) => BigInt(i));
  const absent = BigUint64Array.from({ length: 1 << 23 }, (_, i) => (1n << 62n) + BigInt(i));
  it.each([
    ["BloomFilter", (strategy: "triple" | "double") => BloomFilter.create(100, 1e-6, { strategy })],
    ["CountingBloomFilter", (strategy: "triple" | "double") => CountingBloomFilter.create(100, 1e-6, { strategy })],
  ] as const)("%s of 100 keys at p = 10^-6: triple within a few times p, double far above it (2^23 absent keys)", (_, make) => {
    const triple = make("triple").addInts(keys);
    const double = make("double").addInts(keys);
    expect(ones(triple.hasInts(keys))).toBe(keys.length);
    expect(ones(double.hasInts(keys))).toBe(keys.length);
    const formula = triple.falsePositiveRate();
    // Expected hits: formula · 2^23 ≈ 8 for triple; double's 3/(k·m) adds about 440.
    const tripleRate = ones(triple.hasInts(absent)) / absent.length;
    const doubleRate = ones(double.hasInts(absent)) / absent.length;
    expect(tripleRate).toBeLessThan(4 * formula);
    expect(doubleRate).toBeGreaterThan(10 * formula);
    triple.dispose();
    double.dispose();
  });
});

describe("batch queries answer what the bits say", () => {
  // Batches are hashed in one pass and probed in groups in another (see
  // assembly/bloom.ts, hasGrouped); whichever way, a key's answer must be
  // what the bits at its positions say, for every hash double hashing can use.
  it.each(["xxh3", "xxh64", "fnv1a_64", "murmur3_128"] as const)("%s: every route answers what the bits at the key's positions say", (name) => {
    const filter = BloomFilter.create(3000, 0.05, name === "fnv1a_64" ? { hash: name } : { hash: name, seed: 9 });
    const stored = members.slice(0, 3000);
    filter.addMany(stored);
    const asked = [...stored.slice(0, 500), ...probes.slice(0, 4000), "", "é例🙂"];
    const bits = filter.bitArray();
    const set = (i: number) => (bits[i >> 3] >> (i & 7)) & 1;
    const expected = asked.map((key) => (filter.positions(key).every((i) => set(i) === 1) ? 1 : 0));
    expect(ones(Uint8Array.from(expected.slice(0, 500)))).toBe(500);
    expect(ones(Uint8Array.from(expected))).toBeLessThan(500 + 0.1 * 4000); // the bits decide: not every key answers present
    const utf8 = new TextEncoder();
    const { bytes, ends } = pack(asked.map((key) => utf8.encode(key)));
    expect(Array.from(filter.hasMany(asked))).toEqual(expected);
    expect(Array.from(filter.hasPacked(bytes, ends))).toEqual(expected);
    expect(Array.from(filter.hasLines(utf8.encode(asked.map((key) => `${key}\n`).join(""))))).toEqual(expected);
    expect(asked.map((key) => (filter.has(key) ? 1 : 0))).toEqual(expected);
  });
});

describe("independent strategy", () => {
  const good: HashName[] = ["murmur3_32", "xxh32", "fnv1a_32", "xxh64", "murmur3_128", "fnv1a_64", "fnv1_32"];

  it("computes index i as hash_i(key) mod m, like the crawler de-duplication program in C", () => {
    const m = 143_776;
    const names: HashName[] = ["hflp", "str", "hf", "dek", "tianl", "sdbm"];
    const filter = BloomFilter.withSize(m, 6, { hash: names });
    expect(filter.strategy).toBe("independent");
    expect(filter.hash).toEqual(names);
    for (const key of ["", "a", "https://example.com/page?id=1", "布隆过滤器", ...urls(100, "seedc", 24)]) {
      const want = names.map((name) => Number(BigInt(hash(name, key)) % BigInt(m)));
      expect(filter.positions(key)).toEqual(want);
    }
  });

  it("takes every hash name, index i being hash_i(key) mod m: murmur3_128's of its first 64 bits (h1), as README and docs/FORMAT.md say", () => {
    const m = 1_000_003; // prime: any difference in the value reduced shows in the index
    const filter = BloomFilter.withSize(m, hashNames.length, { hash: hashNames });
    for (const key of ["", "a", "https://example.com/page?id=1", "布隆过滤器", "x".repeat(300)]) {
      const want = hashNames.map((name) => Number((BigInt(hash(name, key)) & MASK64) % BigInt(m)));
      expect(filter.positions(key)).toEqual(want);
    }
  });

  it("with seven good hashes, reaches the target FPR (p = 0.01)", () => {
    const filter = BloomFilter.create(members.length, 0.01, { hash: good });
    expect(filter.hashes).toBe(7);
    filter.addMany(members);
    expect(ones(filter.hasMany(members))).toBe(members.length);
    const measured = ones(filter.hasMany(probes)) / probes.length;
    expect(measured).toBeGreaterThan(0.008);
    expect(measured).toBeLessThan(0.012);
  });

  it("with the crawler program's six classic hashes: still no false negatives, but above the formula's rate", () => {
    const filter = BloomFilter.create(members.length, 0.01, { strategy: "independent", hash: ["hflp", "str", "hf", "dek", "tianl", "sdbm"] });
    filter.addMany(members);
    expect(ones(filter.hasMany(members))).toBe(members.length);
    // hflp and hf only reach indices below the key's length: a few bits that every key sets,
    // so they filter nothing and the six hashes work like four.
    const longest = Math.max(...members.map((key) => Buffer.byteLength(key)));
    for (const key of members.slice(0, 1000)) {
      const [hflp, , hf] = filter.positions(key);
      expect(hflp).toBeLessThan(longest);
      expect(hf).toBeLessThan(longest);
    }
    const measured = ones(filter.hasMany(probes)) / probes.length;
    expect(measured).toBeGreaterThan(1.2 * filter.expectedFalsePositiveRate(members.length));
  });

  it("answers the same one key at a time and in batches", () => {
    const a = BloomFilter.create(20_000, 0.01, { hash: good });
    const b = BloomFilter.create(20_000, 0.01, { hash: good });
    const keys = urls(20_000, "indep-batch", 25);
    for (const key of keys) a.add(key);
    b.addMany(keys);
    expect(a.fillRatio).toBe(b.fillRatio);
    const sample = probes.slice(0, 20_000);
    expect(Array.from(sample, (key) => (a.has(key) ? 1 : 0))).toEqual(Array.from(b.hasMany(sample)));
  });
});

describe("hash options are checked", () => {
  it("rejects what cannot work, naming it", () => {
    expect(() => BloomFilter.create(10, 0.1, { hash: "rs" })).toThrow(/options.hash "rs" gives 32 bits; triple hashing needs a 64- or 128-bit hash/);
    expect(() => BloomFilter.create(10, 0.1, { hash: "rs", strategy: "double" })).toThrow(/options.hash "rs" gives 32 bits; double hashing needs a 64- or 128-bit hash/);
    expect(() => BloomFilter.create(10, 0.1, { hash: "sha1" as HashName })).toThrow(/unknown hash "sha1" in options.hash/);
    expect(() => BloomFilter.create(10, 0.1, { strategy: "double", hash: ["xxh64"] })).toThrow(TypeError);
    expect(() => BloomFilter.create(10, 0.1, { strategy: "independent", hash: "xxh64" })).toThrow(/must be a list of hash names/);
    expect(() => BloomFilter.create(10, 0.1, { strategy: "quadruple" as "double" })).toThrow(/options.strategy must be "triple", "double" or "independent", got "quadruple"/);
    expect(() => BloomFilter.create(10, 0.1, { strategy: "triple", hash: ["xxh64"] })).toThrow(/options.hash must be one hash name for triple hashing/);
    expect(() => BloomFilter.create(10, 0.1, { hash: [] })).toThrow(/must list 1 to 32 hashes, got 0/);
    expect(() => BloomFilter.create(10, 0.1, { hash: ["djb", "sdbm", "djb"] })).toThrow(/lists "djb" twice/);
    expect(() => BloomFilter.create(10, 0.1, { hash: ["djb", "nope" as HashName] })).toThrow(/unknown hash "nope" in options.hash\[1\]/);
    expect(() => BloomFilter.withSize(1000, 3, { hash: ["djb", "sdbm"] })).toThrow(/hashes is 3 but options.hash lists 2/);
    expect(() => BloomFilter.create(10, 0.1, { hash: "fnv1a_64", seed: 3 })).toThrow(/options.seed 3 needs a seeded hash .*"fnv1a_64" takes none/);
    expect(() => BloomFilter.create(10, 0.1, { hash: ["xxh32", "djb"], seed: 3 })).toThrow(/"djb" takes none/);
  });

  it("the hash list a filter reports cannot be changed from outside", () => {
    const filter = BloomFilter.create(10, 0.1, { hash: ["djb", "sdbm"] });
    expect(() => (filter.hash as HashName[]).push("rs")).toThrow(TypeError);
    expect(filter.hash).toEqual(["djb", "sdbm"]);
  });
});
