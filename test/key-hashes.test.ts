// Hashing apart from adding: hashLines gives each line's key hash and end, and
// addHashes / hasHashes / testAndAddHashes take them. That split is what lets
// the CLI hash lines on several threads and test-and-add them in input order
// on one shared filter, so its answers must be exactly those of
// testAndAddLines, on private and shared filters, for every hash the double
// strategy takes. The hashes themselves are checked against hashMany (whose
// vectors are checked against xxHash's and FNV's in hash.test.ts). A pipeline
// lends its last results' arrays back (into), so that it allocates nothing per
// piece: results must not depend on whether, or how much, room was lent.
import { describe, expect, it } from "vitest";
import { BloomFilter, SplitBlockBloomFilter, hashMany, type HashName } from "../bindings/index.js";
import { rng } from "./helpers.js";

const encoder = new TextEncoder();

/** Lines with repeats, empty lines, "\r\n" endings and (when `open`) a last line without "\n": the text and its keys. */
function sampleLines(count: number, seed: number, open: boolean): { buffer: Uint8Array; keys: string[]; ends: number[] } {
  const random = rng(seed);
  const keys: string[] = [];
  const ends: number[] = [];
  let text = "";
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const key = random() < 0.05 ? "" : random() < 0.3 && i > 0 ? keys[Math.floor(random() * i)] : `https://example.com/${Math.floor(random() * 1e9).toString(36)}/${i}`;
    keys.push(key);
    const line = key + (i === count - 1 && open ? "" : random() < 0.2 ? "\r\n" : "\n");
    text += line;
    bytes += line.length; // the keys are ASCII
    ends.push(bytes);
  }
  return { buffer: encoder.encode(text), keys, ends };
}

type Make = () => BloomFilter | SplitBlockBloomFilter;

const makers: [string, Make, HashName, number][] = [
  ["BloomFilter (default: xxh3)", () => BloomFilter.create(20_000, 0.01), "xxh3", 0],
  ["BloomFilter (xxh64)", () => BloomFilter.create(20_000, 0.01, { hash: "xxh64" }), "xxh64", 0],
  ["BloomFilter (xxh3, seed 7)", () => BloomFilter.create(20_000, 0.01, { hash: "xxh3", seed: 7 }), "xxh3", 7],
  ["BloomFilter (fnv1a_64)", () => BloomFilter.create(20_000, 0.01, { hash: "fnv1a_64" }), "fnv1a_64", 0],
  ["BloomFilter, shared", () => BloomFilter.create(20_000, 0.01, { shared: true }), "xxh3", 0],
  ["SplitBlockBloomFilter", () => SplitBlockBloomFilter.create(20_000, 0.01), "xxh64", 0],
  ["SplitBlockBloomFilter, shared", () => SplitBlockBloomFilter.create(20_000, 0.01, { shared: true }), "xxh64", 0],
];

