// One test drives every filter type through the Filter interface (or its
// query half): the same keys by every route give the same answers, no key
// added is ever absent, and the bytes written in pieces read back the same.
import { describe, expect, it } from "vitest";
import {
  BinaryFuseFilter,
  BloomFilter,
  CountingBloomFilter,
  CuckooFilter,
  ScalableBloomFilter,
  SplitBlockBloomFilter,
  deserialize,
  deserializeChunks,
  type Filter,
  type FilterQueries,
} from "../bindings/index.js";
import { distinctInts, pack, urls } from "./helpers.js";

const encoder = new TextEncoder();
const keys = urls(3_000, "contract", 41);
const absent = urls(3_000, "contract-absent", 42);
const ints = distinctInts(3_000, true, 43);
const lines = (list: string[]) => encoder.encode(list.join("\n") + "\n");

const growable: [string, () => Filter][] = [
  ["BloomFilter", () => BloomFilter.create(10_000, 0.01)],
  ["SplitBlockBloomFilter", () => SplitBlockBloomFilter.create(10_000, 0.01)],
  ["ScalableBloomFilter", () => ScalableBloomFilter.create(1_000, 0.01)],
  ["CountingBloomFilter", () => CountingBloomFilter.create(10_000, 0.01)],
  ["CuckooFilter", () => CuckooFilter.create(10_000, 0.01)],
];

/** Every query route for the same keys; all must agree. */
function answersByRoute(filter: FilterQueries, probe: string[]): Uint8Array[] {
  const packed = pack(probe.map((key) => encoder.encode(key)));
  return [
    Uint8Array.from(probe, (key) => (filter.has(key) ? 1 : 0)),
    filter.hasMany(probe),
    filter.hasMany(probe.map((key) => encoder.encode(key))),
    filter.hasPacked(packed.bytes, packed.ends),
    filter.hasLines(lines(probe)),
  ];
}

describe.each(growable)("%s through the Filter interface", (name, make) => {
  it("answers alike by every route, never loses a key, and tells a repeat by every add route", () => {
    const a = make();
    const b = make();
    const c = make();
    a.addMany(keys.slice(0, 1000));
    for (const key of keys.slice(1000, 2000)) a.add(key);
    const packed = pack(keys.slice(2000).map((key) => encoder.encode(key)));
    a.addPacked(packed.bytes, packed.ends);
    a.addInts(ints);
    b.addLines(lines(keys));
    b.addInts(ints);
    expect(Array.from(c.testAndAddMany([...keys.slice(0, 5), keys[0]]))).toEqual([0, 0, 0, 0, 0, 1]);
    expect(c.testAndAdd(keys[1])).toBe(true);
    expect(c.testAndAdd("never before")).toBe(false);
    expect(Array.from(c.testAndAddLines(encoder.encode(`${keys[2]}\nfresh line\n`)))).toEqual([1, 0]);
    expect(Array.from(c.testAndAddInts(Uint32Array.of(ints[0], ints[0])))).toEqual([0, 1]);
    for (const filter of [a, b]) {
      for (const answers of answersByRoute(filter, keys)) expect(answers.every((hit) => hit === 1)).toBe(true);
      expect(filter.hasInts(ints).every((hit) => hit === 1)).toBe(true);
      const routes = answersByRoute(filter, absent);
      for (const answers of routes.slice(1)) expect(answers).toEqual(routes[0]);
      expect(routes[0].reduce((sum, hit) => sum + hit, 0)).toBeLessThan(absent.length * 0.03);
    }
    // The same keys by two routes: the same filter, byte for byte (a cuckoo table may place them differently).
    if (name !== "CuckooFilter") expect(a.serialize()).toEqual(b.serialize());
    expect(a.size).toBeGreaterThan(5_900);
    expect(a.bits).toBeGreaterThan(0);
    expect(a.toJSON().type).toBe(name);
    for (const filter of [a, b, c]) filter.dispose();
  });

  it("reads back the same from serialize() and from serializeChunks() pieces", async () => {
    const filter = make();
    filter.addMany(keys);
    const bytes = filter.serialize();
    const pieces = [...filter.serializeChunks(1000)];
    expect(pieces.length).toBeGreaterThan(2);
    expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
    const fromBytes = deserialize(bytes);
    const fromPieces = await deserializeChunks(pieces);
    for (const copy of [fromBytes, fromPieces]) {
      expect(copy.constructor.name).toBe(name);
      expect(copy.size).toBe(filter.size);
      expect(copy.hasMany(absent)).toEqual(filter.hasMany(absent));
      expect(copy.hasMany(keys).every((hit) => hit === 1)).toBe(true);
      copy.dispose();
    }
    {
      using scoped = make();
      scoped.add("x");
      expect(scoped.disposed).toBe(false);
    }
    filter.dispose();
    expect(filter.disposed).toBe(true);
    expect(() => filter.has("x")).toThrow(/disposed/);
  });
});

describe("BinaryFuseFilter through the query half of the interface", () => {
  it("answers alike by every route and holds every key", async () => {
    const filter: FilterQueries = BinaryFuseFilter.build(keys);
    for (const answers of answersByRoute(filter, keys)) expect(answers.every((hit) => hit === 1)).toBe(true);
    const routes = answersByRoute(filter, absent);
    for (const answers of routes.slice(1)) expect(answers).toEqual(routes[0]);
    const copy = await deserializeChunks((filter as BinaryFuseFilter).serializeChunks(100));
    expect(copy.hasMany(absent)).toEqual(routes[0]);
    expect(filter.size).toBe(keys.length);
    copy.dispose();
    filter.dispose();
  });
});
