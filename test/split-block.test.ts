// SplitBlockBloomFilter against the Apache Parquet specification (BloomFilter.md).
import { describe, expect, it } from "vitest";
import { SplitBlockBloomFilter, deserialize, hash, hashMany, splitBlockBytesFor, splitBlockFalsePositiveRate } from "../bindings/index.js";
import { ones, pack, randomBytes, urls } from "./helpers.js";

/** The specification's salts. */
const SALT = [0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31];

/** The specification's algorithm written out in JS: the bitset after inserting `keys`. */
function specBitset(keys: (string | Uint8Array)[], blocks: number): Uint8Array {
  const words = new Uint32Array(blocks * 8);
  for (const key of keys) {
    const h = hash("xxh64", key, 0); // checked against the reference C in hash.test.ts
    const block = Number(((h >> 32n) * BigInt(blocks)) >> 32n);
    const low = Number(h & 0xffffffffn);
    for (let i = 0; i < 8; i++) words[block * 8 + i] |= 1 << (Math.imul(low, SALT[i]) >>> 27);
  }
  return new Uint8Array(words.buffer); // little-endian words, as Parquet stores them
}

describe("SplitBlockBloomFilter follows the specification", () => {
  it("sets exactly the bits the specification's algorithm gives, step by step", () => {
    for (const blocks of [1, 3, 64, 1000]) {
      const keys = [...urls(500, `spec-${blocks}`, 111), "", "布隆过滤器", ...randomBytes(100, 40, 112)];
      const filter = SplitBlockBloomFilter.withSize(blocks);
      const expected = new Uint8Array(blocks * 32);
      for (const key of keys.slice(0, 3)) {
        filter.add(key);
        expected.set(specBitset([key], blocks).map((b, i) => b | expected[i]));
        expect(filter.toParquetBitset()).toEqual(expected); // one key at a time
      }
      filter.addMany(keys);
      expect(filter.toParquetBitset()).toEqual(specBitset(keys, blocks));
    }
  });

  it("matches a bitset written by parquet-mr (apache/parquet-testing data/bloom_filter.xxhash.bin), word for word", () => {
    // That file is a Thrift BloomFilterHeader (16 bytes) and a 1,024-byte bitset that Java's parquet-mr wrote for
    // these four strings; Arrow C++'s CompatibilityTest checks its own filter against it byte for byte. Its
    // non-zero little-endian u32 words, copied from the file: [word index, value]. Not computed by bloomkit.
    const keys = ["hello", "parquet", "bloom", "filter"];
    const words: [number, number][] = [
      [32, 0x00100000], [33, 0x00000200], [34, 0x00000400], [35, 0x00000080], [36, 0x00000200], [37, 0x80000000], [38, 0x10000000], [39, 0x08000000],
      [40, 0x00800000], [41, 0x10000000], [42, 0x00000001], [43, 0x10000000], [44, 0x00000020], [45, 0x00200000], [46, 0x40000000], [47, 0x00080000],
      [56, 0x00000004], [57, 0x00400000], [58, 0x00400000], [59, 0x00080000], [60, 0x04000000], [61, 0x00002000], [62, 0x00000010], [63, 0x00000002],
      [80, 0x00200000], [81, 0x00000800], [82, 0x00000100], [83, 0x20000000], [84, 0x00800000], [85, 0x08000000], [86, 0x00000100], [87, 0x00001000],
    ];
    const expected = new Uint32Array(1024 / 4);
    for (const [i, value] of words) expected[i] = value;
    const bitset = new Uint8Array(expected.buffer);
    const routes: [string, (filter: SplitBlockBloomFilter) => void][] = [
      ["add", (f) => keys.forEach((key) => f.add(key))],
      ["addMany", (f) => f.addMany(keys)],
      ["addLines", (f) => f.addLines(new TextEncoder().encode(keys.join("\n")))],
      ["addPacked", (f) => { const { bytes, ends } = pack(keys.map((k) => new TextEncoder().encode(k))); f.addPacked(bytes, ends); }],
      ["addHashes", (f) => f.addHashes(hashMany("xxh64", keys, 0) as BigUint64Array)],
    ];
    for (const shared of [false, true]) {
      for (const [route, add] of routes) {
        using filter = SplitBlockBloomFilter.withSize(32, { shared });
        add(filter);
        expect(filter.toParquetBitset(), `${route}${shared ? ", shared" : ""}`).toEqual(bitset);
      }
    }
    using read = SplitBlockBloomFilter.fromParquetBitset(bitset);
    expect(keys.map((key) => read.has(key))).toEqual([true, true, true, true]);
    expect(Array.from(read.hasMany(keys))).toEqual([1, 1, 1, 1]);
  });

  it("one key sets one bit in each of the eight words of one block", () => {
    const filter = SplitBlockBloomFilter.withSize(16);
    filter.add("https://example.com/");
    const words = new Uint32Array(filter.toParquetBitset().buffer);
    const touched = [...new Set(Array.from(words.keys()).filter((i) => words[i] !== 0).map((i) => i >> 3))];
    expect(touched).toHaveLength(1);
    for (let i = 0; i < 8; i++) expect(words[touched[0] * 8 + i].toString(2).replace(/0/g, "")).toBe("1");
  });

  it("sizes like the specification's guidance: m = −8n / ln(1 − p^(1/8)) rounded to a power of two", () => {
    // The block counts published with the Parquet implementation (arrow-rs) for these n and p.
    const table: [number, number, number][] = [
      [10_000, 0.1, 256], [10_000, 0.01, 512], [10_000, 0.001, 1024], [10_000, 0.0001, 1024],
      [100_000, 0.1, 4096], [100_000, 0.01, 4096], [100_000, 0.001, 8192], [100_000, 0.0001, 16_384],
      [1_000_000, 0.01, 65_536], [1_000_000, 0.001, 65_536], [1_000_000, 0.000001, 262_144],
    ];
    for (const [n, p, blocks] of table) {
      expect(splitBlockBytesFor(n, p) / 32, `${n} at ${p}`).toBe(blocks);
      expect(SplitBlockBloomFilter.create(n, p).blocks).toBe(blocks);
    }
    // parquet-mr and arrow-rs cut m to whole bytes before rounding up (259.8 bits → 32 bytes for 45 keys at 10%);
    // create() rounds m itself up, to 64 bytes, as the README says.
    expect(Math.floor(Math.trunc((-8 * 45) / Math.log(1 - Math.pow(0.1, 1 / 8))) / 8)).toBe(32);
    expect(splitBlockBytesFor(45, 0.1)).toBe(64);
  });

  it("without power-of-two rounding takes the fewest blocks whose measured rate is ≤ p", () => {
    const n = 300_000;
    const exact = SplitBlockBloomFilter.create(n, 0.001, { powerOfTwo: false });
    expect(splitBlockFalsePositiveRate(n, exact.blocks)).toBeLessThanOrEqual(0.001);
    expect(splitBlockFalsePositiveRate(n, exact.blocks - 1)).toBeGreaterThan(0.001);
    // The Parquet formula alone would give fewer blocks, and about twice the rate.
    const formulaBlocks = Math.ceil((-8 * n) / Math.log1p(-Math.pow(0.001, 1 / 8)) / 256);
    expect(splitBlockFalsePositiveRate(n, formulaBlocks)).toBeGreaterThan(0.0015);
    exact.addMany(urls(n, "sbbf-exact", 117));
    const probes = urls(1_000_000, "sbbf-exact-absent", 118);
    expect(ones(exact.hasMany(probes)) / probes.length).toBeLessThan(0.0011);
    expect(() => SplitBlockBloomFilter.create(10, 0.1, { powerOfTwo: "no" as unknown as boolean })).toThrow(/powerOfTwo must be a boolean/);
  });

  it("sizeFor gives the size create() makes, without making it, and refuses what create() refuses in the same words", () => {
    // Seeded: n from 1 to 10^7 and p from 0.5 to 1e-12, spread on log scales.
    let state = 20261128;
    const next = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    for (let i = 0; i < 200; i++) {
      const n = Math.max(1, Math.round(10 ** (7 * next())));
      const p = 0.5 * 10 ** (-11.7 * next());
      for (const powerOfTwo of [true, false]) {
        const size = SplitBlockBloomFilter.sizeFor(n, p, { powerOfTwo });
        expect(size.bytes).toBe(splitBlockBytesFor(n, p, powerOfTwo));
        if (size.bytes > 1 << 22) continue; // made only while small: 200 filters of up to 4 MiB
        using made = SplitBlockBloomFilter.create(n, p, { powerOfTwo });
        expect(size, `${n} at ${p}`).toEqual({ blocks: made.blocks, bits: made.bits, bytes: made.toParquetBitset().length });
      }
    }
    // Past 2^32 − 1 blocks (the specification's u32 block numbers), and past what the sizing searches: one message for both.
    for (const [n, p, needs] of [
      [1e12, 0.01, "41129818329 blocks \\(1\\.20 TiB\\)"],
      [1, 1e-100, "more than 140737488355328 blocks"],
    ] as const) {
      const refusal = new RegExp(`^a split-block filter for expectedItems = ${n} at falsePositiveRate = ${p} needs ${needs}; a filter holds at most 4294967295 \\(128\\.00 GiB\\)$`);
      expect(() => SplitBlockBloomFilter.sizeFor(n, p, { powerOfTwo: false })).toThrow(refusal);
      expect(() => SplitBlockBloomFilter.create(n, p, { powerOfTwo: false })).toThrow(refusal);
    }
    expect(() => SplitBlockBloomFilter.sizeFor(10, 0.1, { powerOfTwo: 1 as unknown as boolean })).toThrow(new TypeError("options.powerOfTwo must be a boolean, got 1"));
    expect(() => SplitBlockBloomFilter.sizeFor(10, 0.1, { shared: true } as never)).toThrow(TypeError);
  });

  it.each([
    [6.0, 0.1],
    [10.5, 0.01],
    [16.9, 0.001],
  ])("at %s bits per key the FPR is within a tenth of the specification's %s", (bitsPerKey, specified) => {
    const blocks = 16_384;
    const n = Math.round((blocks * 256) / bitsPerKey);
    const filter = SplitBlockBloomFilter.withSize(blocks).addMany(urls(n, `sbbf-${bitsPerKey}`, 113));
    const probes = urls(1_000_000, "sbbf-absent", 114);
    const measured = ones(filter.hasMany(probes)) / probes.length;
    expect(measured).toBeGreaterThan(0.9 * specified);
    expect(measured).toBeLessThan(1.1 * specified);
    expect(Math.abs(splitBlockFalsePositiveRate(n, blocks) - specified) / specified).toBeLessThan(0.02);
    expect(Math.abs(filter.falsePositiveRate() - measured) / measured).toBeLessThan(0.1);
  });
});

