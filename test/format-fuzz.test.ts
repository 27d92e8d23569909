// Mutated records of every type, seeded: bits flipped, bytes set, fields set
// to edge values, records cut or lengthened, the checksums recomputed (the
// layers' too) or not. Each one is a FormatError, or a filter that is exactly
// what its bytes say (it writes the same bytes back) and works as a filter.
import { describe, expect, it } from "vitest";
import { BinaryFuseFilter, BloomFilter, CountingBloomFilter, CuckooFilter, FormatError, ScalableBloomFilter, SplitBlockBloomFilter, deserialize } from "../bindings/index.js";
import { rng } from "./helpers.js";
import { buildRecord, joinBytes, parseRecord, recordsIn, reseal } from "./records.js";

/** Mutated records per type per run (6 types: 102,000 in all). */
const PER_TYPE = 17_000;
const keys = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}-${i}`);

/** Records of every type, in several shapes each. */
const BASES: [string, () => Uint8Array[]][] = [
  ["BloomFilter", () => [
    BloomFilter.withSize(200, 3).serialize(),
    BloomFilter.create(50, 0.01).addMany(keys(30, "b")).serialize(),
    BloomFilter.create(1000, 0.01, { foldable: true }).addMany(keys(40, "f")).fold(2).serialize(),
    BloomFilter.create(40, 0.05, { hash: ["fnv1a_32", "murmur3_32", "xxh32"] }).addMany(keys(20, "i")).serialize(),
    BloomFilter.create(40, 0.05, { hash: "murmur3_128", seed: 7 }).addMany(keys(20, "m")).serialize(),
  ]],
  ["ScalableBloomFilter", () => [
    ScalableBloomFilter.create(8, 0.05).serialize(),
    ScalableBloomFilter.create(8, 0.05).addMany(keys(30, "s")).serialize(),
    ScalableBloomFilter.create(8, 0.05, { growth: 1, tightening: 0.9 }).addMany(keys(20, "g")).serialize(),
  ]],
  ["CountingBloomFilter", () => [
    CountingBloomFilter.create(40, 0.05).addMany(keys(20, "c")).serialize(),
    CountingBloomFilter.create(40, 0.05, { counterBits: 8 }).addMany([...keys(20, "c"), ...keys(5, "c")]).serialize(),
    CountingBloomFilter.withSize(37, 3, { counterBits: 16, hash: ["djb", "sdbm", "ap"] }).addMany(keys(10, "d")).serialize(),
  ]],
  ["CuckooFilter", () => [
    CuckooFilter.withSize(8, 8).addMany(keys(20, "k")).serialize(),
    CuckooFilter.withSize(4, 16).addMany(keys(10, "k")).serialize(),
    CuckooFilter.withSize(2, 32, { hash: "xxh3", seed: 3 }).addMany(keys(5, "k")).serialize(),
  ]],
  ["SplitBlockBloomFilter", () => [
    SplitBlockBloomFilter.withSize(2).serialize(),
    SplitBlockBloomFilter.withSize(3).addMany(keys(40, "p")).serialize(),
  ]],
  ["BinaryFuseFilter", () => [
    BinaryFuseFilter.build([]).serialize(),
    BinaryFuseFilter.build(keys(30, "u")).serialize(),
    BinaryFuseFilter.build(keys(20, "u"), { fingerprintBits: 16 }).serialize(),
  ]],
];

/** Interesting values for a field of `width` bytes. */
function edgeValue(width: number, random: () => number): Uint8Array {
  const out = new Uint8Array(width);
  const view = new DataView(out.buffer);
  const pick = Math.floor(random() * 8);
  if (width === 8 && pick === 0) view.setFloat64(0, [NaN, Infinity, -1, 0, 1e300, 1e-300, 0.5, 2 ** 53, 1][Math.floor(random() * 9)], true);
  else if (width === 8 && pick === 1) view.setBigUint64(0, [0n, 1n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 64n - 1n, 3n * 2n ** 32n][Math.floor(random() * 6)], true);
  else if (pick === 2) out.fill(0xff);
  else if (pick === 3) out.fill(0);
  else if (pick === 4) out[0] = 1;
  else for (let i = 0; i < width; i++) out[i] = Math.floor(random() * 256);
  return out;
}

/** One mutation of a record; most recompute the checksums so only the loaders' checks stand in the way. */
function mutate(bytes: Uint8Array, random: () => number): Uint8Array {
  let kind = Math.floor(random() * 10);
  let parts = { version: 0, type: 0, params: new Uint8Array(0), payload: new Uint8Array(0) };
  try {
    parts = parseRecord(bytes);
    if (parts.params.length + parts.payload.length + 36 !== bytes.length) kind = 0;
  } catch {
    kind = 0; // a record already cut short: flip a bit
  }
  const { version, type, params, payload } = parts;
  if (bytes.length === 0) return bytes;
  switch (kind) {
    case 0: {
      // A flipped bit anywhere, checksums left as they were.
      const out = bytes.slice();
      out[Math.floor(random() * out.length)] ^= 1 << Math.floor(random() * 8);
      return out;
    }
    case 1:
    case 2: {
      // A parameter field set to an edge value, checksums recomputed.
      if (params.length === 0) return bytes.slice();
      const width = [1, 4, 8][Math.floor(random() * 3)];
      const at = Math.floor(random() * Math.max(1, params.length - width + 1));
      const p = params.slice();
      p.set(edgeValue(width, random).subarray(0, p.length - at), at);
      return buildRecord({ version, type, params: p, payload });
    }
    case 3: {
      // Random payload bytes, checksums recomputed.
      const p = payload.slice();
      for (let n = 1 + Math.floor(random() * 3); n > 0 && p.length > 0; n--) p[Math.floor(random() * p.length)] = Math.floor(random() * 256);
      return buildRecord({ version, type, params, payload: p });
    }
    case 4: {
      // A payload cut or lengthened, its length and checksums consistent.
      const length = Math.max(0, payload.length + Math.floor(random() * 17) - 8);
      const p = new Uint8Array(length);
      p.set(payload.subarray(0, length));
      return buildRecord({ version, type, params, payload: p });
    }
    case 5: {
      // Parameters cut or lengthened.
      const length = Math.max(0, params.length + Math.floor(random() * 9) - 4);
      const p = new Uint8Array(length);
      p.set(params.subarray(0, length));
      return buildRecord({ version, type, params: p, payload });
    }
    case 6:
      // Another version or type, with the same parameters and payload.
      return buildRecord({ version: random() < 0.5 ? Math.floor(random() * 4) : version, type: random() < 0.5 ? 1 + Math.floor(random() * 6) : type, params, payload });
    case 7: {
      // For a scalable record: a layer's parameters or bits mutated, every checksum recomputed.
      if (type !== 2 || payload.length < 40) return mutate(bytes, random);
      let layers: Uint8Array[];
      try {
        layers = recordsIn(payload);
      } catch {
        return mutate(bytes, random); // a payload that is no longer a list of layers
      }
      const i = Math.floor(random() * layers.length);
      layers[i] = mutate(layers[i], random);
      if (random() < 0.2) layers.push(layers[i]);
      return buildRecord({ version, type, params, payload: joinBytes(layers) });
    }
    case 8: {
      // A few random bytes anywhere, then both checksums recomputed over the lengths as written.
      const out = bytes.slice();
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) out[Math.floor(random() * out.length)] = Math.floor(random() * 256);
      return reseal(out);
    }
    default: {
      // Cut short, or with bytes after it.
      if (random() < 0.5) return bytes.slice(0, Math.floor(random() * bytes.length));
      const out = new Uint8Array(bytes.length + 1 + Math.floor(random() * 8));
      out.set(bytes);
      return out;
    }
  }
}

/** An accepted record must be exactly its bytes and a working filter. */
function checkAccepted(filter: ReturnType<typeof deserialize>, bytes: Uint8Array, where: string): void {
  expect(Buffer.from(filter.serialize()).equals(Buffer.from(bytes)), `${where}: writes back other bytes`).toBe(true);
  const rate = filter.falsePositiveRate();
  expect(rate >= 0 && rate <= 1, `${where}: falsePositiveRate() = ${rate}`).toBe(true);
  if ("expectedFalsePositiveRate" in filter) {
    const expected = filter.expectedFalsePositiveRate();
    expect(expected >= 0 && expected <= 1, `${where}: expectedFalsePositiveRate() = ${expected}`).toBe(true);
  }
  expect(Number.isInteger(filter.size) && filter.size >= 0, `${where}: size ${filter.size}`).toBe(true);
  if (filter instanceof BinaryFuseFilter) {
    filter.hasMany(["x", "y"]);
    return;
  }
  const fresh = keys(10, `fresh-${Math.random()}`);
  if (filter instanceof CuckooFilter) {
    const stored = filter.tryAddMany(fresh);
    fresh.forEach((key, i) => expect(stored[i] === 0 || filter.has(key), `${where}: false negative after tryAdd`).toBe(true));
  } else {
    const before = filter.serialize();
    try {
      filter.addMany(fresh);
    } catch (error) {
      // Only a scalable filter at its last layer, or a counting filter whose size would pass 2^53 − 1, refuses; then it is unchanged.
      expect(filter instanceof ScalableBloomFilter || filter instanceof CountingBloomFilter, `${where}: ${(error as Error).message}`).toBe(true);
      expect(error).toBeInstanceOf(RangeError);
      expect(Buffer.from(filter.serialize()).equals(Buffer.from(before))).toBe(true);
      return;
    }
    expect(Array.from(filter.hasMany(fresh)), `${where}: false negative after add`).toEqual(fresh.map(() => 1));
  }
  deserialize(filter.serialize()).dispose();
}

describe("format fuzzing", () => {
  it.each(BASES)(`${PER_TYPE} mutated %s records: each a FormatError or exactly the filter its bytes say`, (name, make) => {
    const bases = make();
    const random = rng(name.length * 104729);
    let accepted = 0;
    let rejected = 0;
    const reasons = new Map<string, number>();
    for (let i = 0; i < PER_TYPE; i++) {
      const base = bases[i % bases.length];
      let bytes = mutate(base, random);
      if (random() < 0.15) bytes = mutate(bytes, random);
      const where = `${name} mutation ${i}`;
      let filter: ReturnType<typeof deserialize> | undefined;
      try {
        filter = deserialize(bytes);
      } catch (error) {
        if (!(error instanceof FormatError)) throw new Error(`${where}: ${(error as Error)?.constructor?.name}: ${(error as Error).message}`);
        rejected++;
        const reason = error.message.replace(/[\d.e+-]+/g, "#").slice(0, 40);
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        continue;
      }
      accepted++;
      try {
        checkAccepted(filter, bytes, where);
      } finally {
        filter.dispose();
      }
    }
    if (process.env.FUZZ_REPORT) console.log(name, { accepted, rejected, reasons: reasons.size });
    expect(accepted + rejected).toBe(PER_TYPE);
    // Both outcomes happen: the mutations reach past the checksums into the loaders' checks.
    expect(accepted).toBeGreaterThan(0);
    expect(reasons.size).toBeGreaterThan(5);
  });
});
