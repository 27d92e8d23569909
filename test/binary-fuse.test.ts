// BinaryFuseFilter: no false negatives at any size, duplicates never a
// failure, the false-positive rate and size the paper promises, every key form
// giving the same filter and answers, and a record that loads only intact.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BinaryFuseFilter, FormatError, deserialize, hash } from "../bindings/index.js";
import { Arena } from "../bindings/arena.js";
import { ones, pack, randomBytes, rng, urls } from "./helpers.js";
import { Params, buildRecord, editParams, parseRecord, reseal } from "./records.js";

/** A memory of its own for the kernel-level tests. */
const arena = new Arena();
const core = arena.core;
const heapU8 = () => arena.u8();

const M = 2n ** 64n - 1n;
/** MurmurHash3's 64-bit finaliser in BigInt: the reference for where the filter puts a key. */
function fmix(x: bigint): bigint {
  x ^= x >> 33n;
  x = (x * 0xff51afd7ed558ccdn) & M;
  x ^= x >> 33n;
  x = (x * 0xc4ceb9fe1a85ec53n) & M;
  return x ^ (x >> 33n);
}

/** The splitmix64-style intHash with seed 0 that record version 1 ran integer keys through (assembly/indices.ts). */
function intHashV1(x: bigint): bigint {
  x = (x + 0x9e3779b97f4a7c15n) & M;
  x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
  x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & M;
  return x ^ (x >> 31n);
}

/**
 * The query written out in docs/FORMAT.md, in BigInt, from a record's bytes
 * alone: 1 when the 64-bit key `h` (a hash of the key's bytes, or an integer
 * key as the record's version maps it) is present.
 */
function recordQuery(record: Uint8Array): (h: bigint) => number {
  const view = new DataView(record.buffer, record.byteOffset);
  const seed = view.getBigUint64(12, true);
  const fingerprintBits = view.getUint8(12 + 16);
  const segmentLength = BigInt(view.getUint32(12 + 20, true));
  const segmentCount = BigInt(view.getUint32(12 + 24, true));
  const payload = record.subarray(12 + 36 + 16);
  const slot = (i: bigint) => (fingerprintBits === 8 ? payload[Number(i)] : payload[2 * Number(i)] | (payload[2 * Number(i) + 1] << 8));
  return (h) => {
    const m = fmix((h + seed) & M);
    const h0 = (m * segmentCount * segmentLength) >> 64n;
    const h1 = (h0 + segmentLength) ^ ((m >> 18n) % segmentLength);
    const h2 = (h0 + 2n * segmentLength) ^ (m % segmentLength);
    const fingerprint = Number((m ^ (m >> 32n)) & BigInt(2 ** fingerprintBits - 1));
    return Number((fingerprint ^ slot(h0) ^ slot(h1) ^ slot(h2)) === 0);
  };
}

/** A record's format version (bytes 4 and 5). */
const versionOf = (record: Uint8Array) => new DataView(record.buffer, record.byteOffset).getUint16(4, true);

const encoder = new TextEncoder();
const BITS = [8, 16] as const;

/** `count` distinct u32 keys from `first` on: i · an odd constant is a bijection mod 2^32, so ranges never overlap. */
function spreadInts(first: number, count: number): Uint32Array {
  const keys = new Uint32Array(count);
  for (let i = 0; i < count; i++) keys[i] = Math.imul(first + i, 0x9e3779b1) >>> 0;
  return keys;
}

/** Sizes where the segment length doubles (ln(n) / ln(3.33) + 2.25 crosses an integer), with their neighbours. */
function segmentBoundaries(limit: number): number[] {
  const sizes: number[] = [];
  for (let k = 3; ; k++) {
    const n = Math.ceil(3.33 ** (k - 2.25));
    if (n > limit) return sizes;
    sizes.push(n - 1, n, n + 1);
  }
}

/** Packed 8-byte keys: the little-endian u64s from `first` to first + count − 1 (below 2^32). */
function packedRange(first: number, count: number): { bytes: Uint8Array; ends: Uint32Array } {
  const bytes = new Uint8Array(count * 8);
  const view = new DataView(bytes.buffer);
  const ends = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    view.setUint32(i * 8, first + i, true);
    ends[i] = (i + 1) * 8;
  }
  return { bytes, ends };
}

/** The segment length in a serialised record (parameters at 12, L at offset 20 of them). */
const segmentLengthOf = (record: Uint8Array) => new DataView(record.buffer, record.byteOffset).getUint32(12 + 20, true);

