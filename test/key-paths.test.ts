// The same key answers the same on every path of every filter type, for the
// keys most likely to be encoded, cut or split wrongly: strings with NUL,
// lone surrogates and characters of 1 to 4 UTF-8 bytes beside their bytes
// (as views at odd offsets) in one array, empty keys, keys as long as the
// batch area, and batches cut exactly at the chunk limits (16,384 keys, the
// area's bytes). Lines are split here by a reference splitter written from
// README's words ("a key is a line without its \n and one trailing \r"; a
// last line without "\n" counts), apart from the library's, over random
// buffers of "\n", "\r", "\r\n", "\r\r\n" and NUL and over buffers whose
// line endings fall on the area's edge. Answers are checked against an exact
// Set (a key seen before answers 1), and every route must leave the same
// filter (serialize()). The hash functions are checked on the same batches
// against test/reference-hashes.ts (plain JavaScript from the published
// algorithms).
import { describe, expect, it } from "vitest";
import { BinaryFuseFilter, BloomFilter, CountingBloomFilter, CuckooFilter, ScalableBloomFilter, SplitBlockBloomFilter, hashMany, hashPacked, hash, type HashName } from "../bindings/index.js";
import { defaultArena } from "../bindings/memory.js";
import { pack, rng } from "./helpers.js";
import * as R from "./reference-hashes.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Keys per wasm call (bindings/keys.ts MAX_BATCH_KEYS). */
const CHUNK_KEYS = 1 << 14;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyFilter = any;

const KINDS: { name: string; make(): AnyFilter }[] = [
  { name: "BloomFilter", make: () => BloomFilter.create(100_000, 0.01) },
  { name: "BloomFilter (murmur3_128, double, seed 9)", make: () => BloomFilter.create(100_000, 0.01, { hash: "murmur3_128", strategy: "double", seed: 9 }) },
  { name: "BloomFilter (independent)", make: () => BloomFilter.create(100_000, 0.01, { hash: ["murmur3_128", "xxh64", "fnv1a_32", "djb", "tianl"] }) },
  { name: "SplitBlockBloomFilter", make: () => SplitBlockBloomFilter.create(100_000, 0.01) },
  { name: "CountingBloomFilter", make: () => CountingBloomFilter.create(100_000, 0.01, { counterBits: 8 }) },
  { name: "CuckooFilter", make: () => CuckooFilter.create(200_000, 0.01) },
  // Small layers: the batches below add layers part way.
  { name: "ScalableBloomFilter", make: () => ScalableBloomFilter.create(3_000, 0.01) },
];

/** The Set key of some bytes. */
const id = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");

/** The keys of a buffer of lines as README says they are split, and where each line ends (after its "\n"). */
function splitLines(buffer: Uint8Array): { keys: Uint8Array[]; ends: number[] } {
  const keys: Uint8Array[] = [];
  const ends: number[] = [];
  let start = 0;
  while (start < buffer.length) {
    let newline = start;
    while (newline < buffer.length && buffer[newline] !== 10) newline++;
    const end = newline > start && buffer[newline - 1] === 13 ? newline - 1 : newline;
    keys.push(buffer.subarray(start, end));
    start = newline < buffer.length ? newline + 1 : newline;
    ends.push(start);
  }
  return { keys, ends };
}

/** A random string of up to `units` UTF-16 units: ASCII, NUL, lone surrogates of both halves, pairs, 2- and 3-byte characters. */
function randomString(random: () => number, units: number): string {
  let text = "";
  const length = Math.floor(random() * (units + 1));
  while (text.length < length) {
    const roll = random();
    if (roll < 0.4) text += "abcxyz09/:.?=- "[Math.floor(random() * 15)];
    else if (roll < 0.48) text += "\0";
    else if (roll < 0.56) text += String.fromCharCode(0xd800 + Math.floor(random() * 0x400));
    else if (roll < 0.64) text += String.fromCharCode(0xdc00 + Math.floor(random() * 0x400));
    else if (roll < 0.74) text += String.fromCodePoint(0x10000 + Math.floor(random() * 0xfffff));
    else if (roll < 0.87) text += String.fromCharCode(0x80 + Math.floor(random() * 0x780));
    else text += String.fromCharCode(0x800 + Math.floor(random() * 0xd000));
  }
  return text;
}

