// The binary format: round trips, strict rejection of damaged bytes, base64,
// and filters handed between processes.
import { execFileSync } from "node:child_process";
import { constants } from "node:buffer";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { base64ToBytes, bytesToBase64 } from "../bindings/base64.js";
import { BinaryFuseFilter, BloomFilter, CountingBloomFilter, CuckooFilter, FormatError, MAX_SEGMENT_BITS, ScalableBloomFilter, SplitBlockBloomFilter, deserialize, deserializeBase64, deserializeChunks } from "../bindings/index.js";
import { ones, rng, urls } from "./helpers.js";
import { buildRecord, parseRecord, reseal } from "./records.js";

const probes = urls(20_000, "format-probe", 61);
const answers = (filter: { hasMany(keys: string[]): Uint8Array }) => Array.from(filter.hasMany(probes));

const variants: Record<string, () => BloomFilter> = {
  "default": () => BloomFilter.create(5_000, 0.01).addMany(urls(5_000, "fmt", 62)),
  "seeded murmur3_128": () => BloomFilter.create(3_000, 0.001, { hash: "murmur3_128", seed: 77 }).addMany(urls(3_000, "fmt2", 63)),
  "independent": () => BloomFilter.create(2_000, 0.05, { hash: ["hflp", "str", "hf", "dek", "tianl", "sdbm"] }).addMany(urls(2_000, "fmt3", 64)),
  "folded": () => BloomFilter.create(8_000, 0.01, { foldable: true }).addMany(urls(4_000, "fmt4", 65)).fold(4),
  "odd m": () => BloomFilter.withSize(1_001, 3).addMany(urls(100, "fmt5", 66)),
};

describe("BloomFilter round trip", () => {
  it.each(Object.keys(variants))("%s: same parameters, count and answers", (name) => {
    const original = variants[name]();
    const bytes = original.serialize();
    const copy = BloomFilter.deserialize(bytes);
    expect([copy.bits, copy.hashes, copy.seed, copy.count, copy.strategy]).toEqual([original.bits, original.hashes, original.seed, original.count, original.strategy]);
    expect(copy.hash).toEqual(original.hash);
    expect(copy.fillRatio).toBe(original.fillRatio);
    expect(answers(copy)).toEqual(answers(original));
    expect(copy.serialize()).toEqual(bytes);
    // The copy keeps working like the original.
    copy.add("new key");
    original.add("new key");
    expect(answers(copy)).toEqual(answers(original));
    expect(BloomFilter.fromBase64(original.toBase64()).serialize()).toEqual(original.serialize());
  });
});

