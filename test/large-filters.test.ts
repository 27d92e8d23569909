// Filters larger than one wasm memory (4 GiB): the 5-billion-URL problem's
// filter, held in segments, with every key kind, measured rates, and a
// round trip through a file in pieces. These need about 6 GB of memory.
import { afterAll, describe, expect, it } from "vitest";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { constants } from "node:buffer";
import { BloomFilter, CountingBloomFilter, MAX_SEGMENT_BITS, SplitBlockBloomFilter, deserializeChunks } from "../bindings/index.js";
import { distinctInts, ones, urls } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "bloomkit-large-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a Bloom filter for 5 billion URLs at 1% (5.6 GiB, in segments)", () => {
  it("holds 1,000,000 URLs with no false negatives, routes keys evenly, and meets its rate on 1,000,000 absent keys", async () => {
    const filter = BloomFilter.create(5e9, 0.01);
    expect(filter.bits).toBeGreaterThan(2 ** 32 * 8); // more than 4 GiB
    expect(filter.segmentCount).toBe(2);
    const members = urls(1_000_000, "large-member", 31);
    filter.addMany(members);
    expect(filter.size).toBeGreaterThan(999_990);
    expect(filter.hasMany(members).every((hit) => hit === 1)).toBe(true);
    const ints = distinctInts(100_000, true, 32);
    filter.addInts(ints);
    expect(filter.hasInts(ints).every((hit) => hit === 1)).toBe(true);
    expect(filter.has(members[123])).toBe(true);

    // Each key's k bits lie in one segment, and the keys split evenly between the two.
    const k = filter.hashes;
    const indices = filter.indices({ kind: "keys", keys: members.slice(0, 100_000) });
    const half = filter.bits / 2;
    let inFirst = 0;
    for (let i = 0; i < 100_000; i++) {
      const first = indices[i * k] < half;
      for (let t = 1; t < k; t++) expect(indices[i * k + t] < half).toBe(first);
      inFirst += first ? 1 : 0;
    }
    expect(Math.abs(inFirst - 50_000)).toBeLessThan(1_000); // 6 standard deviations

    // The rate for 1.1 million keys is far below one in a million: any absent key answered present is a bug.
    const absent = urls(1_000_000, "large-absent", 33);
    const falsePositives = filter.hasMany(absent).reduce((sum, hit) => sum + hit, 0);
    expect(filter.expectedFalsePositiveRate()).toBeLessThan(1e-12);
    expect(falsePositives).toBe(0);

    // Saved to a file in pieces (more than one Uint8Array can hold on Node 20) and loaded back.
    const path = join(dir, "large.bloom");
    if (filter.bits / 8 > constants.MAX_LENGTH) {
      expect(() => filter.serialize()).toThrow(/serializeChunks/);
      // Node's own "Invalid typed array length" named no method and said nothing of what to do.
      expect(() => filter.bitArray()).toThrow(/^bitArray\(\) of this filter is [\d.]+ GiB \(\d+ bytes\), more than one Uint8Array can hold here .*serializeChunks\(\)/);
    }
    await pipeline(Readable.from(filter.serializeChunks()), createWriteStream(path));
    expect(statSync(path).size).toBeGreaterThan(2 ** 32);
    const probes = [...members.slice(0, 200_000), ...absent.slice(0, 200_000)];
    const before = filter.hasMany(probes);
    const size = filter.size;
    filter.dispose(); // one 5.6 GiB filter at a time
    const loaded = await deserializeChunks(createReadStream(path, { highWaterMark: 8 << 20 }));
    expect(loaded).toBeInstanceOf(BloomFilter);
    expect((loaded as BloomFilter).segmentCount).toBe(2);
    expect(loaded.size).toBe(size);
    expect(loaded.hasMany(probes)).toEqual(before);
    expect((loaded as BloomFilter).hasInts(ints).every((hit) => hit === 1)).toBe(true);
    loaded.dispose();
    // Two 5.6 GiB filters in turn, a file written and read: 89-94 s on a slow day of this 2-core machine, near the
    // 120 s every other test gets.
  }, 300_000);

  it("gives a split-block filter larger than one memory the Parquet block of every key", () => {
    // 5.25 GiB of blocks in two segments: a key's block is the specification's over the whole filter.
    const blocks = Math.ceil((MAX_SEGMENT_BITS / 8 / 32) * 1.3);
    const filter = SplitBlockBloomFilter.withSize(blocks);
    expect(filter.segmentCount).toBe(2);
    const members = urls(300_000, "large-sbbf", 34);
    filter.addMany(members);
    expect(filter.hasMany(members).every((hit) => hit === 1)).toBe(true);
    expect(filter.hasMany(urls(300_000, "large-sbbf-absent", 35)).reduce((sum, hit) => sum + hit, 0)).toBe(0);
    if (filter.bits / 8 > constants.MAX_LENGTH) expect(() => filter.toParquetBitset()).toThrow(/^toParquetBitset\(\) of this filter is [\d.]+ GiB \(\d+ bytes\), more than one Uint8Array can hold here .*serializeChunks\(\)/);
    filter.dispose();
  });
});

describe("a counting filter of more than 2^31 counters (1 GiB of 4-bit counters)", () => {
  it("gives counterValues() past counter 2^31 as counter(i) reads them", () => {
    // Counter i of a 4-bit filter is half of byte i / 2: computed as i >> 1, that went negative past 2^31 and read 0.
    const counters = 2 ** 31 + 2 ** 26;
    const filter = CountingBloomFilter.withSize(counters, 4, { counterBits: 4 });
    const keys = urls(20_000, "large-counting", 36);
    filter.addMany(keys);
    const high = keys.flatMap((key) => filter.positions(key)).filter((position) => position >= 2 ** 31);
    expect(high.length).toBeGreaterThan(1_000);
    const values = filter.counterValues();
    expect(values.length).toBe(counters);
    for (const position of high) {
      expect(filter.counter(position)).toBeGreaterThanOrEqual(1);
      expect(values[position], `counter ${position}`).toBe(filter.counter(position));
    }
    filter.dispose();
  });

  it("gives the standard filter of a counting filter too large to have it beside (3.45 GiB in one memory)", () => {
    // Its kernel wrote the standard filter beside the counting one, and above about 3.2 GiB of 4-bit counters there was
    // no room: "no room beside the source filter". The bits now go out a piece at a time.
    const counters = 7_400_000_000;
    const filter = CountingBloomFilter.withSize(counters, 4, { counterBits: 4 });
    expect(filter.segmentCount).toBe(1);
    const keys = urls(200_000, "huge-counting", 37);
    filter.addMany(keys);
    filter.removeMany(keys.slice(0, 1_000));
    const standard = filter.toBloomFilter();
    expect(standard.bits).toBe(counters);
    // Bit i is set exactly where counter i > 0: both answer every key alike, those removed too.
    const probes = [...keys, ...urls(200_000, "huge-counting-absent", 38)];
    expect(standard.hasMany(probes)).toEqual(filter.hasMany(probes));
    expect(ones(standard.hasMany(keys.slice(1_000)))).toBe(keys.length - 1_000);
    standard.dispose();
    filter.dispose();
  });
});
