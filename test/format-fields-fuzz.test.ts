// Each parameter field of each type's record set to random and boundary
// values, the payload resized to what the edited parameters need (so the
// edit reaches past the payload-length check), and the checksums recomputed.
// Each record must be a FormatError, or a filter some create()/withSize()
// (then fold()) call could have made with those parameters. How that is
// decided: the call is made with the parameters the record holds, and must
// succeed and write exactly the record's parameter bytes, but for the state
// fields (count, size, layers) a filter changes as keys come; the filter read
// must then write back the record's bytes. Equal parameter bytes mean equal
// hashing and indexing, so the filter answers as that call's filter would
// with the same bits. A binary fuse filter has no withSize(): its layout is
// recomputed from docs/FORMAT.md instead.
import { describe, expect, it } from "vitest";
import {
  BinaryFuseFilter,
  BloomFilter,
  CountingBloomFilter,
  CuckooFilter,
  FormatError,
  MAX_SEGMENT_BITS,
  ScalableBloomFilter,
  SplitBlockBloomFilter,
  deserialize,
  hashNames,
  type AnyFilter,
} from "../bindings/index.js";
import { rng } from "./helpers.js";
import { buildRecord, fuseLayouts, joinBytes, parseRecord, recordsIn, type RecordParts } from "./records.js";

