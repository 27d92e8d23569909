// Every reader of the format (docs/FORMAT.md) against records of every type,
// seeded: deserialize, Type.deserialize, the base64 readers and the stream
// readers, their pieces cut at random, with and without the source's size.
// What serialize(), serializeChunks() and toBase64() write must be laid out
// as docs/FORMAT.md says, and load as a filter that answers every key by
// every route (one key, batches, packed, lines, integers) as the original
// does and writes back the same bytes. Every single-byte change, every
// truncation, any bytes after the record, a type byte that names another
// type than the rest of the record, and a header that claims a filter larger
// than the bytes given must be a FormatError from every reader.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  BinaryFuseFilter,
  BloomFilter,
  CountingBloomFilter,
  CuckooFilter,
  FormatError,
  MAX_FILTER_BITS,
  ScalableBloomFilter,
  SplitBlockBloomFilter,
  deserialize,
  deserializeBase64,
  deserializeChunks,
  hash,
  hashNames,
  type AnyFilter,
  type ByteSource,
  type HashName,
} from "../bindings/index.js";
import { firstDifference, pack, rng, urls } from "./helpers.js";
import { buildRecord, fuseLayouts, joinBytes, Params, parseRecord, recordsIn } from "./records.js";

type Random = () => number;

/** What every filter class offers to read a record. */
interface FilterClass {
  readonly name: string;
  deserialize(bytes: Uint8Array): AnyFilter;
  fromBase64(text: string): AnyFilter;
  deserializeChunks(source: ByteSource, options?: { size?: number }): Promise<AnyFilter>;
}
const CLASSES = [BloomFilter, ScalableBloomFilter, CountingBloomFilter, CuckooFilter, SplitBlockBloomFilter, BinaryFuseFilter] as unknown as FilterClass[];
/** The class of each type code (docs/FORMAT.md's table). */
const classOf = (type: number): FilterClass => CLASSES[type - 1];

/** Keys added to the filters below: every `members(n)` is a prefix of MEMBERS. */
const MEMBERS = urls(600, "member", 1);
const members = (n: number) => MEMBERS.slice(0, n);
const INTS = Uint32Array.from({ length: 1000 }, (_, i) => Math.imul(i, 2654435761) >>> 0);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));

/** Every key the answers are compared on: the members, others, raw bytes and integers. */
const PROBES = [...MEMBERS, ...urls(1500, "probe", 9)];
const BYTE_PROBES = [...PROBES.slice(0, 300).map((key) => new TextEncoder().encode(key)), ...Array.from({ length: 200 }, (_, i) => Uint8Array.from({ length: i % 23 }, (_, j) => (i * 31 + j * 7) & 255))];
const PACKED = pack(BYTE_PROBES);
const LINES = new TextEncoder().encode(PROBES.slice(0, 800).join("\n"));
const INT_PROBES = Uint32Array.from([...INTS, ...Array.from({ length: 1000 }, (_, i) => (i * 7919 + 13) >>> 0)]);
const WIDE_PROBES = BigUint64Array.from(INT_PROBES, (key, i) => BigInt(key) + (i % 3 === 0 ? 0n : BigInt(i) << 40n));
/** Batches of several chunks (a chunk holds 16,384 keys), the members among them. */
const MANY_PROBES = [...MEMBERS, ...urls(40_000, "many", 10)];
const MANY_INT_PROBES = Uint32Array.from({ length: 40_000 }, (_, i) => Math.imul(i % 1200, 2654435761) + (i < 1200 ? 0 : i) >>> 0);

/** A filter made fresh each time it is asked for, and the class that reads its records. */
interface Base {
  name: string;
  Type: FilterClass;
  make: () => AnyFilter;
  /** Written by an earlier bloomkit, in a version this one still reads but no longer writes for such a filter. */
  legacy?: boolean;
}