describe.each(makers)("%s: hashLines, then the *Hashes methods", (_name, make, hashName, seed) => {
  it("gives the hashes hashMany gives and the line ends, and answers as testAndAddLines and hasLines do", () => {
    for (const [seedOfLines, count, open] of [[1, 30_000, false], [2, 1, true], [3, 0, false], [4, 5_000, true]] as const) {
      const { buffer, keys, ends } = sampleLines(count, seedOfLines, open);
      const byLines = make();
      const byHashes = make();
      const { hashes, ends: lineEnds } = byHashes.hashLines(buffer);
      expect(Array.from(lineEnds)).toEqual(ends);
      expect(hashes).toEqual(hashMany(hashName as "xxh64", keys, seed));
      // Half the keys go in first, so the second half's answers mix repeats and new keys.
      const half = Math.floor(count / 2);
      const firstPart = buffer.subarray(0, half === 0 ? 0 : ends[half - 1]);
      expect(byHashes.testAndAddHashes(hashes.subarray(0, half))).toEqual(byLines.testAndAddLines(firstPart));
      expect(byHashes.hasHashes(hashes)).toEqual(byLines.hasLines(buffer));
      expect(byHashes.testAndAddHashes(hashes.subarray(half))).toEqual(byLines.testAndAddLines(buffer.subarray(firstPart.length)));
      expect(byHashes.size).toBe(byLines.size);
      expect(byHashes.serialize()).toEqual(byLines.serialize());
      // No false negatives through either path.
      expect(byHashes.hasLines(buffer).every((answer) => answer === 1)).toBe(true);
      byLines.dispose();
      byHashes.dispose();
    }
  });

  it("gives every line's hash and end over many chunks, long lines then short ones and the reverse", () => {
    // 77,000 lines: at least five chunks (16,384 lines or 1 MiB at most each), joined at offsets their lengths set.
    const long = (i: number) => `https://example.com/${"x".repeat(40)}/${i}`;
    for (const keys of [
      [...Array.from({ length: 17_000 }, (_, i) => long(i)), ...Array.from({ length: 60_000 }, (_, i) => (i % 7).toString())],
      [...Array.from({ length: 60_000 }, (_, i) => (i % 7).toString()), ...Array.from({ length: 17_000 }, (_, i) => long(i))],
    ]) {
      const filter = make();
      const buffer = encoder.encode(keys.join("\n") + "\n");
      const { hashes, ends } = filter.hashLines(buffer);
      expect(hashes).toEqual(hashMany(hashName as "xxh64", keys, seed));
      let end = 0;
      expect(Array.from(ends)).toEqual(keys.map((key) => (end += key.length + 1)));
      filter.dispose();
    }
  });

  it("writes into lent arrays while they have room and into new ones past it, with the same results", () => {
    const random = rng(41);
    for (let round = 0; round < 8; round++) {
      const count = round === 0 ? 0 : round === 1 ? 77_000 : 1 + Math.floor(random() * 40_000);
      const { buffer } = sampleLines(count, 100 + round, round % 2 === 0);
      const filter = make();
      const plain = filter.hashLines(buffer);
      // Room for none, fewer, exactly as many, or more lines than there are; sometimes only one of the two arrays.
      const room = (spare: number) => Math.max(0, count + spare);
      const into = { hashes: new BigUint64Array(room(Math.floor(random() * 200) - 150)), ends: new Uint32Array(room(Math.floor(random() * 200) - 50)) };
      into.hashes.fill(7n);
      const lent = { hashes: into.hashes, ends: into.ends };
      const result = filter.hashLines(buffer, lent);
      expect(result.hashes).toEqual(plain.hashes);
      expect(result.ends).toEqual(plain.ends);
      expect(result.hashes.buffer === into.hashes.buffer).toBe(into.hashes.length >= count);
      expect(result.ends.buffer === into.ends.buffer).toBe(into.ends.length >= count);
      if (into.hashes.length >= count) expect(into.hashes.subarray(count).every((word) => word === 7n)).toBe(true);
      // The caller's object is left as it was: only its arrays' elements are written.
      expect(lent.hashes).toBe(into.hashes);
      filter.dispose();
    }
  });

  it("answers into a lent array, and a pipeline that lends its last results allocates the same answers as testAndAddLines", () => {
    const byLines = make();
    const byHashes = make();
    let spare = { hashes: new BigUint64Array(0), ends: new Uint32Array(0) };
    let answers = new Uint8Array(0);
    for (let piece = 0; piece < 8; piece++) {
      const { buffer } = sampleLines(2_000 + piece * 1_500, 7 + (piece % 3), false);
      const hashed = byHashes.hashLines(buffer, spare);
      if (answers.length < hashed.hashes.length) answers = new Uint8Array(hashed.hashes.length);
      const tested = byHashes.testAndAddHashes(hashed.hashes, answers);
      expect(tested.buffer).toBe(answers.buffer);
      expect(tested).toEqual(byLines.testAndAddLines(buffer));
      const queried = byHashes.hasHashes(hashed.hashes, answers);
      expect(queried.buffer).toBe(answers.buffer);
      expect(queried.every((answer) => answer === 1)).toBe(true);
      spare = { hashes: new BigUint64Array(hashed.hashes.buffer), ends: new Uint32Array(hashed.ends.buffer) };
    }
    expect(byHashes.serialize()).toEqual(byLines.serialize());
    byLines.dispose();
    byHashes.dispose();
  });

  it("refuses a lent array that is not one or has too little room, naming it, and changes nothing", () => {
    const filter = make();
    filter.add("kept");
    const before = filter.serialize();
    const hashes = filter.hashLines(encoder.encode("a\nb\nc\n")).hashes;
    const short = new Uint8Array(2).fill(9);
    expect(() => filter.testAndAddHashes(hashes, short)).toThrow(RangeError);
    expect(() => filter.testAndAddHashes(hashes, short)).toThrow("into.length = 2 must be ≥ hashes.length = 3");
    expect(() => filter.hasHashes(hashes, short)).toThrow("into.length = 2 must be ≥ hashes.length = 3");
    expect(Array.from(short)).toEqual([9, 9]);
    expect(() => filter.testAndAddHashes(hashes, [0, 0, 0] as never)).toThrow(/into must be a Uint8Array for the answers, got/);
    expect(() => filter.hasHashes(hashes, new Uint32Array(3) as never)).toThrow(TypeError);
    expect(() => filter.hashLines(encoder.encode("a\n"), { hashes: new BigUint64Array(1) } as never)).toThrow(/^into must be \{ hashes: BigUint64Array, ends: Uint32Array \} .*, got an object whose ends is undefined$/);
    expect(() => filter.hashLines(encoder.encode("a\n"), { hashes: new Uint32Array(1), ends: new Uint32Array(1) } as never)).toThrow(/, got an object whose hashes is a Uint32Array/);
    expect(() => filter.hashLines(encoder.encode("a\n"), 5 as never)).toThrow(/into must be \{ hashes: BigUint64Array, ends: Uint32Array \}/);
    // Arrays lent after their buffers were transferred (posted to a worker): named, not the engine's "Cannot perform Construct on a detached ArrayBuffer".
    const transferred = <T extends Uint8Array | Uint32Array | BigUint64Array>(view: T): T => {
      structuredClone(view.buffer, { transfer: [view.buffer as ArrayBuffer] });
      return view;
    };
    expect(() => filter.hashLines(encoder.encode("a\n"), { hashes: transferred(new BigUint64Array(4)), ends: new Uint32Array(4) })).toThrow(
      new TypeError("into.hashes must be readable, got a BigUint64Array whose buffer was transferred (detached)"),
    );
    expect(() => filter.hashLines(encoder.encode("a\n"), { hashes: new BigUint64Array(4), ends: transferred(new Uint32Array(4)) })).toThrow(
      new TypeError("into.ends must be readable, got a Uint32Array whose buffer was transferred (detached)"),
    );
    for (const call of [() => filter.testAndAddHashes(hashes, transferred(new Uint8Array(3))), () => filter.hasHashes(hashes.subarray(0, 0), transferred(new Uint8Array(3)))]) {
      expect(call).toThrow(new TypeError("into must be readable, got a Uint8Array whose buffer was transferred (detached)"));
    }
    expect(filter.serialize()).toEqual(before);
    filter.dispose();
  });

  it("addHashes returns the filter and adds every key", () => {
    const { buffer, keys } = sampleLines(2_000, 9, false);
    const filter = make();
    expect(filter.addHashes(filter.hashLines(buffer).hashes)).toBe(filter);
    expect(filter.hasMany(keys).every((answer) => answer === 1)).toBe(true);
    filter.dispose();
  });

  it("rejects hashes that are not a BigUint64Array, naming the argument, and changes nothing", () => {
    const filter = make();
    filter.add("kept");
    const before = filter.serialize();
    for (const bad of [new Uint32Array(4), [1n, 2n], "0", null]) {
      expect(() => filter.testAndAddHashes(bad as never)).toThrow(TypeError);
      expect(() => filter.addHashes(bad as never)).toThrow(/hashes must be a BigUint64Array/);
      expect(() => filter.hasHashes(bad as never)).toThrow(/hashes must be a BigUint64Array/);
    }
    expect(() => filter.hashLines("a\nb" as never)).toThrow(/buffer must be a Uint8Array/);
    expect(filter.serialize()).toEqual(before);
    filter.dispose();
    expect(() => filter.hashLines(new Uint8Array(1))).toThrow(/disposed/);
  });
});

describe("filters whose keys have no single 64-bit hash", () => {
  it("refuse key hashes with a TypeError that says why", () => {
    const independent = BloomFilter.create(1000, 0.01, { strategy: "independent", hash: ["fnv1a_32", "murmur3_32", "xxh32"] });
    const murmur = BloomFilter.create(1000, 0.01, { hash: "murmur3_128" });
    for (const filter of [independent, murmur]) {
      expect(() => filter.hashLines(encoder.encode("a\n"))).toThrow(TypeError);
      expect(() => filter.addHashes(new BigUint64Array(1))).toThrow(/64-bit hash per key/);
      expect(filter.size).toBe(0);
    }
    expect(() => independent.hasHashes(new BigUint64Array(1))).toThrow(/independent strategy/);
    expect(() => murmur.testAndAddHashes(new BigUint64Array(1))).toThrow(/murmur3_128/);
  });
});
