// Every invariant the loaders check (docs/FORMAT.md), one record each, written
// by hand with both checksums right: only validation stands between these
// bytes and a filter, and each must be a FormatError.
import { describe, expect, it } from "vitest";
import { BloomFilter, CountingBloomFilter, CuckooFilter, FormatError, MAX_SEGMENT_BITS, ScalableBloomFilter, SplitBlockBloomFilter, deserialize, hash } from "../bindings/index.js";
import { buildRecord, editParams, joinBytes, parseRecord, Params, recordsIn } from "./records.js";

const XXH64 = 21;
const RS = 0;
const FNV1A_64 = 17;

/** Expects the bytes to be refused with a FormatError whose message matches. */
function refused(bytes: Uint8Array, message: RegExp, what: string): void {
  let error: unknown;
  try {
    deserialize(bytes).dispose();
  } catch (caught) {
    error = caught;
  }
  expect(error, what).toBeInstanceOf(FormatError);
  expect((error as Error).message, what).toMatch(message);
}

describe("Bloom records", () => {
  const record = () => BloomFilter.withSize(1024, 3).addMany(["a", "b", "c"]).serialize();
  // params: bits u64 @0, base bits u64 @8, k u32 @16, count u64 @20, hashing @28

  it("base m = 0 (which made every key added later answer absent) is refused", () => {
    refused(editParams(record(), (p) => p.setBigUint64(8, 0n, true)), /base bits 0/, "base 0");
  });

  it("a fold factor that is not a power of two is refused, even one a 32-bit test would pass (3·2^32)", () => {
    const bits = 128;
    const bytes = buildRecord({ version: 1, type: 1, params: new Params().u64(bits).u64(bits * 3 * 2 ** 32).u32(2).u64(0).hashing(0, [XXH64]).bytes(), payload: new Uint8Array(16) });
    refused(bytes, /power-of-two multiple/, "3·2^32");
    // The largest fold of one segment: a base of 128 · 2^27 bits still fits one segment (128 · 2^32 does not: see below).
    const ok = buildRecord({ version: 1, type: 1, params: new Params().u64(bits).u64(bits * 2 ** 27).u32(2).u64(0).hashing(0, [XXH64]).bytes(), payload: new Uint8Array(16) });
    const filter = BloomFilter.deserialize(ok);
    expect(filter.add("x").has("x")).toBe(true);
  });

  it("a base m no filter was created with is refused: above MAX_FILTER_BITS, or more than its segments hold", () => {
    // base m is the m of the filter this one was folded from, which had the same segments: a base of 2^52 bits
    // (a 64-bit filter that then accepted a count of 2^51 keys) or of 128 · 2^32 bits in one segment was no filter's.
    const bits = 128;
    const withBase = (base: number | bigint, count = 0n) =>
      buildRecord({ version: 1, type: 1, params: new Params().u64(bits).u64(base).u32(2).u64(count).hashing(0, [XXH64]).bytes(), payload: new Uint8Array(16) });
    refused(withBase(2n ** 52n), /base bits/, "base 2^52");
    refused(withBase(2n ** 52n, 2n ** 51n), /base bits/, "base 2^52, count 2^51");
    refused(withBase(bits * 2 ** 32), /base bits/, "base 128 · 2^32 in one segment");
    refused(withBase(bits * 2 ** 28), /base bits/, "base 128 · 2^28 > MAX_SEGMENT_BITS in one segment");
    expect(BloomFilter.withSize(bits * 2 ** 8, 2).fold(2 ** 8).baseBits).toBe(bits * 2 ** 8);
    BloomFilter.deserialize(withBase(bits * 2 ** 8)).dispose();
  });

  it("a count larger than the filter can hold is refused", () => {
    refused(editParams(record(), (p) => p.setBigUint64(20, 2n ** 53n - 1n, true)), /count/, "count 2^53−1");
    refused(editParams(record(), (p) => p.setBigUint64(20, 1025n, true)), /count/, "count m + 1");
  });

  it("version 2 (segments) with one segment, and version 1 with a segment count, are refused", () => {
    const { params, payload } = parseRecord(record());
    const withSegments = new Uint8Array(params.length + 4);
    withSegments.set(params);
    new DataView(withSegments.buffer).setUint32(params.length, 1, true);
    refused(buildRecord({ version: 2, type: 1, params: withSegments, payload }), /segment/, "v2, 1 segment");
    refused(buildRecord({ version: 1, type: 1, params: withSegments, payload }), /unexpected parameter bytes/, "v1 + segments");
  });
});