const BASES: Base[] = [
  { name: "BloomFilter, triple hashing (xxh3)", Type: BloomFilter as never, make: () => BloomFilter.create(60, 0.02).addMany(members(40)) },
  { name: "BloomFilter, double hashing, seeded murmur3_128, odd m", Type: BloomFilter as never, make: () => BloomFilter.withSize(1001, 4, { strategy: "double", hash: "murmur3_128", seed: 77 }).addMany(members(60)).addInts(INTS.subarray(0, 50)) },
  { name: "BloomFilter, independent hashes", Type: BloomFilter as never, make: () => BloomFilter.withSize(500, 3, { hash: ["djb", "sdbm", "murmur3_32"] }).addMany(members(30)) },
  {
    name: "BloomFilter, folded",
    Type: BloomFilter as never,
    make: () => {
      const whole = BloomFilter.create(300, 0.01, { foldable: true }).addMany(members(100));
      try {
        return whole.fold(2);
      } finally {
        whole.dispose();
      }
    },
  },
  {
    // A filter may be held in more segments than its bits need (a local copy of a RedisBloomFilter): version 2.
    name: "BloomFilter in two segments (version 2)",
    Type: BloomFilter as never,
    make: () => {
      const params = new Params().u64(1024).u64(1024).u32(3).u64(0).hashing(2, [22]).u32(2).bytes();
      return BloomFilter.deserialize(buildRecord({ version: 2, type: 1, params, payload: new Uint8Array(128) })).addMany(members(60)).addInts(INTS.subarray(0, 20));
    },
  },
  { name: "BloomFilter in shared memory", Type: BloomFilter as never, make: () => BloomFilter.create(50, 0.05, { shared: true }).addMany(members(45)) },
  { name: "BloomFilter written with double hashing (fixture)", Type: BloomFilter as never, make: () => BloomFilter.deserialize(fixture("bloom-double-ints.bin")) },
  { name: "ScalableBloomFilter, version 2 (first layers raised to 1,021 bits)", Type: ScalableBloomFilter as never, make: () => ScalableBloomFilter.create(4, 0.05).addMany(members(30)) },
  { name: "ScalableBloomFilter, version 1, two layers", Type: ScalableBloomFilter as never, make: () => ScalableBloomFilter.create(130, 0.01, { growth: 1.5, tightening: 0.7 }).addMany(members(200)) },
  { name: "ScalableBloomFilter, independent hashes", Type: ScalableBloomFilter as never, make: () => ScalableBloomFilter.create(20, 0.05, { hash: ["djb", "xxh32"] }).addMany(members(50)) },
  { name: "ScalableBloomFilter, version 1 with a small first layer (fixture)", Type: ScalableBloomFilter as never, make: () => ScalableBloomFilter.deserialize(fixture("scalable-v1-small-first-layer.bin")), legacy: true },
  { name: "CountingBloomFilter, 4-bit counters, odd m", Type: CountingBloomFilter as never, make: () => CountingBloomFilter.withSize(101, 3, { counterBits: 4 }).addMany(members(20)).addMany(members(5)) },
  { name: "CountingBloomFilter, 8-bit counters, independent hashes", Type: CountingBloomFilter as never, make: () => CountingBloomFilter.withSize(64, 3, { counterBits: 8, hash: ["djb", "sdbm", "ap"] }).addMany(members(15)) },
  {
    name: "CountingBloomFilter, 16-bit counters, seeded xxh64, after removes",
    Type: CountingBloomFilter as never,
    make: () => {
      const filter = CountingBloomFilter.create(30, 0.05, { counterBits: 16, hash: "xxh64", seed: 5 }).addMany(members(30)).addInts(INTS.subarray(0, 10));
      filter.removeMany(members(10));
      return filter;
    },
  },
  {
    name: "CuckooFilter, 8-bit fingerprints, after removes",
    Type: CuckooFilter as never,
    make: () => {
      const filter = CuckooFilter.withSize(16, 8).addMany(members(40));
      filter.removeMany(members(8));
      return filter;
    },
  },
  { name: "CuckooFilter, 16-bit fingerprints, seeded murmur3_128", Type: CuckooFilter as never, make: () => CuckooFilter.withSize(8, 16, { hash: "murmur3_128", seed: 8 }).addMany(members(20)).addInts(INTS.subarray(0, 6)) },
  { name: "CuckooFilter, 32-bit fingerprints, seeded xxh3", Type: CuckooFilter as never, make: () => CuckooFilter.withSize(4, 32, { hash: "xxh3", seed: 3 }).addMany(members(10)) },
  { name: "SplitBlockBloomFilter", Type: SplitBlockBloomFilter as never, make: () => SplitBlockBloomFilter.withSize(3).addMany(members(50)).addInts(INTS.subarray(0, 20)) },
  { name: "SplitBlockBloomFilter in shared memory", Type: SplitBlockBloomFilter as never, make: () => SplitBlockBloomFilter.withSize(2, { shared: true }).addMany(members(30)) },
  {
    name: "SplitBlockBloomFilter from a Parquet bitset",
    Type: SplitBlockBloomFilter as never,
    make: () => {
      const random = rng(29);
      return SplitBlockBloomFilter.fromParquetBitset(Uint8Array.from({ length: 64 }, () => Math.floor(random() * 256) & Math.floor(random() * 256)));
    },
  },
  { name: "BinaryFuseFilter, empty", Type: BinaryFuseFilter as never, make: () => BinaryFuseFilter.build([]) },
  { name: "BinaryFuseFilter, 8-bit fingerprints", Type: BinaryFuseFilter as never, make: () => BinaryFuseFilter.build(members(50)) },
  { name: "BinaryFuseFilter, 16-bit fingerprints, integers", Type: BinaryFuseFilter as never, make: () => BinaryFuseFilter.buildInts(INTS.subarray(0, 120), { fingerprintBits: 16 }) },
  { name: "BinaryFuseFilter, version 1 (fixture)", Type: BinaryFuseFilter as never, make: () => BinaryFuseFilter.deserialize(fixture("fuse-v1-strings-8.bin")), legacy: true },
];

