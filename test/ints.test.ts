// Integer keys: addInts / hasInts / testAndAddInts on Uint32Array and BigUint64Array.
import { describe, expect, it } from "vitest";
import { BloomFilter, SplitBlockBloomFilter } from "../bindings/index.js";
import { distinctInts, firstDifference, ones, rng } from "./helpers.js";

const members = distinctInts(300_000, true, 121); // more than two wasm calls' worth
const absent = distinctInts(1_000_000, false, 122);

describe.each([
  ["BloomFilter", () => BloomFilter.create(300_000, 0.01), (f: BloomFilter) => f.expectedFalsePositiveRate(300_000)],
  ["SplitBlockBloomFilter", () => SplitBlockBloomFilter.create(300_000, 0.01, { powerOfTwo: false }), (f: SplitBlockBloomFilter) => f.expectedFalsePositiveRate(300_000)],
] as const)("%s integer keys", (_name, make, expected) => {
  it("have no false negatives and the formula's false-positive rate", () => {
    const filter = make();
    filter.addInts(members);
    expect(ones(filter.hasInts(members))).toBe(members.length);
    expect(filter.count).toBeGreaterThan(members.length * 0.99);
    const measured = ones(filter.hasInts(absent)) / absent.length;
    const predicted = expected(filter as never);
    expect(measured).toBeGreaterThan(0.85 * predicted);
    expect(measured).toBeLessThan(1.15 * predicted);
  });

  it("treat a 32-bit key as the 64-bit key of the same value", () => {
    const filter = make();
    filter.addInts(Uint32Array.from([5, 7, 0xffffffff]));
    expect(Array.from(filter.hasInts(BigUint64Array.from([5n, 7n, 0xffffffffn])))).toEqual([1, 1, 1]);
    const wide = BigUint64Array.from([2n ** 40n + 3n, 2n ** 63n]);
    filter.addInts(wide);
    expect(Array.from(filter.hasInts(wide))).toEqual([1, 1]);
  });

  it("testAndAddInts flags repeats, also within one batch", () => {
    const filter = make();
    const keys = Uint32Array.from([1, 2, 3, 2, 1, 4]);
    expect(Array.from(filter.testAndAddInts(keys))).toEqual([0, 0, 0, 1, 1, 0]);
    expect(filter.count).toBe(4);
  });

  it("rejects other arrays, changing nothing", () => {
    const filter = make();
    expect(() => filter.addInts(Int32Array.from([1]) as unknown as Uint32Array)).toThrow(/keys must be a Uint32Array or a BigUint64Array, got an Int32Array/);
    expect(() => filter.hasInts([1, 2] as unknown as Uint32Array)).toThrow(TypeError);
    expect(filter.count).toBe(0);
  });
});

describe("integer keys and the hashing options", () => {
  it("use the filter's seed", () => {
    const a = BloomFilter.withSize(1 << 16, 3, { seed: 1 }).addInts(Uint32Array.from([42]));
    const b = BloomFilter.withSize(1 << 16, 3, { seed: 2 }).addInts(Uint32Array.from([42]));
    expect(a.bitArray()).not.toEqual(b.bitArray());
  });

  it("need double hashing", () => {
    const filter = BloomFilter.create(100, 0.01, { hash: ["xxh32", "djb"] });
    expect(() => filter.addInts(Uint32Array.from([1]))).toThrow(/integer keys need triple or double hashing/);
  });
});

describe("integer keys in a filter larger than cache (the grouped add loop)", () => {
  const bits = 48 * 2 ** 20; // 6 MiB: above the 4 MiB where adds switch to groups
  const keys = distinctInts(500_000, true, 123);

  it("have no false negatives and the formula's rate", () => {
    const filter = BloomFilter.withSize(bits, 1).addInts(keys); // k = 1 keeps the rate measurable: about 1%
    expect(ones(filter.hasInts(keys))).toBe(keys.length);
    const measured = ones(filter.hasInts(absent)) / absent.length;
    const predicted = filter.expectedFalsePositiveRate(keys.length);
    expect(measured).toBeGreaterThan(0.8 * predicted);
    expect(measured).toBeLessThan(1.25 * predicted);
  });

  it("flag repeats within a group and across groups, in order", () => {
    const filter = BloomFilter.withSize(bits, 7);
    const stream = Uint32Array.from([1, 2, 3, 2, 1, 4, ...Array.from({ length: 40 }, (_, i) => 100 + i), 3, 120]);
    const flags = Array.from(filter.testAndAddInts(stream));
    expect(flags.slice(0, 6)).toEqual([0, 0, 0, 1, 1, 0]);
    expect(flags.slice(6, 46).every((f) => f === 0)).toBe(true);
    expect(flags.slice(46)).toEqual([1, 1]);
    expect(filter.count).toBe(44);
  });

  it("set the same bits whether the keys come in one call or one at a time", () => {
    const batch = BloomFilter.withSize(bits, 5).addInts(keys.subarray(0, 5_000));
    const single = BloomFilter.withSize(bits, 5);
    for (const key of keys.subarray(0, 5_000)) single.addInts(Uint32Array.of(key));
    expect(firstDifference(batch.bitArray(), single.bitArray())).toBe(-1);
  });
});