describe("ScalableBloomFilter round trip", () => {
  it("keeps every layer, its parameters and its answers", () => {
    const original = ScalableBloomFilter.create(500, 0.01, { growth: 3, tightening: 0.7, hash: "murmur3_128", seed: 3 });
    original.addMany(urls(5_000, "fmt-scalable", 67));
    const copy = ScalableBloomFilter.deserialize(original.serialize());
    expect([copy.layers, copy.count, copy.bits, copy.growth, copy.tightening]).toEqual([original.layers, original.count, original.bits, 3, 0.7]);
    expect(answers(copy)).toEqual(answers(original));
    copy.addMany(urls(3_000, "fmt-more", 68));
    original.addMany(urls(3_000, "fmt-more", 68));
    expect(copy.layers).toBe(original.layers);
    expect(answers(copy)).toEqual(answers(original));
  });

  it("serializeChunks() refuses to go on once its filter was disposed, rather than write another filter's bits behind matching checksums", () => {
    const makers = [
      () => BloomFilter.withSize(6400, 3),
      () => ScalableBloomFilter.create(10, 0.1),
      () => CountingBloomFilter.withSize(1600, 3),
      () => CuckooFilter.withSize(64, 16),
      () => SplitBlockBloomFilter.withSize(25),
    ];
    for (const make of makers) {
      const filter = make().addMany(["a", "b", "c"]);
      const pieces = filter.serializeChunks(16);
      const head = pieces.next().value!.slice();
      filter.dispose();
      // The memory it held goes to another filter of the same shape, with other keys.
      const other = make().addMany(["x", "y", "z", "w"]);
      expect(() => {
        const rest = [...pieces];
        // Before: these pieces were a record that loaded, answering for x, y, z and w with a, b and c's count.
        deserialize(Buffer.concat([head, ...rest])).dispose();
      }, filter.constructor.name).toThrow(/was disposed while serializeChunks\(\) was writing it/);
      other.dispose();
    }
  });

  it("serializeChunks() of a cuckoo filter changed between its pieces throws, rather than write a record missing keys it held throughout", () => {
    // An insert moves fingerprints between buckets: one moved from a bucket not yet written to one already written
    // was in no piece. Before, 8 of 50 such records (one add and remove between pieces) loaded with keys missing.
    const random = rng(71);
    // Each stores or removes a fingerprint (removes take a held key): a call that changes nothing lets the pieces go on.
    const changes: [string, (filter: CuckooFilter, key: string, heldKey: string) => unknown][] = [
      ["add", (filter, key) => filter.tryAdd(key)],
      ["addMany", (filter, key) => filter.tryAddMany([key, `${key}+`])],
      ["testAndAdd", (filter, key) => filter.testAndAdd(key)],
      ["tryAddInts", (filter, key) => filter.tryAddInts(new Uint32Array([key.length, random() * 2 ** 32]))],
      ["remove", (filter, _key, heldKey) => filter.remove(heldKey)],
      ["removeMany", (filter, _key, heldKey) => filter.removeMany([heldKey])],
    ];
    const queries: [string, (filter: CuckooFilter, key: string) => unknown][] = [
      ["has", (filter, key) => filter.has(key)],
      ["countMany", (filter, key) => filter.countMany([key])],
    ];
    for (let trial = 0; trial < 40; trial++) {
      const filter = CuckooFilter.withSize(256, 16);
      const held = urls(900, `fmt-cuckoo-moving-${trial}`, 72 + trial);
      filter.tryAddMany(held);
      const before = filter.serialize();
      const changeAt = trial % 2 === 0 ? -1 : 1 + Math.floor(random() * 20);
      const [name, change] = changes[trial % changes.length];
      const pieces: Uint8Array[] = [];
      const read = () => {
        for (const piece of filter.serializeChunks(64)) {
          pieces.push(piece.slice());
          const [, query] = queries[pieces.length % queries.length];
          query(filter, held[pieces.length]);
          if (pieces.length === changeAt) change(filter, `new-${trial}`, held[0]);
        }
      };
      if (changeAt < 0) {
        read();
        expect(Buffer.concat(pieces).equals(before), "queries only").toBe(true);
        expect(ones(CuckooFilter.deserialize(Buffer.concat(pieces)).hasMany(held))).toBe(held.length);
      } else {
        expect(read, name).toThrow(/CuckooFilter was changed while serializeChunks\(\) was writing it/);
      }
      filter.dispose();
    }
  });

  it("serializeChunks(chunkBytes) cuts the layers' bits into pieces of at most chunkBytes too", async () => {
    // A first layer of 169 KB: it came as one piece of 169 KB, the default 16 MiB applied inside the record.
    const original = ScalableBloomFilter.create(100_000, 0.01).addMany(urls(1_000, "fmt-pieces", 70));
    const pieces = [...original.serializeChunks(4096)];
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(4096);
    expect(Buffer.concat(pieces).equals(original.serialize())).toBe(true);
    expect((await ScalableBloomFilter.deserializeChunks(pieces)).size).toBe(original.size);
  });
});

