// Batches that cross the chunk boundaries of the batch layer (16,384 keys or
// 1 MiB of key bytes per wasm call) on the paths where a chunk is copied out
// of one memory into another: shared filters (hashed in the thread's own
// arena, run in the shared memory) and filters in segments. Seeded random
// batches against an exact model: every key added answers present, through
// every route, and single keys answer as batches do.
import { describe, expect, it } from "vitest";
import { BloomFilter, ScalableBloomFilter, SplitBlockBloomFilter } from "../bindings/index.js";
import { Arena, ARENA_MAX_BYTES } from "../bindings/arena.js";
import { resolveHashing } from "../bindings/hashing.js";
import { firstDifference, rng } from "./helpers.js";

const encoder = new TextEncoder();

/** Keys packed in one buffer: bytes and ends. */
function packed(keys: Uint8Array[]): { bytes: Uint8Array; ends: Uint32Array } {
  const ends = new Uint32Array(keys.length);
  let at = 0;
  keys.forEach((key, i) => (ends[i] = at += key.length));
  const bytes = new Uint8Array(at);
  keys.forEach((key, i) => bytes.set(key, ends[i] - key.length));
  return { bytes, ends };
}

/** `count` distinct keys `prefix:i` padded with random letters to 0–`maxLength` more bytes. */
function keys(count: number, maxLength: number, prefix: string, random: () => number): Uint8Array[] {
  return Array.from({ length: count }, (_, i) => encoder.encode(`${prefix}:${i}:${"q".repeat(Math.floor(random() * (maxLength + 1)))}`));
}

describe("a scalable filter of the independent strategy, packed keys some of which it holds", () => {
  it("answers present for every key of an addPacked buffer larger than the scratch area's address (seeded)", () => {
    const random = rng(3);
    for (let round = 0; round < 3; round++) {
      const filter = ScalableBloomFilter.create(400_000, 0.001, { hash: ["djb", "sdbm", "fnv1a_32"] });
      const held = new Set<string>();
      const before = Array.from({ length: 1000 }, (_, i) => `old-${round}-${i}`);
      filter.addMany(before);
      for (const key of before) held.add(key);
      // Keys the filter holds already, mixed in: the layers' pass leaves them out of the keys it adds (a subset of the chunk).
      const batch = Array.from({ length: 200_000 + Math.floor(random() * 100_000) }, (_, i) =>
        random() < 0.1 ? before[Math.floor(random() * before.length)] : `new-${round}-${i}-${"n".repeat(Math.floor(random() * 20))}`,
      );
      const { bytes, ends } = packed(batch.map((key) => encoder.encode(key)));
      filter.addPacked(bytes, ends);
      for (const key of batch) held.add(key);
      const keysHeld = [...held];
      const answers = filter.hasMany(keysHeld);
      const absent = keysHeld.filter((_, i) => answers[i] !== 1);
      expect(absent.length, `round ${round}: ${absent.length} of ${keysHeld.length} keys added answer absent, such as ${JSON.stringify(absent.slice(0, 3))}`).toBe(0);
      for (let probe = 0; probe < 300; probe++) {
        const key = keysHeld[Math.floor(random() * keysHeld.length)];
        expect(filter.has(key), `round ${round}: has(${JSON.stringify(key)})`).toBe(true);
      }
      filter.dispose();
    }
  });
});

describe("a shared filter of the independent strategy, packed keys past the first chunk", () => {
  it("answers present for every key added by addPacked, however far into the buffer the chunk starts (seeded)", () => {
    const random = rng(7);
    for (let round = 0; round < 4; round++) {
      const filter = BloomFilter.create(200_000, 0.01, { hash: ["djb", "sdbm", "fnv1a_32"], shared: true });
      const model: Uint8Array[] = [];
      for (let batch = 0; batch < 3; batch++) {
        // Up to 40,000 keys of up to 180 bytes: several chunks, cut by key count or by bytes.
        const added = keys(1 + Math.floor(random() * 40_000), Math.floor(random() * 180), `${round}.${batch}`, random);
        const { bytes, ends } = packed(added);
        filter.addPacked(bytes, ends);
        model.push(...added);
        const answers = filter.hasPacked(packed(model).bytes, packed(model).ends);
        const absent = model.findIndex((_, i) => answers[i] !== 1);
        expect(absent, `round ${round} batch ${batch}: key ${absent} of ${model.length} added, answered absent`).toBe(-1);
        // One key at a time gives the batch's answers.
        for (let probe = 0; probe < 200; probe++) {
          const i = Math.floor(random() * model.length);
          expect(filter.has(model[i]), `round ${round} batch ${batch}: has(key ${i})`).toBe(true);
        }
      }
      expect(filter.size).toBeLessThanOrEqual(model.length);
      expect(filter.size).toBeGreaterThan(model.length * 0.98);
      filter.dispose();
    }
  });

  it("testAndAddPacked over a buffer of several chunks gives the private filter's answers and bits", () => {
    const random = rng(11);
    const hashing = { hash: ["djb", "sdbm", "fnv1a_32"] as ("djb" | "sdbm" | "fnv1a_32")[] };
    const shared = BloomFilter.create(100_000, 0.01, { ...hashing, shared: true });
    const own = BloomFilter.create(100_000, 0.01, hashing);
    const base = keys(30_000, 120, "k", random);
    // Repeats inside the batch and across batches.
    const batch = [...base, ...base.slice(0, 5_000)];
    const { bytes, ends } = packed(batch);
    expect(Array.from(shared.testAndAddPacked(bytes, ends))).toEqual(Array.from(own.testAndAddPacked(bytes, ends)));
    expect(Buffer.from(shared.bitArray()).equals(Buffer.from(own.bitArray()))).toBe(true);
    expect(shared.size).toBe(own.size);
    shared.dispose();
    own.dispose();
  });
});

