// The hash family against vectors from reference C code (test/fixtures/generate.sh):
// the classic C string hashes as the crawler program prints them, FNV checked against its published values,
// Debian's libmurmurhash and libxxhash (xxh3 also on every length to 1,100).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BloomFilter, hash, hashBits, hashMany, hashNames, hashPacked, isSeeded, type HashName } from "../bindings/index.js";
import { pack } from "./helpers.js";
import { classic } from "./reference-hashes.js";

type Vector = { kind: string; seed: number; hex: string } & Record<HashName, string>;
const vectors: Vector[] = JSON.parse(readFileSync(new URL("./fixtures/hash-vectors.json", import.meta.url), "utf8"));
/** XXH3_64bits_withSeed of every prefix of one buffer, under each seed. */
type Xxh3Lengths = { seeds: number[]; hex: string; prefixes: { length: number; xxh3: string[] }[] };
const xxh3Lengths: Xxh3Lengths = JSON.parse(readFileSync(new URL("./fixtures/xxh3-lengths.json", import.meta.url), "utf8"));
const keyOf = (v: Vector) => Uint8Array.from(Buffer.from(v.hex, "hex"));
const expected = (v: Vector, name: HashName) => (hashBits(name) === 32 ? parseInt(v[name], 16) : BigInt(`0x${v[name]}`));
const seedFor = (v: Vector, name: HashName) => (isSeeded(name) ? v.seed : 0);

