// CountingBloomFilter: removal, frequency, saturation, and agreement with BloomFilter.
import { describe, expect, it } from "vitest";
import { BloomFilter, CountingBloomFilter, MAX_SEGMENT_BITS } from "../bindings/index.js";
import { ones, pack, randomBytes, rng, urls } from "./helpers.js";

const probes = urls(500_000, "counting-absent", 71);

describe("CountingBloomFilter", () => {
  it("has 4-bit counters by default and BloomFilter's m and k", () => {
    const filter = CountingBloomFilter.create(10_000, 0.001);
    expect([filter.counterBits, filter.counters, filter.bits, filter.hashes]).toEqual([4, 143_776, 4 * 143_776, 10]);
    expect(CountingBloomFilter.create(10, 0.1, { counterBits: 16 }).counterBits).toBe(16);
  });

  it.each([4, 8, 16] as const)("%i-bit counters: no false negatives and FPR at capacity within [0.8p, 1.2p]", (counterBits) => {
    const keys = urls(100_000, `counting-${counterBits}`, 72);
    const filter = CountingBloomFilter.create(keys.length, 0.01, { counterBits });
    filter.addMany(keys);
    expect(ones(filter.hasMany(keys))).toBe(keys.length);
    const measured = ones(filter.hasMany(probes)) / probes.length;
    expect(measured).toBeGreaterThanOrEqual(0.008);
    expect(measured).toBeLessThanOrEqual(0.012);
    expect(filter.size).toBe(keys.length);
  });

  it("keeps every other key after removals: no false negatives", () => {
    const keep = urls(20_000, "keep", 73);
    const drop = urls(20_000, "drop", 74);
    const filter = CountingBloomFilter.create(40_000, 0.01).addMany([...keep, ...drop]);
    expect(ones(filter.removeMany(drop))).toBe(drop.length);
    expect(ones(filter.hasMany(keep))).toBe(keep.length);
    expect(filter.size).toBe(keep.length);
    // Most removed keys are now definitely absent.
    expect(ones(filter.hasMany(drop)) / drop.length).toBeLessThan(0.01);
  });

  it("add twice, remove once: still present, counted once", () => {
    const filter = CountingBloomFilter.create(1000, 0.001);
    filter.add("twice").add("twice");
    expect(filter.count("twice")).toBe(2);
    expect(filter.remove("twice")).toBe(true);
    expect(filter.has("twice")).toBe(true);
    expect(filter.count("twice")).toBe(1);
    expect(filter.remove("twice")).toBe(true);
    expect(filter.has("twice")).toBe(false);
  });

  it("removing a key never added returns false and changes nothing", () => {
    const filter = CountingBloomFilter.create(1000, 0.001).addMany(["a", "b", "c"]);
    const before = filter.serialize();
    expect(filter.remove("never added")).toBe(false);
    expect(Array.from(filter.removeMany(["also never", "nor this"]))).toEqual([0, 0]);
    expect(filter.serialize()).toEqual(before);
    expect(filter.size).toBe(3);
  });

  it("count is the minimum counter: an upper bound on the adds, exact for almost every key", () => {
    const keys = urls(5_000, "freq", 75);
    const filter = CountingBloomFilter.create(20_000, 0.001, { counterBits: 8 });
    const times = keys.map((_, i) => 1 + (i % 5));
    keys.forEach((key, i) => {
      for (let t = 0; t < times[i]; t++) filter.add(key);
    });
    const counts = filter.countMany(keys);
    let exact = 0;
    counts.forEach((c, i) => {
      expect(c).toBeGreaterThanOrEqual(times[i]);
      if (c === times[i]) exact++;
    });
    expect(exact / keys.length).toBeGreaterThan(0.99);
    expect(filter.count("not added")).toBe(0);
  });

  it("saturated counters stick at 15, so removals cannot create false negatives", () => {
    // A tiny filter where counters overflow: 200 keys into 64 counters.
    const keys = urls(200, "saturate", 76);
    const filter = CountingBloomFilter.withSize(64, 3);
    filter.addMany(keys);
    expect(filter.saturatedCounters).toBeGreaterThan(0);
    for (let i = 0; i < 64; i++) expect(filter.counter(i)).toBeLessThanOrEqual(15);
    // Remove half; every remaining key must stay present.
    filter.removeMany(keys.slice(0, 100));
    expect(ones(filter.hasMany(keys.slice(100)))).toBe(100);
    // One key added 20 times: its counters read 15, "at least 15".
    const single = CountingBloomFilter.create(100, 0.01);
    for (let i = 0; i < 20; i++) single.add("hot");
    expect(single.count("hot")).toBe(15);
    expect(single.saturatedCounters).toBe(single.hashes);
    for (let i = 0; i < 20; i++) single.remove("hot");
    expect(single.has("hot")).toBe(true);
  });

  it.each([8, 16] as const)("%i-bit counters stick at their maximum too, one key at a time and in batches", (counterBits) => {
    const max = 2 ** counterBits - 1;
    const filter = CountingBloomFilter.create(100, 0.01, { counterBits });
    filter.addMany(new Array<string>(max - 1).fill("hot"));
    expect(filter.count("hot")).toBe(max - 1);
    expect(filter.remove("hot")).toBe(true); // one below max still counts down
    expect(filter.count("hot")).toBe(max - 2);
    filter.add("hot").add("hot").add("hot").add("hot");
    expect([filter.count("hot"), filter.saturatedCounters]).toEqual([max, filter.hashes]);
    // Stuck: removals leave the counters at max, where they mean "at least max".
    filter.removeMany(["hot", "hot"]);
    filter.remove("hot");
    expect(filter.count("hot")).toBe(max);
    expect(new Set(filter.positions("hot").map((i) => filter.counter(i)))).toEqual(new Set([max]));
  });

  it("toBloomFilter() gives the BloomFilter of the keys held", () => {
    const held = urls(10_000, "held", 77);
    const gone = urls(5_000, "gone", 78);
    const counting = CountingBloomFilter.create(20_000, 0.01, { hash: "murmur3_128", seed: 4 }).addMany([...held, ...gone]);
    counting.removeMany(gone);
    const converted = counting.toBloomFilter();
    const direct = BloomFilter.create(20_000, 0.01, { hash: "murmur3_128", seed: 4 }).addMany(held);
    expect([converted.bits, converted.hashes, converted.hash, converted.seed]).toEqual([direct.bits, direct.hashes, direct.hash, direct.seed]);
    expect(counting.counters).toBe(direct.bits);
    expect(converted.fillRatio).toBe(direct.fillRatio);
    expect(Array.from(converted.hasMany(probes.slice(0, 100_000)))).toEqual(Array.from(direct.hasMany(probes.slice(0, 100_000))));
    expect(converted.serialize().subarray(80)).toEqual(direct.serialize().subarray(80)); // same bits (count aside)
  });

  it("toBloomFilter()'s size estimates the keys held, not the adds with their repeats", () => {
    // 2,000 keys added 5 times each: the counting filter's size is 10,000; the BloomFilter of the same keys
    // counts the keys that set a bit (at most 2,000), and its copy said 10,000 (capped only at the set bits).
    const keys = urls(2_000, "repeated", 81);
    const counting = CountingBloomFilter.create(5_000, 0.01);
    for (let i = 0; i < 5; i++) counting.addMany(keys);
    expect(counting.size).toBe(10_000);
    const converted = counting.toBloomFilter();
    const direct = BloomFilter.create(5_000, 0.01).addMany(keys);
    expect(Math.abs(converted.size - direct.size) / direct.size).toBeLessThan(0.05);
    // estimatedCount() reads the same fill in place: the same estimate, near the 2,000 distinct keys.
    expect(counting.estimatedCount()).toBeCloseTo(converted.estimatedCount(), 6);
    expect(Math.abs(counting.estimatedCount() - 2_000) / 2_000).toBeLessThan(0.05);
    // Never more than the counting filter counts: 3 keys added once give at most 3.
    const few = CountingBloomFilter.create(5_000, 0.01).addMany(["a", "b", "c"]);
    expect(few.toBloomFilter().size).toBeLessThanOrEqual(3);
    expect(few.toBloomFilter().size).toBeGreaterThanOrEqual(2);
    for (const filter of [counting, converted, direct, few]) filter.dispose();
  });

  it("answers the same one key at a time, in batches and packed", () => {
    const keys = [...urls(3_000, "cb-batch", 79), ...randomBytes(1_000, 20, 80)];
    const single = CountingBloomFilter.create(5_000, 0.01);
    const batch = CountingBloomFilter.create(5_000, 0.01);
    const packed = CountingBloomFilter.create(5_000, 0.01);
    for (const key of keys) single.add(key);
    batch.addMany(keys);
    const bytesKeys = keys.map((k) => (typeof k === "string" ? new TextEncoder().encode(k) : k));
    const { bytes, ends } = pack(bytesKeys);
    packed.addPacked(bytes, ends);
    expect(batch.serialize()).toEqual(single.serialize());
    expect(packed.serialize()).toEqual(single.serialize());
    expect(Array.from(batch.countMany(keys))).toEqual(keys.map((k) => single.count(k)));
    expect(Array.from(packed.countPacked(bytes, ends))).toEqual(keys.map((k) => single.count(k)));
    const removeHalf = keys.slice(0, 2_000);
    expect(Array.from(batch.removeMany(removeHalf))).toEqual(removeHalf.map((k) => (single.remove(k) ? 1 : 0)));
    expect(batch.serialize()).toEqual(single.serialize());
  });

  // Small m makes a key's k indices coincide often (the k² comparison path), large m almost never (indices added as computed).
  it.each([
    [4, 13, 7],
    [4, 64, 5],
    [4, 5_000, 7],
    [8, 29, 9],
    [8, 50_021, 7],
    [16, 17, 4],
    [16, 40_000, 11],
  ] as const)("%i-bit counters, m = %i, k = %i: every counter is the model's, whatever way keys are added and removed", (counterBits, counters, hashes) => {
    const random = rng(counters * 31 + hashes);
    const filter = CountingBloomFilter.withSize(counters, hashes, { counterBits });
    const model = new Array<number>(counters).fill(0);
    const max = 2 ** counterBits - 1;
    const pool = [...urls(400, `cb-model-${counters}`, 81), ...randomBytes(200, 12, 82)];
    /** What adding `key` does to the model: each distinct position + 1, up to max; returns whether all were > 0 before. */
    const addToModel = (key: string | Uint8Array) => {
      const distinct = [...new Set(filter.positions(key))];
      const present = distinct.every((i) => model[i] > 0);
      for (const i of distinct) model[i] = Math.min(max, model[i] + 1);
      return present;
    };
    /** What removing `key` does to the model: when all its distinct positions are > 0, each − 1 unless stuck at max. */
    const removeFromModel = (key: string | Uint8Array) => {
      const distinct = [...new Set(filter.positions(key))];
      if (!distinct.every((i) => model[i] > 0)) return false;
      for (const i of distinct) if (model[i] < max) model[i]--;
      return true;
    };
    for (let round = 0; round < 60; round++) {
      // Keys drawn with repeats, so counters climb to saturation on the small filters.
      const keys = Array.from({ length: 1 + Math.floor(random() * 60) }, () => pool[Math.floor(random() * pool.length)]);
      const way = round % 6;
      if (way >= 4) {
        // Removals, of keys added and keys never added alike: one at a time, then a batch.
        if (way === 4) for (const key of keys) expect(filter.remove(key)).toBe(removeFromModel(key));
        else expect(Array.from(filter.removeMany(keys))).toEqual(keys.map((key) => (removeFromModel(key) ? 1 : 0)));
        expect(Array.from(filter.counterValues())).toEqual(model);
        continue;
      }
      if (way === 0) for (const key of keys) expect(filter.testAndAdd(key)).toBe(addToModel(key));
      else if (way === 1) {
        for (const key of keys) filter.add(key);
        keys.forEach(addToModel);
      } else if (way === 2) expect(Array.from(filter.testAndAddMany(keys))).toEqual(keys.map((key) => (addToModel(key) ? 1 : 0)));
      else {
        const { bytes, ends } = pack(keys.map((key) => (typeof key === "string" ? new TextEncoder().encode(key) : key)));
        expect(Array.from(filter.testAndAddPacked(bytes, ends))).toEqual(keys.map((key) => (addToModel(key) ? 1 : 0)));
      }
      expect(Array.from(filter.counterValues())).toEqual(model);
    }
    // The small 4-bit filters got past saturation, where a counter sticks.
    if (counterBits === 4 && counters < 100) expect(Math.max(...model)).toBe(max);
  });

  it("rejects bad arguments and leaves the filter unchanged", () => {
    expect(() => CountingBloomFilter.create(100, 0.01, { counterBits: 5 as 4 })).toThrow(/counterBits must be 4, 8 or 16, got 5/);
    // A width read from text (a config file, an environment variable) is a number not given, as for every other number.
    expect(() => CountingBloomFilter.create(100, 0.01, { counterBits: "8" as unknown as 8 })).toThrow(new TypeError('options.counterBits must be a number, got "8"'));
    expect(() => CountingBloomFilter.create(-1, 0.01)).toThrow(/expectedItems/);
    expect(() => CountingBloomFilter.withSize(0, 3)).toThrow(/counters must be an integer/);
    const filter = CountingBloomFilter.create(100, 0.01).add("a");
    const before = filter.serialize();
    expect(() => filter.addMany(["b", 1 as unknown as string])).toThrow(/keys\[1\]/);
    expect(() => filter.remove({} as string)).toThrow(TypeError);
    expect(() => filter.counter(filter.counters)).toThrow(RangeError);
    expect(filter.serialize()).toEqual(before);
  });
});