describe("CountingBloomFilter and CuckooFilter round trips", () => {
  it.each([4, 8, 16] as const)("counting, %i-bit counters: counters, size and answers", (counterBits) => {
    const original = CountingBloomFilter.create(3_000, 0.01, { counterBits, hash: ["xxh32", "murmur3_32", "fnv1a_32", "djb", "sdbm", "bkdr", "js"] });
    const keys = urls(3_001, "fmt-counting", 91);
    original.addMany(keys).addMany(keys.slice(0, 500)).removeMany(keys.slice(2_000));
    const copy = CountingBloomFilter.deserialize(original.serialize());
    expect([copy.bits, copy.hashes, copy.counterBits, copy.size]).toEqual([original.bits, original.hashes, counterBits, original.size]);
    expect(Array.from(copy.countMany(keys))).toEqual(Array.from(original.countMany(keys)));
    expect(answers(copy)).toEqual(answers(original));
    expect(CountingBloomFilter.fromBase64(original.toBase64()).serialize()).toEqual(original.serialize());
  });

  it.each([0.1, 0.01, 1e-6])("cuckoo (p = %s): table, size and answers", (p) => {
    const original = CuckooFilter.create(2_000, p, { hash: "murmur3_128", seed: 8 });
    const keys = urls(2_000, "fmt-cuckoo", 92);
    original.addMany(keys);
    original.removeMany(keys.slice(0, 300));
    const copy = CuckooFilter.deserialize(original.serialize());
    expect([copy.buckets, copy.fingerprintBits, copy.size, copy.hash, copy.seed]).toEqual([original.buckets, original.fingerprintBits, original.size, "murmur3_128", 8]);
    expect(copy.entries()).toEqual(original.entries());
    expect(answers(copy)).toEqual(answers(original));
    expect(deserialize(original.serialize())).toBeInstanceOf(CuckooFilter);
  });
});