describe("no false negatives", () => {
  it("for every size from 0 to 400 and around every segment boundary up to 10^6, integer keys", () => {
    const sizes = [...Array.from({ length: 401 }, (_, i) => i), ...segmentBoundaries(1e6)];
    for (const fingerprintBits of BITS) {
      for (const n of sizes) {
        const keys = spreadInts(n * 7919, n);
        const filter = BinaryFuseFilter.buildInts(keys, { fingerprintBits });
        expect(filter.size, `n = ${n}`).toBe(n);
        expect(ones(filter.hasInts(keys)), `n = ${n}, ${fingerprintBits} bits`).toBe(n);
        filter.dispose();
      }
    }
  });

  it("the segment length does change at the boundaries tested", () => {
    const lengths = segmentBoundaries(20_000).map((n) => {
      const filter = BinaryFuseFilter.buildInts(spreadInts(0, n));
      const length = segmentLengthOf(filter.serialize());
      filter.dispose();
      return length;
    });
    for (let i = 0; i < lengths.length; i += 3) expect(lengths[i + 2], `around boundary ${i / 3}`).toBe(2 * lengths[i]);
  });

  it("just past the step to 1,024-slot segments (about 11,200 to 12,400 keys), where few seeds peel the paper's layout: every set builds, and its record loads", () => {
    // These sizes get 12 or 13 segments of 1,024 slots; there the paper's layout peels under a few percent of
    // seeds, and these sets failed all 100 (FastFilter/xor_singleheader#77: 20-40% of random sets of 11,500 keys).
    const random = rng(211);
    const sets: (() => BinaryFuseFilter)[] = [];
    const strings = Array.from({ length: 12_355 }, (_, i) => `u12355-${i}-8`);
    sets.push(() => BinaryFuseFilter.build(strings));
    for (const n of [11_450, 11_500, 11_521, 12_355]) {
      for (let set = 0; set < 6; set++) {
        const keys = new BigUint64Array(n);
        for (let i = 0; i < n; i++) keys[i] = (BigInt(Math.floor(random() * 2 ** 32)) << 32n) | BigInt(Math.floor(random() * 2 ** 32));
        sets.push(() => BinaryFuseFilter.buildInts(keys, { fingerprintBits: set % 2 ? 16 : 8 }));
      }
    }
    const probes = urls(2_000, "step-probe", 212);
    const lengths = new Set<number>();
    for (const [at, make] of sets.entries()) {
      const filter = make();
      lengths.add(segmentLengthOf(filter.serialize()));
      const copy = BinaryFuseFilter.deserialize(filter.serialize());
      expect(copy.hasMany(probes), `set ${at}`).toEqual(filter.hasMany(probes));
      expect(copy.serialize(), `set ${at}`).toEqual(filter.serialize());
      filter.dispose();
      copy.dispose();
    }
    // The sets peeled in the halved layout (512-slot segments), which their records keep.
    expect(lengths).toContain(512);
    const filter = sets[0]();
    expect([filter.size, ones(filter.hasMany(strings))]).toEqual([12_355, 12_355]);
    expect(filter.bitsPerItem).toBeLessThan(10.5);
  });

  it("string and byte keys of every size from 0 to 60, and random sets up to 10^5", () => {
    const random = rng(181);
    const sizes = [...Array.from({ length: 61 }, (_, i) => i), ...Array.from({ length: 8 }, () => Math.floor(random() * 100_000))];
    for (const n of sizes) {
      const keys = [...urls(n - (n >> 2), `fn-${n}`, n), ...randomBytes(n >> 2, 30, n + 1)];
      const filter = BinaryFuseFilter.build(keys, { fingerprintBits: n % 2 ? 8 : 16 });
      expect(ones(filter.hasMany(keys)), `n = ${n}`).toBe(n);
      filter.dispose();
    }
  });

  it("random 64-bit key sets of random sizes up to 10^6, a tenth of them repeats: every distinct key present, size the distinct count", () => {
    const random = rng(611);
    const word = () => BigInt(Math.floor(random() * 2 ** 32));
    // Sizes spread evenly in log scale from 1 to 10^6, so every order of magnitude of segment layout is met.
    const sizes = Array.from({ length: 12 }, (_, i) => Math.max(1, Math.round(10 ** (i / 2 + random() / 2))));
    for (const [i, n] of sizes.entries()) {
      const keys = new BigUint64Array(n);
      for (let k = 0; k < n; k++) keys[k] = k > 0 && random() < 0.1 ? keys[Math.floor(random() * k)] : (word() << 32n) | word();
      const fingerprintBits = i % 2 ? 16 : 8;
      const filter = BinaryFuseFilter.buildInts(keys, { fingerprintBits });
      const distinct = new Set(keys).size;
      expect(filter.size, `n = ${n}`).toBe(distinct);
      expect(ones(filter.hasInts(keys)), `n = ${n}, ${fingerprintBits}-bit`).toBe(n);
      filter.dispose();
    }
    expect(Math.max(...sizes)).toBeGreaterThan(300_000);
  });

  it("a million string keys", () => {
    const keys = urls(1_000_000, "million", 182);
    const filter = BinaryFuseFilter.build(keys);
    expect(filter.size).toBe(1_000_000);
    expect(ones(filter.hasMany(keys))).toBe(1_000_000);
    filter.dispose();
  });

  it("64-bit integer keys, and a line longer than the batch area", () => {
    const random = rng(194);
    const wide = BigUint64Array.from({ length: 50_000 }, () => (BigInt(Math.floor(random() * 2 ** 32)) << 32n) | BigInt(Math.floor(random() * 2 ** 32)));
    const filter = BinaryFuseFilter.buildInts(wide, { fingerprintBits: 16 });
    expect(ones(filter.hasInts(wide))).toBe(new Set(wide).size);
    const long = "x".repeat(3_000_000);
    const lines = BinaryFuseFilter.buildLines(encoder.encode(`short\n${long}\nlast`));
    expect(lines.size).toBe(3);
    expect(lines.hasMany(["short", long, "last"])).toEqual(Uint8Array.of(1, 1, 1));
  });

  it("an empty filter answers absent to everything and has a false-positive rate of 0", () => {
    const filter = BinaryFuseFilter.build([]);
    const probes = urls(5_000, "empty", 183);
    expect(ones(filter.hasMany(probes))).toBe(0);
    expect(ones(filter.hasInts(spreadInts(0, 5_000)))).toBe(0);
    expect(filter.has("")).toBe(false);
    expect([filter.size, filter.bitsPerItem, filter.falsePositiveRate()]).toEqual([0, 0, 0]);
  });
});

describe("keys crafted against the build's fixed sequence of seeds", () => {
  // The seeds a build tries are splitmix64 of BUILD_SEED (0) + k · 0x9E3779B97F4A7C15, attempts 2, 6, … in the
  // halved layout (docs/FORMAT.md); fmix64 is a bijection, so a key can be chosen for any mixed hash.
  const inverse = (a: bigint) => {
    let x = a;
    for (let i = 0; i < 7; i++) x = (x * (2n - a * x)) & M;
    return x;
  };
  const [i1, i2] = [inverse(0xff51afd7ed558ccdn), inverse(0xc4ceb9fe1a85ec53n)];
  const unfmix = (x: bigint) => {
    x ^= x >> 33n;
    x = (x * i2) & M;
    x ^= x >> 33n;
    x = (x * i1) & M;
    return x ^ (x >> 33n);
  };
  const splitmix = (z: bigint) => {
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    return z ^ (z >> 31n);
  };
  const fixedSeed = (attempt: bigint) => splitmix((0x9e3779b97f4a7c15n * attempt) & M);
  const seedOf = (filter: BinaryFuseFilter) => {
    const record = new DataView(filter.serialize().buffer);
    return (BigInt(record.getUint32(12 + 4, true)) << 32n) | BigInt(record.getUint32(12, true));
  };
  /** Two keys for each of the first `attempts` seeds, sharing all three slots under it, so none of them can peel. */
  const crafted = (attempts: number) => {
    const n = 2 * attempts;
    const record = new DataView(BinaryFuseFilter.buildInts(spreadInts(1, n)).serialize().buffer);
    const [length, count] = [BigInt(record.getUint32(12 + 20, true)), BigInt(record.getUint32(12 + 24, true))];
    const keys = new BigUint64Array(n);
    let m = 0x1234n;
    for (let attempt = 1n; attempt <= BigInt(attempts); attempt++) {
      const seed = fixedSeed(attempt);
      const firstRange = attempt % 4n === 2n ? (2n * count + 2n) * (length / 2n) : count * length;
      // Two mixed hashes a bit apart above bit 36: the same three slots, so neither can ever be peeled.
      do m = fmix(m + 1n);
      while ((m * firstRange) >> 64n !== ((m ^ (1n << 40n)) * firstRange) >> 64n);
      keys[2 * Number(attempt - 1n)] = (unfmix(m) - seed) & M;
      keys[2 * Number(attempt - 1n) + 1] = (unfmix(m ^ (1n << 40n)) - seed) & M;
    }
    return keys;
  };
  const fixedSeeds = new Set(Array.from({ length: 100 }, (_, a) => fixedSeed(BigInt(a + 1))));

  it("random keys build from the fixed sequence, so the same keys give the same filter", () => {
    const keys = spreadInts(5, 11_400);
    const [first, second] = [BinaryFuseFilter.buildInts(keys), BinaryFuseFilter.buildInts(keys)];
    expect(fixedSeeds.has(seedOf(first))).toBe(true);
    expect(first.serialize()).toEqual(second.serialize());
  });

  for (const attempts of [24, 100]) {
    it(`still build: ${2 * attempts} distinct u64 keys against the first ${attempts} seeds, from a random start, every key held`, () => {
      const keys = crafted(attempts);
      for (const fingerprintBits of BITS) {
        const filter = BinaryFuseFilter.buildInts(keys, { fingerprintBits });
        expect([filter.size, ones(filter.hasInts(keys))]).toEqual([keys.length, keys.length]);
        // After the first 24 fail the build leaves the public sequence: the rest of it could have been crafted against too.
        expect(fixedSeeds.has(seedOf(filter))).toBe(false);
        const copy = BinaryFuseFilter.deserialize(filter.serialize());
        expect(ones(copy.hasInts(keys))).toBe(keys.length);
        filter.dispose();
        copy.dispose();
      }
    });
  }
});