describe("hash family", () => {
  it("has the 22 names of the issue, then xxh3", () => {
    expect([...hashNames]).toEqual([
      "rs", "js", "pjw", "elf", "bkdr", "sdbm", "djb", "dek", "bp", "fnv", "ap", "hflp", "hf", "str", "tianl",
      "fnv1_32", "fnv1a_32", "fnv1a_64", "murmur3_32", "murmur3_128", "xxh32", "xxh64", "xxh3",
    ]);
    expect(hashNames.filter((n) => hashBits(n) === 64)).toEqual(["fnv1a_64", "xxh64", "xxh3"]);
    expect(hashNames.filter((n) => hashBits(n) === 128)).toEqual(["murmur3_128"]);
  });

  it("covers the empty key, every length 1…256, ASCII, text (Chinese included) and random bytes", () => {
    const lengths = new Set(vectors.filter((v) => v.kind === "pattern").map((v) => v.hex.length / 2));
    expect(lengths.size).toBe(256);
    for (const kind of ["empty", "ascii", "text", "random"]) expect(vectors.some((v) => v.kind === kind)).toBe(true);
    expect(vectors.some((v) => Buffer.from(v.hex, "hex").toString("utf8").includes("布隆过滤器"))).toBe(true);
  });

  it.each([...hashNames])("%s matches the reference C code on every vector", (name) => {
    for (const v of vectors) {
      expect(hash(name, keyOf(v), seedFor(v, name)), `${name}(${v.hex.slice(0, 24)}…, seed ${v.seed})`).toBe(expected(v, name));
    }
  });

  it("xxh3 matches XXH3_64bits_withSeed on every length 0…1,100 and at the 2–4 KiB block edges, four seeds", () => {
    const lengths = xxh3Lengths.prefixes.map((p) => p.length);
    // Each length class of XXH3 and both sides of each boundary, up to the third scramble (every 1 KiB).
    for (const edge of [0, 1, 3, 4, 8, 9, 16, 17, 32, 33, 64, 65, 96, 97, 128, 129, 240, 241, 1024, 1025, 2048, 2049, 3072, 3073, 4096, 4097]) {
      expect(lengths, `length ${edge}`).toContain(edge);
    }
    expect(xxh3Lengths.seeds).toEqual([0, 1, 0x9747b28c, 0xffffffff]);
    const buffer = Uint8Array.from(Buffer.from(xxh3Lengths.hex, "hex"));
    const keys = lengths.map((length) => buffer.subarray(0, length));
    const { bytes, ends } = pack(keys);
    xxh3Lengths.seeds.forEach((seed, s) => {
      const want = xxh3Lengths.prefixes.map((p) => BigInt(`0x${p.xxh3[s]}`));
      const single = keys.map((key) => hash("xxh3", key, seed));
      const firstWrong = single.findIndex((h, i) => h !== want[i]);
      expect(firstWrong, `first wrong length under seed ${seed}: ${lengths[firstWrong]}`).toBe(-1);
      expect(Array.from(hashPacked("xxh3", bytes, ends, seed))).toEqual(want);
    });
  });

  it.each([...hashNames])("%s: hashMany and hashPacked match hash key by key", (name) => {
    const keys = vectors.map(keyOf);
    const seed = isSeeded(name) ? 0x9747b28c : 0;
    const single = keys.map((key) => hash(name, key, seed));
    const firstHalf = (h: number | bigint) => (typeof h === "bigint" ? h & 0xffffffffffffffffn : h);
    const many = Array.from(hashMany(name, keys, seed) as ArrayLike<number | bigint>);
    expect(many).toEqual(single.map(firstHalf)); // murmur3_128's batch form gives h1
    const { bytes, ends } = pack(keys);
    expect(Array.from(hashPacked(name, bytes, ends, seed) as ArrayLike<number | bigint>)).toEqual(many);
  });

  it("matches published values", () => {
    expect(hash("xxh64", "")).toBe(0xef46db3751d8e999n);
    expect(hash("xxh3", "")).toBe(0x2d06800538d394c2n);
    // Debian's xxhsum -H3 (the reference command-line tool) on the same bytes.
    expect(hash("xxh3", "abc")).toBe(0x78af5f94892f3950n);
    expect(hash("xxh3", "The quick brown fox jumps over the lazy dog")).toBe(0xce7d19a5418fb365n);
    expect(hash("xxh32", "")).toBe(0x02cc5d05);
    expect(hash("fnv1a_32", "foobar")).toBe(0xbf9cf968);
    expect(hash("fnv1a_64", "foobar")).toBe(0x85944171f73967e8n);
    expect(hash("fnv1_32", "a")).toBe(0x050c5d7e);
    expect(hash("murmur3_32", "The quick brown fox jumps over the lazy dog")).toBe(0x2e4ff723);
    expect(hash("murmur3_32", "", 1)).toBe(0x514e28b7);
    // x64_128 canonical bytes 6c1b07bc7bbc4be3 47939ac4a93c437a, read little-endian.
    expect(hash("murmur3_128", "The quick brown fox jumps over the lazy dog")).toBe(0x7a433ca9c49a9347e34bbc7bbc071b6cn);
  });

  it("hashes strings as their UTF-8 bytes", () => {
    const utf8 = new TextEncoder();
    for (const name of hashNames) {
      for (const text of ["", "布隆过滤器", "naïve café ☕ 🚀", "https://example.com/?q=1"]) {
        expect(hash(name, text, 7)).toBe(hash(name, utf8.encode(text), 7));
      }
    }
  });

  it("uses the seed only where the hash takes one", () => {
    for (const name of hashNames) {
      const differs = hash(name, "seeded?", 1) !== hash(name, "seeded?", 2);
      expect(differs, name).toBe(isSeeded(name));
    }
  });

  it("hflp and hf give 0 for the empty key and stay below the key's length", () => {
    expect(hash("hflp", "")).toBe(0);
    expect(hash("hf", "")).toBe(0);
    for (const key of ["a", "abc", "https://example.com/some/long/path"]) {
      expect(hash("hflp", key)).toBeLessThan(key.length);
      expect(hash("hf", key)).toBeLessThan(key.length);
    }
  });

  it("hashNames cannot be changed: sorted in place for a list, it left every name hashing with another's id", () => {
    const names = hashNames as unknown as string[];
    const before = [...names];
    const abc = Uint8Array.from([0x61, 0x62, 0x63]);
    try {
      expect(Object.isFrozen(hashNames)).toBe(true);
      expect(() => names.sort()).toThrow(TypeError);
      expect(() => names.reverse()).toThrow(TypeError);
      expect(() => names.push("md5")).toThrow(TypeError);
      expect(() => (names[0] = "md5")).toThrow(TypeError);
      expect(names).toEqual(before);
      expect([hash("rs", abc), hash("djb", abc)]).toEqual([classic("rs", abc), classic("djb", abc)]);
    } finally {
      // Before the fix the list was changed: put it back, or every later test would hash with the wrong ids.
      if (!Object.isFrozen(hashNames)) before.forEach((name, i) => (names[i] = name));
      if (!Object.isFrozen(hashNames)) names.length = before.length;
    }
  });

  it("rejects bad names, seeds and keys, naming them", () => {
    expect(() => hash("md5" as HashName, "x")).toThrow(/unknown hash "md5" in name; known: rs, js/);
    // isSeeded and hashBits refuse an unknown name alike (isSeeded said false).
    for (const ask of [isSeeded, hashBits]) expect(() => ask("md5" as HashName)).toThrow(/unknown hash "md5" in name; known: rs, js/);
    expect(() => hash(3 as unknown as HashName, "x")).toThrow(TypeError);
    expect(() => hash("xxh64", "x", -1)).toThrow(/seed must be an integer from 0 to 4294967295, got -1/);
    expect(() => hash("xxh64", "x", 2 ** 32)).toThrow(RangeError);
    expect(() => hash("xxh64", 5 as unknown as string)).toThrow(/key must be a string or a Uint8Array, got 5/);
    expect(() => hashMany("xxh64", ["a", null] as unknown as string[])).toThrow(/keys\[1\]/);
  });

  it("refuses a keys array with holes for its first missing key, as a filter's hasMany does, before making its result", () => {
    // Its result for 2^32 − 1 keys would be 32 GiB: made first, it failed with Node's "Array buffer allocation failed".
    const holes = new Array(2 ** 32 - 1);
    for (const name of ["xxh3", "murmur3_32"] as const) {
      expect(() => hashMany(name, holes)).toThrow(new TypeError("keys[0] must be a string or a Uint8Array, got undefined"));
    }
    const filter = BloomFilter.create(100, 0.01);
    expect(() => filter.hasMany(holes)).toThrow(new TypeError("keys[0] must be a string or a Uint8Array, got undefined"));
    filter.dispose();
    // Empty batches still give empty arrays of the name's type.
    expect(hashMany("xxh3", [])).toEqual(new BigUint64Array(0));
    expect(hashPacked("djb", new Uint8Array(0), new Uint32Array(0))).toEqual(new Uint32Array(0));
  });
});