describe("generic deserialize", () => {
  it("returns the right type", () => {
    const bloom = variants.default();
    const scalable = ScalableBloomFilter.create(100, 0.01).addMany(["a", "b"]);
    expect(deserialize(bloom.serialize())).toBeInstanceOf(BloomFilter);
    expect(deserialize(scalable.serialize())).toBeInstanceOf(ScalableBloomFilter);
    expect(deserializeBase64(scalable.toBase64())).toBeInstanceOf(ScalableBloomFilter);
  });

  it("calls bytes shorter than a header not a filter when they do not begin as the magic number does, and truncated when they do", async () => {
    const record = BloomFilter.withSize(64, 1).serialize();
    for (let length = 1; length < 12; length++) {
      const prefix = record.subarray(0, length);
      const foreign = Uint8Array.from(prefix);
      foreign[Math.min(length, 4) - 1] ^= 0x20; // one byte of the magic number changed
      expect(() => deserialize(prefix), `${length} bytes of a record`).toThrow(/^truncated: /);
      expect(() => deserialize(foreign), `${length} foreign bytes`).toThrow("not a bloomkit filter: the magic number is missing");
      // In pieces of one byte, as a stream gives them: said at the first byte that differs.
      await expect(deserializeChunks(Array.from(foreign, (byte) => Uint8Array.of(byte)))).rejects.toThrow("not a bloomkit filter: the magic number is missing");
      await expect(deserializeChunks([prefix])).rejects.toThrow(/^truncated: the stream ended after/);
    }
    expect(() => deserialize(new TextEncoder().encode("hi\n"))).toThrow(/magic number is missing/);
  });

  it("says how long a truncated record is only once its header gave the length, and 'at least' before", async () => {
    const record = BloomFilter.withSize(640, 2).add("x").serialize();
    const headerBytes = 12 + new DataView(record.buffer).getUint32(8, true) + 16;
    for (let length = 1; length < record.length; length++) {
      const prefix = record.subarray(0, length);
      // 30 bytes of a 173-byte record said "the record needs 65": the header's length, not the record's.
      const needs = length < headerBytes ? `at least ${length < 12 ? 12 : headerBytes}` : `${record.length}`;
      expect(() => deserialize(prefix), `${length} bytes`).toThrow(new FormatError(`truncated: ${length} bytes, the record needs ${needs}`));
      const more = length < headerBytes ? `at least ${(length < 12 ? 12 : headerBytes) - length}` : `${record.length - length}`;
      await expect(deserializeChunks([prefix]), `${length} bytes in a stream`).rejects.toThrow(new FormatError(`truncated: the stream ended after ${length} bytes, the record needs ${more} more`));
    }
  });

  it("refuses the wrong type, foreign bytes and non-bytes", () => {
    const scalable = ScalableBloomFilter.create(100, 0.01).serialize();
    expect(() => BloomFilter.deserialize(scalable)).toThrow(/these bytes hold a ScalableBloomFilter, not a BloomFilter/);
    expect(() => deserialize(new Uint8Array(0))).toThrow(FormatError);
    expect(() => deserialize(new TextEncoder().encode('{"bits":1000}'))).toThrow(/magic number is missing/);
    expect(() => deserialize(Uint8Array.from({ length: 4096 }, (_, i) => (i * 37) & 255))).toThrow(FormatError);
    const future = variants.default().serialize();
    future[4] = 9;
    expect(() => deserialize(future)).toThrow(/unsupported format version 9/);
    expect(() => deserialize("BLMK" as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => deserializeBase64("not base64!")).toThrow(/not base64/);
    expect(() => BloomFilter.fromBase64("QkxNSw")).toThrow(FormatError);
  });
});

describe("deserializeChunks with the source's size", () => {
  it("refuses a header that declares more than the size as truncated, before allocating what it declares", async () => {
    // A record's header alone, its checksum right: a filter of one whole wasm memory (4 GiB), whose payload is missing.
    const { params } = parseRecord(BloomFilter.withSize(64, 1).serialize());
    const view = new DataView(params.buffer);
    view.setBigUint64(0, BigInt(MAX_SEGMENT_BITS), true);
    view.setBigUint64(8, BigInt(MAX_SEGMENT_BITS), true);
    const record = buildRecord({ version: 1, type: 1, params, payload: new Uint8Array(0) });
    new DataView(record.buffer).setBigUint64(12 + params.length, BigInt(MAX_SEGMENT_BITS / 8), true);
    const header = reseal(record).subarray(0, 12 + params.length + 16);
    await expect(deserializeChunks([header], { size: header.length })).rejects.toThrow(
      new FormatError(`truncated: ${header.length} bytes, the record needs ${header.length + MAX_SEGMENT_BITS / 8 + 8}`),
    );
  });

  it("refuses a size larger than the record, before allocating: the bytes past the record, or a size that is not the source's", async () => {
    // A source of the record alone but a size 5 bytes larger loaded; a source that held those 5 bytes was refused
    // only once they came, after the filter was allocated and filled.
    const bytes = BloomFilter.create(1000, 0.01).add("kept").serialize();
    await expect(deserializeChunks([bytes], { size: bytes.length + 5 })).rejects.toThrow(new FormatError(`bytes follow the record: the source holds ${bytes.length + 5} bytes, the record ${bytes.length}; a record is read alone`));
    await expect(BloomFilter.deserializeChunks([bytes, new Uint8Array(5)], { size: bytes.length + 5 })).rejects.toThrow(/^bytes follow the record: the source holds/);
    const scalable = ScalableBloomFilter.create(8, 0.05).addMany(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]).serialize();
    await expect(ScalableBloomFilter.deserializeChunks([scalable], { size: scalable.length + 1 })).rejects.toThrow(new FormatError(`bytes follow the record: the source holds ${scalable.length + 1} bytes, the record ${scalable.length}; a record is read alone`));
    expect((await ScalableBloomFilter.deserializeChunks([scalable], { size: scalable.length })).has("a")).toBe(true);
  });

  it("loads a record of exactly that size, and checks the option", async () => {
    const bytes = BloomFilter.create(1000, 0.01).add("kept").serialize();
    expect((await deserializeChunks([bytes.subarray(0, 50), bytes.subarray(50)], { size: bytes.length })).has("kept")).toBe(true);
    // Checked at the call, as Type.deserializeChunks checks its options.
    expect(() => deserializeChunks([bytes], { size: -1 })).toThrow(new RangeError("options.size must be an integer from 0 to 9007199254740991, got -1"));
    expect(() => deserializeChunks([bytes], { bytes: 1 } as never)).toThrow(/unknown option "bytes"/);
  });

  it.each([
    ["BloomFilter", () => BloomFilter.create(1000, 0.01).add("kept"), BloomFilter],
    ["SplitBlockBloomFilter", () => SplitBlockBloomFilter.create(1000, 0.01).add("kept"), SplitBlockBloomFilter],
    ["CountingBloomFilter", () => CountingBloomFilter.create(1000, 0.01).add("kept"), CountingBloomFilter],
    ["CuckooFilter", () => CuckooFilter.create(1000, 0.01).add("kept"), CuckooFilter],
    ["ScalableBloomFilter", () => ScalableBloomFilter.create(1000, 0.01).add("kept"), ScalableBloomFilter],
    ["BinaryFuseFilter", () => BinaryFuseFilter.build(["kept", "other"]), BinaryFuseFilter],
  ] as const)("%s.deserializeChunks takes the source's size too", async (name, make, Type) => {
    // BloomFilter's refused { size } as an unknown option; the other types' ignored it.
    const bytes = make().serialize();
    const cut = bytes.subarray(0, bytes.length - 10);
    await expect(Type.deserializeChunks([cut], { size: cut.length })).rejects.toThrow(new FormatError(`truncated: ${cut.length} bytes, the record needs ${bytes.length}`));
    expect((await Type.deserializeChunks([bytes.subarray(0, 20), bytes.subarray(20)], { size: bytes.length })).has("kept")).toBe(true);
    expect(() => Type.deserializeChunks([bytes], { size: 1.5 })).toThrow(new RangeError("options.size must be an integer from 0 to 9007199254740991, got 1.5"));
    const shareable = name === "BloomFilter" || name === "SplitBlockBloomFilter";
    if (!shareable) expect(() => Type.deserializeChunks([bytes], { shared: true } as never)).toThrow(/unknown option "shared"/);
  });

  it("says how to pass a whole record, which is an iterable of numbers, not of pieces", async () => {
    const bytes = BloomFilter.create(1000, 0.01).add("kept").serialize();
    await expect(deserializeChunks(bytes as never)).rejects.toThrow(new TypeError("source must be a stream or an iterable of Uint8Arrays, got a Uint8Array (one piece: [bytes], or deserialize(bytes))"));
    await expect(BloomFilter.deserializeChunks(Buffer.from(bytes) as never)).rejects.toThrow(/got a Buffer \(one piece: \[bytes\], or deserialize\(bytes\)\)$/);
  });
});