/** `bytes` cut into pieces of random lengths (empty ones too), as a stream may give them. */
function cut(bytes: Uint8Array, random: Random): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = random() < 0.1 ? 0 : 1 + Math.floor(random() * (random() < 0.5 ? 8 : bytes.length));
    pieces.push(bytes.slice(at, at + n));
    at += n;
  }
  if (random() < 0.2) pieces.push(new Uint8Array(0));
  return pieces;
}

/** The pieces as a web ReadableStream. */
const webStream = (pieces: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });

/** The pieces as an async generator, with a turn of the event loop between them. */
async function* slowly(pieces: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) {
    await new Promise((resolve) => setImmediate(resolve));
    yield piece;
  }
}

type Reader = (bytes: Uint8Array, Type: FilterClass, random: Random) => AnyFilter | Promise<AnyFilter>;
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/** Every way to read a record: its bytes whole, as base64, or as a stream of random pieces (with and without its size). */
const READERS: [string, Reader][] = [
  ["deserialize", (bytes) => deserialize(bytes)],
  ["Type.deserialize", (bytes, Type) => Type.deserialize(bytes)],
  ["deserializeBase64", (bytes) => deserializeBase64(base64(bytes))],
  ["Type.fromBase64", (bytes, Type) => Type.fromBase64(base64(bytes))],
  ["deserializeChunks (array of pieces)", (bytes, _Type, random) => deserializeChunks(cut(bytes, random))],
  ["Type.deserializeChunks (array of pieces)", (bytes, Type, random) => Type.deserializeChunks(cut(bytes, random))],
  ["deserializeChunks with its size (web stream)", (bytes, _Type, random) => deserializeChunks(webStream(cut(bytes, random)), { size: bytes.length })],
  ["Type.deserializeChunks with its size (async pieces)", (bytes, Type, random) => Type.deserializeChunks(slowly(cut(bytes, random)), { size: bytes.length })],
];
/** The readers that take bytes whole, and one stream reader each time: the loops below run them thousands of times. */
const WHOLE_READERS = READERS.filter(([name]) => name.endsWith("deserialize"));
const STREAM_READERS = READERS.filter(([name]) => name.includes("Chunks"));

