// Every filter that takes a hash option, with { hash: "xxh3" }: it really
// indexes by XXH3 (checked against the hash family's xxh3, itself checked
// against libxxhash), keeps no false negatives, reaches its target FPR,
// answers alike one key at a time and in batches, and keeps its hash through
// serialisation.
import { describe, expect, it } from "vitest";
import { BloomFilter, CountingBloomFilter, CuckooFilter, DEFAULT_HASH, ScalableBloomFilter, deserialize, hash } from "../bindings/index.js";
import { ones, pack, urls } from "./helpers.js";
import { indicesOf, secondOf } from "./reference-indices.js";

const members = urls(100_000, "xxh3-member", 131);
const probes = urls(500_000, "xxh3-absent", 132);
const encoder = new TextEncoder();


describe("filters with hash xxh3", () => {
  it.each(["triple", "double"] as const)("BloomFilter index i is ⌊(h1 + i·h2 + i(i−1)/2·h3 mod 2^64) · m / 2^64⌋ with h1 = xxh3(key, seed) (%s hashing)", (strategy) => {
    const m = 1_000_003;
    const filter = BloomFilter.withSize(m, 7, { hash: "xxh3", seed: 9, strategy });
    for (const key of ["", "a", "布隆过滤器", "x".repeat(300), ...urls(200, "xxh3-km", 133)]) {
      const h1 = hash("xxh3", key, 9);
      expect(filter.positions(key), key.slice(0, 20)).toEqual(indicesOf(h1, secondOf(h1), strategy, 7, m));
    }
  });

  it("BloomFilter: no false negatives, FPR within [0.8p, 1.2p], the same answers single, batch and packed", () => {
    const filter = BloomFilter.create(members.length, 0.01, { hash: "xxh3" });
    expect(filter.hash).toBe("xxh3");
    filter.addMany(members);
    expect(ones(filter.hasMany(members))).toBe(members.length);
    const measured = ones(filter.hasMany(probes)) / probes.length;
    expect(measured).toBeGreaterThan(0.008);
    expect(measured).toBeLessThan(0.012);
    const single = BloomFilter.create(members.length, 0.01, { hash: "xxh3" });
    for (const key of members) single.add(key);
    expect(single.serialize()).toEqual(filter.serialize());
    const sample = probes.slice(0, 20_000);
    const { bytes, ends } = pack(sample.map((key) => encoder.encode(key)));
    expect(Array.from(filter.hasPacked(bytes, ends))).toEqual(sample.map((key) => (single.has(key) ? 1 : 0)));
  });

  it("CountingBloomFilter: no false negatives after removals, FPR within [0.8p, 1.2p]", () => {
    const filter = CountingBloomFilter.create(members.length, 0.01, { hash: "xxh3", seed: 3 });
    const extra = urls(20_000, "xxh3-removed", 134);
    filter.addMany([...members, ...extra]);
    filter.removeMany(extra);
    expect(ones(filter.hasMany(members))).toBe(members.length);
    const measured = ones(filter.hasMany(probes)) / probes.length;
    expect(measured).toBeGreaterThan(0.008);
    expect(measured).toBeLessThan(0.012);
    // Same indices as a BloomFilter with the same hash and seed.
    const bloom = BloomFilter.create(members.length, 0.01, { hash: "xxh3", seed: 3 });
    expect(filter.positions(members[0])).toEqual(bloom.positions(members[0]));
  });

  it("ScalableBloomFilter: grows with no false negatives and an FPR ≤ p", () => {
    const filter = ScalableBloomFilter.create(2_000, 0.01, { hash: "xxh3" });
    filter.addMany(members);
    expect(filter.layers).toBeGreaterThan(3);
    expect(ones(filter.hasMany(members))).toBe(members.length);
    expect(ones(filter.hasMany(probes)) / probes.length).toBeLessThanOrEqual(0.01);
  });

  it("CuckooFilter: no false negatives, FPR ≤ 1.2p, the same table single and batch", () => {
    const filter = CuckooFilter.create(members.length, 0.01, { hash: "xxh3" });
    expect(ones(filter.tryAddMany(members))).toBe(members.length);
    expect(ones(filter.hasMany(members))).toBe(members.length);
    expect(ones(filter.hasMany(probes)) / probes.length).toBeLessThanOrEqual(0.012);
    const single = CuckooFilter.create(members.length, 0.01, { hash: "xxh3" });
    for (const key of members) single.add(key);
    expect(single.serialize()).toEqual(filter.serialize());
    // Not xxh64 under another name: the tables differ.
    const byXxh64 = CuckooFilter.create(members.length, 0.01, { hash: "xxh64" });
    byXxh64.addMany(members.slice(0, 1000));
    const byXxh3 = CuckooFilter.create(members.length, 0.01, { hash: "xxh3" });
    byXxh3.addMany(members.slice(0, 1000));
    expect(Array.from(byXxh3.entries())).not.toEqual(Array.from(byXxh64.entries()));
  });

  it("every filter keeps xxh3 and its seed through serialisation, answering the same", () => {
    const sample = probes.slice(0, 20_000);
    const keys = members.slice(0, 5_000);
    const cuckoo = CuckooFilter.create(5_000, 0.01, { hash: "xxh3", seed: 7 });
    cuckoo.addMany(keys);
    const filters = [
      BloomFilter.create(5_000, 0.01, { hash: "xxh3", seed: 7 }).addMany(keys),
      CountingBloomFilter.create(5_000, 0.01, { hash: "xxh3", seed: 7 }).addMany(keys),
      ScalableBloomFilter.create(500, 0.01, { hash: "xxh3", seed: 7 }).addMany(keys),
      cuckoo,
    ];
    for (const filter of filters) {
      const bytes = filter.serialize();
      const copy = deserialize(bytes);
      expect(copy.constructor).toBe(filter.constructor);
      // ScalableBloomFilter does not report its hash; its bytes, which record it, come back the same.
      if (copy instanceof BloomFilter || copy instanceof CountingBloomFilter || copy instanceof CuckooFilter) {
        expect([copy.hash, copy.seed]).toEqual(["xxh3", 7]);
      } else expect(copy).toBeInstanceOf(ScalableBloomFilter);
      expect(copy.serialize()).toEqual(bytes);
      expect(Array.from(copy.hasMany(sample))).toEqual(Array.from(filter.hasMany(sample)));
      expect(ones(copy.hasMany(keys))).toBe(keys.length);
    }
  });
});