describe("a key longer than the batch area, in a memory with no room for a larger one", () => {
  /**
   * A Bloom filter of 2^20 bits in a memory of its own (an Arena, so no free-memory check) whose room above the filter is
   * `room` bytes: the engine reserves the memory's 4 GiB of addresses, and only the pages written take memory.
   */
  function cramped(room: number): BloomFilter {
    const arena = new Arena();
    const filterBytes = 2 ** 17 + 4096;
    expect(arena.alloc(ARENA_MAX_BYTES - arena.base - filterBytes - room)).not.toBe(0);
    return BloomFilter.fromFill(2 ** 20, 5, resolveHashing({}), 0, [arena], () => {});
  }

  it("refuses it naming the argument, before any key of the batch is added, on every route (seeded)", () => {
    const random = rng(21);
    const filter = cramped(3 * 2 ** 20);
    const added = new Set<string>();
    const long = (n: number) => `long-${n}-${"L".repeat(2 ** 21 + Math.floor(random() * 2 ** 20))}`;
    for (let step = 0; step < 40; step++) {
      const keys = Array.from({ length: 1 + Math.floor(random() * 3000) }, (_, i) => `k-${step}-${i}`);
      const tooLong = random() < 0.5;
      // The long key anywhere in the batch, after keys that fit.
      if (tooLong) keys.splice(1 + Math.floor(random() * keys.length), 0, long(step));
      const before = filter.bitArray();
      const size = filter.size;
      const route = ["lines", "many", "bytes", "packed"][step % 4];
      const call = () => {
        if (route === "lines") filter.addLines(encoder.encode(keys.join(random() < 0.5 ? "\n" : "\r\n")));
        else if (route === "many") filter.addMany(keys);
        else if (route === "bytes") filter.addMany(keys.map((key) => encoder.encode(key)));
        else {
          const { bytes, ends } = packed(keys.map((key) => encoder.encode(key)));
          filter.addPacked(bytes, ends);
        }
      };
      if (tooLong) {
        const names = { lines: /^the line at byte \d+ of buffer, with its line ending, is \d+ bytes and does not fit/, many: /^keys\[\d+\] is \d+ bytes and does not fit/, bytes: /^keys\[\d+\] is \d+ bytes and does not fit/, packed: /^packed key \d+ \(bytes \d+ to \d+\) is \d+ bytes and does not fit/ };
        expect(call, `step ${step} via ${route}`).toThrow(RangeError);
        expect(call, `step ${step} via ${route}`).toThrow(names[route as keyof typeof names]);
        expect(firstDifference(filter.bitArray(), before), `step ${step} via ${route}: a refused batch changed the bits`).toBe(-1);
        expect(filter.size, `step ${step} via ${route}: a refused batch changed the size`).toBe(size);
      } else {
        call();
        for (const key of keys) added.add(key);
      }
      const all = [...added];
      const answers = filter.hasMany(all);
      expect(all.filter((_, i) => answers[i] !== 1), `step ${step}: added keys answering absent`).toEqual([]);
    }
    expect(() => filter.has(long(99))).toThrow(/^key is \d+ bytes and does not fit/);
    filter.dispose();
  });

  it("takes a string whose UTF-8 bytes fit the area as it is, though 3 bytes a character would not", () => {
    const filter = cramped(2 ** 21);
    // 600,000 ASCII characters: at most 1.8 MB as UTF-8 by the bound, 600,000 bytes in fact, within the 1 MiB area.
    const key = "a".repeat(600_000);
    expect(filter.has(key)).toBe(false);
    filter.add(key);
    expect(filter.has(key)).toBe(true);
    expect(filter.hasMany([key, "b"])).toEqual(Uint8Array.of(1, 0));
    filter.dispose();
  });
});

describe("line ends of a buffer of 4 GiB", () => {
  it.each(["BloomFilter", "SplitBlockBloomFilter"] as const)("%s: hashLines and testAndAddLinesWithEnds refuse a buffer whose ends a Uint32Array cannot hold, before adding anything", (name) => {
    // Ends were lineBase + end stored in a Uint32Array: an end of 2^32 or more wrapped (the last line of a
    // 2^32-byte buffer "ended" at 0). The buffer is zeros the system gives lazily: it costs no memory here.
    const filter = name === "BloomFilter" ? BloomFilter.create(1000, 0.01) : SplitBlockBloomFilter.create(1000, 0.01);
    const buffer = Buffer.alloc(2 ** 32);
    const refusal = new RangeError(
      "buffer is 4294967296 bytes; its line ends are given as a Uint32Array, which holds ends up to 4294967295: pass it in pieces of at most that many bytes, each ending at the end of a line",
    );
    expect(() => filter.hashLines(buffer)).toThrow(refusal);
    expect(() => filter.testAndAddLinesWithEnds(buffer)).toThrow(refusal);
    expect(filter.size).toBe(0);
    expect(filter.serialize()).toEqual(name === "BloomFilter" ? BloomFilter.create(1000, 0.01).serialize() : SplitBlockBloomFilter.create(1000, 0.01).serialize());
    filter.dispose();
  });
});