describe("duplicates", () => {
  it("count once, in every input form, and give the filter of the distinct keys", () => {
    const distinct = urls(3_000, "dup", 184);
    const random = rng(185);
    const repeated: string[] = [];
    for (const key of distinct) for (let r = 1 + Math.floor(random() * 4); r > 0; r--) repeated.push(key);
    repeated.sort(() => random() - 0.5);
    const reference = BinaryFuseFilter.build(distinct).serialize();
    const filter = BinaryFuseFilter.build(repeated);
    expect(filter.size).toBe(3_000);
    expect(filter.serialize()).toEqual(reference);
    expect(BinaryFuseFilter.build(repeated.map((key) => encoder.encode(key))).serialize()).toEqual(reference);
    const packed = pack(repeated.map((key) => encoder.encode(key)));
    expect(BinaryFuseFilter.buildPacked(packed.bytes, packed.ends).serialize()).toEqual(reference);
    expect(BinaryFuseFilter.buildLines(encoder.encode(repeated.join("\r\n"))).serialize()).toEqual(reference);
  });

  it("never fail: all keys equal, two values a million times, every key twice", () => {
    const cases: [string, () => BinaryFuseFilter, number][] = [
      ["100,000 equal strings", () => BinaryFuseFilter.build(Array(100_000).fill("same")), 1],
      ["a million equal integers", () => BinaryFuseFilter.buildInts(new Uint32Array(1_000_000).fill(7)), 1],
      ["a million equal u64 integers", () => BinaryFuseFilter.buildInts(new BigUint64Array(1_000_000).fill(2n ** 64n - 1n), { fingerprintBits: 16 }), 1],
      ["two values alternating", () => BinaryFuseFilter.buildInts(Uint32Array.from({ length: 1_000_000 }, (_, i) => i & 1)), 2],
      ["every key twice", () => BinaryFuseFilter.buildInts(Uint32Array.from({ length: 400_000 }, (_, i) => i >> 1)), 200_000],
      ["100,000 empty lines", () => BinaryFuseFilter.buildLines(new Uint8Array(100_000).fill(10)), 1],
    ];
    for (const [what, build, size] of cases) {
      const filter = build();
      expect(filter.size, what).toBe(size);
      filter.dispose();
    }
    const pairs = BinaryFuseFilter.buildInts(Uint32Array.from({ length: 400_000 }, (_, i) => i >> 1));
    expect(ones(pairs.hasInts(Uint32Array.from({ length: 200_000 }, (_, i) => i)))).toBe(200_000);
  });

  it("u32 and u64 integer keys of the same values give the same filter", () => {
    const keys = spreadInts(5, 10_000);
    expect(BinaryFuseFilter.buildInts(BigUint64Array.from(keys, BigInt)).serialize()).toEqual(BinaryFuseFilter.buildInts(keys).serialize());
  });
});