/** `bytes` copied into a larger buffer at an odd offset: a view whose byteOffset is not 0. */
function offsetView(bytes: Uint8Array, random: () => number): Uint8Array {
  const offset = 1 + Math.floor(random() * 7);
  const backing = new Uint8Array(offset + bytes.length + 3).fill(0xee);
  backing.set(bytes, offset);
  return backing.subarray(offset, offset + bytes.length);
}

/** The answers a testAndAdd batch must give at least: 1 for a key seen before (in `seen` or earlier in the batch); adds the keys to `seen`. */
function mustBeSeen(keys: Uint8Array[], seen: Set<string>): number[] {
  return keys.map((key) => {
    const k = id(key);
    const before = seen.has(k) ? 1 : 0;
    seen.add(k);
    return before;
  });
}

function expectNoFalseNegatives(answers: ArrayLike<number>, must: number[], where: string): void {
  const missed = must.findIndex((m, i) => m === 1 && answers[i] !== 1);
  expect(missed, `${where}: key ${missed} was seen before but answered absent`).toBe(-1);
}

/** The batch area's key bytes in the pool memory small filters share (each file runs in a process of its own). */
function areaBytes(filter: AnyFilter): number {
  filter.hasMany([""]); // the area exists once a batch ran
  return filter.arena.scratch.capacity;
}

/** Buffers of lines whose endings fall on the edges of a batch area of `capacity` bytes and of a chunk of CHUNK_KEYS lines. */
function edgeBuffers(capacity: number): [string, Uint8Array][] {
  const line = (length: number, fill: string) => fill.repeat(length);
  /** Lines of 97 bytes with their "\n", then one of the length that puts `tail` at the area's last bytes, then more lines. */
  const around = (tail: string, after: string) => {
    const head = Array.from({ length: Math.floor((capacity - 200) / 97) }, (_, i) => `${i}`.padStart(96, "k")).join("\n") + "\n";
    const pad = capacity - head.length - tail.length;
    return encoder.encode(head + line(pad, "p") + tail + after);
  };
  return [
    ["a \\r at the area's last byte, its \\n the next piece's first", around("\r", "\nnext\r\nlast")],
    ["a \\n at the area's last byte", around("\n", "next\nlast\n")],
    ["a \\r\\n ending at the area's last byte", around("\r\n", "next")],
    ["a last line without \\n ending in \\r at the area's last byte", around("\r", "")],
    ["a last line without \\n, the buffer exactly the area", around("z", "")],
    ["a line of exactly the area, \\n included", encoder.encode(`a\n${line(capacity - 1, "r")}\nb`)],
    [`${CHUNK_KEYS} lines`, encoder.encode(Array.from({ length: CHUNK_KEYS }, (_, i) => `${i}\n`).join(""))],
    [`${CHUNK_KEYS + 1} lines, the last without \\n`, encoder.encode(Array.from({ length: CHUNK_KEYS + 1 }, (_, i) => `${i}`).join("\n"))],
    [`${2 * CHUNK_KEYS + 1} empty lines`, new Uint8Array(2 * CHUNK_KEYS + 1).fill(10)],
    [`${CHUNK_KEYS + 1} lines of \\r\\n`, encoder.encode("\r\n".repeat(CHUNK_KEYS + 1))],
    ["an empty buffer", new Uint8Array(0)],
    ["one \\r", Uint8Array.of(13)],
    ["\\r\\r", Uint8Array.of(13, 13)],
  ];
}

/** Buffers with a line longer than a batch area of `capacity` bytes: the memory takes a larger area for them, so they come last. */
function longLineBuffers(capacity: number): [string, Uint8Array][] {
  return [
    ["a last line of the area's size plus one, without \\n", encoder.encode(`a\n${"q".repeat(capacity + 1)}`)],
    ["a line of the area plus \\r\\n", encoder.encode(`a\r\n${"s".repeat(capacity - 1)}\r\nb\r\n`)],
  ];
}

/** Random buffers of lines: text, NUL, high bytes and every line ending, with or without a last "\n". */
function randomBuffers(random: () => number, count: number): [string, Uint8Array][] {
  const snippets = ["\n", "\r", "\r\n", "\r\r\n", "\n\n", "\0", "a", "bc", "é", "例", "\xff", "🙂", "url/x?y=1"];
  return Array.from({ length: count }, (_, i) => {
    const parts: Uint8Array[] = [];
    const pieces = Math.floor(random() * 400);
    for (let j = 0; j < pieces; j++) {
      const snippet = snippets[Math.floor(random() * snippets.length)];
      parts.push(snippet === "\xff" ? Uint8Array.of(0xff) : encoder.encode(snippet));
    }
    return [`random buffer ${i}`, pack(parts).bytes];
  });
}

