// Newline-delimited keys split inside wasm: addLines / hasLines / testAndAddLines.
import { describe, expect, it } from "vitest";
import { BloomFilter, CountingBloomFilter, CuckooFilter } from "../bindings/index.js";
import { ones, urls } from "./helpers.js";

const encode = (text: string) => new TextEncoder().encode(text);

describe("lines", () => {
  it("a key is a line without \\n and one trailing \\r; a final \\n adds no empty key", () => {
    const filter = BloomFilter.create(100, 0.001);
    filter.addLines(encode("alpha\r\nbeta\n\ngamma\r\r\ndelta"));
    for (const key of ["alpha", "beta", "", "gamma\r", "delta"]) expect(filter.has(key), JSON.stringify(key)).toBe(true);
    expect(filter.has("alpha\r")).toBe(false);
    expect(filter.count).toBe(5);
    expect(Array.from(filter.hasLines(encode("alpha\nzzz\n")))).toEqual([1, 0]);
    expect(filter.hasLines(encode(""))).toHaveLength(0);
    expect(filter.hasLines(encode("\n"))).toHaveLength(1);
  });

  it("answers like addMany / testAndAddMany on the same keys, across many chunks", () => {
    const keys = urls(200_000, "lines", 101);
    const stream = [...keys, ...keys.slice(0, 50_000)];
    const text = encode(stream.join("\n") + "\n");
    const byLines = BloomFilter.create(200_000, 0.01);
    const byArray = BloomFilter.create(200_000, 0.01);
    const answers = byLines.testAndAddLines(text);
    expect(Array.from(answers)).toEqual(Array.from(byArray.testAndAddMany(stream)));
    expect(byLines.count).toBe(byArray.count);
    expect(byLines.serialize()).toEqual(byArray.serialize());
    expect(ones(byLines.hasLines(text))).toBe(stream.length);
  });

  it("reports where each line ends in the buffer", () => {
    const filter = BloomFilter.create(100, 0.01);
    const { answers, ends } = filter.testAndAddLinesWithEnds(encode("a\r\nbb\na\nccc"));
    expect(Array.from(answers)).toEqual([0, 0, 1, 0]);
    expect(Array.from(ends)).toEqual([3, 6, 8, 11]);
  });

  it("handles a line longer than the scratch area", () => {
    const long = "x".repeat(3_000_000);
    const filter = BloomFilter.create(10, 0.01);
    const { answers, ends } = filter.testAndAddLinesWithEnds(encode(`short\n${long}\nshort\n`));
    expect(Array.from(answers)).toEqual([0, 0, 1]);
    expect(Array.from(ends)).toEqual([6, 6 + long.length + 1, 6 + long.length + 7]);
    expect(filter.has(long)).toBe(true);
  });

  it("rejects what is not bytes, leaving the filter unchanged", () => {
    const filter = BloomFilter.create(10, 0.01);
    expect(() => filter.addLines("a\nb" as unknown as Uint8Array)).toThrow(/buffer must be a Uint8Array of newline-delimited keys, got "a\\nb"/);
    expect(filter.count).toBe(0);
  });
});

describe("lines on the counting and cuckoo filters", () => {
  const text = "alpha\r\nbeta\n\ngamma\nalpha\ndelta";
  const keys = ["alpha", "beta", "", "gamma", "alpha", "delta"];

  it("split like BloomFilter.addLines and answer like the array forms", () => {
    const counting = CountingBloomFilter.create(100, 0.001);
    counting.addLines(encode(text));
    const byArray = CountingBloomFilter.create(100, 0.001).addMany(keys);
    expect(counting.serialize()).toEqual(byArray.serialize());
    expect(counting.count("alpha")).toBe(2);
    expect(Array.from(counting.hasLines(encode("alpha\nzzz\n")))).toEqual([1, 0]);
    expect(Array.from(counting.removeLines(encode("alpha\nzzz")))).toEqual([1, 0]);
    expect(counting.count("alpha")).toBe(1);
    expect(counting.size).toBe(5);

    const cuckoo = CuckooFilter.create(100, 0.001);
    expect(Array.from(cuckoo.tryAddLines(encode(text)))).toEqual([1, 1, 1, 1, 1, 1]);
    const cuckooByArray = CuckooFilter.create(100, 0.001);
    cuckooByArray.addMany(keys);
    expect(cuckoo.serialize()).toEqual(cuckooByArray.serialize());
    expect(Array.from(cuckoo.removeLines(encode("beta\r\n")))).toEqual([1]);
    expect(cuckoo.has("beta")).toBe(false);
  });

  it("handle many pieces and lines longer than the scratch area", () => {
    const many = urls(100_000, "lines-counting", 131);
    const long = "y".repeat(2_000_000);
    const buffer = encode([...many, long].join("\n") + "\n");
    const counting = CountingBloomFilter.create(100_001, 0.01, { counterBits: 8 });
    counting.addLines(buffer);
    expect(ones(counting.hasMany([...many, long]))).toBe(100_001);
    expect(ones(counting.hasLines(buffer))).toBe(100_001);
    const cuckoo = CuckooFilter.create(100_001, 0.01);
    expect(ones(cuckoo.tryAddLines(buffer))).toBe(100_001);
    expect(ones(cuckoo.hasMany([...many, long]))).toBe(100_001);
  });
});