describe("damaged bytes are always rejected, never loaded", () => {
  const small: Record<string, () => Uint8Array> = {
    bloom: () => BloomFilter.withSize(200, 3).addMany(["a", "b", "c"]).serialize(),
    "bloom, independent": () => BloomFilter.withSize(300, 2, { hash: ["djb", "sdbm"] }).addMany(["a", "b"]).serialize(),
    scalable: () => ScalableBloomFilter.create(4, 0.1).addMany(["a", "b", "c", "d", "e", "f", "g"]).serialize(),
    counting: () => CountingBloomFilter.withSize(50, 3).addMany(["a", "b", "a"]).serialize(),
    "split-block": () => SplitBlockBloomFilter.withSize(2).addMany(["a", "b"]).serialize(),
    cuckoo: () => {
      const filter = CuckooFilter.withSize(8, 16);
      filter.addMany(["a", "b", "c"]);
      return filter.serialize();
    },
  };

  it.each(Object.keys(small))("%s: truncated at every offset", (name) => {
    const bytes = small[name]();
    for (let length = 0; length < bytes.length; length++) {
      expect(() => deserialize(bytes.subarray(0, length)), `length ${length} of ${bytes.length}`).toThrow(FormatError);
    }
  });

  it.each(Object.keys(small))("%s: every byte flipped, one at a time", (name) => {
    const bytes = small[name]();
    for (let at = 0; at < bytes.length; at++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const damaged = bytes.slice();
        damaged[at] ^= mask;
        expect(() => deserialize(damaged), `byte ${at} ^ ${mask}`).toThrow(FormatError);
      }
    }
  });

  it("reseal() reproduces the writer's checksums", () => {
    const bytes = BloomFilter.withSize(100, 2).add("x").serialize();
    expect(reseal(bytes.slice())).toEqual(bytes);
  });

  it("impossible contents behind valid checksums are still rejected", () => {
    const base = () => BloomFilter.withSize(100, 2).serialize(); // params: bits u64 @12, base u64 @20, k u32 @28
    const cases: [string, (b: DataView) => void, RegExp][] = [
      ["a bit past m set", (b) => b.setUint8(b.byteLength - 9, 0x80), /bits past m are set/],
      ["bits = 0", (b) => b.setBigUint64(12, 0n, true), /bits = 0 is out of range/],
      ["k = 0", (b) => b.setUint32(28, 0, true), /hashes = 0 is out of range/],
      ["base not a multiple of bits", (b) => b.setBigUint64(20, 150n, true), /base bits 150/],
      ["unknown strategy", (b) => b.setUint8(40, 7), /strategy code 7/],
      ["unknown hash id", (b) => b.setUint8(48, 99), /hash id 99 is unknown/],
      ["a 32-bit hash for double hashing", (b) => b.setUint8(48, 0), /gives 32 bits/],
    ];
    for (const [what, damage, message] of cases) {
      const bytes = base();
      damage(new DataView(bytes.buffer));
      expect(() => deserialize(reseal(bytes)), what).toThrow(message);
      expect(() => deserialize(bytes), what).toThrow(FormatError);
    }
  });
});

