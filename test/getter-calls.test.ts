// A batch writes each key of an array into its memory's batch area as it
// reads it. A key's getter (or a Proxy) that calls bloomkit meanwhile would
// write that call's keys over the chunk being written, and the batch would
// then add or ask those bytes instead of its own keys: false negatives, in
// any filter of that memory. Such a call is refused, and the batch's own
// keys all go in.
import { describe, expect, it } from "vitest";
import { BinaryFuseFilter, BloomFilter, CountingBloomFilter, CuckooFilter, ScalableBloomFilter, SplitBlockBloomFilter, hashMany } from "../bindings/index.js";
import { defaultArena } from "../bindings/memory.js";
import { urls } from "./helpers.js";

type Batch = { addMany(keys: readonly (string | Uint8Array)[]): unknown; hasMany(keys: readonly (string | Uint8Array)[]): Uint8Array; has(key: string | Uint8Array): boolean; dispose(): void };

const makers: [string, () => Batch][] = [
  ["BloomFilter", () => BloomFilter.create(50_000, 0.01)],
  ["SplitBlockBloomFilter", () => SplitBlockBloomFilter.create(50_000, 0.01)],
  ["CountingBloomFilter", () => CountingBloomFilter.create(50_000, 0.01)],
  ["CuckooFilter", () => CuckooFilter.create(50_000, 0.01)],
  ["ScalableBloomFilter", () => ScalableBloomFilter.create(5_000, 0.01)],
];

/** Calls a getter may make: on the filter being filled, on another filter of the same memory, and the hash API. */
const calls: [string, (filter: Batch, other: BloomFilter) => unknown][] = [
  ["the same filter's hasMany", (filter) => filter.hasMany(["q1", "q2", "q3", "q4"])],
  ["the same filter's has of a string", (filter) => filter.has("a string key")],
  ["another filter's hasMany", (_, other) => other.hasMany(["q1", "q2", "q3", "q4"])],
  ["another filter's has of bytes", (_, other) => other.has(new TextEncoder().encode("a byte key"))],
  ["another filter's addMany", (_, other) => other.addMany(["added from a getter"])],
  ["hashMany", () => hashMany("xxh64", ["q1", "q2"])],
];

describe("a call into bloomkit from a key's getter while a batch reads its keys", () => {
  it.each(makers)("%s: is refused, and the batch takes every one of its keys", (_name, make) => {
    const keys = urls(20_000, "getter-calls", 95);
    for (const [what, call] of calls) {
      const filter = make();
      const other = BloomFilter.create(1_000, 0.01);
      const given = keys.slice();
      // In the second chunk of 16,384 keys, on the read that writes the key (the first sizes the batch).
      let reads = 0;
      let refused: unknown;
      Object.defineProperty(given, 17_000, {
        get: () => {
          if (++reads === 2) {
            try {
              call(filter, other);
            } catch (error) {
              refused = error;
            }
          }
          return keys[17_000];
        },
      });
      filter.addMany(given);
      expect(String(refused), what).toBe(
        "TypeError: bloomkit was called from a key's getter or a Proxy while a batch was reading its keys into the same wasm memory, which it refuses: this call's keys would go over the batch's; pass an array of fixed keys",
      );
      expect(filter.hasMany(keys).every((answer) => answer === 1), what).toBe(true);
      expect(other.has("added from a getter"), what).toBe(false);
      // The memory's batch area is its own again: one-key calls and batches go on.
      expect([filter.has(keys[3]), other.addMany(["later"]).has("later")], what).toEqual([true, true]);
      filter.dispose();
      other.dispose();
    }
  });

  it("the same call from a getter read before the batch writes any key (as it sizes the batch) is not refused", () => {
    const filter = BloomFilter.create(50_000, 0.01);
    const other = BloomFilter.create(1_000, 0.01);
    const keys = urls(20_000, "getter-calls", 95);
    const given = keys.slice();
    let reads = 0;
    Object.defineProperty(given, 17_000, {
      get: () => {
        if (++reads === 1) other.addMany(["added while sizing"]);
        return keys[17_000];
      },
    });
    filter.addMany(given);
    expect(filter.hasMany(keys).every((answer) => answer === 1)).toBe(true);
    expect(other.has("added while sizing")).toBe(true);
  });

  it("a filter made from a key's getter, which grows the memory, leaves the batch its keys", () => {
    // Made while the batch writes its keys, a filter larger than the memory's free room grows it, which empties the
    // views the batch writes through: the batch failed with Node's own RangeError '"offset" is outside of buffer bounds'.
    // (A binary fuse filter of fewer than about 170,000 keys builds in the same memory.)
    const keys = urls(20_000, "getter-grows", 96);
    const batches: [string, (given: string[]) => { hasMany(keys: readonly string[]): Uint8Array; dispose(): void }][] = [
      ...makers.map(([name, make]): [string, (given: string[]) => Batch] => [name, (given) => {
        const filter = make();
        filter.addMany(given);
        return filter;
      }]),
      ["BinaryFuseFilter.build", (given) => BinaryFuseFilter.build(given)],
    ];
    for (const [name, fill] of batches) {
      const given = keys.slice();
      let reads = 0;
      let made: BloomFilter | undefined;
      let grown = false;
      // On the read that writes the key (the ones before size the batch).
      const writing = name === "BinaryFuseFilter.build" ? 3 : 2;
      Object.defineProperty(given, 17_000, {
        get: () => {
          if (++reads === writing) {
            const before = defaultArena().memoryBytes;
            made = BloomFilter.withSize(Math.min(before, 32 << 20) * 8, 7);
            grown = defaultArena().memoryBytes > before;
          }
          return keys[17_000];
        },
      });
      const filter = fill(given);
      expect(grown, name).toBe(true);
      expect(filter.hasMany(keys).every((answer) => answer === 1), name).toBe(true);
      filter.dispose();
      made!.dispose();
    }
  });
});