describe("CountingBloomFilter removes past saturation", () => {
  it("keeps its size at 0 or more when a saturated key is removed more often than added, and still round-trips", () => {
    // 4-bit counters stop at 15: the 16th add is not counted, so 17 removes all succeed (each counter is ≥ 1).
    const filter = CountingBloomFilter.create(100, 0.01, { counterBits: 4 });
    for (let i = 0; i < 16; i++) filter.add("k");
    let removed = 0;
    for (let i = 0; i < 17; i++) removed += filter.remove("k") ? 1 : 0;
    expect(removed).toBe(17);
    expect(filter.size).toBe(0);
    expect(filter.expectedFalsePositiveRate()).toBeGreaterThanOrEqual(0);
    const loaded = CountingBloomFilter.deserialize(filter.serialize());
    expect(loaded.size).toBe(0);
    expect(loaded.has("k")).toBe(filter.has("k"));
    for (let i = 0; i < 16; i++) filter.add("k");
    expect(ones(filter.removeMany(Array.from({ length: 17 }, () => "k")))).toBe(17);
    expect(filter.size).toBe(0);
  });
});

describe("CountingBloomFilter in segments (larger than one wasm memory)", () => {
  it("answers add, has, remove and count of one key as its batches do", () => {
    // Just past one segment of 16-bit counters (a segment holds MAX_SEGMENT_BITS bits): two segments whose pages are almost all never touched, so this costs little memory.
    const counters = Math.ceil((MAX_SEGMENT_BITS / 16 + 1) / 128) * 128;
    const filter = CountingBloomFilter.withSize(counters, 3, { counterBits: 16 });
    try {
      expect(filter.segmentCount).toBe(2);
      const keys = urls(64, "counting-segments", 76);
      filter.addMany(keys);
      for (const key of keys) {
        // A batch first leaves its answers where the one-key call answers: a one-byte answer must not read them.
        expect(ones(filter.hasMany(keys)), key).toBe(keys.length);
        expect(filter.has(key), key).toBe(true);
        filter.hasMany(keys);
        expect(filter.testAndAdd(key), key).toBe(true);
        filter.hasMany(keys);
        expect(filter.remove(key), key).toBe(true);
        expect(filter.count(key), key).toBe(1);
      }
      expect(filter.size).toBe(keys.length);
      expect(Array.from(filter.countMany(keys))).toEqual(keys.map(() => 1));
    } finally {
      filter.dispose();
    }
  });
});