describe.each(KINDS)("$name: lines split as README says, on every route", ({ make }) => {
  it("testAndAddLines answers and fills as testAndAddPacked and testAndAddMany of the reference keys, at every edge", () => {
    const random = rng(6901);
    const probe = make();
    const capacity = areaBytes(probe);
    probe.dispose();
    for (const [what, buffer] of [...edgeBuffers(capacity), ...randomBuffers(random, 30), ...longLineBuffers(capacity)]) {
      const { keys, ends } = splitLines(buffer);
      const byLines = make();
      const byPacked = make();
      const byViews = make();
      const linesAnswers = byLines.testAndAddLines(buffer);
      expect(linesAnswers.length, `${what}: lines`).toBe(keys.length);
      expectNoFalseNegatives(linesAnswers, mustBeSeen(keys, new Set()), what);
      const { bytes, ends: packedEnds } = pack(keys);
      expect(Array.from(byPacked.testAndAddPacked(bytes, packedEnds)), `${what}: packed`).toEqual(Array.from(linesAnswers));
      expect(Array.from(byViews.testAndAddMany(keys.map((key) => offsetView(key, random)))), `${what}: views`).toEqual(Array.from(linesAnswers));
      const record = Buffer.from(byLines.serialize());
      expect(record.equals(Buffer.from(byPacked.serialize())), `${what}: lines and packed leave the same filter`).toBe(true);
      expect(record.equals(Buffer.from(byViews.serialize())), `${what}: lines and views leave the same filter`).toBe(true);
      expect(byLines.hasLines(buffer).every((answer: number) => answer === 1), `${what}: hasLines after addLines`).toBe(true);
      if (typeof byLines.testAndAddLinesWithEnds === "function") {
        const again = make();
        expect(Array.from(again.testAndAddLinesWithEnds(buffer).ends), `${what}: line ends`).toEqual(ends);
        again.dispose();
      }
      for (const filter of [byLines, byPacked, byViews]) filter.dispose();
    }
  });
});

describe("BinaryFuseFilter: buildLines as build of the reference keys", () => {
  it("the same filter at every edge of its build memory's area and for random buffers", () => {
    const random = rng(6902);
    // Its build runs in a memory of its own, whose area has the default 1 MiB.
    for (const [what, buffer] of [...edgeBuffers(1 << 20), ...randomBuffers(random, 20), ...longLineBuffers(1 << 20)]) {
      const { keys } = splitLines(buffer);
      const byLines = BinaryFuseFilter.buildLines(buffer);
      const byKeys = BinaryFuseFilter.build(keys.map((key) => offsetView(key, random)));
      expect(Buffer.from(byLines.serialize()).equals(Buffer.from(byKeys.serialize())), what).toBe(true);
      expect(byLines.size, what).toBe(new Set(keys.map(id)).size);
      expect(byLines.hasLines(buffer).every((answer: number) => answer === 1), what).toBe(true);
      byLines.dispose();
      byKeys.dispose();
    }
  });
});

/** A batch of `count` keys: strings and the bytes of earlier strings (repeats across forms), empty keys, NUL. */
function mixedBatch(random: () => number, count: number, units: number): { keys: (string | Uint8Array)[]; bytes: Uint8Array[] } {
  const keys: (string | Uint8Array)[] = [];
  const bytes: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    let key: string | Uint8Array;
    if (roll < 0.1 && i > 0) {
      // An earlier key in the other form: the same key, so it must answer 1.
      const earlier = keys[Math.floor(random() * i)];
      if (typeof earlier === "string") key = offsetView(encoder.encode(earlier), random);
      else {
        const text = decoder.decode(earlier);
        key = id(encoder.encode(text)) === id(earlier) ? text : offsetView(earlier, random);
      }
    } else if (roll < 0.13) key = random() < 0.5 ? "" : new Uint8Array(0);
    else if (roll < 0.55) key = randomString(random, units);
    else key = offsetView(encoder.encode(randomString(random, units)), random);
    keys.push(key);
    bytes.push(typeof key === "string" ? encoder.encode(key) : key);
  }
  return { keys, bytes };
}

