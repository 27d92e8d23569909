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

describe.each(growable)("%s refuses bytes it cannot read, and changes nothing", (_name, make) => {
  /** A view whose buffer was transferred: its length reads 0, and any copy of it throws. */
  const detached = <T extends Uint8Array | Uint32Array>(view: T): T => {
    structuredClone(view.buffer, { transfer: [view.buffer as ArrayBuffer] });
    return view;
  };

  it("names a transferred (detached) key, batch, buffer or integer array, after 20,000 good keys too", () => {
    const filter = make();
    filter.addMany(keys.slice(0, 100));
    const before = filter.serialize();
    const calls: [string, () => unknown, RegExp][] = [
      ["add", () => filter.add(detached(new Uint8Array(4))), /^key must be readable, got a Uint8Array whose buffer was transferred/],
      ["has", () => filter.has(detached(new Uint8Array(4))), /^key must be readable/],
      // The bad key comes after a whole chunk (16,384 keys) of good ones: nothing of the batch may be added.
      ["addMany", () => filter.addMany([...urls(20_000, "contract-detached", 44), detached(new Uint8Array(4))]), /^keys\[20000\] must be readable/],
      ["hasMany", () => filter.hasMany(["a", detached(new Uint8Array(4))]), /^keys\[1\] must be readable/],
      ["addPacked", () => filter.addPacked(detached(new Uint8Array(4)), new Uint32Array(0)), /^bytes must be readable/],
      ["addPacked ends", () => filter.addPacked(new Uint8Array(4), detached(new Uint32Array(1))), /^ends must be readable/],
      ["addLines", () => filter.addLines(detached(new Uint8Array(4))), /^buffer must be readable/],
      ["addInts", () => (filter as BloomFilter).addInts(detached(new Uint32Array(4))), /^keys must be readable, got a Uint32Array whose buffer was transferred/],
    ];
    for (const [what, call, message] of calls) {
      expect(call, what).toThrow(TypeError);
      expect(call, what).toThrow(message);
      expect(filter.serialize(), what).toEqual(before);
    }
  });

  it("names a view past the end of its resizable buffer (shrunk since), which reads as empty as a transferred one does", () => {
    const filter = make();
    filter.addMany(keys.slice(0, 100));
    const before = filter.serialize();
    /** A view of `length` elements over a resizable buffer shrunk below its end: its length reads 0, and any copy of it throws. */
    const shrunk = <T extends Uint8Array | Uint32Array>(Type: { new (buffer: ArrayBuffer, offset: number, length: number): T }, length: number): T => {
      const buffer = new ArrayBuffer(64, { maxByteLength: 64 });
      const view = new Type(buffer, 8, length);
      buffer.resize(4);
      return view;
    };
    const message = (name: string, type: string) => new TypeError(`${name} must be readable, got a ${type} past the end of its resizable buffer (shrunk since it was made)`);
    const calls: [string, () => unknown, TypeError][] = [
      ["add", () => filter.add(shrunk(Uint8Array, 4)), message("key", "Uint8Array")],
      ["has", () => filter.has(shrunk(Uint8Array, 4)), message("key", "Uint8Array")],
      ["addMany", () => filter.addMany([...urls(20_000, "contract-shrunk", 45), shrunk(Uint8Array, 4)]), message("keys[20000]", "Uint8Array")],
      ["addPacked", () => filter.addPacked(shrunk(Uint8Array, 4), new Uint32Array(0)), message("bytes", "Uint8Array")],
      ["addPacked ends", () => filter.addPacked(new Uint8Array(4), shrunk(Uint32Array, 1)), message("ends", "Uint32Array")],
      ["addLines", () => filter.addLines(shrunk(Uint8Array, 4)), message("buffer", "Uint8Array")],
      ["hasLines", () => filter.hasLines(shrunk(Uint8Array, 4)), message("buffer", "Uint8Array")],
      ["addInts", () => (filter as BloomFilter).addInts(shrunk(Uint32Array, 4)), message("keys", "Uint32Array")],
    ];
    for (const [what, call, error] of calls) {
      expect(call, what).toThrow(error);
      expect(filter.serialize(), what).toEqual(before);
    }
    // A view with no elements over such a buffer is an empty key, as any empty view is.
    const empty = new Uint8Array(new ArrayBuffer(4, { maxByteLength: 8 }), 4, 0);
    expect(filter.has(empty)).toBe(filter.has(""));
  });

  it("says a typed array from another realm is one, instead of refusing a Uint32Array for not being a Uint32Array", async () => {
    const { runInNewContext } = await import("node:vm");
    const filter = make() as BloomFilter;
    expect(() => filter.hasInts(runInNewContext("new Uint32Array([1])"))).toThrow(/^keys must be a Uint32Array or a BigUint64Array, got a Uint32Array from another realm/);
    expect(() => filter.hasPacked(new Uint8Array(1), runInNewContext("new Uint32Array([1])"))).toThrow(/^ends must be a Uint32Array, got a Uint32Array from another realm/);
  });
});

describe("BinaryFuseFilter refuses bytes it cannot read", () => {
  it("names a transferred (detached) key, buffer or integer array", () => {
    const detached = <T extends Uint8Array | Uint32Array>(view: T): T => {
      structuredClone(view.buffer, { transfer: [view.buffer as ArrayBuffer] });
      return view;
    };
    expect(() => BinaryFuseFilter.build(["a", detached(new Uint8Array(4))])).toThrow(/^keys\[1\] must be readable/);
    expect(() => BinaryFuseFilter.buildLines(detached(new Uint8Array(4)))).toThrow(/^buffer must be readable/);
    expect(() => BinaryFuseFilter.buildInts(detached(new Uint32Array(4)))).toThrow(/^keys must be readable/);
    const filter = BinaryFuseFilter.build(keys);
    expect(() => filter.has(detached(new Uint8Array(4)))).toThrow(/^key must be readable/);
    expect(() => filter.hasInts(detached(new Uint32Array(4)))).toThrow(/^keys must be readable/);
  });
});