describe("SplitBlockBloomFilter behaviour", () => {
  it("no false negatives; single, batch, packed and lines agree", () => {
    const keys = [...urls(20_000, "sbbf-agree", 115), ...urls(5_000, "sbbf-agree", 115)];
    const single = SplitBlockBloomFilter.create(20_000, 0.01);
    const flags = keys.map((key) => (single.testAndAdd(key) ? 1 : 0));
    const batch = SplitBlockBloomFilter.create(20_000, 0.01);
    expect(Array.from(batch.testAndAddMany(keys))).toEqual(flags);
    const lines = SplitBlockBloomFilter.create(20_000, 0.01);
    expect(Array.from(lines.testAndAddLines(new TextEncoder().encode(keys.join("\r\n"))))).toEqual(flags);
    const packed = SplitBlockBloomFilter.create(20_000, 0.01);
    const { bytes, ends } = pack(keys.map((k) => new TextEncoder().encode(k)));
    packed.addPacked(bytes, ends);
    for (const other of [batch, lines, packed]) expect(other.toParquetBitset()).toEqual(single.toParquetBitset());
    expect(ones(single.hasMany(keys))).toBe(keys.length);
    expect(single.count).toBe(batch.count);
    expect(Math.abs(single.estimatedCount() - 20_000) / 20_000).toBeLessThan(0.03);
  });

  it("exchanges bitsets with Parquet, and round-trips the binary format", () => {
    const filter = SplitBlockBloomFilter.create(5_000, 0.01).addMany(urls(5_000, "sbbf-io", 116));
    const fromParquet = SplitBlockBloomFilter.fromParquetBitset(filter.toParquetBitset());
    expect(fromParquet.toParquetBitset()).toEqual(filter.toParquetBitset());
    const copy = deserialize(filter.serialize()) as SplitBlockBloomFilter;
    expect(copy).toBeInstanceOf(SplitBlockBloomFilter);
    expect([copy.blocks, copy.count]).toEqual([filter.blocks, filter.count]);
    expect(copy.toParquetBitset()).toEqual(filter.toParquetBitset());
    expect(SplitBlockBloomFilter.fromBase64(filter.toBase64()).toParquetBitset()).toEqual(filter.toParquetBitset());
  });

  it("rejects bad arguments", () => {
    expect(() => SplitBlockBloomFilter.withSize(0)).toThrow(/blocks must be an integer from 1/);
    expect(() => SplitBlockBloomFilter.create(100, 1)).toThrow(/falsePositiveRate/);
    for (const bytes of [0, 33]) {
      expect(() => SplitBlockBloomFilter.fromParquetBitset(new Uint8Array(bytes))).toThrow(
        new RangeError(`bitset.length must be a whole number of 32-byte blocks, at least one (a Parquet bitset's), got ${bytes}`),
      );
    }
    // A bitset whose buffer was transferred reads as 0 bytes: it was refused as a bitset of length 0.
    const transferred = SplitBlockBloomFilter.withSize(2).toParquetBitset();
    structuredClone(transferred.buffer, { transfer: [transferred.buffer] });
    expect(() => SplitBlockBloomFilter.fromParquetBitset(transferred)).toThrow(new TypeError("bitset must be readable, got a Uint8Array whose buffer was transferred (detached)"));
    const filter = SplitBlockBloomFilter.create(10, 0.01);
    expect(() => filter.addMany(["a", 5 as unknown as string])).toThrow(/keys\[1\]/);
    expect(filter.count).toBe(0);
  });
});
