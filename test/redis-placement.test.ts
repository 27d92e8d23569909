// Where a filter kept in Redis puts a key, computed from m, k, hash, seed and
// segment count alone (bloomIndicesOf, no block of bits), against a local
// BloomFilter of the same shape; and local filters held in more segments than
// they need, as toBloomFilter makes them. No Redis server needed.
import { describe, expect, it } from "vitest";
import { BloomFilter } from "../bindings/index.js";
import { resolveHashing } from "../bindings/hashing.js";
import { segmentIndices, type BloomShape } from "../bindings/indices.js";
import { hashId } from "../bindings/hash.js";
import type { KeySource } from "../bindings/batch.js";
import { FormatError } from "../bindings/format.js";
import { PIECE_KEYS, pieces } from "../bindings/redis/pieces.js";
import { firstDifference, ones, urls } from "./helpers.js";

/** Adds a batch through the local filter's own add kernels (not through placement). */
function addSource(filter: BloomFilter, source: KeySource): void {
  if (source.kind === "keys") filter.addMany(source.keys);
  else if (source.kind === "lines") filter.addLines(source.buffer);
  else if (source.kind === "ints") filter.addInts(source.keys);
  else throw new Error(`no add for ${source.kind} in this test`);
}

/** The global index of every bit set in a filter's bit array. */
function setBits(array: Uint8Array): Set<number> {
  const bits = new Set<number>();
  for (let i = 0; i < array.length * 8; i++) if ((array[i >> 3] >> (i & 7)) & 1) bits.add(i);
  return bits;
}

describe("Redis placement", () => {
  const cases = [
    { bits: 95_851, hashes: 7, hash: "xxh64", seed: 0, segments: 1, strategy: "triple" },
    { bits: 64 * 5 * 3001, hashes: 10, hash: "murmur3_128", seed: 42, segments: 5, strategy: "triple" },
    { bits: 64 * 7 * 999, hashes: 3, hash: "xxh3", seed: 9, segments: 7, strategy: "triple" },
    { bits: 95_851, hashes: 7, hash: "xxh64", seed: 0, segments: 1, strategy: "double" },
    { bits: 64 * 5 * 3001, hashes: 10, hash: "murmur3_128", seed: 42, segments: 5, strategy: "double" },
  ] as const;
  for (const c of cases) {
    it(`matches a local filter of ${c.bits} bits in ${c.segments} segment(s), ${c.hash} seed ${c.seed}, ${c.strategy} hashing`, () => {
      const hashing = resolveHashing({ hash: c.hash, seed: c.seed, strategy: c.strategy });
      const local = BloomFilter.inSegments(c.bits, c.hashes, hashing, c.segments);
      const shape: BloomShape = { segmentBits: c.bits / c.segments, segments: c.segments, hashes: c.hashes, strategy: c.strategy, keyHash: { id: hashId(c.hash), seed: c.seed } };
      // 40,000 keys: more than one chunk of the batch layer (16,384), so chunk offsets are exercised.
      const keys = urls(40_000, "placement", c.segments);
      const sources: KeySource[] = [
        { kind: "keys", keys },
        { kind: "lines", buffer: new TextEncoder().encode(keys.slice(0, 5000).join("\r\n")) },
        { kind: "ints", keys: Uint32Array.from({ length: 20_000 }, (_, i) => i * 2654435761) },
        { kind: "ints", keys: BigUint64Array.from({ length: 3000 }, (_, i) => BigInt(i) * 0x9e3779b97f4a7c15n) },
      ];
      for (const source of sources) {
        // Placement as the Redis filter sees it, against the bits a local filter's add kernels set for the same batch.
        const mine = segmentIndices(shape, source);
        const theirs = local.indices(source);
        expect(mine.length).toBe(theirs.length);
        expect(firstDifference(new Uint8Array(mine.buffer), new Uint8Array(theirs.buffer))).toBe(-1);
        const added = BloomFilter.inSegments(c.bits, c.hashes, hashing, c.segments);
        addSource(added, source);
        expect(setBits(added.bitArray())).toEqual(new Set(mine));
        added.dispose();
      }
      // The first 100 keys alone, where the filter is far from full: exactly the placed bits are set.
      local.addMany(keys.slice(0, 100));
      expect(setBits(local.bitArray())).toEqual(new Set(segmentIndices(shape, { kind: "keys", keys: keys.slice(0, 100) })));
      local.dispose();
    });
  }

  it("keeps a filter held in more segments than it needs, through serialisation, and refuses impossible counts", () => {
    const hashing = resolveHashing({});
    const mirror = BloomFilter.inSegments(64 * 8 * 100, 7, hashing, 8);
    expect(mirror.segmentCount).toBe(8);
    const keys = urls(3000, "mirror", 3);
    mirror.addMany(keys);
    const again = BloomFilter.deserialize(mirror.serialize());
    expect(again.segmentCount).toBe(8);
    expect(ones(again.hasMany(keys))).toBe(keys.length);
    const probes = urls(20_000, "mirror-probe", 4);
    expect(again.hasMany(probes)).toEqual(mirror.hasMany(probes));
    // The same bits in one segment route keys differently: the segment count is part of the filter.
    const single = BloomFilter.withSize(64 * 8 * 100, 7);
    single.addMany(keys);
    expect(single.hasMany(probes)).not.toEqual(mirror.hasMany(probes));
    expect(() => BloomFilter.inSegments(1000, 7, hashing, 3)).toThrow(RangeError);
    expect(() => BloomFilter.inSegments(64 * 65, 7, hashing, 65)).toThrow(RangeError);
    // A record whose segment count does not divide m into whole words is corrupted.
    const bytes = mirror.serialize();
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    // The parameters start at byte 12; the segment count follows m, base m, k, count and a one-hash hashing block.
    const segmentsAt = 12 + 8 + 8 + 4 + 8 + 9;
    expect(view.getUint32(segmentsAt, true)).toBe(8);
    view.setUint32(segmentsAt, 7, true);
    expect(() => BloomFilter.deserialize(bytes)).toThrow(FormatError);
    for (const f of [mirror, again, single]) f.dispose();
  });
});

describe("a batch of lines for Redis, cut into pieces (one script call each)", () => {
  it("cuts every piece at most PIECE_KEYS lines and 256 KiB, after a newline, and loses no byte", () => {
    const texts = [
      "\n".repeat(1 << 20), // a megabyte of empty lines: 2^20 keys
      "ab\n".repeat(300_000), // 2-byte lines
      urls(20_000, "pieces", 91).join("\n"), // URLs, no final newline
      "x".repeat(600_000) + "\n" + "y\n".repeat(5_000), // one line longer than a piece, then short ones
    ];
    for (const text of texts) {
      const buffer = new TextEncoder().encode(text);
      const parts = pieces({ kind: "lines", buffer });
      let joined = 0;
      for (const part of parts) {
        const bytes = (part as { buffer: Uint8Array }).buffer;
        expect(bytes.byteOffset - buffer.byteOffset).toBe(joined);
        joined += bytes.length;
        const newlines = bytes.reduce((sum, byte) => sum + (byte === 10 ? 1 : 0), 0);
        const keys = newlines + (bytes[bytes.length - 1] === 10 ? 0 : 1);
        expect(keys).toBeLessThanOrEqual(PIECE_KEYS);
        // A piece ends after a newline, but for the buffer's last.
        if (joined < buffer.length) expect(bytes[bytes.length - 1]).toBe(10);
        if (keys > 1) expect(bytes.length).toBeLessThanOrEqual(1 << 18);
      }
      expect(joined).toBe(buffer.length);
    }
  });
});
