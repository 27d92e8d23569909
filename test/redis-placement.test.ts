// Where a filter kept in Redis puts a key, computed from m, k, hash, seed and
// segment count alone (bloomIndicesOf, no block of bits), against a local
// BloomFilter of the same shape; and local filters held in more segments than
// they need, as toBloomFilter makes them. No Redis server needed.
import { describe, expect, it } from "vitest";
import { BloomFilter } from "../bindings/index.js";
import { resolveHashing } from "../bindings/hashing.js";
import { forEachPlacement, type BloomShape } from "../bindings/indices.js";
import { hashId } from "../bindings/hash.js";
import type { KeySource } from "../bindings/batch.js";
import { FormatError } from "../bindings/format.js";
import { firstDifference, ones, urls } from "./helpers.js";

/** Every key's global indices (segment · segmentBits + index within it), as BloomFilter.indices gives them. */
function placed(shape: BloomShape, source: KeySource): Float64Array {
  const parts: Float64Array[] = [];
  forEachPlacement(shape, source, ({ count, segmentOf, indices }) => {
    const global = Float64Array.from(indices);
    for (let j = 0; j < count; j++) for (let t = 0; t < shape.hashes; t++) global[j * shape.hashes + t] += (segmentOf ? segmentOf[j] : 0) * shape.segmentBits;
    parts.push(global);
  });
  const out = new Float64Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe("Redis placement", () => {
  const cases = [
    { bits: 95_851, hashes: 7, hash: "xxh64", seed: 0, segments: 1 },
    { bits: 64 * 5 * 3001, hashes: 10, hash: "murmur3_128", seed: 42, segments: 5 },
    { bits: 64 * 7 * 999, hashes: 3, hash: "xxh3", seed: 9, segments: 7 },
  ] as const;
  for (const c of cases) {
    it(`matches a local filter of ${c.bits} bits in ${c.segments} segment(s), ${c.hash} seed ${c.seed}`, () => {
      const hashing = resolveHashing({ hash: c.hash, seed: c.seed });
      const local = BloomFilter.inSegments(c.bits, c.hashes, hashing, c.segments);
      const shape: BloomShape = { segmentBits: c.bits / c.segments, segments: c.segments, hashes: c.hashes, keyHash: { id: hashId(c.hash), seed: c.seed } };
      // 40,000 keys: more than one chunk of the batch layer (16,384), so chunk offsets are exercised.
      const keys = urls(40_000, "placement", c.segments);
      const sources: KeySource[] = [
        { kind: "keys", keys },
        { kind: "lines", buffer: new TextEncoder().encode(keys.slice(0, 5000).join("\r\n")) },
        { kind: "ints", keys: Uint32Array.from({ length: 20_000 }, (_, i) => i * 2654435761) },
        { kind: "ints", keys: BigUint64Array.from({ length: 3000 }, (_, i) => BigInt(i) * 0x9e3779b97f4a7c15n) },
      ];
      for (const source of sources) {
        const mine = placed(shape, source);
        const theirs = local.indices(source);
        expect(mine.length).toBe(theirs.length);
        expect(firstDifference(new Uint8Array(mine.buffer), new Uint8Array(theirs.buffer))).toBe(-1);
      }
      // And the local filter's own adds set exactly those bits.
      local.addMany(keys.slice(0, 100));
      const array = local.bitArray();
      for (const bit of placed(shape, { kind: "keys", keys: keys.slice(0, 100) })) expect((array[bit >> 3] >> (bit & 7)) & 1).toBe(1);
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