describe("kernel: sort-unique and build over chosen hashes", () => {
  /** Runs fuseSortUnique on `values` in wasm memory; returns the distinct sorted prefix. */
  function sortUnique(values: bigint[]): bigint[] {
    const hashes = arena.alloc(Math.max(8, values.length * 8));
    const temp = arena.alloc(core.fuseSortTempBytes(values.length));
    new BigUint64Array(heapU8().buffer, hashes, values.length).set(values);
    const distinct = core.fuseSortUnique(hashes, values.length, temp);
    const out = Array.from(new BigUint64Array(heapU8().buffer, hashes, distinct));
    arena.free(temp);
    arena.free(hashes);
    return out;
  }

  const random = rng(186);
  const u32 = () => BigInt(Math.floor(random() * 2 ** 32));
  const u64 = () => (u32() << 32n) | u32();
  const cases: Record<string, () => bigint[]> = {
    "none": () => [],
    "one": () => [5n],
    "random": () => Array.from({ length: 20_000 }, u64),
    "random with repeats": () => Array.from({ length: 20_000 }, () => BigInt(Math.floor(random() * 5_000)) * 0x9e3779b97f4a7c15n & (2n ** 64n - 1n)),
    "all equal": () => Array(5_000).fill(0xdeadbeefcafef00dn),
    "one high half, random low halves (a long run)": () => Array.from({ length: 5_000 }, () => (0x12345678n << 32n) | u32()),
    "one high half, 17 values (just past insertion sort)": () => Array.from({ length: 17 }, (_, i) => (7n << 32n) | BigInt(17 - i)),
    "one low half, random high halves": () => Array.from({ length: 5_000 }, () => (u32() << 32n) | 42n),
    "extremes": () => [2n ** 64n - 1n, 0n, 2n ** 63n, 2n ** 64n - 1n, 0n, 1n],
  };

  it.each(Object.keys(cases))("fuseSortUnique against a sorted Set: %s", (name) => {
    const values = cases[name]();
    const expected = [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(sortUnique(values)).toEqual(expected);
  });

  it("builds from hashes that share their high or low halves, every one present", () => {
    for (const values of [cases["one high half, random low halves (a long run)"](), cases["one low half, random high halves"]()]) {
      const distinct = sortUnique(values);
      for (const bits of BITS) {
        const hashes = arena.alloc(distinct.length * 8);
        new BigUint64Array(heapU8().buffer, hashes, distinct.length).set(distinct);
        const filter = arena.alloc(core.fuseBlockBytes(distinct.length, bits));
        const slotHashes = arena.alloc(core.fuseSlotHashBytes(distinct.length));
        const temp = arena.alloc(core.fuseTempBytes(distinct.length));
        expect(core.fuseBuild(filter, hashes, distinct.length, bits, slotHashes, temp, 0, 0, 100)).toBe(0);
        const out = arena.alloc(distinct.length);
        expect(core.fuseRun(filter, 0, hashes, distinct.length, out)).toBe(distinct.length);
        for (const ptr of [hashes, filter, slotHashes, temp, out]) arena.free(ptr);
      }
    }
  });

  it("replaces a seed under which the keys cannot be peeled by the next of its sequence", () => {
    const splitmix = (state: bigint) => {
      let z = state & M;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
      return z ^ (z >> 31n);
    };
    const GOLDEN = 0x9e3779b97f4a7c15n;
    const [first, second] = [splitmix(GOLDEN), splitmix(2n * GOLDEN)];
    // Two keys: 4-slot segments, one segment of first slots; a key's slots are
    // fixed by bits 62–63, 18–19 and 0–1 of its mix. Two keys that agree on
    // them under the first seed share all three slots and cannot be peeled.
    const slotsOf = (h: bigint, seed: bigint) => {
      const m = fmix((h + seed) & M);
      return `${m >> 62n} ${(m >> 18n) & 3n} ${m & 3n}`;
    };
    const a = 1n;
    let b = 2n;
    while (slotsOf(b, first) !== slotsOf(a, first) || slotsOf(b, second) === slotsOf(a, second)) b++;
    const hashes = arena.alloc(16);
    new BigUint64Array(heapU8().buffer, hashes, 2).set([a, b]);
    const filter = arena.alloc(core.fuseBlockBytes(2, 8));
    const slotHashes = arena.alloc(core.fuseSlotHashBytes(2));
    const temp = arena.alloc(core.fuseTempBytes(2));
    expect(core.fuseBuild(filter, hashes, 2, 8, slotHashes, temp, 0, 0, 100)).toBe(0);
    expect(core.fuseSegmentLength(filter)).toBe(4);
    const seed = (BigInt(core.fuseSeedHigh(filter) >>> 0) << 32n) | BigInt(core.fuseSeedLow(filter) >>> 0);
    expect(seed).toBe(second);
    const out = arena.alloc(8);
    expect(core.fuseRun(filter, 0, hashes, 2, out)).toBe(2);
    for (const ptr of [hashes, filter, slotHashes, temp, out]) arena.free(ptr);
  });

  it("reports a failure, not a wrong filter, when given duplicate hashes it cannot peel", () => {
    const hashes = arena.alloc(16);
    new BigUint64Array(heapU8().buffer, hashes, 2).set([9n, 9n]);
    const filter = arena.alloc(core.fuseBlockBytes(2, 8));
    const slotHashes = arena.alloc(core.fuseSlotHashBytes(2));
    const temp = arena.alloc(core.fuseTempBytes(2));
    expect(core.fuseBuild(filter, hashes, 2, 8, slotHashes, temp, 0, 0, 100)).toBe(3); // FUSE_ERROR_NOT_PEELED
    for (const ptr of [hashes, filter, slotHashes, temp]) arena.free(ptr);
  });
});

describe("false-positive rate and size", () => {
  it("8-bit at 10^6 keys: ≤ 9.2 bits per key, measured rate within 30% of 2^-8 on 2·10^6 probes", () => {
    const n = 1_000_000;
    const filter = BinaryFuseFilter.buildInts(spreadInts(0, n));
    expect(filter.bitsPerItem).toBeLessThanOrEqual(9.2);
    expect(filter.bitsPerItem).toBeGreaterThan(9); // the paper's 1.125 factor: honest, not an empty array
    const rate = ones(filter.hasInts(spreadInts(n, 2_000_000))) / 2_000_000;
    expect(rate).toBeGreaterThan(0.7 * 2 ** -8);
    expect(rate).toBeLessThan(1.3 * 2 ** -8);
    expect(filter.falsePositiveRate()).toBe(2 ** -8);
  });

  it("8-bit, string keys: rate within 30% of 2^-8 on 300,000 URL probes", () => {
    const filter = BinaryFuseFilter.build(urls(100_000, "fpr-in", 187));
    const rate = ones(filter.hasMany(urls(300_000, "fpr-out", 188))) / 300_000;
    expect(rate).toBeGreaterThan(0.7 * 2 ** -8);
    expect(rate).toBeLessThan(1.3 * 2 ** -8);
  });

  it("16-bit at 10^7 keys: ≤ 18.4 bits per key (the 8-bit array of the same keys ≤ 9.2), every key present, rate within 30% of 2^-16 on 10^7 probes", () => {
    const n = 10_000_000;
    const keys = spreadInts(0, n);
    const filter = BinaryFuseFilter.buildInts(keys, { fingerprintBits: 16 });
    expect(filter.bitsPerItem).toBeLessThanOrEqual(18.4);
    // Both widths share the layout of n keys: half the bits with 8-bit fingerprints.
    expect(filter.bitsPerItem / 2).toBeLessThanOrEqual(9.2);
    expect(ones(filter.hasInts(keys))).toBe(n);
    const falsePositives = ones(filter.hasInts(spreadInts(n, 10_000_000)));
    expect(falsePositives).toBeGreaterThan(0.7 * 10_000_000 * 2 ** -16);
    expect(falsePositives).toBeLessThan(1.3 * 10_000_000 * 2 ** -16);
    filter.dispose();
  });

  it("consecutive integers (their own 64-bit keys since record version 2): rate within 30% of 2^-8 and 2^-16 on the next integers", () => {
    const n = 1_000_000;
    const members = Uint32Array.from({ length: n }, (_, i) => i);
    const cases: [8 | 16, number][] = [[8, 2_000_000], [16, 10_000_000]];
    for (const [fingerprintBits, probes] of cases) {
      const filter = BinaryFuseFilter.buildInts(members, { fingerprintBits });
      expect(ones(filter.hasInts(members))).toBe(n);
      const expected = probes * 2 ** -fingerprintBits;
      const falsePositives = ones(filter.hasInts(Uint32Array.from({ length: probes }, (_, i) => n + i)));
      expect(falsePositives, `${fingerprintBits}-bit`).toBeGreaterThan(0.7 * expected);
      expect(falsePositives, `${fingerprintBits}-bit`).toBeLessThan(1.3 * expected);
      filter.dispose();
    }
    const base = 2n ** 40n;
    const wide = BinaryFuseFilter.buildInts(BigUint64Array.from({ length: n }, (_, i) => base + BigInt(i)));
    const wideRate = ones(wide.hasInts(BigUint64Array.from({ length: 2_000_000 }, (_, i) => base + BigInt(n + i)))) / 2_000_000;
    expect(wideRate).toBeGreaterThan(0.7 * 2 ** -8);
    expect(wideRate).toBeLessThan(1.3 * 2 ** -8);
  });

  it("16-bit, byte keys: rate within 30% of 2^-16 on 1.6·10^7 probes (10^6 would expect 15 hits, too few to tell)", () => {
    const n = 1_000_000;
    const members = packedRange(0, n);
    const filter = BinaryFuseFilter.buildPacked(members.bytes, members.ends, { fingerprintBits: 16 });
    expect(ones(filter.hasPacked(members.bytes, members.ends))).toBe(n);
    const chunk = 2_000_000;
    const probes = 8 * chunk;
    let falsePositives = 0;
    for (let first = n; first < n + probes; first += chunk) {
      const absent = packedRange(first, chunk);
      falsePositives += ones(filter.hasPacked(absent.bytes, absent.ends));
    }
    const expected = probes * 2 ** -16;
    expect(falsePositives).toBeGreaterThan(0.7 * expected);
    expect(falsePositives).toBeLessThan(1.3 * expected);
    filter.dispose();
  });

  it("the README's build memory per key is the build's, for a million keys", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8").replace(/\s+/g, " ");
    const stated = /(\d+) bytes per key for the key hashes, then about ([\d.]+) bytes per distinct key for the construction, about ([\d.]+) bytes per key at its peak besides the filter \(([\d.]+) with an 8-bit filter, ([\d.]+) with a 16-bit one; a million keys\)/.exec(readme);
    expect(stated, "the sentence on build memory in the README").not.toBeNull();
    const n = 1e6;
    // Peak: the hashes, then the larger of the sort's temp and the construction's (with the filter, which it writes).
    const construction = (core.fuseSlotHashBytes(n) + core.fuseTempBytes(n)) / n;
    const peak = (filterBytes: number) => 8 + Math.max(core.fuseSortTempBytes(n), core.fuseSlotHashBytes(n) + core.fuseTempBytes(n) + filterBytes) / n;
    expect(stated!.slice(1).map(Number)).toEqual([8, construction, peak(0), peak(core.fuseBlockBytes(n, 8)), peak(core.fuseBlockBytes(n, 16))].map((x) => Number(x.toFixed(1))));
  });

  it("16-bit at 10^6 keys: ≤ 18.4 bits per key", () => {
    const filter = BinaryFuseFilter.buildInts(spreadInts(0, 1_000_000), { fingerprintBits: 16 });
    expect(filter.bitsPerItem).toBeLessThanOrEqual(18.4);
    expect(filter.falsePositiveRate()).toBe(2 ** -16);
  });
});