/** Records per type (a few seconds in all). */
const PER_TYPE = 2_500;
const keys = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}-${i}`);

type Width = "u8" | "u32" | "u64" | "f64";
interface Field {
  at: number;
  width: Width;
  name: string;
}

const hashingFields = (at: number, ids: number): Field[] => [
  { at, width: "u8", name: "strategy" },
  { at: at + 1, width: "u8", name: "hash count" },
  { at: at + 2, width: "u8", name: "reserved" },
  { at: at + 3, width: "u8", name: "reserved" },
  { at: at + 4, width: "u32", name: "seed" },
  ...Array.from({ length: ids }, (_, i): Field => ({ at: at + 8 + i, width: "u8", name: `hash id ${i}` })),
];

/** The fields of a record's parameters (docs/FORMAT.md), by type. */
function fieldsOf(type: number, params: Uint8Array): Field[] {
  const ids = (at: number) => params[at + 1];
  switch (type) {
    case 1:
      return [
        { at: 0, width: "u64", name: "m" },
        { at: 8, width: "u64", name: "base m" },
        { at: 16, width: "u32", name: "k" },
        { at: 20, width: "u64", name: "count" },
        ...hashingFields(28, ids(28)),
      ];
    case 2:
      return [
        { at: 0, width: "f64", name: "n0" },
        { at: 8, width: "f64", name: "p" },
        { at: 16, width: "f64", name: "growth" },
        { at: 24, width: "f64", name: "tightening" },
        { at: 32, width: "u32", name: "layers" },
        ...hashingFields(36, ids(36)),
      ];
    case 3:
      return [
        { at: 0, width: "u64", name: "m" },
        { at: 8, width: "u32", name: "k" },
        { at: 12, width: "u8", name: "counter bits" },
        { at: 13, width: "u8", name: "reserved" },
        { at: 14, width: "u8", name: "reserved" },
        { at: 15, width: "u8", name: "reserved" },
        { at: 16, width: "u64", name: "size" },
        ...hashingFields(24, ids(24)),
      ];
    case 4:
      return [
        { at: 0, width: "u32", name: "buckets" },
        { at: 4, width: "u8", name: "fingerprint bits" },
        { at: 5, width: "u8", name: "reserved" },
        { at: 6, width: "u8", name: "reserved" },
        { at: 7, width: "u8", name: "reserved" },
        { at: 8, width: "u64", name: "size" },
        ...hashingFields(16, ids(16)),
      ];
    case 5:
      return [
        { at: 0, width: "u32", name: "blocks" },
        { at: 4, width: "u64", name: "count" },
      ];
    default:
      return [
        { at: 0, width: "u64", name: "seed" },
        { at: 8, width: "u64", name: "size" },
        { at: 16, width: "u8", name: "fingerprint bits" },
        { at: 17, width: "u8", name: "reserved" },
        { at: 18, width: "u8", name: "reserved" },
        { at: 19, width: "u8", name: "reserved" },
        { at: 20, width: "u32", name: "segment length" },
        { at: 24, width: "u32", name: "segment count" },
        { at: 28, width: "u64", name: "array length" },
      ];
  }
}

const read = (view: DataView, { at, width }: Field): number =>
  width === "u8" ? view.getUint8(at) : width === "u32" ? view.getUint32(at, true) : width === "f64" ? view.getFloat64(at, true) : Number(view.getBigUint64(at, true));

/** A random or boundary value for a field that holds `old`. */
function valueFor(width: Width, old: number, random: () => number): number | bigint {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  if (width === "f64") {
    return pick([NaN, Infinity, -Infinity, 0, -0, 1, 0.5, 1 - 2 ** -53, 1 + 2 ** -52, 2 ** -1074, 1e-300, 1e300, 2 ** 53, old * 2, old / 2, old + 0.5, old + 1, old - 1, random(), random() * 1000, Math.floor(random() * 100)]);
  }
  const max = width === "u8" ? 0xff : width === "u32" ? 0xffffffff : 2 ** 64 - 1;
  const bits = width === "u8" ? 8 : width === "u32" ? 32 : 64;
  const kind = Math.floor(random() * 6);
  if (kind === 0) return pick([0, 1, 2, 3, 4, 8, 16, 32, 63, 64, 65, 128, 255, 256]).valueOf() % (max + 1);
  if (kind === 1) return width === "u64" ? pick([2n ** 64n - 1n, 2n ** 53n, 2n ** 53n - 1n, 2n ** 52n, 2n ** 41n, 2n ** 32n, 2n ** 32n - 1n, 2n ** 31n]) : pick([max, max - 1, 2 ** (bits - 1)]);
  if (kind === 2) return Math.max(0, Math.min(max, pick([old + 1, old - 1, old * 2, Math.floor(old / 2), old + 64, old * 2 ** Math.floor(1 + random() * 48)])));
  if (kind === 3) return width === "u64" ? BigInt(2) ** BigInt(Math.floor(random() * 64)) : 2 ** Math.floor(random() * bits);
  if (kind === 4 && width !== "u8") return width === "u64" ? BigInt(Math.floor(random() * 2 ** 20)) : Math.floor(random() * 2 ** 20);
  return width === "u64" ? BigInt(Math.floor(random() * 2 ** 32)) * 2n ** 32n + BigInt(Math.floor(random() * 2 ** 32)) : Math.floor(random() * (max + 1));
}

function write(view: DataView, { at, width }: Field, value: number | bigint): void {
  if (width === "u8") view.setUint8(at, Number(value) & 0xff);
  else if (width === "u32") view.setUint32(at, Number(value) >>> 0, true);
  else if (width === "f64") view.setFloat64(at, Number(value), true);
  else view.setBigUint64(at, BigInt.asUintN(64, BigInt(value)), true);
}

/** The payload bytes the (edited) parameters need, when the docs give them simply and they are small; else undefined. */
function payloadBytesFor(type: number, view: DataView): number | undefined {
  const u64 = (at: number) => Number(view.getBigUint64(at, true));
  let bytes: number;
  if (type === 1) bytes = Math.ceil(u64(0) / 64) * 8;
  else if (type === 3) bytes = Math.ceil((u64(0) * view.getUint8(12)) / 64) * 8;
  else if (type === 4) bytes = Math.ceil((view.getUint32(0, true) * 4 * view.getUint8(4)) / 64) * 8;
  else if (type === 5) bytes = view.getUint32(0, true) * 32;
  else if (type === 6) bytes = (u64(28) * view.getUint8(16)) / 8;
  else return undefined;
  return Number.isInteger(bytes) && bytes >= 0 && bytes <= 1 << 20 ? bytes : undefined;
}

/** `parts` with one or two parameter fields changed, and (mostly) the payload resized to what they need. */
function mutate({ version, type, params, payload }: RecordParts, random: () => number): { parts: RecordParts; edits: string[] } {
  if (type === 2 && random() < 0.5) {
    // A layer's fields instead (a nested type-1 record), its checksums recomputed, then the scalable record's.
    const layers = recordsIn(payload).map(parseRecord);
    const i = Math.floor(random() * layers.length);
    const { parts, edits } = mutate(layers[i], random);
    layers[i] = parts;
    return { parts: { version, type, params, payload: joinBytes(layers.map(buildRecord)) }, edits: edits.map((edit) => `layer ${i}: ${edit}`) };
  }
  const p = params.slice();
  const view = new DataView(p.buffer);
  const fields = fieldsOf(type, params);
  const edits: string[] = [];
  for (let n = random() < 0.75 ? 1 : 2; n > 0; n--) {
    const field = fields[Math.floor(random() * fields.length)];
    const value = valueFor(field.width, read(view, field), random);
    write(view, field, value);
    edits.push(`${field.name} = ${read(view, field)}`);
  }
  let body = payload;
  const wanted = payloadBytesFor(type, view);
  if (wanted !== undefined && wanted !== payload.length && random() < 0.8) {
    body = new Uint8Array(wanted);
    body.set(payload.subarray(0, wanted));
    if (random() < 0.3) for (let i = payload.length; i < wanted; i++) body[i] = Math.floor(random() * 256) & Math.floor(random() * 256);
    edits.push(`payload ${payload.length} → ${wanted} bytes`);
  }
  return { parts: { version, type, params: p, payload: body }, edits };
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** `params` with the bytes [from, to) cleared (a state field that the reference filter need not share). */
function without(params: Uint8Array, from: number, to: number): Uint8Array {
  const out = params.slice();
  out.fill(0, from, to);
  return out;
}

/** The filter create()/withSize() (and fold()) make with `filter`'s parameters; throws when they refuse them. */
function legitimate(filter: AnyFilter): AnyFilter {
  if (filter instanceof BloomFilter) {
    // Not made when it would take more than 128 MiB: then its base m must be one some create() makes in these segments.
    if (filter.baseBits > 2 ** 30) {
      if (!(filter.baseBits <= filter.segmentCount * MAX_SEGMENT_BITS)) throw new Error(`base m ${filter.baseBits} in ${filter.segmentCount} segments`);
      return BloomFilter.withSize(filter.bits, filter.hashes, { strategy: filter.strategy, hash: filter.hash, seed: filter.seed } as never);
    }
    const made = BloomFilter.withSize(filter.baseBits, filter.hashes, { strategy: filter.strategy, hash: filter.hash, seed: filter.seed } as never);
    if (filter.baseBits === filter.bits) return made;
    try {
      return made.fold(filter.baseBits / filter.bits);
    } finally {
      made.dispose();
    }
  }
  if (filter instanceof CountingBloomFilter) return CountingBloomFilter.withSize(filter.counters, filter.hashes, { counterBits: filter.counterBits, strategy: filter.strategy, hash: filter.hash, seed: filter.seed } as never);
  if (filter instanceof CuckooFilter) {
    // fnv1a_64 is refused by create()/withSize() since records made with it were written; they still load (docs/FORMAT.md).
    const made = CuckooFilter.withSize(filter.buckets, filter.fingerprintBits as 8, { hash: filter.hash === "fnv1a_64" ? "xxh64" : filter.hash, seed: filter.seed });
    return made;
  }
  if (filter instanceof SplitBlockBloomFilter) return SplitBlockBloomFilter.withSize(filter.blocks);
  if (filter instanceof ScalableBloomFilter) {
    const made = ScalableBloomFilter.create(filter.layerCapacity(0), filter.targetFalsePositiveRate, { growth: filter.growth, tightening: filter.tightening, strategy: filter.strategy, hash: filter.hash, seed: filter.seed } as never);
    expect(filter.layers).toBeLessThanOrEqual(made.maxLayers);
    return made;
  }
  throw new Error("no reference for this type");
}

/** Where a cuckoo record's parameters hold its one hash id: after buckets, fingerprint bits, reserved bytes, size, and the hashing block's first 8 bytes. */
const CUCKOO_HASH_ID_AT = 24;

/** The parameter bytes of a record that are state (they change as keys come), by type: [from, to). */
const STATE: Record<number, [number, number]> = { 1: [20, 28], 2: [32, 36], 3: [16, 24], 4: [8, 16], 5: [4, 12] };

function checkLegitimate(filter: AnyFilter, parts: RecordParts, where: string): void {
  if (filter instanceof BinaryFuseFilter) {
    const view = new DataView(parts.params.buffer, parts.params.byteOffset, parts.params.byteLength);
    const size = Number(view.getBigUint64(8, true));
    const layout = [view.getUint32(20, true), view.getUint32(24, true), Number(view.getBigUint64(28, true))];
    expect(size, `${where}: size`).toBeLessThanOrEqual(2 ** 31);
    expect([8, 16], `${where}: fingerprint bits`).toContain(view.getUint8(16));
    expect([view.getUint8(17), view.getUint8(18), view.getUint8(19)], `${where}: reserved`).toEqual([0, 0, 0]);
    expect(fuseLayouts(size).map(String), `${where}: layout ${layout}`).toContain(String(layout));
    return;
  }
  let made: AnyFilter;
  try {
    made = legitimate(filter);
  } catch (error) {
    throw new Error(`${where}: loaded, but create()/withSize() refuses its parameters: ${(error as Error).message}`);
  }
  try {
    const ours = parseRecord(made.serialize());
    // Made with xxh64 in place of fnv1a_64 (see legitimate()): an earlier withSize() wrote these bytes with fnv1a_64's id.
    if (filter instanceof CuckooFilter && filter.hash === "fnv1a_64") ours.params[CUCKOO_HASH_ID_AT] = hashNames.indexOf("fnv1a_64");
    const [from, to] = STATE[parts.type];
    expect(ours.version, `${where}: version`).toBe(parts.version);
    const skipped = filter instanceof BloomFilter && filter.baseBits > 2 ** 30 ? [8, 16] : [from, from];
    expect(same(without(without(ours.params, from, to), skipped[0], skipped[1]), without(without(parts.params, from, to), skipped[0], skipped[1])), `${where}: parameters no create()/withSize() call writes`).toBe(true);
  } finally {
    made.dispose();
  }
}

const BASES: [string, () => Uint8Array[]][] = [
  ["BloomFilter", () => [
    BloomFilter.withSize(200, 3).addMany(keys(5, "a")).serialize(),
    BloomFilter.create(1000, 0.01, { foldable: true }).addMany(keys(40, "f")).fold(4).serialize(),
    BloomFilter.create(40, 0.05, { hash: ["fnv1a_32", "murmur3_32", "xxh32"] }).addMany(keys(20, "i")).serialize(),
    BloomFilter.create(40, 0.05, { hash: "murmur3_128", seed: 7, strategy: "double" }).addMany(keys(20, "m")).serialize(),
  ]],
  ["ScalableBloomFilter", () => [
    ScalableBloomFilter.create(8, 0.05).addMany(keys(30, "s")).serialize(),
    ScalableBloomFilter.create(8, 0.05, { growth: 1, tightening: 0.9, hash: ["djb", "xxh32"] }).addMany(keys(20, "g")).serialize(),
  ]],
  ["CountingBloomFilter", () => [
    CountingBloomFilter.create(40, 0.05).addMany(keys(20, "c")).serialize(),
    CountingBloomFilter.withSize(37, 3, { counterBits: 16, hash: ["djb", "sdbm", "ap"] }).addMany(keys(10, "d")).serialize(),
    CountingBloomFilter.withSize(64, 2, { counterBits: 8, hash: "xxh64", seed: 9 }).addMany(keys(10, "e")).serialize(),
  ]],
  ["CuckooFilter", () => [
    CuckooFilter.withSize(8, 8).addMany(keys(20, "k")).serialize(),
    CuckooFilter.withSize(4, 16).addMany(keys(10, "k")).serialize(),
    CuckooFilter.withSize(2, 32, { hash: "xxh3", seed: 3 }).addMany(keys(5, "k")).serialize(),
  ]],
  ["SplitBlockBloomFilter", () => [SplitBlockBloomFilter.withSize(3).addMany(keys(40, "p")).serialize()]],
  ["BinaryFuseFilter", () => [
    BinaryFuseFilter.build([]).serialize(),
    BinaryFuseFilter.build(keys(30, "u")).serialize(),
    BinaryFuseFilter.build(keys(200, "u"), { fingerprintBits: 16 }).serialize(),
  ]],
];

describe("format fuzzing, field by field", () => {
  it.each(BASES)(`${PER_TYPE} %s records with parameter fields edited and resealed: a FormatError or a filter create()/withSize() could make`, (name, make) => {
    const bases = make().map(parseRecord);
    const random = rng(name.length * 7919 + 17);
    let accepted = 0;
    for (let i = 0; i < PER_TYPE; i++) {
      const { parts, edits } = mutate(bases[i % bases.length], random);
      const bytes = buildRecord(parts);
      const where = `${name} #${i} (${edits.join(", ")})`;
      let filter: AnyFilter;
      try {
        filter = deserialize(bytes);
      } catch (error) {
        if (!(error instanceof FormatError)) throw new Error(`${where}: ${(error as Error)?.constructor?.name}: ${(error as Error).message}`);
        continue;
      }
      accepted++;
      try {
        expect(same(filter.serialize(), bytes), `${where}: writes back other bytes`).toBe(true);
        checkLegitimate(filter, parts, where);
      } finally {
        filter.dispose();
      }
    }
    expect(accepted).toBeGreaterThan(0);
  });
});