describe("xxh3 is the default hash of the standard, counting, scalable and cuckoo filters", () => {
  const keys = members.slice(0, 5_000);
  const sample = probes.slice(0, 20_000);
  type Made = BloomFilter | CountingBloomFilter | ScalableBloomFilter | CuckooFilter;
  const makers: [string, (options?: { hash: "xxh3" | "xxh64" }) => Made][] = [
    ["BloomFilter", (options) => BloomFilter.create(5_000, 0.01, options)],
    ["CountingBloomFilter", (options) => CountingBloomFilter.create(5_000, 0.01, options)],
    ["ScalableBloomFilter", (options) => ScalableBloomFilter.create(500, 0.01, options)],
    ["CuckooFilter", (options) => CuckooFilter.create(5_000, 0.01, options)],
  ];

  it.each(makers)("%s without a hash option writes the bytes of { hash: \"xxh3\" }", (_name, make) => {
    expect(DEFAULT_HASH).toBe("xxh3");
    const byDefault = make().addMany(keys);
    expect(byDefault.serialize()).toEqual(make({ hash: "xxh3" }).addMany(keys).serialize());
    expect(byDefault.serialize()).not.toEqual(make({ hash: "xxh64" }).addMany(keys).serialize());
  });

  it.each(makers)("%s written with xxh64 (the earlier default) loads as xxh64 and answers as before", (_name, make) => {
    const written = make({ hash: "xxh64" }).addMany(keys);
    const bytes = written.serialize();
    const loaded = deserialize(bytes);
    if (!(loaded instanceof ScalableBloomFilter)) expect((loaded as Exclude<Made, ScalableBloomFilter>).hash).toBe("xxh64");
    expect(ones(loaded.hasMany(keys))).toBe(keys.length);
    expect(Array.from(loaded.hasMany(sample))).toEqual(Array.from(written.hasMany(sample)));
    // Keys added after loading are indexed with the file's hash, not the new default.
    loaded.addMany(sample.slice(0, 100));
    written.addMany(sample.slice(0, 100));
    expect(Array.from(loaded.hasMany(sample))).toEqual(Array.from(written.hasMany(sample)));
    // A cuckoo filter's evictions pick their victims at random, so only its answers are compared.
    if (!(loaded instanceof CuckooFilter)) expect(loaded.serialize()).toEqual(written.serialize());
  });
});