describe("CountingBloomFilter: keys whose indices repeat, under triple and double hashing", () => {
  // In 24 counters, 8 indices a key often repeat one: each distinct counter is counted once, by add and by remove
  // alike, whether the kernel found them apart at once or took the path that removes repeats.
  it.each(["triple", "double"] as const)("%s: adds and removes in any order leave no false negative, and every counter at 0 at the end", (strategy) => {
    const random = rng(strategy === "triple" ? 71 : 72);
    for (let round = 0; round < 20; round++) {
      const filter = CountingBloomFilter.withSize(24, 8, { strategy, counterBits: 16 });
      // One key in an empty filter: one count on each of its distinct counters.
      const alone = CountingBloomFilter.withSize(24, 8, { strategy, counterBits: 16 }).add(`alone-${round}`);
      const sum = (values: Uint8Array | Uint16Array) => values.reduce((total, c) => total + c, 0);
      expect(sum(alone.counterValues())).toBe(new Set(alone.positions(`alone-${round}`)).size);
      alone.dispose();
      const added: string[] = [];
      for (let i = 0; i < 12; i++) {
        const key = `key-${round}-${Math.floor(random() * 6)}`;
        if (i % 3 === 2) filter.addInts(BigUint64Array.of(BigInt(i) * 977n));
        else filter.add(key);
        added.push(i % 3 === 2 ? `int:${i}` : key);
        const distinct = new Set(filter.positions(key)).size;
        expect(distinct).toBeGreaterThanOrEqual(1);
      }
      // Remove in a shuffled order; every key not yet removed stays present.
      const order = added.map((key, i) => ({ key, i, r: random() })).sort((a, b) => a.r - b.r);
      for (let j = 0; j < order.length; j++) {
        const { key, i } = order[j];
        const removed = key.startsWith("int:") ? filter.removeInts(BigUint64Array.of(BigInt(i) * 977n))[0] : Number(filter.remove(key));
        expect(removed, `${strategy} round ${round} remove ${key}`).toBe(1);
        for (const { key: left, i: at } of order.slice(j + 1)) {
          const present = left.startsWith("int:") ? filter.hasInts(BigUint64Array.of(BigInt(at) * 977n))[0] : Number(filter.has(left));
          expect(present, `${strategy} round ${round}: ${left} after removing ${key}`).toBe(1);
        }
      }
      expect(Array.from(filter.counterValues()).every((c) => c === 0), `${strategy} round ${round}`).toBe(true);
      filter.dispose();
    }
  });
});