describe("every key form gives the same filter and the same answers", () => {
  // Keys longer than the one-key path's default room (a single has() takes a larger one) among them.
  const members = [...urls(2_000, "forms", 189), "", "布隆过滤器", "a\tb", "long key ".repeat(8_000), "长键".repeat(30_000)];
  const probes = [...members.slice(0, 1_000), ...members.slice(-5), ...urls(20_000, "forms-out", 190), "ключ", "🙂", "long key ".repeat(8_001)];

  it.each(BITS)("%i-bit: build, bytes, buildPacked and buildLines give identical records; has, hasMany, bytes, hasPacked, hasLines agree", (fingerprintBits) => {
    const filter = BinaryFuseFilter.build(members, { fingerprintBits });
    const record = filter.serialize();
    const memberBytes = members.map((key) => encoder.encode(key));
    const packedMembers = pack(memberBytes);
    expect(BinaryFuseFilter.build(memberBytes, { fingerprintBits }).serialize()).toEqual(record);
    expect(BinaryFuseFilter.buildPacked(packedMembers.bytes, packedMembers.ends, { fingerprintBits }).serialize()).toEqual(record);
    expect(BinaryFuseFilter.buildLines(encoder.encode(members.join("\n") + "\n"), { fingerprintBits }).serialize()).toEqual(record);
    expect(BinaryFuseFilter.build([...members].reverse(), { fingerprintBits }).serialize()).toEqual(record);

    const single = Uint8Array.from(probes, (key) => Number(filter.has(key)));
    const probeBytes = probes.map((key) => encoder.encode(key));
    const packedProbes = pack(probeBytes);
    expect(ones(single.subarray(0, 1_005))).toBe(1_005);
    expect(filter.hasMany(probes)).toEqual(single);
    expect(filter.hasMany(probeBytes)).toEqual(single);
    expect(Uint8Array.from(probeBytes, (key) => Number(filter.has(key)))).toEqual(single);
    expect(filter.hasPacked(packedProbes.bytes, packedProbes.ends)).toEqual(single);
    expect(filter.hasLines(encoder.encode(probes.join("\r\n")))).toEqual(single);
  });

  it("answers exactly as the query written out in docs/FORMAT.md (version 2: xxh3 of the bytes, integers as they are), computed in BigInt from the record", () => {
    const sample = probes.slice(0, 3_000);
    const memberInts = spreadInts(0, 3_000);
    const probeInts = Uint32Array.from([...memberInts.subarray(0, 500), ...spreadInts(3_000, 2_500)]);
    const wideMembers = BigUint64Array.from(memberInts, (x) => (BigInt(x) << 32n) | 0xfedcban);
    const wideProbes = BigUint64Array.from([...wideMembers.subarray(0, 500), ...BigUint64Array.from(spreadInts(9_000, 2_500), (x) => BigInt(x) << 31n)]);
    for (const fingerprintBits of BITS) {
      const filter = BinaryFuseFilter.build(members, { fingerprintBits });
      const record = filter.serialize();
      expect(versionOf(record)).toBe(2);
      const written = recordQuery(record);
      const answers = filter.hasMany(sample);
      expect(ones(answers)).toBeGreaterThanOrEqual(1_000);
      expect(Uint8Array.from(sample, (key) => written(hash("xxh3", key, 0)))).toEqual(answers);

      const ints = BinaryFuseFilter.buildInts(memberInts, { fingerprintBits });
      const intQuery = recordQuery(ints.serialize());
      expect(Uint8Array.from(probeInts, (key) => intQuery(BigInt(key)))).toEqual(ints.hasInts(probeInts));
      expect(ones(ints.hasInts(probeInts))).toBeGreaterThanOrEqual(500);

      const wide = BinaryFuseFilter.buildInts(wideMembers, { fingerprintBits });
      const wideQuery = recordQuery(wide.serialize());
      expect(Uint8Array.from(wideProbes, (key) => wideQuery(key))).toEqual(wide.hasInts(wideProbes));
      expect(ones(wide.hasInts(wideProbes))).toBeGreaterThanOrEqual(500);
    }
  });
});