describe("base64 without Node's Buffer", () => {
  /** Runs `body` with globalThis.Buffer gone, as in a browser. */
  const withoutBuffer = <T>(body: () => T): T => {
    const saved = globalThis.Buffer;
    try {
      (globalThis as { Buffer?: unknown }).Buffer = undefined;
      return body();
    } finally {
      globalThis.Buffer = saved;
    }
  };

  it("gives the same text and bytes as with it (the browser path)", () => {
    const filter = variants.default();
    const withBuffer = filter.toBase64();
    expect(withoutBuffer(() => filter.toBase64())).toBe(withBuffer);
    expect(withoutBuffer(() => BloomFilter.fromBase64(withBuffer)).serialize()).toEqual(filter.serialize());
    expect(BloomFilter.fromBase64(withBuffer).serialize()).toEqual(filter.serialize());
  });

  it("agrees with the platform's btoa and atob on every length 0…1000, both ways", () => {
    let state = 12345;
    for (let length = 0; length <= 1000; length++) {
      const bytes = Uint8Array.from({ length }, () => (state = (state * 1103515245 + 12345) >>> 0) >>> 24);
      const reference = btoa(String.fromCharCode(...bytes));
      expect(bytesToBase64(bytes)).toBe(reference);
      expect(withoutBuffer(() => bytesToBase64(bytes))).toBe(reference);
      expect(base64ToBytes(reference)).toEqual(bytes);
      expect(withoutBuffer(() => base64ToBytes(reference))).toEqual(bytes);
    }
  });

  it("refuses the same text as with it", () => {
    for (const text of ["not base64!", "QkxNSw", "QkxN=w==", "QkxNSw==="]) {
      expect(() => BloomFilter.fromBase64(text), text).toThrow(FormatError);
      expect(() => withoutBuffer(() => BloomFilter.fromBase64(text)), text).toThrow(FormatError);
    }
  });
});

describe("fromBase64 of text that is not the one toBase64 writes", () => {
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  it("refuses a last character whose bits past the record are not 0 (one or two '='), in both paths; the canonical text loads", () => {
    // Records of 89 and 97 bytes: base64 with one and two '=' of padding.
    for (const filter of [BloomFilter.withSize(128, 1).add("x"), BloomFilter.withSize(192, 1).add("x")]) {
      const text = filter.toBase64();
      const pad = text.length - text.indexOf("=");
      expect([1, 2]).toContain(pad);
      const at = text.length - pad - 1;
      for (let flip = 1; flip < (pad === 1 ? 4 : 16); flip++) {
        const changed = text.slice(0, at) + ALPHABET[ALPHABET.indexOf(text[at]) ^ flip] + text.slice(at + 1);
        // Before, both decoders dropped those bits: the changed text loaded as the original filter.
        expect(() => BloomFilter.fromBase64(changed), changed.slice(-4)).toThrow(FormatError);
        expect(() => deserializeBase64(changed), changed.slice(-4)).toThrow(FormatError);
        const saved = globalThis.Buffer;
        try {
          (globalThis as { Buffer?: unknown }).Buffer = undefined;
          expect(() => BloomFilter.fromBase64(changed), changed.slice(-4)).toThrow(FormatError);
        } finally {
          globalThis.Buffer = saved;
        }
      }
      expect(BloomFilter.fromBase64(text).toBase64()).toBe(text);
      filter.dispose();
    }
  });
});

