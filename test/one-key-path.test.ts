// The one-key fast path (WasmBlock.oneString) keeps the addresses of a
// filter's scratch area between calls. These tests make each thing that
// invalidates them happen between single-key calls, on filters that share one
// pool memory, and check every answer against an exact Set and against the
// batch path: the memory growing under the filter (another filter allocated
// in it), the scratch area replaced by a larger one (a key of a million
// characters), dispose, and keys the path does not take (bytes, long keys).
// The scalable filter's path (which also copies its layers' addresses) lapses
// as well when a layer is added.
import { describe, expect, it } from "vitest";
import { BloomFilter, CountingBloomFilter, CuckooFilter, ScalableBloomFilter, SplitBlockBloomFilter } from "../bindings/index.js";
import { rng } from "./helpers.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyFilter = any;

const KINDS: { name: string; make(n: number): AnyFilter }[] = [
  { name: "BloomFilter", make: (n) => BloomFilter.create(n, 0.01) },
  { name: "BloomFilter (independent hashes)", make: (n) => BloomFilter.create(n, 0.01, { hash: ["fnv1a_32", "djb", "sdbm"] }) },
  { name: "SplitBlockBloomFilter", make: (n) => SplitBlockBloomFilter.create(n, 0.01) },
  { name: "CountingBloomFilter", make: (n) => CountingBloomFilter.create(n, 0.01) },
  { name: "CuckooFilter", make: (n) => CuckooFilter.create(n, 0.01) },
  // Its first layer holds a quarter of n keys, so layers are added during the run (its arena: the newest layer's).
  { name: "ScalableBloomFilter", make: (n) => ScalableBloomFilter.create(Math.ceil(n / 4), 0.01) },
];

/** A random key: ASCII, Latin-1 or CJK characters and sometimes a lone surrogate, so UTF-8 takes 1 to 3 bytes per unit. */
function randomKey(random: () => number): string {
  const alphabets = ["abcdefghij/:.?=0123456789", "àéîõüßñç", "博客网址数据过滤器", "\ud800x"];
  let key = "";
  const length = 1 + Math.floor(random() * 40);
  for (let i = 0; i < length; i++) {
    const alphabet = alphabets[Math.floor(random() * random() * alphabets.length)];
    key += alphabet[Math.floor(random() * alphabet.length)];
  }
  return key;
}