describe("scalable records", () => {
  const filter = () => ScalableBloomFilter.create(100, 0.01).addMany(Array.from({ length: 150 }, (_, i) => `k${i}`));
  // params: n0 f64 @0, p f64 @8, growth f64 @16, tightening f64 @24, layers u32 @32, hashing @36

  it("a layer with base m = 0 is refused", () => {
    const bytes = filter().serialize();
    const parts = parseRecord(bytes);
    const layer = parseRecord(parts.payload);
    new DataView(layer.params.buffer).setBigUint64(8, 0n, true);
    const payload = joinBytes([buildRecord(layer), ...recordsIn(parts.payload).slice(1)]);
    refused(buildRecord({ ...parts, payload }), /base bits 0/, "layer base 0");
  });

  it("a layer that create() never makes, folded or held in two segments, is refused: it would answer its own keys absent", () => {
    // 104 keys at p·(1 − r) give a first layer of 1,408 bits, a multiple of 128, so both edits pass the layer's own checks.
    const keys = Array.from({ length: 104 }, (_, i) => `key${i}`);
    const parts = parseRecord(ScalableBloomFilter.create(104, 0.01).addMany(keys).serialize());
    const layer = parseRecord(parts.payload);
    expect(new DataView(layer.params.buffer).getBigUint64(0, true)).toBe(1408n);
    const folded = editParams(parts.payload, (p) => p.setBigUint64(8, 2816n, true));
    refused(buildRecord({ ...parts, payload: folded }), /layer 0 does not have the size, folding, segments or hashing/, "folded layer");
    const twoSegments = new Uint8Array(layer.params.length + 4);
    twoSegments.set(layer.params);
    new DataView(twoSegments.buffer).setUint32(layer.params.length, 2, true);
    const segmented = buildRecord({ ...layer, version: 2, params: twoSegments });
    refused(buildRecord({ ...parts, payload: segmented }), /layer 0 does not have the size, folding, segments or hashing/, "layer in two segments");
  });

  it("a layer header that declares more bytes than the scalable payload holds is a FormatError before the layer is allocated", () => {
    // A 100-byte record whose one layer declares 64 segments of almost 4 GiB: it was a RangeError ("cannot
    // allocate 255.87 GiB"), and 4 segments reserved 16 GiB of wasm memory before "0 of 1 layers".
    const parts = parseRecord(ScalableBloomFilter.create(8, 0.05).serialize());
    for (const segments of [1, 4, 64]) {
      const bits = MAX_SEGMENT_BITS * segments;
      const params = new Params().u64(bits).u64(bits).u32(1).u64(0).hashing(0, [22]);
      if (segments > 1) params.u32(segments);
      const layer = buildRecord({ version: segments > 1 ? 2 : 1, type: 1, params: params.bytes(), payload: new Uint8Array(0) });
      // The layer's header says its payload is the filter's bits; the scalable record ends with that header.
      const head = layer.slice(0, layer.length - 8);
      const view = new DataView(head.buffer);
      const h = view.getUint32(8, true);
      view.setBigUint64(12 + h, BigInt(bits / 8), true);
      view.setBigUint64(20 + h, hash("xxh64", head.subarray(0, 20 + h)), true);
      refused(buildRecord({ ...parts, payload: head }), /layer 0: truncated/, `a layer of ${segments} segment(s)`);
    }
  });

  it("a layer whose m is not the one its index gives is refused before it is allocated", () => {
    const parts = parseRecord(ScalableBloomFilter.create(8, 0.05).serialize());
    const layer = parseRecord(parts.payload);
    const bits = Number(new DataView(layer.params.buffer).getBigUint64(0, true)) + 64;
    const params = new Params().u64(bits).u64(bits).u32(1).u64(0).hashing(0, [22]).bytes();
    const other = buildRecord({ version: 1, type: 1, params, payload: new Uint8Array(Math.ceil(bits / 64) * 8) });
    refused(buildRecord({ ...parts, payload: other }), /layer 0: \d+ bits where its parameters give/, "m + 64");
  });

  it("a layer whose count exceeds its capacity is refused", () => {
    const one = ScalableBloomFilter.create(100, 0.01).addMany(Array.from({ length: 100 }, (_, i) => `full-${i}`)).serialize();
    const parts = parseRecord(one);
    const layer = parseRecord(parts.payload);
    new DataView(layer.params.buffer).setBigUint64(20, 101n, true);
    refused(buildRecord({ ...parts, payload: buildRecord(layer) }), /more than its capacity/, "count > capacity");
  });

  it("a layer before the last that is not full is refused: a layer is added only when the one before it is full", () => {
    const keys = Array.from({ length: 30 }, (_, i) => `k${i}`);
    const made = ScalableBloomFilter.create(8, 0.05).addMany(keys);
    expect(made.layers).toBe(3);
    /** A scalable record's parts and its layers' records. */
    const split = (record: Uint8Array) => {
      const parts = parseRecord(record);
      return { parts, layers: recordsIn(parts.payload) };
    };
    const { parts, layers } = split(made.serialize());
    // Layer 0 (8 keys) counting none, or layer 1 (16) counting 3: the filter reported 22 or 17 keys for 30, and no adds make that.
    refused(buildRecord({ ...parts, payload: joinBytes([editParams(layers[0], (p) => p.setBigUint64(20, 0n, true)), layers[1], layers[2]]) }), /layer 0 .*not full/, "layer 0 empty");
    refused(buildRecord({ ...parts, payload: joinBytes([layers[0], editParams(layers[1], (p) => p.setBigUint64(20, 3n, true)), layers[2]]) }), /layer 1 .*not full/, "layer 1 at 3 keys");
    // The last layer may hold any number up to its capacity.
    deserialize(buildRecord({ ...parts, payload: joinBytes([layers[0], layers[1], editParams(layers[2], (p) => p.setBigUint64(20, 0n, true))]) })).dispose();
    // A full layer holds exactly the keys that fill it; the reader allows one key less (docs/FORMAT.md), not two.
    const full = new DataView(parseRecord(layers[0]).params.buffer).getBigUint64(20, true);
    const layer0Counting = (count: bigint) => buildRecord({ ...parts, payload: joinBytes([editParams(layers[0], (p) => p.setBigUint64(20, count, true)), layers[1], layers[2]]) });
    const slack = ScalableBloomFilter.deserialize(layer0Counting(full - 1n));
    expect(slack.size).toBe(made.size - 1);
    slack.dispose();
    refused(layer0Counting(full - 2n), /layer 0 .*not full/, "layer 0 two keys short");
    // Nor an empty layer before another: a first layer of one key counting none is one key short too.
    const fromOne = ScalableBloomFilter.create(1, 0.05).addMany(keys.slice(0, 3));
    expect(fromOne.layers).toBe(2);
    const one = split(fromOne.serialize());
    refused(buildRecord({ ...one.parts, payload: joinBytes([editParams(one.layers[0], (p) => p.setBigUint64(20, 0n, true)), one.layers[1]]) }), /layer 0 .*not full/, "layer 0 of one key empty");
    fromOne.dispose();
  });

  it("bytes after the last layer, and after a top-level record, are refused", () => {
    const bytes = filter().serialize();
    const parts = parseRecord(bytes);
    const longer = new Uint8Array(parts.payload.length + 3);
    longer.set(parts.payload);
    refused(buildRecord({ ...parts, payload: longer }), /left over|layer/, "bytes in the payload after the layers");
    const trailing = new Uint8Array(bytes.length + 1);
    trailing.set(bytes);
    refused(trailing, /follow the record/, "a byte after the record");
  });

  it("parameters create() would refuse are a FormatError, never a RangeError", () => {
    const bytes = ScalableBloomFilter.create(10, 0.01).add("x").serialize();
    const cases: [string, (p: DataView) => void][] = [
      ["n0 = 1e15", (p) => p.setFloat64(0, 1e15, true)],
      ["p = 0", (p) => p.setFloat64(8, 0, true)],
      ["p = 1e-300", (p) => p.setFloat64(8, 1e-300, true)],
      ["growth = 1e300", (p) => p.setFloat64(16, 1e300, true)],
      ["growth = 2^53", (p) => p.setFloat64(16, 2 ** 53, true)],
      ["growth = NaN", (p) => p.setFloat64(16, NaN, true)],
      ["growth = 0.5", (p) => p.setFloat64(16, 0.5, true)],
      ["tightening = 0", (p) => p.setFloat64(24, 0, true)],
      ["tightening = 1e-300", (p) => p.setFloat64(24, 1e-300, true)],
      ["n0 = 2.5", (p) => p.setFloat64(0, 2.5, true)],
    ];
    for (const [what, edit] of cases) refused(editParams(bytes, edit), /corrupted/, what);
  });

  it("a one-layer record with growth 1e300 is refused (its next layer could never be made)", () => {
    const bytes = ScalableBloomFilter.create(10, 0.01).add("x").serialize();
    refused(editParams(bytes, (p) => p.setFloat64(16, 1e300, true)), /corrupted/, "growth 1e300");
  });
});