describe("toBase64 of a record whose text is longer than a string can be", () => {
  it("is a RangeError pointing to serializeChunks, before the record is copied out, and the filter still works", () => {
    // Node's base64 of more than 3/4 of MAX_STRING_LENGTH bytes threw its own Error (ERR_STRING_TOO_LONG), after a full copy.
    const recordBytes = Math.ceil((constants.MAX_STRING_LENGTH / 4) * 3) + 8;
    const filter = BloomFilter.withSize(recordBytes * 8, 1).add("kept");
    try {
      expect(() => filter.toBase64()).toThrow(RangeError);
      expect(() => filter.toBase64()).toThrow(/longer than a string can be here .*serializeChunks\(\)/);
      expect(filter.has("kept")).toBe(true);
    } finally {
      filter.dispose();
    }
  });
});

describe("serialize() of a record larger than one Uint8Array", () => {
  const record = 2 ** 32 + 2 ** 17 + 36 + 41; // 2^35 + 2^20 bits as bytes, the frame and the parameters of one double hash
  // Node 20's Uint8Arrays hold at most 4 GiB; Node 22 and later's hold this record (serialize() then copies 4 GiB out).
  it.skipIf(constants.MAX_LENGTH >= record)("is a RangeError that shows both sizes in bytes and names only what the package exports", () => {
    // Two segments whose pages are never touched, so this costs no memory.
    const filter = BloomFilter.withSize(2 ** 35 + 2 ** 20, 1);
    try {
      const error = (() => {
        try {
          filter.serialize();
        } catch (caught) {
          return caught as Error;
        }
        throw new Error("serialize() did not throw");
      })();
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toContain(`(${record} bytes)`);
      expect(error.message).toContain(`(${constants.MAX_LENGTH} bytes)`);
      expect(error.message).toMatch(/serializeChunks\(\)/);
      // It named saveFilter() from "bloomkit/node", which the package has never had.
      const exported = Object.keys(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).exports);
      for (const [, path] of error.message.matchAll(/"bloomkit(\/[\w-]+)?"/g)) expect(exported, error.message).toContain(`.${path ?? ""}`);
      expect(error.message).not.toMatch(/saveFilter/);
    } finally {
      filter.dispose();
    }
  });
});

describe("between processes", () => {
  const dir = mkdtempSync(join(tmpdir(), "bloomkit-format-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const root = new URL("..", import.meta.url);
  const run = (script: string) => execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });

  it("a filter written by another process loads here and answers the same", () => {
    const file = join(dir, "child.bloom");
    run(`
      import { writeFileSync } from "node:fs";
      import { BloomFilter } from "bloomkit";
      const f = BloomFilter.create(1000, 0.01, { hash: "murmur3_128", seed: 5 });
      for (let i = 0; i < 1000; i++) f.add("child key " + i);
      writeFileSync(${JSON.stringify(file)}, f.serialize());
    `);
    const filter = deserialize(readFileSync(file)) as BloomFilter;
    for (let i = 0; i < 1000; i++) expect(filter.has(`child key ${i}`)).toBe(true);
    expect(filter.hash).toBe("murmur3_128");
  });

  it("a filter written here loads in another process", () => {
    const file = join(dir, "parent.bloom");
    const filter = ScalableBloomFilter.create(100, 0.01).addMany(urls(1_000, "parent", 69));
    writeFileSync(file, filter.serialize());
    const out = run(`
      import { readFileSync } from "node:fs";
      import { deserialize } from "bloomkit";
      const f = deserialize(readFileSync(${JSON.stringify(file)}));
      console.log(JSON.stringify({ type: f.constructor.name, count: f.count, answers: Array.from(f.hasMany(${JSON.stringify(probes.slice(0, 2000))})) }));
    `);
    const parsed = JSON.parse(out);
    expect(parsed.type).toBe("ScalableBloomFilter");
    expect(parsed.count).toBe(filter.count);
    expect(parsed.answers).toEqual(Array.from(filter.hasMany(probes.slice(0, 2000))));
  });
});
