// Filters over the hash family: double hashing with each 64/128-bit hash,
// and the independent strategy of the classic crawler de-duplication program in C.
import { describe, expect, it } from "vitest";
import { BloomFilter, hash, type HashName } from "../bindings/index.js";
import { ones, pack, urls } from "./helpers.js";

const members = urls(100_000, "hashing-member", 21);
const probes = urls(500_000, "hashing-absent", 22);
const MASK64 = (1n << 64n) - 1n;

describe("double hashing over each wide hash", () => {
  it.each(["xxh64", "fnv1a_64", "murmur3_128"] as const)("%s reaches the target FPR (p = 0.01)", (name) => {
    const filter = BloomFilter.create(members.length, 0.01, { hash: name });
    expect(filter.hash).toBe(name);
    expect(filter.strategy).toBe("double");
    filter.addMany(members);
    expect(ones(filter.hasMany(members))).toBe(members.length);
    const measured = ones(filter.hasMany(probes)) / probes.length;
    expect(measured).toBeGreaterThan(0.008);
    expect(measured).toBeLessThan(0.012);
  });

  it("derives index i as ⌊(h1 + i·h2 mod 2^64) · m / 2^64⌋ from murmur3_128's two halves", () => {
    const m = 1_000_003;
    const filter = BloomFilter.withSize(m, 9, { hash: "murmur3_128", seed: 5 });
    for (const key of urls(200, "km", 23)) {
      const h = hash("murmur3_128", key, 5);
      const [h1, h2] = [h & MASK64, h >> 64n];
      const want = Array.from({ length: 9 }, (_, i) => Number((((h1 + BigInt(i) * h2) & MASK64) * BigInt(m)) >> 64n));
      expect(filter.positions(key)).toEqual(want);
    }
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
    expect(() => BloomFilter.create(10, 0.1, { hash: "rs" })).toThrow(/options.hash "rs" gives 32 bits; double hashing needs a 64- or 128-bit hash/);
    expect(() => BloomFilter.create(10, 0.1, { hash: "sha1" as HashName })).toThrow(/unknown hash "sha1" in options.hash/);
    expect(() => BloomFilter.create(10, 0.1, { strategy: "double", hash: ["xxh64"] })).toThrow(TypeError);
    expect(() => BloomFilter.create(10, 0.1, { strategy: "independent", hash: "xxh64" })).toThrow(/must be a list of hash names/);
    expect(() => BloomFilter.create(10, 0.1, { strategy: "triple" as "double" })).toThrow(/options.strategy must be "double" or "independent", got "triple"/);
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