/** Batches cut exactly at the chunk limits, for an area of `capacity` bytes. */
function edgeBatches(random: () => number, capacity: number): [string, { keys: (string | Uint8Array)[]; bytes: Uint8Array[] }][] {
  const fromKeys = (keys: (string | Uint8Array)[]) => ({ keys, bytes: keys.map((key) => (typeof key === "string" ? encoder.encode(key) : key)) });
  const quarter = Math.floor(capacity / 4);
  return [
    [`${CHUNK_KEYS - 1} keys`, mixedBatch(random, CHUNK_KEYS - 1, 12)],
    [`${CHUNK_KEYS} keys`, mixedBatch(random, CHUNK_KEYS, 12)],
    [`${CHUNK_KEYS + 1} keys`, mixedBatch(random, CHUNK_KEYS + 1, 12)],
    [`${CHUNK_KEYS + 1} empty keys`, fromKeys(Array.from({ length: CHUNK_KEYS + 1 }, (_, i) => (i % 2 ? "" : new Uint8Array(0))))],
    // Byte keys of a quarter of the area: four fill it exactly, the fifth starts a chunk.
    ["byte keys filling the area exactly", fromKeys(Array.from({ length: 9 }, (_, i) => offsetView(new Uint8Array(quarter).fill(i + 1), random)))],
    // Strings count 3 bytes a unit until written: a sixth of the area each, two to a chunk.
    ["strings of a sixth of the area", fromKeys(Array.from({ length: 7 }, (_, i) => String.fromCharCode(97 + i).repeat(Math.floor(capacity / 6))))],
    // A string whose UTF-8 bytes are the area's exactly, though 3 bytes a unit would not fit, between short keys.
    ["a string of the area's bytes between short ones", fromKeys(["a", "x".repeat(capacity - 2) + "é", "b", new Uint8Array(capacity).fill(0x78), "c"])],
    ["a string of a third of the area in 3-byte characters", fromKeys(["a", "例".repeat(Math.floor(capacity / 3)), "b"])],
    // Last: its UTF-8 bytes are more than the area's, so the memory takes a larger area for it.
    ["a string of a third of the area plus one unit, in 3-byte characters", fromKeys(["a", "例".repeat(Math.floor(capacity / 3) + 1), "b"])],
  ];
}

describe.each(KINDS)("$name: arrays of strings and bytes, single keys and packed keys", ({ make }) => {
  it("every route answers as the exact Set requires and leaves the same filter, at every chunk edge", () => {
    const random = rng(6903);
    const probe = make();
    const capacity = areaBytes(probe);
    probe.dispose();
    const batches: [string, { keys: (string | Uint8Array)[]; bytes: Uint8Array[] }][] = [...edgeBatches(random, capacity), ...Array.from({ length: 10 }, (_, i) => [`random batch ${i}`, mixedBatch(random, 1 + Math.floor(random() * 3000), 40)] as [string, ReturnType<typeof mixedBatch>])];
    for (const [what, { keys, bytes }] of batches) {
      const mixed = make();
      const packed = make();
      const single = make();
      // One key at a time first, while the batch area is as the edges were made for (a batch may enlarge it).
      const one = keys.map((key) => (single.testAndAdd(key) ? 1 : 0));
      const answers = mixed.testAndAddMany(keys);
      expectNoFalseNegatives(answers, mustBeSeen(bytes, new Set()), what);
      expect(one, `${what}: one key at a time`).toEqual(Array.from(answers));
      const { bytes: all, ends } = pack(bytes);
      expect(Array.from(packed.testAndAddPacked(all, ends)), `${what}: packed`).toEqual(Array.from(answers));
      const record = Buffer.from(mixed.serialize());
      expect(record.equals(Buffer.from(packed.serialize())), `${what}: array and packed leave the same filter`).toBe(true);
      expect(record.equals(Buffer.from(single.serialize())), `${what}: array and single keys leave the same filter`).toBe(true);
      // A string and its bytes are one key on every query path.
      expect(mixed.hasMany(bytes).every((answer: number) => answer === 1), `${what}: hasMany of the bytes`).toBe(true);
      expect(mixed.hasPacked(all, ends).every((answer: number) => answer === 1), `${what}: hasPacked`).toBe(true);
      for (let i = 0; i < keys.length; i += 1 + Math.floor(keys.length / 200)) {
        expect([mixed.has(keys[i]), mixed.has(bytes[i])], `${what}: has of key ${i} and its bytes`).toEqual([true, true]);
      }
      for (const filter of [mixed, packed, single]) filter.dispose();
    }
  });
});