describe.each(KINDS)("the one-key path of $name", ({ make }) => {
  it("answers as the batch path and an exact Set while its memory grows, its scratch area is replaced and filters come and go", () => {
    const random = rng(20261124);
    const filter = make(4000);
    const model = new Set<string>();
    // Other filters in the same memory, each with keys of its own: a write through a stale address would land in one.
    const others: { filter: AnyFilter; keys: string[] }[] = [];
    const another = (n: number) => {
      const keys = Array.from({ length: 50 }, (_, i) => `other ${others.length} ${i} ${randomKey(random)}`);
      const other = make(n);
      other.addMany(keys);
      others.push({ filter: other, keys });
    };
    const intact = () => others.every(({ filter: other, keys }) => Array.from(other.hasMany(keys)).every((answer) => answer === 1));
    const arena = filter.arena;
    const layersBefore = filter.layers;
    const grownBefore = arena.memory.buffer.byteLength;
    const scratchBefore = arena.scratch;
    for (let step = 0; step < 3000; step++) {
      // Halfway, the memory grows for sure (the holes earlier tests left may have taken every filter so far).
      if (step === 1500) while (arena.memory.buffer.byteLength === grownBefore) another(100_000);
      const key = randomKey(random);
      const roll = random();
      if (roll < 0.45) {
        filter.testAndAdd(key);
        model.add(key);
      } else if (roll < 0.9) {
        const answer = filter.has(key);
        if (model.has(key)) expect(answer, `lost "${key}" at step ${step}`).toBe(true);
        // One key alone and in a batch: the same answer.
        expect(filter.hasMany([key])[0]).toBe(answer ? 1 : 0);
      } else if (roll < 0.96) {
        // Another filter in the same memory: it may grow the memory, which empties every view of it.
        another(1000 + Math.floor(random() * 100_000));
      } else if (roll < 0.98 && others.length > 0) {
        expect(intact(), `another filter lost keys by step ${step}`).toBe(true);
        others.splice(Math.floor(random() * others.length), 1)[0].filter.dispose();
      } else if (roll < 0.985) {
        // A key too long for the scratch area: the arena takes a larger one and frees the old.
        // (Its UTF-8 bytes: a string within the area by them, though not by 3 bytes a character, takes the area as it is.)
        const long = `${key}${"é".repeat(Math.ceil(arena.scratch.capacity / 2) + Math.floor(random() * 1000))}`;
        // Alone, or in a batch (which replaces the scratch area behind the one-key path's back).
        if (random() < 0.5) filter.testAndAdd(long);
        else filter.addMany([long]);
        model.add(long);
      } else {
        const bytes = new TextEncoder().encode(key);
        expect(filter.has(bytes)).toBe(filter.hasMany([key])[0] === 1);
      }
    }
    // The events the path must survive did happen, in this filter's memory.
    expect(others.some(({ filter: other }) => other.arena === arena)).toBe(true);
    expect(filter.arena === arena).toBe(true);
    if (layersBefore !== undefined) expect(filter.layers).toBeGreaterThan(layersBefore);
    expect(intact()).toBe(true);
    expect(arena.memory.buffer.byteLength).toBeGreaterThan(grownBefore);
    expect(arena.scratch === scratchBefore).toBe(false);
    const keys = [...model];
    expect(keys.filter((key) => !filter.has(key))).toEqual([]);
    expect(Array.from(filter.hasMany(keys)).every((answer) => answer === 1)).toBe(true);
    for (const { filter: other } of others) other.dispose();
    filter.dispose();
    expect(() => filter.has("after")).toThrow(TypeError);
    expect(() => filter.testAndAdd("after")).toThrow(TypeError);
  });

  it("never writes a key into the scratch area a batch replaced and freed", () => {
    const filter = make(1000);
    filter.add("first");
    expect(filter.has("first")).toBe(true); // the path now holds the scratch area's addresses
    const arena = filter.arena;
    const old = arena.scratch;
    filter.addMany([`${"é".repeat(Math.ceil(old.capacity / 2))}z`]);
    expect(arena.scratch === old).toBe(false);
    // The old key room is free memory now: mark it, and make sure single keys go elsewhere.
    arena.u8().fill(0xa5, old.bytes, old.bytes + 256);
    expect(filter.has("first")).toBe(true);
    filter.add("second");
    expect(filter.has("second")).toBe(true);
    expect(arena.u8().subarray(old.bytes, old.bytes + 256).every((byte: number) => byte === 0xa5)).toBe(true);
    filter.dispose();
  });

  it("keeps the checks of the general path: a key that is not a string or bytes is a TypeError and changes nothing", () => {
    const filter = make(100);
    filter.add("kept");
    const before = filter.serialize();
    expect(() => filter.has(42)).toThrow(/key must be a string or a Uint8Array, got/);
    expect(() => filter.testAndAdd({})).toThrow(TypeError);
    expect(filter.serialize()).toEqual(before);
    expect(filter.has("kept")).toBe(true);
    filter.dispose();
  });
});

describe("the one-key path of ScalableBloomFilter across layers", () => {
  it("asks a layer a batch added, and adds to it once the newest layer is full", () => {
    const filter = ScalableBloomFilter.create(100, 0.01);
    filter.add("first");
    expect(filter.has("first")).toBe(true); // the path now holds the addresses of one layer
    const { arena } = filter;
    const scratch = arena.scratch;
    const bytes = arena.memory.buffer.byteLength;
    const batch = Array.from({ length: 1000 }, (_, i) => `batch key ${i}`);
    filter.addMany(batch);
    expect(filter.layers).toBeGreaterThan(1);
    // Nothing else made the path lapse: the new layer is in the same memory, which did not grow, with the same scratch area.
    expect(filter.arena === arena && arena.scratch === scratch && arena.memory.buffer.byteLength === bytes).toBe(true);
    expect(batch.filter((key) => !filter.has(key))).toEqual([]);
    // Single adds past the newest layer's capacity: each added layer is asked too.
    const layers = filter.layers;
    const sizeBefore = filter.size;
    const single = Array.from({ length: 3000 }, (_, i) => `single key ${i}`);
    let fresh = 0;
    for (const key of single) if (!filter.testAndAdd(key)) fresh++;
    expect(filter.layers).toBeGreaterThan(layers);
    expect(filter.size).toBe(sizeBefore + fresh);
    const all = [...batch, ...single, "first"];
    expect(all.filter((key) => !filter.has(key))).toEqual([]);
    // Each key was counted in the layer it went to: a layer over its capacity would not load.
    const again = ScalableBloomFilter.deserialize(filter.serialize());
    expect(Array.from(again.hasMany(all))).toEqual(Array.from(filter.hasMany(all)));
    again.dispose();
    filter.dispose();
  });
});
