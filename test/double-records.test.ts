// Records written before triple hashing became the default: their hashing
// block says double hashing (strategy 0), and they must load, answer and be
// written back exactly as before. test/fixtures/*-double-*.bin were written by
// bloomkit at commit 641c217 (the last with double hashing as the default)
// from these keys, with the options named in each case below.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BloomFilter, CountingBloomFilter, ScalableBloomFilter, deserialize } from "../bindings/index.js";
import { ones, urls } from "./helpers.js";

const strings = Array.from({ length: 1000 }, (_, i) => `https://example.com/fixture/${i}`);
const ints = Uint32Array.from({ length: 1000 }, (_, i) => Math.imul(i, 2654435761) >>> 0);
const stringProbes = [...strings, ...urls(20_000, "double-records", 301)];
const intProbes = Uint32Array.from([...ints, ...Array.from({ length: 20_000 }, (_, i) => (i * 7919 + 13) >>> 0)]);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));

type Made = BloomFilter | CountingBloomFilter | ScalableBloomFilter;
const cases: {
  name: string;
  load: (bytes: Uint8Array) => Made;
  /** The filter the old default made, made again with strategy "double", and the same made with today's default. */
  make: (strategy?: "double") => Made;
  ask: (filter: Made) => Uint8Array;
  members: number;
}[] = [
  {
    name: "bloom-double-strings.bin",
    load: (bytes) => BloomFilter.deserialize(bytes),
    make: (strategy) => BloomFilter.create(1000, 0.001, strategy ? { strategy } : {}).addMany(strings),
    ask: (filter) => filter.hasMany(stringProbes),
    members: strings.length,
  },
  {
    name: "bloom-double-ints.bin",
    load: (bytes) => BloomFilter.deserialize(bytes),
    make: (strategy) => BloomFilter.create(1000, 0.01, { hash: "murmur3_128", seed: 7, ...(strategy ? { strategy } : {}) }).addInts(ints),
    ask: (filter) => (filter as BloomFilter).hasInts(intProbes),
    members: ints.length,
  },
  {
    name: "counting-double-strings.bin",
    load: (bytes) => CountingBloomFilter.deserialize(bytes),
    make: (strategy) => CountingBloomFilter.create(1000, 0.01, strategy ? { strategy } : {}).addMany(strings),
    ask: (filter) => filter.hasMany(stringProbes),
    members: strings.length,
  },
  {
    name: "scalable-double-strings.bin",
    load: (bytes) => ScalableBloomFilter.deserialize(bytes),
    make: (strategy) => ScalableBloomFilter.create(100, 0.01, strategy ? { strategy } : {}).addMany(strings),
    ask: (filter) => filter.hasMany(stringProbes),
    members: strings.length,
  },
];

describe("records written with double hashing, before triple hashing was the default", () => {
  it.each(cases)("$name loads as double hashing, holds every key and is written back byte for byte", ({ name, load, make, ask, members }) => {
    const record = fixture(name);
    const old = load(record);
    expect(old.strategy).toBe("double");
    const answers = ask(old);
    expect(ones(answers.subarray(0, members))).toBe(members);
    expect(old.serialize()).toEqual(record);
    expect(ask(deserialize(record) as Made)).toEqual(answers);
    // Made again with strategy "double", the same keys give the same record: the double hashing path is unchanged.
    const again = make("double");
    expect(again.serialize()).toEqual(record);
    // Today's default indexes the keys otherwise: another record, every key still present.
    const fresh = make();
    expect(fresh.strategy).toBe("triple");
    expect(fresh.serialize()).not.toEqual(record);
    expect(ones(ask(fresh).subarray(0, members))).toBe(members);
    for (const filter of [old, again, fresh]) filter.dispose();
  });

  it("a double-hashing record and a triple-hashing filter are not combined into a wrong one", () => {
    const old = BloomFilter.deserialize(fixture("bloom-double-strings.bin"));
    const fresh = BloomFilter.create(1000, 0.001).addMany(["another key"]);
    const before = old.serialize();
    expect(() => old.union(fresh)).toThrow(/strategy: this filter's is double, other's is triple/);
    expect(() => old.intersect(fresh)).toThrow(/strategy: this filter's is double, other's is triple/);
    expect(old.serialize()).toEqual(before);
    // Created with the record's strategy, a new filter combines with it.
    const same = BloomFilter.create(1000, 0.001, { strategy: old.strategy }).addMany(["another key"]);
    const union = old.union(same);
    expect(ones(union.hasMany([...strings, "another key"]))).toBe(strings.length + 1);
  });
});