/** What hashMany gives for `key` (murmur3_128: h1, the low 64 bits of hash()'s), by the reference implementations. */
function reference(name: HashName, key: Uint8Array, seed: number): number | bigint {
  const value = R.referenceHash(name, key, seed);
  return name === "murmur3_128" ? BigInt.asUintN(64, value as bigint) : value;
}

describe("hashMany and hashPacked at the chunk edges, against the reference implementations", () => {
  it("give each key's reference hash, strings and bytes alike", () => {
    const random = rng(6904);
    const capacity = (() => {
      hashMany("djb", [""]);
      return (defaultArena().scratch as { capacity: number }).capacity;
    })();
    const names: [HashName, number][] = [["xxh3", 0xffffffff], ["xxh64", 1], ["murmur3_128", 7], ["murmur3_32", 0x9747b28c], ["xxh32", 3], ["fnv1a_64", 0], ["fnv1_32", 0], ["djb", 0], ["tianl", 0]];
    for (const [what, { keys, bytes }] of edgeBatches(random, capacity)) {
      // Keys of hundreds of KiB: two hashes suffice (the BigInt references take seconds on them).
      const long = bytes.some((key) => key.length > 4096);
      for (const [name, seed] of long ? names.filter(([name]) => name === "xxh3" || name === "murmur3_32") : names) {
        const want = bytes.map((key) => reference(name, key, seed));
        const many = Array.from(hashMany(name, keys, seed) as ArrayLike<number | bigint>);
        const firstWrong = many.findIndex((h, i) => h !== want[i]);
        expect(firstWrong, `${what}, ${name}: hashMany's first wrong key`).toBe(-1);
        const { bytes: all, ends } = pack(bytes);
        expect(Array.from(hashPacked(name, all, ends, seed) as ArrayLike<number | bigint>), `${what}, ${name}: hashPacked`).toEqual(want);
        for (let i = 0; i < keys.length; i += 1 + Math.floor(keys.length / 50)) {
          const one = hash(name, keys[i], seed);
          expect(name === "murmur3_128" ? BigInt(one) & ((1n << 64n) - 1n) : one, `${what}, ${name}: hash of key ${i}`).toBe(want[i]);
        }
      }
    }
  });
});

describe("the hash functions refuse bad batches, naming the argument and showing the value", () => {
  it("packed ends that go back or run past the bytes, and keys that are not keys after a whole chunk of good ones", () => {
    const bytes = encoder.encode("abcdef");
    expect(() => hashPacked("xxh3", bytes, Uint32Array.of(2, 1, 6))).toThrow(new RangeError("ends[1] = 1 must be ≥ ends[0] = 2 and ≤ bytes.length = 6"));
    expect(() => hashPacked("murmur3_32", bytes, Uint32Array.of(2, 7))).toThrow(new RangeError("ends[1] = 7 must be ≥ ends[0] = 2 and ≤ bytes.length = 6"));
    expect(() => hashPacked("djb", bytes, Float64Array.of(1, 2) as never)).toThrow(new TypeError("ends must be a Uint32Array, got a Float64Array"));
    expect(() => hashPacked("djb", "abc" as never, Uint32Array.of(1))).toThrow(new TypeError('bytes must be a Uint8Array, got "abc"'));
    const keys: unknown[] = Array.from({ length: CHUNK_KEYS + 10 }, (_, i) => (i % 3 ? `k${i}` : encoder.encode(`k${i}`)));
    keys.push(-1);
    expect(() => hashMany("xxh64", keys as string[])).toThrow(new TypeError(`keys[${CHUNK_KEYS + 10}] must be a string or a Uint8Array, got -1`));
    expect(() => hash("xxh64", 1.5 as never)).toThrow(new TypeError("key must be a string or a Uint8Array, got 1.5"));
    expect(() => hashMany("xxh64", Uint8Array.of(1) as never)).toThrow(new TypeError("keys must be an array of strings or Uint8Arrays, got a Uint8Array"));
  });
});