describe("filters larger than the caches (over 4 MiB of fingerprints)", () => {
  it.each(BITS)("%i-bit: answer exactly as the query written out in docs/FORMAT.md, for integer and byte keys, in every chunk", (fingerprintBits) => {
    const n = fingerprintBits === 8 ? 4_000_000 : 2_000_000;
    const members = spreadInts(0, n);
    const filter = BinaryFuseFilter.buildInts(members, { fingerprintBits });
    expect(filter.bits / 8).toBeGreaterThan(4 * 2 ** 20);
    const query = recordQuery(filter.serialize());
    // Members and absent keys interleaved, over several chunks of 16,384 keys and a last one of 15, which the
    // kernel's loop of sixteen keys at a time leaves to its loop of one.
    const random = rng(612 + fingerprintBits);
    const probes = Uint32Array.from({ length: 3 * 16_384 + 15 }, (_, i) => (i % 3 === 0 ? members[Math.floor(random() * n)] : spreadInts(n + i, 1)[0]));
    const answers = filter.hasInts(probes);
    expect(Uint8Array.from(probes, (key) => query(BigInt(key)))).toEqual(answers);
    expect(ones(answers)).toBeGreaterThanOrEqual(16_384);
    expect(ones(filter.hasInts(members))).toBe(n);
    filter.dispose();

    const packed = packedRange(0, n);
    const byBytes = BinaryFuseFilter.buildPacked(packed.bytes, packed.ends, { fingerprintBits });
    const byteQuery = recordQuery(byBytes.serialize());
    const key = (i: number) => packed.bytes.subarray(8 * i, 8 * i + 8);
    const byteProbes = [...Array.from({ length: 10_000 }, (_, i) => key(i * 97)), ...Array.from({ length: 10_001 }, (_, i) => packedRange(n + i, 1).bytes)];
    const byteAnswers = byBytes.hasMany(byteProbes);
    expect(Uint8Array.from(byteProbes, (bytes) => byteQuery(hash("xxh3", bytes, 0)))).toEqual(byteAnswers);
    expect(ones(byteAnswers.subarray(0, 10_000))).toBe(10_000);
    expect(ones(byBytes.hasPacked(packed.bytes, packed.ends))).toBe(n);
    byBytes.dispose();
  });
});

describe("records of version 1 (xxh64 of the bytes, integers through intHash), written by bloomkit before version 2", () => {
  // test/fixtures/fuse-v1-*.bin were written by bloomkit at commit 28788c1 from these keys:
  const strings = Array.from({ length: 1000 }, (_, i) => `https://example.com/fixture/${i}`);
  const ints = Uint32Array.from({ length: 1000 }, (_, i) => Math.imul(i, 2654435761) >>> 0);
  const wide = BigUint64Array.from({ length: 1000 }, (_, i) => (BigInt(i) << 40n) + 12345n);
  const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
  const stringProbes = [...strings, ...urls(20_000, "v1-out", 195)];
  const intProbes = Uint32Array.from([...ints, ...spreadInts(77_777, 20_000)]);
  const wideProbes = BigUint64Array.from([...wide, ...BigUint64Array.from(spreadInts(5, 20_000), (x) => BigInt(x) << 24n)]);

  it("load, hold every key, and answer as the version 1 query computed in BigInt from the record", () => {
    const cases: [string, (filter: BinaryFuseFilter) => Uint8Array, bigint[]][] = [
      ["fuse-v1-strings-8.bin", (filter) => filter.hasMany(stringProbes), stringProbes.map((key) => hash("xxh64", key, 0))],
      ["fuse-v1-ints-16.bin", (filter) => filter.hasInts(intProbes), Array.from(intProbes, (key) => intHashV1(BigInt(key)))],
      ["fuse-v1-wide-8.bin", (filter) => filter.hasInts(wideProbes), Array.from(wideProbes, intHashV1)],
    ];
    for (const [name, query, keys] of cases) {
      const record = fixture(name);
      expect(versionOf(record), name).toBe(1);
      const filter = BinaryFuseFilter.deserialize(record);
      expect(filter.size, name).toBe(1000);
      const answers = query(filter);
      expect(ones(answers.subarray(0, 1000)), name).toBe(1000);
      expect(ones(answers), name).toBeLessThan(1000 + 20_000 * 2 ** -filter.fingerprintBits * 3 + 10);
      expect(Uint8Array.from(keys, recordQuery(record)), name).toEqual(answers);
      // Written back as it was read: still version 1, byte for byte.
      expect(filter.serialize(), name).toEqual(record);
      filter.dispose();
    }
  });

  it("answer alike through every key form, single keys, u32 and u64 integers, and after a round trip", () => {
    const filter = deserialize(fixture("fuse-v1-strings-8.bin")) as BinaryFuseFilter;
    const answers = filter.hasMany(stringProbes);
    const probeBytes = stringProbes.map((key) => encoder.encode(key));
    const packed = pack(probeBytes);
    expect(filter.hasPacked(packed.bytes, packed.ends)).toEqual(answers);
    expect(filter.hasLines(encoder.encode(stringProbes.join("\n")))).toEqual(answers);
    expect(Uint8Array.from(stringProbes.slice(0, 2_000), (key) => Number(filter.has(key)))).toEqual(answers.subarray(0, 2_000));
    expect(BinaryFuseFilter.fromBase64(filter.toBase64()).hasMany(stringProbes)).toEqual(answers);
    const ints16 = BinaryFuseFilter.deserialize(fixture("fuse-v1-ints-16.bin"));
    expect(ints16.hasInts(BigUint64Array.from(intProbes, BigInt))).toEqual(ints16.hasInts(intProbes));
  });

  it("differ from the version 2 filter of the same keys, which new builds write", () => {
    const rebuilt = BinaryFuseFilter.build(strings);
    expect(versionOf(rebuilt.serialize())).toBe(2);
    expect(ones(rebuilt.hasMany(strings))).toBe(1000);
    expect(rebuilt.serialize().subarray(12)).not.toEqual(fixture("fuse-v1-strings-8.bin").subarray(12));
  });
});