describe("BloomFilter queries in any mix of members and absent keys", () => {
  // A batch query reads every key's first two bits in groups of keys and
  // switches to key by key where most keys get past them (members): runs of
  // each kind, of random lengths, cross both ways of asking within one call.
  const random = rng(124);
  const stream: number[] = [];
  let nextMember = 0;
  let nextAbsent = 0;
  for (let run = 0; stream.length < 40_000; run++) {
    const length = 1 + Math.floor(random() * (run % 3 === 0 ? 400 : 40));
    for (let i = 0; i < length; i++) stream.push(run % 2 === 0 || random() < 0.1 ? members[nextMember++] : absent[nextAbsent++]);
  }
  const keys = Uint32Array.from(stream);
  const stored = new Set(members.subarray(0, nextMember));

  it.each([1, 2, 3, 4, 7])("k = %i: no false negatives, and the batch answers as one key per call", (k) => {
    const filter = BloomFilter.withSize(400_000 * k, k).addInts(members.subarray(0, nextMember));
    const answers = filter.hasInts(keys);
    keys.forEach((key, i) => {
      if (stored.has(key)) expect(answers[i], `member ${key} at ${i}`).toBe(1);
    });
    const oneByOne = Uint8Array.from(keys, (key) => filter.hasInts(Uint32Array.of(key))[0]);
    expect(firstDifference(answers, oneByOne)).toBe(-1);
    const falsePositives = ones(answers) - keys.filter((key) => stored.has(key)).length;
    const predicted = filter.expectedFalsePositiveRate(nextMember) * nextAbsent;
    expect(falsePositives).toBeLessThan(1.3 * predicted + 20);
    expect(falsePositives).toBeGreaterThan(0.7 * predicted - 20);
  });
});

const MASK64 = (1n << 64n) - 1n;
/** splitmix64's output function (Vigna's splitmix64.c) of key + φ: the integer-key hash, written out in JS. */
function splitmix(key: bigint): bigint {
  let x = (key + 0x9e3779b97f4a7c15n) & MASK64;
  x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return x ^ (x >> 31n);
}
const SALT = [0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31];

/** The block a key selects and the eight word masks it sets there, by the specification's algorithm over splitmix. */
function splitBlockBits(key: number, blocks: number): { block: number; masks: number[] } {
  const h = splitmix(BigInt(key));
  const low = Number(h & 0xffffffffn);
  return {
    block: Number(((h >> 32n) * BigInt(blocks)) >> 32n),
    masks: SALT.map((salt) => (1 << (Math.imul(low, salt) >>> 27)) >>> 0),
  };
}

/** A split-block bitset built by the specification's algorithm over splitmix of integer keys. */
function splitBlockInts(keys: Iterable<number>, blocks: number): Uint8Array {
  const words = new Uint32Array(blocks * 8);
  for (const key of keys) {
    const { block, masks } = splitBlockBits(key, blocks);
    for (let i = 0; i < 8; i++) words[block * 8 + i] |= masks[i];
  }
  return new Uint8Array(words.buffer);
}

describe("SplitBlockBloomFilter integer keys, bit for bit", () => {
  it("the JS hash matches splitmix64's published first outputs (state 0: φ, 2φ)", () => {
    expect(splitmix(0n)).toBe(0xe220a8397b1dcdafn);
    expect(splitmix(0x9e3779b97f4a7c15n)).toBe(0x6e789e6aa1b965f4n);
  });

  // 2^18 blocks (8 MiB) and below take the direct loop, above it the grouped one.
  it.each([[1], [37], [1 << 18], [(1 << 18) + 3]])("with %i blocks, adds set exactly the specification's bits", (blocks) => {
    // Few enough keys that small filters do not saturate; never a multiple of the group size.
    const keys = distinctInts(Math.min(20_003, blocks * 40 + 3), true, 124);
    const filter = SplitBlockBloomFilter.withSize(blocks);
    expect(ones(filter.testAndAddInts(keys.subarray(0, 3)))).toBe(0);
    filter.addInts(keys.subarray(3));
    const bitset = filter.toParquetBitset();
    expect(firstDifference(bitset, splitBlockInts(keys, blocks))).toBe(-1);
    expect(ones(filter.hasInts(keys))).toBe(keys.length);
    // A key is present exactly when all eight of its bits are set in the specification's bitset.
    const others = distinctInts(20_000, false, 125);
    const words = new Uint32Array(bitset.buffer, bitset.byteOffset, bitset.length >>> 2);
    const covered = Uint8Array.from(others, (key) => {
      const { block, masks } = splitBlockBits(key, blocks);
      return masks.every((mask, i) => ((words[block * 8 + i] & mask) >>> 0) === mask) ? 1 : 0;
    });
    expect(firstDifference(filter.hasInts(others), covered)).toBe(-1);
    // Both answers are exercised: some probes are covered, most are not.
    if (blocks < 100) expect(ones(covered)).toBeGreaterThan(0);
    expect(ones(covered)).toBeLessThan(others.length / 2);
  });
});