/** The error a reader gives, or undefined when it loads (the filter is disposed). */
async function failureOf(read: () => AnyFilter | Promise<AnyFilter>): Promise<unknown> {
  try {
    (await read()).dispose();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Expects `bytes` refused with a FormatError (whose message matches, when given) by the whole-bytes readers and one stream reader. */
async function expectRefused(bytes: Uint8Array, Type: FilterClass, random: Random, what: string, message?: RegExp): Promise<void> {
  const stream = STREAM_READERS[Math.floor(random() * STREAM_READERS.length)];
  for (const [name, reader] of [...WHOLE_READERS, stream]) {
    const error = await failureOf(() => reader(bytes, Type, random));
    if (!(error instanceof FormatError)) throw new Error(`${what}, ${name}: ${error === undefined ? "loaded" : `${(error as Error).constructor.name}: ${(error as Error).message}`}`);
    if (message) expect(error.message, `${what}, ${name}`).toMatch(message);
  }
}

/**
 * Runs `refusals` (reads that all fail) and expects the memory small filters
 * share to hold the same blocks after them: a refused record leaves nothing
 * allocated (docs/FORMAT.md). `bytes`, read once first, sets up what reading
 * keeps (the scratch areas).
 */
async function leavesNothing(bytes: Uint8Array, refusals: () => Promise<void>): Promise<void> {
  deserialize(bytes).dispose();
  const held = BloomFilter.withSize(64, 1);
  const pool = held.arena;
  const state = () => [pool.usedBytes, pool.blockCount];
  const before = state();
  await refusals();
  expect(state(), "blocks left allocated").toEqual(before);
  held.dispose();
}

/** What a filter answers, by every route it has; a route it refuses gives its error's text. */
function answersOf(filter: AnyFilter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const attempt = (name: string, answer: () => unknown) => {
    try {
      out[name] = answer();
    } catch (error) {
      out[name] = `${(error as Error).constructor.name}: ${(error as Error).message}`;
    }
  };
  const any = filter as AnyFilter & Partial<Record<"count" | "estimatedCount" | "expectedFalsePositiveRate", (key?: unknown) => number>> & { countMany?: (keys: string[]) => Uint32Array; countInts?: (keys: Uint32Array) => Uint32Array };
  // Whether it is in shared memory is where the copy was read to, not what the record holds.
  attempt("parameters", () => ({ ...filter.toJSON(), shared: undefined }));
  // Answers as text ("0110…", counts with commas): compared at once however many there are.
  attempt("has", () => PROBES.map((key) => Number(filter.has(key))).join(""));
  attempt("has (bytes)", () => BYTE_PROBES.map((key) => Number(filter.has(key))).join(""));
  attempt("hasMany", () => filter.hasMany(PROBES).join(""));
  attempt("hasMany (bytes)", () => filter.hasMany(BYTE_PROBES).join(""));
  attempt("hasPacked", () => filter.hasPacked(PACKED.bytes, PACKED.ends).join(""));
  attempt("hasLines", () => filter.hasLines(LINES).join(""));
  attempt("hasInts (u32)", () => filter.hasInts(INT_PROBES).join(""));
  attempt("hasInts (u64)", () => filter.hasInts(WIDE_PROBES).join(""));
  attempt("hasMany (several chunks)", () => filter.hasMany(MANY_PROBES).join(""));
  attempt("hasInts (several chunks)", () => filter.hasInts(MANY_INT_PROBES).join(""));
  if (typeof any.count === "function") attempt("count", () => PROBES.slice(0, 400).map((key) => any.count!(key)).join());
  if (typeof any.countMany === "function") attempt("countMany", () => any.countMany!(PROBES).join());
  if (typeof any.countInts === "function") attempt("countInts", () => any.countInts!(INT_PROBES).join());
  attempt("size", () => [filter.size, filter.bits]);
  attempt("falsePositiveRate", () => (filter as { falsePositiveRate(): number }).falsePositiveRate());
  if (typeof any.expectedFalsePositiveRate === "function") attempt("expectedFalsePositiveRate", () => any.expectedFalsePositiveRate!());
  if (typeof any.estimatedCount === "function") attempt("estimatedCount", () => any.estimatedCount!());
  return out;
}

/** The same changes to a filter of a type that changes (keys added, integers, removes): each call's outcome, errors as text. */
function change(filter: AnyFilter): unknown[] {
  const outcomes: unknown[] = [];
  const attempt = (call: () => unknown) => {
    try {
      const result = call();
      outcomes.push(result instanceof Uint8Array ? Array.from(result) : typeof result === "object" ? "this" : result);
    } catch (error) {
      outcomes.push(`${(error as Error).constructor.name}: ${(error as Error).message}`);
    }
  };
  const fresh = urls(40, "fresh", 3);
  if (filter instanceof CuckooFilter) {
    attempt(() => filter.tryAddMany(fresh));
    attempt(() => filter.tryAddInts(INTS.subarray(500, 510)));
    attempt(() => filter.removeMany(members(5)));
    return outcomes;
  }
  if (filter instanceof BinaryFuseFilter) return outcomes;
  attempt(() => filter.testAndAddMany(fresh));
  attempt(() => filter.testAndAdd("one more"));
  attempt(() => filter.testAndAddInts(INTS.subarray(500, 520)));
  if (filter instanceof CountingBloomFilter) attempt(() => filter.removeMany(members(5)));
  return outcomes;
}

/** True when the bytes are the same. */
const same = (a: Uint8Array, b: Uint8Array) => firstDifference(a, b) === -1;

describe("records as docs/FORMAT.md lays them out", () => {
  /** The strategy codes of the hashing block. */
  const STRATEGY = { double: 0, independent: 1, triple: 2 } as const;
  const hashingOf = (filter: { strategy: keyof typeof STRATEGY; hash: HashName | readonly HashName[]; seed: number }) => {
    const names = typeof filter.hash === "string" ? [filter.hash] : [...filter.hash];
    return new Params().hashing(STRATEGY[filter.strategy], names.map((name) => hashNames.indexOf(name)), filter.seed).bytes();
  };
  const words = (bits: number) => Math.ceil(bits / 64) * 8;

  it.each(BASES.map((base) => [base.name, base] as const))("%s: frame, parameters and payload", (_, { make, legacy }) => {
    const filter = make();
    const bytes = filter.serialize();
    const view = new DataView(bytes.buffer);
    const { version, type, params, payload } = parseRecord(bytes);
    const h = params.length;
    // The frame: magic, version, type, reserved byte, lengths and both checksums.
    expect(Array.from(bytes.subarray(0, 4))).toEqual([0x42, 0x4c, 0x4d, 0x4b]);
    expect(bytes[7]).toBe(0);
    expect(bytes.length).toBe(36 + h + payload.length);
    expect(view.getBigUint64(20 + h, true)).toBe(hash("xxh64", bytes.subarray(0, 20 + h), 0));
    expect(view.getBigUint64(28 + h + payload.length, true)).toBe(hash("xxh64", payload, 0));
    expect(classOf(type)).toBe(filter.constructor);
    const p = new DataView(params.buffer);
    const u64 = (at: number) => Number(p.getBigUint64(at, true));
    if (filter instanceof BloomFilter) {
      const segments = version === 2 ? p.getUint32(h - 4, true) : 1;
      expect(version).toBe(filter.segmentCount > 1 ? 2 : 1);
      // base m: m times a power of two (1 unless folded).
      expect([u64(0), Number.isInteger(Math.log2(u64(8) / u64(0))), p.getUint32(16, true), u64(20)]).toEqual([filter.bits, true, filter.hashes, filter.size]);
      expect(params.subarray(28, h - (version === 2 ? 4 : 0))).toEqual(hashingOf(filter));
      expect(payload.length).toBe(segments * words(filter.bits / segments));
      expect(payload.subarray(0, Math.ceil(filter.bits / 8))).toEqual(filter.bitArray());
      expect(payload.subarray(Math.ceil(filter.bits / 8)).every((byte) => byte === 0)).toBe(true);
      if (filter.bits % 8 !== 0) expect(payload[Math.ceil(filter.bits / 8) - 1] >> filter.bits % 8).toBe(0);
    } else if (filter instanceof ScalableBloomFilter) {
      expect([p.getFloat64(0, true), p.getFloat64(8, true), p.getFloat64(16, true), p.getFloat64(24, true), p.getUint32(32, true)]).toEqual([filter.layerCapacity(0), filter.targetFalsePositiveRate, filter.growth, filter.tightening, filter.layers]);
      expect(params.subarray(36)).toEqual(hashingOf(filter));
      const layers = recordsIn(payload);
      expect(layers.length).toBe(filter.layers);
      // Layer i: a type-1 record of the m and k BloomFilter.create(⌈n0 · s^i⌉, p · (1 − r) · r^i) gives, raised to 1,021 bits in version 2.
      const options = { strategy: filter.strategy, hash: filter.hash, seed: filter.seed } as never;
      const formula = (i: number) => BloomFilter.sizeFor(filter.layerCapacity(i), filter.layerFalsePositiveRate(i), options);
      if (!legacy) expect(version).toBe(formula(0).bits < 1021 ? 2 : 1);
      layers.forEach((layer, i) => {
        const parts = parseRecord(layer);
        const lp = new DataView(parts.params.buffer);
        const { bits, hashes } = formula(i);
        expect([parts.type, parts.version, Number(lp.getBigUint64(0, true)), Number(lp.getBigUint64(8, true)), lp.getUint32(16, true)], `layer ${i}`).toEqual([1, 1, version === 2 ? Math.max(bits, 1021) : bits, version === 2 ? Math.max(bits, 1021) : bits, hashes]);
        expect(parts.params.subarray(28)).toEqual(hashingOf(filter));
      });
    } else if (filter instanceof CountingBloomFilter) {
      expect(version).toBe(1);
      expect([u64(0), p.getUint32(8, true), p.getUint8(12), p.getUint8(13), p.getUint8(14), p.getUint8(15), u64(16)]).toEqual([filter.counters, filter.hashes, filter.counterBits, 0, 0, 0, filter.size]);
      expect(params.subarray(24)).toEqual(hashingOf(filter));
      expect(payload.length).toBe(words(filter.counters * filter.counterBits));
    } else if (filter instanceof CuckooFilter) {
      expect(version).toBe(1);
      expect([p.getUint32(0, true), p.getUint8(4), p.getUint8(5), p.getUint8(6), p.getUint8(7), u64(8)]).toEqual([filter.buckets, filter.fingerprintBits, 0, 0, 0, filter.size]);
      expect(params.subarray(16)).toEqual(hashingOf({ strategy: "double", hash: filter.hash, seed: filter.seed }));
      expect(payload.length).toBe(words(filter.buckets * 4 * filter.fingerprintBits));
      const entries = filter.entries();
      expect(payload.subarray(0, entries.byteLength)).toEqual(new Uint8Array(entries.buffer, entries.byteOffset, entries.byteLength));
      expect(Array.from(entries).filter((slot) => slot !== 0).length).toBe(filter.size);
    } else if (filter instanceof SplitBlockBloomFilter) {
      expect([version, h, p.getUint32(0, true), u64(4)]).toEqual([1, 12, filter.blocks, filter.size]);
      expect(payload).toEqual(filter.toParquetBitset());
    } else if (filter instanceof BinaryFuseFilter) {
      expect(version).toBe(legacy ? 1 : 2);
      expect([h, u64(8), p.getUint8(16), p.getUint8(17), p.getUint8(18), p.getUint8(19)]).toEqual([36, filter.size, filter.fingerprintBits, 0, 0, 0]);
      const layout = [p.getUint32(20, true), p.getUint32(24, true), u64(28)];
      expect(fuseLayouts(filter.size).map(String)).toContain(String(layout));
      expect(payload.length).toBe((layout[2] * filter.fingerprintBits) / 8);
    }
    filter.dispose();
  });
});

describe("round trips through every reader", () => {
  it.each(BASES.map((base) => [base.name, base] as const))("%s: the same bytes back, the same answers by every route, and the same after the same changes", async (_, { Type, make }) => {
    const random = rng(_.length * 131);
    const original = make();
    const bytes = original.serialize();
    const answers = answersOf(original);
    expect(original.toBase64()).toBe(base64(bytes));
    const sources: [string, () => AnyFilter | Promise<AnyFilter>][] = [
      ...READERS.map(([name, reader]): [string, () => AnyFilter | Promise<AnyFilter>] => [name, () => reader(bytes, Type, random)]),
      ["deserialize(toBase64)", () => deserializeBase64(original.toBase64())],
      ["deserializeChunks(serializeChunks)", () => deserializeChunks(original.serializeChunks(1 + Math.floor(random() * 64)))],
    ];
    if (Type === (BloomFilter as unknown) || Type === (SplitBlockBloomFilter as unknown)) {
      // Into shared memory, as share() needs: the same filter.
      const Shareable = Type as unknown as { deserialize(bytes: Uint8Array, options: { shared: boolean }): AnyFilter; fromBase64(text: string, options: { shared: boolean }): AnyFilter };
      sources.push(
        ["deserialize, shared", () => deserialize(bytes, { shared: true })],
        ["Type.deserialize, shared", () => Shareable.deserialize(bytes, { shared: true })],
        ["Type.fromBase64, shared", () => Shareable.fromBase64(base64(bytes), { shared: true })],
        ["deserializeChunks with its size, shared", () => deserializeChunks(cut(bytes, random), { size: bytes.length, shared: true })],
      );
    }
    for (const [name, read] of sources) {
      const copy = await read();
      try {
        expect(copy.constructor, name).toBe(original.constructor);
        expect(same(copy.serialize(), bytes), `${name}: writes back other bytes`).toBe(true);
        expect(answersOf(copy), name).toEqual(answers);
        // The copy holds everything the original does: the same changes give the same outcomes and bytes.
        const twin = make();
        try {
          expect(change(copy), name).toEqual(change(twin));
          expect(same(copy.serialize(), twin.serialize()), `${name}: writes other bytes than the original after the same changes`).toBe(true);
          expect(answersOf(copy), name).toEqual(answersOf(twin));
        } finally {
          twin.dispose();
        }
      } finally {
        copy.dispose();
      }
    }
    original.dispose();
  });
});

describe("serializeChunks", () => {
  it.each(BASES.map((base) => [base.name, base] as const))("%s: the pieces, for any chunkBytes, are serialize() cut up, and copies", (_, { make }) => {
    const random = rng(_.length * 17 + 1);
    const filter = make();
    const bytes = filter.serialize();
    const { params, payload } = parseRecord(bytes);
    // The heads of a scalable filter's layers come whole too.
    const heads = filter instanceof ScalableBloomFilter ? recordsIn(payload).map((layer) => 28 + parseRecord(layer).params.length) : [];
    const longestHead = Math.max(28 + params.length, ...heads);
    const sizes = [undefined, 1, 2, 3, 7, 8, 9, 63, 64, 65, payload.length, payload.length + 1, 1 + Math.floor(random() * payload.length), 1 + Math.floor(random() * 40)];
    const written: Uint8Array[][] = [];
    for (const chunkBytes of sizes) {
      const pieces = [...filter.serializeChunks(chunkBytes)];
      expect(same(Buffer.concat(pieces), bytes), `chunkBytes ${chunkBytes}`).toBe(true);
      for (const piece of pieces) expect(piece.length, `chunkBytes ${chunkBytes}`).toBeLessThanOrEqual(Math.max(chunkBytes ?? Infinity, longestHead));
      expect(pieces[0].length, `chunkBytes ${chunkBytes}: the head`).toBe(28 + params.length);
      expect(pieces[pieces.length - 1].length, `chunkBytes ${chunkBytes}: the payload checksum`).toBe(8);
      written.push(pieces);
    }
    // Pieces are copies: changing the filter afterwards leaves them as they were.
    change(filter);
    for (const pieces of written) expect(same(Buffer.concat(pieces), bytes)).toBe(true);
    filter.dispose();
  });
});

describe("damaged records, every reader", () => {
  it.each(BASES.map((base) => [base.name, base] as const))("%s: every single-byte change is a FormatError", async (_, { Type, make }) => {
    const random = rng(_.length * 7 + 3);
    const filter = make();
    const bytes = filter.serialize();
    filter.dispose();
    await leavesNothing(bytes, async () => {
      for (let at = 0; at < bytes.length; at++) {
        for (let n = 0; n < 2; n++) {
          const changed = bytes.slice();
          changed[at] ^= 1 + Math.floor(random() * 255);
          await expectRefused(changed, Type, random, `byte ${at} of ${bytes.length} set to ${changed[at]}`);
        }
      }
    });
  });

  it.each(BASES.map((base) => [base.name, base] as const))("%s: every truncation is a FormatError (truncated)", async (_, { Type, make }) => {
    const random = rng(_.length * 5 + 11);
    const filter = make();
    const bytes = filter.serialize();
    filter.dispose();
    await leavesNothing(bytes, async () => {
      for (let length = 0; length < bytes.length; length++) await expectRefused(bytes.slice(0, length), Type, random, `${length} of ${bytes.length} bytes`, /^truncated: /);
    });
  });

  it.each(BASES.map((base) => [base.name, base] as const))("%s: bytes after the record are a FormatError, whole or in later pieces; empty pieces after it are not", async (_, { Type, make }) => {
    const random = rng(_.length * 3 + 5);
    const filter = make();
    const bytes = filter.serialize();
    filter.dispose();
    await leavesNothing(bytes, async () => {
      for (let trial = 0; trial < 12; trial++) {
        const extra = trial === 0 ? bytes : trial === 1 ? new Uint8Array(1) : Uint8Array.from({ length: 1 + Math.floor(random() * 40) }, () => Math.floor(random() * 256));
        const longer = joinBytes([bytes, extra]);
        await expectRefused(longer, Type, random, `${extra.length} bytes after the record`, /follow the record/);
        // The bytes after it in pieces of their own, the size given as the record's alone: refused when they come.
        const error = await failureOf(() => Type.deserializeChunks([...cut(bytes, random), new Uint8Array(0), ...cut(extra, random)], { size: bytes.length }));
        expect(error, `${extra.length} bytes after a record of the size given`).toBeInstanceOf(FormatError);
        expect((error as Error).message).toMatch(/^bytes follow the record/);
      }
    });
    const loaded = await deserializeChunks([...cut(bytes, random), new Uint8Array(0), new Uint8Array(0)], { size: bytes.length });
    expect(same(loaded.serialize(), bytes)).toBe(true);
    loaded.dispose();
  });

  it.each(BASES.map((base) => [base.name, base] as const))("%s: under another type code (or version), its parameters and payload are a FormatError", async (_, { make }) => {
    const random = rng(_.length * 13 + 7);
    const filter = make();
    const bytes = filter.serialize();
    const parts = parseRecord(bytes);
    filter.dispose();
    await leavesNothing(bytes, async () => {
      for (let type = 1; type <= 6; type++) {
        for (const version of [1, 2]) {
          if (type !== parts.type) await expectRefused(buildRecord({ ...parts, type, version }), classOf(type), random, `as type ${type}, version ${version}`);
        }
      }
    });
  });

  it("a record's type and parameters with another type's payload, or another type's parameters, are a FormatError", async () => {
    const random = rng(41);
    const records = BASES.map(({ make }) => {
      const filter = make();
      const parts = parseRecord(filter.serialize());
      filter.dispose();
      return parts;
    });
    for (const a of records) {
      for (const b of records) {
        if (a.type === b.type) continue;
        await expectRefused(buildRecord({ ...a, params: b.params }), classOf(a.type), random, `type ${a.type} with type ${b.type}'s parameters`);
        // Another type's payload of the length this one's parameters give could be this type's bits: only others are refused.
        if (b.payload.length !== a.payload.length) await expectRefused(buildRecord({ ...a, payload: b.payload }), classOf(a.type), random, `type ${a.type} with type ${b.type}'s payload`);
      }
    }
  });
});

describe("a header that claims more than the bytes given", () => {
  // Each declares the largest filter its type can be (hundreds of GiB for most: more than any machine here has, so
  // a reader that allocated it first would throw a RangeError, not say truncated), its checksum right, and a few
  // bytes of payload follow. Readers that know the bytes there are refuse it as truncated before allocating.
  const SEGMENT_COUNTERS_4 = Math.floor((4_292_804_608 - 64) / 8) * 16;
  const claims: [string, number, number, Uint8Array, number][] = [
    ["BloomFilter", 1, 2, new Params().u64(MAX_FILTER_BITS).u64(MAX_FILTER_BITS).u32(7).u64(0).hashing(2, [22]).u32(64).bytes(), MAX_FILTER_BITS / 8],
    ["ScalableBloomFilter", 2, 1, new Params().f64(2e9).f64(0.01).f64(2).f64(0.85).u32(1).hashing(2, [22]).bytes(), 36 + 37 + BloomFilter.sizeFor(2e9, 0.01 * 0.15).bytes],
    ["CountingBloomFilter", 3, 2, new Params().u64(64 * SEGMENT_COUNTERS_4).u32(7).u8(4).u8(0).u8(0).u8(0).u64(0).hashing(2, [22]).u32(64).bytes(), (64 * SEGMENT_COUNTERS_4) / 2],
    ["CuckooFilter", 4, 1, new Params().u32(2 ** 29).u8(8).u8(0).u8(0).u8(0).u64(0).hashing(0, [22]).bytes(), 2 ** 31],
    ["SplitBlockBloomFilter", 5, 1, new Params().u32(2 ** 32 - 1).u64(0).bytes(), (2 ** 32 - 1) * 32],
    ["BinaryFuseFilter", 6, 2, (() => {
      const [length, count, array] = fuseLayouts(2 ** 31)[0];
      return new Params().u64(1).u64(2 ** 31).u8(8).u8(0).u8(0).u8(0).u32(length).u32(count).u64(array).bytes();
    })(), fuseLayouts(2 ** 31)[0][2]],
  ];

  it.each(claims)("%s: truncated, before anything is allocated, from bytes and from a stream of known size", async (_, type, version, params, payloadBytes) => {
    const random = rng(type);
    const record = buildRecord({ version, type, params, payload: new Uint8Array(0) });
    const head = record.subarray(0, 28 + params.length);
    new DataView(head.buffer).setBigUint64(12 + params.length, BigInt(payloadBytes), true);
    new DataView(head.buffer).setBigUint64(20 + params.length, hash("xxh64", head.subarray(0, 20 + params.length), 0), true);
    const bytes = joinBytes([head, Uint8Array.from({ length: 100 }, () => Math.floor(random() * 256))]);
    const needs = 36 + params.length + payloadBytes;
    const message = new RegExp(`^truncated: ${bytes.length} bytes, the record needs ${needs}$`);
    // Not the stream readers without a size: they cannot know, and allocate what a header declares (docs/FORMAT.md).
    for (const [name, reader] of READERS.filter(([name]) => !name.includes("array of pieces"))) {
      const error = await failureOf(() => reader(bytes, classOf(type), random));
      expect(error, name).toBeInstanceOf(FormatError);
      expect((error as Error).message, name).toMatch(message);
    }
  });
});