describe("serialisation", () => {
  const probes = urls(20_000, "ser-probe", 191);

  it.each(BITS)("%i-bit: serialize, deserialize and base64 give identical records and answers, for 0, 1 and 5,000 keys", (fingerprintBits) => {
    for (const n of [0, 1, 5_000]) {
      const keys = urls(n, "ser", 192);
      const original = BinaryFuseFilter.build(keys, { fingerprintBits });
      const record = original.serialize();
      const copies = [BinaryFuseFilter.deserialize(record), deserialize(record) as BinaryFuseFilter, BinaryFuseFilter.fromBase64(original.toBase64())];
      for (const copy of copies) {
        expect(copy).toBeInstanceOf(BinaryFuseFilter);
        expect([copy.size, copy.fingerprintBits, copy.bitsPerItem]).toEqual([original.size, fingerprintBits, original.bitsPerItem]);
        expect(copy.serialize()).toEqual(record);
        expect(copy.hasMany(probes)).toEqual(original.hasMany(probes));
        expect(ones(copy.hasMany(keys))).toBe(n);
      }
    }
  });

  const small = { 8: ["a", "b", "c", "d", "e"], 16: ["一", "二", "三"] } as const;

  it.each(BITS)("%i-bit: every truncation, every flipped bit and every inverted byte is a FormatError", (fingerprintBits) => {
    const bytes = BinaryFuseFilter.build([...small[fingerprintBits]], { fingerprintBits }).serialize();
    for (let length = 0; length < bytes.length; length++) {
      expect(() => deserialize(bytes.subarray(0, length)), `length ${length} of ${bytes.length}`).toThrow(FormatError);
    }
    for (let at = 0; at < bytes.length; at++) {
      for (const mask of [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff]) {
        const damaged = bytes.slice();
        damaged[at] ^= mask;
        expect(() => deserialize(damaged), `byte ${at} ^ ${mask}`).toThrow(FormatError);
      }
    }
  });

  it.each(BITS)("%i-bit: parameters changed behind recomputed checksums are a FormatError or a filter with identical answers; the seed is free", (fingerprintBits) => {
    const keys = [...small[fingerprintBits]];
    const original = BinaryFuseFilter.build(keys, { fingerprintBits });
    const bytes = original.serialize();
    const answers = original.hasMany([...keys, ...probes]);
    let rejected = 0;
    for (let at = 12; at < 12 + 36; at++) {
      for (const mask of [0x01, 0x02, 0x10, 0x80, 0xff]) {
        const damaged = bytes.slice();
        damaged[at] ^= mask;
        const what = `parameter byte ${at - 12} ^ ${mask}`;
        let loaded: BinaryFuseFilter;
        try {
          loaded = BinaryFuseFilter.deserialize(reseal(damaged));
        } catch (error) {
          expect(error, what).toBeInstanceOf(FormatError);
          rejected++;
          continue;
        }
        if (at < 12 + 8) {
          // The seed: any value is a filter, of the same shape (only the checksums can catch this).
          expect([loaded.size, loaded.fingerprintBits, loaded.bitsPerItem], what).toEqual([original.size, fingerprintBits, original.bitsPerItem]);
        } else {
          expect(loaded.hasMany([...keys, ...probes]), what).toEqual(answers);
        }
        loaded.dispose();
      }
    }
    expect(rejected).toBeGreaterThan(100);
  });

  it("names the broken invariant", () => {
    const base = () => BinaryFuseFilter.build(["a", "b", "c"]).serialize(); // parameters at 12
    const cases: [string, (b: DataView) => void, RegExp][] = [
      ["fingerprint bits 12", (b) => b.setUint8(12 + 16, 12), /fingerprint bits = 12, not 8 or 16/],
      ["fingerprint bits 16 with an 8-bit payload", (b) => b.setUint8(12 + 16, 16), /payload of 24 bytes for 24 16-bit fingerprints/],
      ["a reserved byte", (b) => b.setUint8(12 + 18, 1), /reserved parameter bytes/],
      ["size 10^9", (b) => b.setBigUint64(12 + 8, 10n ** 9n, true), /not a layout of 1000000000 keys/],
      ["size 2^40", (b) => b.setBigUint64(12 + 8, 2n ** 40n, true), /size = 1099511627776 is out of range/],
      ["segment length", (b) => b.setUint32(12 + 20, 16, true), /segment length 16, segment count 1 and array length 24 are not a layout of 3 keys \(8, 1, 24\) or \(4, 4, 24\)/],
      ["segment count", (b) => b.setUint32(12 + 24, 2, true), /not a layout of 3 keys/],
      ["array length", (b) => b.setBigUint64(12 + 28, 32n, true), /not a layout of 3 keys/],
    ];
    for (const [what, damage, message] of cases) {
      const bytes = base();
      damage(new DataView(bytes.buffer));
      expect(() => deserialize(reseal(bytes)), what).toThrow(message);
      expect(() => deserialize(bytes), what).toThrow(FormatError);
    }
    const empty = BinaryFuseFilter.build([]).serialize();
    empty[empty.length - 9] = 1; // a fingerprint of an empty filter
    expect(() => deserialize(reseal(empty))).toThrow(/1 fingerprints are set in a filter of size = 0 keys/);
  });

  it("refuses a size below the fingerprints a build set, and loads a larger one of the same layout answering as before", () => {
    // A build sets one slot per key: a record claiming fewer keys than set slots was not written by a build.
    // A larger size of the same layout (sizes 3 … 8 share one) cannot be told apart: it loads and answers the same.
    for (const bits of BITS) {
      const filter = BinaryFuseFilter.build(["a", "b", "c", "d", "e"], { fingerprintBits: bits });
      const record = filter.serialize();
      const { payload } = parseRecord(record);
      const slots = bits === 8 ? payload : new Uint16Array(payload.buffer, payload.byteOffset, payload.length / 2);
      const set = slots.reduce((sum: number, slot: number) => sum + (slot === 0 ? 0 : 1), 0);
      expect(set).toBeGreaterThan(3);
      expect(set).toBeLessThanOrEqual(5);
      const probes = urls(5_000, "fuse-size-probe", 71);
      const answers = filter.hasMany(probes);
      for (let size = 3; size <= 8; size++) {
        const edited = editParams(record, (params) => params.setBigUint64(8, BigInt(size), true));
        if (size < set) {
          expect(() => deserialize(edited), `size ${size}`).toThrow(new FormatError(`corrupted: ${set} fingerprints are set in a filter of size = ${size} keys, which sets at most one per key`));
          continue;
        }
        const loaded = BinaryFuseFilter.deserialize(edited);
        expect(loaded.size).toBe(size);
        expect(loaded.hasMany(probes)).toEqual(answers);
        loaded.dispose();
      }
      filter.dispose();
    }
  });

  it("refuses a header claiming more fingerprints than a filter holds as corrupted, before allocating them", async () => {
    // 2^31 keys of 16 bits need 4.5 GiB: no build makes that filter. Given as bytes, the missing payload is seen
    // first; given as a stream, the size.
    const params = new Params().u32(0).u32(0).u64(2 ** 31).u8(16).u8(0).u8(0).u8(0);
    const layout = { segmentLength: 2 ** 18, segmentCount: 0, arrayLength: 0 };
    // The layout a build would give 2^31 keys, from the formulas of docs/FORMAT.md.
    const capacity = Math.round(2 ** 31 * 1.125);
    layout.segmentCount = Math.max(1, Math.ceil(capacity / layout.segmentLength) - 2);
    layout.arrayLength = (layout.segmentCount + 2) * layout.segmentLength;
    const head = buildRecord({ version: 2, type: 6, params: params.u32(layout.segmentLength).u32(layout.segmentCount).u64(layout.arrayLength).bytes(), payload: new Uint8Array(0) });
    const view = new DataView(head.buffer);
    view.setBigUint64(12 + 36, BigInt(layout.arrayLength * 2), true);
    const header = reseal(head).subarray(0, 12 + 36 + 16);
    expect(() => BinaryFuseFilter.deserialize(header)).toThrow(new FormatError(`truncated: ${header.length} bytes, the record needs ${header.length + layout.arrayLength * 2 + 8}`));
    await expect(BinaryFuseFilter.deserializeChunks([header])).rejects.toThrow(/corrupted: 2147483648 keys of 16-bit fingerprints need 4\.50 GiB, more than a filter holds/);
  });
});