describe("cuckoo records", () => {
  const bytes = () => CuckooFilter.withSize(16, 8, { hash: "xxh64" }).add("x").serialize();
  // params: buckets u32 @0, fingerprint bits u8 @4, 3 reserved, size u64 @8, hashing @16
  const withHashing = (strategy: number, ids: number[]) => {
    const { params, payload } = parseRecord(bytes());
    const head = params.subarray(0, 16);
    const hashing = new Params().hashing(strategy, ids).bytes();
    const all = new Uint8Array(head.length + hashing.length);
    all.set(head);
    all.set(hashing, head.length);
    return buildRecord({ version: 1, type: 4, params: all, payload });
  };

  it("the loader accepts what the writer writes", () => {
    expect(CuckooFilter.deserialize(withHashing(0, [XXH64])).has("x")).toBe(true);
  });

  it('strategy "independent", a 32-bit hash id and a list of 3 hashes are refused', () => {
    refused(withHashing(1, [XXH64]), /corrupted/, "independent");
    refused(withHashing(1, [RS, XXH64, FNV1A_64]), /corrupted/, "independent list of 3");
    refused(withHashing(0, [RS]), /corrupted/, "32-bit hash id");
    refused(withHashing(0, [RS, XXH64, FNV1A_64]), /corrupted/, "double with 3 hashes");
  });

  it("strategy 2 (triple hashing, a Bloom filter's) is refused, named as what it is", () => {
    // The message said "not independent hashes" for any strategy but double.
    refused(withHashing(2, [XXH64]), /^corrupted: a cuckoo filter uses one hash \(strategy double\), not triple hashing$/, "triple");
    refused(withHashing(1, [XXH64]), /^corrupted: a cuckoo filter uses one hash \(strategy double\), not independent hashes$/, "independent");
  });
});

describe("split-block records", () => {
  // params: blocks u32 @0, count u64 @4
  it("a count larger than the filter can hold is refused (2^53−1 made expectedFalsePositiveRate() loop ~10^14 times)", () => {
    const filter = SplitBlockBloomFilter.withSize(4).addMany(["a", "b"]);
    const setBits = Math.round(filter.fillRatio * filter.bits);
    const bytes = filter.serialize();
    refused(editParams(bytes, (p) => p.setBigUint64(4, 2n ** 53n - 1n, true)), /count/, "2^53−1");
    refused(editParams(bytes, (p) => p.setBigUint64(4, BigInt(setBits + 1), true)), /count/, "more keys than set bits");
    expect(SplitBlockBloomFilter.deserialize(editParams(bytes, (p) => p.setBigUint64(4, BigInt(setBits), true))).size).toBe(setBits);
    const ok = SplitBlockBloomFilter.deserialize(editParams(bytes, (p) => p.setBigUint64(4, 1n, true)));
    expect(ok.size).toBe(1);
  });
});