describe("arguments", () => {
  it("bad options and keys are errors that name the argument and show the value", () => {
    expect(() => BinaryFuseFilter.build(["a"], { fingerprintBits: 12 as 8 })).toThrow(/options.fingerprintBits must be 8 or 16, got 12/);
    expect(() => BinaryFuseFilter.build(["a"], { fingerprintBits: "8" as unknown as 8 })).toThrow(/options.fingerprintBits must be a number, got "8"/);
    expect(() => BinaryFuseFilter.build(["a"], { bits: 8 } as object)).toThrow(/unknown option "bits" in options/);
    expect(() => BinaryFuseFilter.build(["a"], 8 as object)).toThrow(/options must be an object, got 8/);
    expect(() => BinaryFuseFilter.build(["a", 5 as unknown as string])).toThrow(/keys\[1\] must be a string or a Uint8Array, got 5/);
    expect(() => BinaryFuseFilter.build("abc" as unknown as string[])).toThrow(/keys must be an array/);
    expect(() => BinaryFuseFilter.buildInts([1, 2] as unknown as Uint32Array)).toThrow(/keys must be a Uint32Array or a BigUint64Array, got an array of length 2/);
    expect(() => BinaryFuseFilter.buildPacked(new Uint8Array(3), new Uint32Array([4]))).toThrow(/ends\[0\] = 4 must be/);
    expect(() => BinaryFuseFilter.buildPacked(new Uint8Array(3), [3] as unknown as Uint32Array)).toThrow(/ends must be a Uint32Array/);
    expect(() => BinaryFuseFilter.buildLines("a\nb" as unknown as Uint8Array)).toThrow(/buffer must be a Uint8Array/);
    const filter = BinaryFuseFilter.build(["a"]);
    expect(() => filter.has(3 as unknown as string)).toThrow(/key must be a string or a Uint8Array, got 3/);
    expect(() => filter.hasInts(new Int32Array(2) as unknown as Uint32Array)).toThrow(/got an Int32Array/);
  });

  it("a failed build leaves the filters' wasm memory as it was, however often it fails, and later builds work", () => {
    // The memory small filters share (a built filter's); the kernel tests' own arena above is one no build touches.
    const held = BinaryFuseFilter.build(["held"]);
    const pool = held.arena;
    const state = () => [pool.memoryBytes, pool.usedBytes, pool.blockCount];
    const keys = urls(20_000, "fail", 193);
    // A build this small runs in that memory: one that succeeds first grows it to the room such a build takes.
    BinaryFuseFilter.build(keys).dispose();
    const before = state();
    const { bytes, ends } = pack(keys.map((key: string) => encoder.encode(key)));
    // Packed ends are checked once the build's keys start to be hashed: the last one goes back.
    ends[ends.length - 1] = 0;
    const failing: [() => unknown, RegExp][] = [
      [() => BinaryFuseFilter.build([...keys, null as unknown as string]), /^keys\[20000\] must be a string or a Uint8Array, got null$/],
      [() => BinaryFuseFilter.buildPacked(bytes, ends, { fingerprintBits: 16 }), /^ends\[19999\] = 0 must be ≥ ends\[19998\] = \d+ and ≤ bytes.length = \d+$/],
    ];
    for (let i = 0; i < 25; i++) for (const [call, message] of failing) expect(call).toThrow(message);
    expect(state()).toEqual(before);
    expect(ones(BinaryFuseFilter.build(keys).hasMany(keys))).toBe(keys.length);
    expect(held.has("held")).toBe(true);
  });

  it("small builds, one after another, give back the room they take in the memory small filters share", () => {
    // Up to about 170,000 keys a build runs there (a memory of its own took 2.8 ms to make): the first of each size
    // grows it once, the next ones reuse that room, and the built filters answer for every key.
    const held = BinaryFuseFilter.build(["held"]);
    const pool = held.arena;
    const state = () => [pool.memoryBytes, pool.usedBytes, pool.blockCount];
    const sizes = [0, 1, 2, 37, 1_000, 20_000, 150_000];
    const keysOf = sizes.map((n) => urls(n, `small-build-${n}`, 214));
    for (const keys of keysOf) BinaryFuseFilter.build(keys, { fingerprintBits: 16 }).dispose();
    const before = state();
    for (let round = 0; round < 3; round++) {
      for (const keys of keysOf) {
        const filter = BinaryFuseFilter.build(keys, { fingerprintBits: round === 1 ? 8 : 16 });
        expect(ones(filter.hasMany(keys))).toBe(keys.length);
        filter.dispose();
      }
    }
    expect(state()).toEqual(before);
    held.dispose();
  });

  it("a keys array whose length changes while it is read (a getter that pushes to it or cuts it) is a TypeError, and later builds work", () => {
    const changing = (change: (keys: string[]) => void) => {
      const keys = urls(40_000, "changing", 211);
      let reads = 0;
      // Read once to count the keys, again to hash them: the second read changes the array.
      Object.defineProperty(keys, 20_000, { get: () => (reads++ === 1 && change(keys), "the key at 20000"), configurable: true });
      return keys;
    };
    expect(() => BinaryFuseFilter.build(changing((keys) => keys.push(...urls(20_000, "pushed", 212))))).toThrow(
      new TypeError("keys changed length while the build read them (40000 when counted, more when hashed): a getter or Proxy changed the array; nothing was built: pass an array of fixed keys"),
    );
    expect(() => BinaryFuseFilter.build(changing((keys) => (keys.length = 30_000)))).toThrow(
      new TypeError("keys changed length while the build read them (40000 when counted, 30000 when hashed): a getter or Proxy changed the array; nothing was built: pass an array of fixed keys"),
    );
    const keys = urls(1_000, "fixed", 213);
    expect(ones(BinaryFuseFilter.build(keys).hasMany(keys))).toBe(1_000);
  });

  it("a build larger than one wasm memory holds is a RangeError naming the limit, and later builds work", () => {
    // 1.9·10^8 keys need about 4.5 GiB while building (24 bytes a key): past the limit of both widths (about 1.8·10^8 and 1.7·10^8 keys).
    const keys = new Uint32Array(190_000_000);
    for (const fingerprintBits of BITS) {
      expect(() => BinaryFuseFilter.buildInts(keys, { fingerprintBits })).toThrow(
        new RegExp(`^building a binary fuse filter of 190000000 keys needs [\\d.]+ GiB while it builds, more than one wasm memory holds \\([\\d.]+ GiB\\): one build of ${fingerprintBits}-bit fingerprints takes at most about 1[78]\\d million keys$`),
      );
    }
    expect(BinaryFuseFilter.buildInts(keys.subarray(0, 1_000)).size).toBe(1);
  });

  it("dispose frees it once; later use throws", () => {
    const filter = BinaryFuseFilter.build(["x"]);
    filter.dispose();
    filter.dispose();
    expect(filter.disposed).toBe(true);
    expect(() => filter.has("x")).toThrow(/disposed/);
    expect(() => filter.size).toThrow(/disposed/);
    expect(() => filter.serialize()).toThrow(/disposed/);
    // Every member, the ones that read no memory too.
    expect(() => filter.falsePositiveRate()).toThrow(/disposed/);
    expect(() => filter.bitsPerItem).toThrow(/disposed/);
    expect(() => filter.fingerprintBits).toThrow(/disposed/);
    expect(() => filter.bits).toThrow(/disposed/);
    {
      using scoped = BinaryFuseFilter.build(["y"]);
      expect(scoped.has("y")).toBe(true);
    }
  });
});
