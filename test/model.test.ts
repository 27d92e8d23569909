// Seeded random operation sequences against an exact model (a Map of key →
// copies held), for every filter type: no false negatives, sizes as the model
// says, identical answers over every input route (single keys, arrays of
// strings or bytes, packed, lines, u32 and u64 integers), and identical
// filters after serialize/deserialize and serializeChunks/deserializeChunks.
import { describe, expect, it } from "vitest";
import { BinaryFuseFilter, BloomFilter, CountingBloomFilter, CuckooFilter, ScalableBloomFilter, SplitBlockBloomFilter } from "../bindings/index.js";
import { pack, rng } from "./helpers.js";

const encoder = new TextEncoder();
const STEPS = 2500;

/** The routes a batch of byte keys can take into a filter method family ("has", "add", "testAndAdd", …). */
type Route = "single" | "many" | "bytes" | "packed" | "lines";
const ROUTES: Route[] = ["single", "many", "bytes", "packed", "lines"];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyFilter = any;

/** Runs method family `op` over `keys` through `route`; one answer per key (or undefined for methods returning the filter). */
function run(filter: AnyFilter, op: string, keys: string[], route: Route): number[] {
  switch (route) {
    case "single":
      return keys.map((key) => Number(filter[op](key)));
    case "many":
      return Array.from(filter[`${op}Many`](keys) as ArrayLike<number>);
    case "bytes":
      return Array.from(filter[`${op}Many`](keys.map((key) => encoder.encode(key))) as ArrayLike<number>);
    case "packed": {
      const { bytes, ends } = pack(keys.map((key) => encoder.encode(key)));
      return Array.from(filter[`${op}Packed`](bytes, ends) as ArrayLike<number>);
    }
    case "lines":
      return Array.from(filter[`${op}Lines`](encoder.encode(keys.map((key) => `${key}\n`).join(""))) as ArrayLike<number>);
  }
}

/** What a type supports, and how its size follows from the operations. */
interface Kind {
  name: string;
  make(): AnyFilter;
  load(bytes: Uint8Array): AnyFilter;
  loadChunks(pieces: Uint8Array[]): Promise<AnyFilter>;
  /** Copies: the filter stores every add (cuckoo, counting); otherwise it holds a set. */
  counts: boolean;
  deletable: boolean;
  ints: boolean;
}

const KINDS: Kind[] = [
  { name: "BloomFilter", make: () => BloomFilter.create(1500, 0.01), load: (b) => BloomFilter.deserialize(b), loadChunks: (p) => BloomFilter.deserializeChunks(p), counts: false, deletable: false, ints: true },
  {
    name: "BloomFilter (independent hashes)",
    make: () => BloomFilter.create(1500, 0.01, { hash: ["murmur3_32", "fnv1a_32", "xxh32", "djb", "sdbm", "bkdr", "ap"] }),
    load: (b) => BloomFilter.deserialize(b),
    loadChunks: (p) => BloomFilter.deserializeChunks(p),
    counts: false,
    deletable: false,
    ints: false,
  },
  { name: "ScalableBloomFilter", make: () => ScalableBloomFilter.create(64, 0.01), load: (b) => ScalableBloomFilter.deserialize(b), loadChunks: (p) => ScalableBloomFilter.deserializeChunks(p), counts: false, deletable: false, ints: true },
  { name: "CountingBloomFilter", make: () => CountingBloomFilter.create(1500, 0.01, { counterBits: 8 }), load: (b) => CountingBloomFilter.deserialize(b), loadChunks: (p) => CountingBloomFilter.deserializeChunks(p), counts: true, deletable: true, ints: true },
  { name: "CuckooFilter", make: () => CuckooFilter.create(3000, 0.001), load: (b) => CuckooFilter.deserialize(b), loadChunks: (p) => CuckooFilter.deserializeChunks(p), counts: true, deletable: true, ints: true },
  { name: "SplitBlockBloomFilter", make: () => SplitBlockBloomFilter.create(1500, 0.01), load: (b) => SplitBlockBloomFilter.deserialize(b), loadChunks: (p) => SplitBlockBloomFilter.deserializeChunks(p), counts: false, deletable: false, ints: true },
];

/** A pool of keys with repeats: ASCII, Chinese, a "\r" inside, lengths 1 to 40 (no "\n", no trailing "\r": every route can carry them). */
function keyPool(size: number, random: () => number): string[] {
  const parts = ["a", "b", "z", "0", "9", "-", "/", "例", "子", "🙂", "é", " ", "\r"];
  return Array.from({ length: size }, (_, i) => {
    let key = `${i}:`;
    const length = Math.floor(random() * 38);
    for (let j = 0; j < length; j++) key += parts[Math.floor(random() * parts.length)];
    return key.endsWith("\r") ? `${key}.` : key;
  });
}

/** Checks every route answers the same for `probes`, and no key the model holds answers absent. */
function checkAnswers(kind: Kind, filter: AnyFilter, model: Map<string, number>, probes: string[], intModel: Map<number, number>, intProbes: number[], where: string): number[] {
  const reference = run(filter, "has", probes, "many");
  for (const route of ROUTES) expect(run(filter, "has", probes, route), `${where}: has via ${route}`).toEqual(reference);
  probes.forEach((key, i) => {
    if ((model.get(key) ?? 0) > 0) expect(reference[i], `${where}: false negative for ${JSON.stringify(key)}`).toBe(1);
  });
  if (kind.deletable) {
    const counts = Array.from(filter.countMany(probes) as Uint32Array);
    expect(run(filter, "count", probes, "single"), `${where}: count single vs many`).toEqual(counts);
    probes.forEach((key, i) => expect(counts[i], `${where}: count of ${JSON.stringify(key)}`).toBeGreaterThanOrEqual(Math.min(model.get(key) ?? 0, kind.name === "CuckooFilter" ? 8 : 255)));
  }
  if (kind.ints) {
    const small = Array.from(filter.hasInts(Uint32Array.from(intProbes)) as Uint8Array);
    const wide = Array.from(filter.hasInts(BigUint64Array.from(intProbes, BigInt)) as Uint8Array);
    expect(wide, `${where}: u32 and u64 keys of the same values`).toEqual(small);
    intProbes.forEach((key, i) => {
      if ((intModel.get(key) ?? 0) > 0) expect(small[i], `${where}: false negative for integer ${key}`).toBe(1);
    });
  }
  return reference;
}

describe.each(KINDS)("$name against an exact model", (kind) => {
  it(`${STEPS} seeded random steps: no false negatives, sizes, every route and serialisation agree`, async () => {
    const random = rng(kind.name.length * 7919);
    const pool = keyPool(1200, random);
    const pick = () => pool[Math.floor(random() * pool.length)];
    const pickInt = () => Math.floor(random() * 1500) * 2654435761 >>> 0;
    const model = new Map<string, number>();
    const intModel = new Map<number, number>();
    let filter = kind.make();
    let expectedSize = 0; // for set-like filters: keys whose testAndAdd answered 0; for counting ones: copies held
    let failures = 0;
    for (let step = 0; step < STEPS; step++) {
      const where = `${kind.name} step ${step}`;
      let exactSize = true; // plain adds of set-like filters answer nothing, so their size is then only bounded
      const batch = Array.from({ length: 1 + Math.floor(random() * 12) }, pick);
      const choice = random();
      if (choice < 0.35) {
        // testAndAdd through a random route: answers 1 for every key held before, or repeated earlier in the batch.
        const route = ROUTES[Math.floor(random() * ROUTES.length)];
        const before = kind.counts ? filter.serialize() : undefined;
        let answers: number[];
        try {
          answers = run(filter, "testAndAdd", batch, route);
        } catch (error) {
          // Only a full cuckoo filter refuses, and then it is as it was.
          expect(kind.name, `${where}: ${(error as Error).message}`).toBe("CuckooFilter");
          expect(error).toBeInstanceOf(RangeError);
          expect(Buffer.from(filter.serialize()).equals(Buffer.from(before!)), `${where}: a refused batch changed the filter`).toBe(true);
          failures++;
          continue;
        }
        const seen = new Set<string>();
        batch.forEach((key, i) => {
          if ((model.get(key) ?? 0) > 0 || seen.has(key)) expect(answers[i], `${where}: testAndAdd of a held key via ${route}`).toBe(1);
          seen.add(key);
          if (kind.name === "CuckooFilter") {
            if (answers[i] === 0) model.set(key, (model.get(key) ?? 0) + 1);
          } else if (kind.counts) model.set(key, (model.get(key) ?? 0) + 1);
          else model.set(key, 1);
          if (kind.name === "CountingBloomFilter" || answers[i] === 0) expectedSize++;
        });
      } else if (choice < 0.5) {
        // Plain adds: the size follows the model for counting filters; for set-like ones it is only bounded.
        const route = ROUTES[Math.floor(random() * ROUTES.length)];
        const before = kind.counts ? filter.serialize() : undefined;
        try {
          if (route === "single") batch.forEach((key) => filter.add(key));
          else if (route === "many" || route === "bytes") filter.addMany(route === "many" ? batch : batch.map((key) => encoder.encode(key)));
          else if (route === "packed") filter.addPacked(pack(batch.map((key) => encoder.encode(key))).bytes, pack(batch.map((key) => encoder.encode(key))).ends);
          else filter.addLines(encoder.encode(batch.join("\n")));
        } catch (error) {
          expect(kind.name, `${where}: ${(error as Error).message}`).toBe("CuckooFilter");
          if (route !== "single") expect(Buffer.from(filter.serialize()).equals(Buffer.from(before!)), `${where}: a refused batch changed the filter`).toBe(true);
          failures++;
          // A single add that failed stopped the loop part way: resynchronise the model from what the filter counts.
          if (route === "single") {
            for (const key of batch) {
              if (filter.count(key) > (model.get(key) ?? 0)) model.set(key, filter.count(key));
            }
            expectedSize = filter.size;
          }
          continue;
        }
        for (const key of batch) model.set(key, kind.counts ? (model.get(key) ?? 0) + 1 : 1);
        if (kind.counts) expectedSize += batch.length;
        else exactSize = false;
      } else if (choice < 0.6 && kind.ints) {
        const keys = Array.from({ length: 1 + Math.floor(random() * 10) }, pickInt);
        const wide = random() < 0.5;
        const before = kind.counts ? filter.serialize() : undefined;
        let answers: number[];
        try {
          answers = Array.from(filter.testAndAddInts(wide ? BigUint64Array.from(keys, BigInt) : Uint32Array.from(keys)) as Uint8Array);
        } catch (error) {
          expect(kind.name).toBe("CuckooFilter");
          expect(Buffer.from(filter.serialize()).equals(Buffer.from(before!))).toBe(true);
          failures++;
          continue;
        }
        const seen = new Set<number>();
        keys.forEach((key, i) => {
          if ((intModel.get(key) ?? 0) > 0 || seen.has(key)) expect(answers[i], `${where}: testAndAddInts of a held key`).toBe(1);
          seen.add(key);
          if (kind.name === "CuckooFilter") {
            if (answers[i] === 0) intModel.set(key, (intModel.get(key) ?? 0) + 1);
          } else intModel.set(key, kind.counts ? (intModel.get(key) ?? 0) + 1 : 1);
          if (kind.name === "CountingBloomFilter" || answers[i] === 0) expectedSize++;
        });
      } else if (choice < 0.72 && kind.deletable) {
        // Remove only keys the model holds (removing others can take another key's copy): each must succeed.
        const held = batch.filter((key) => (model.get(key) ?? 0) > 0);
        const counts = new Map<string, number>();
        const keys = held.filter((key) => {
          const n = (counts.get(key) ?? 0) + 1;
          counts.set(key, n);
          return n <= model.get(key)!;
        });
        const route = ROUTES[Math.floor(random() * ROUTES.length)];
        const answers = run(filter, "remove", keys, route);
        expect(answers, `${where}: remove via ${route}`).toEqual(keys.map(() => 1));
        for (const key of keys) model.set(key, model.get(key)! - 1);
        expectedSize -= keys.length;
      } else if (choice < 0.97) {
        const probes = [...batch, ...Array.from({ length: 20 }, () => `absent-${Math.floor(random() * 1e9)}`)];
        checkAnswers(kind, filter, model, probes, intModel, Array.from({ length: 10 }, pickInt), where);
      } else {
        // Round trips: the copy has the same bytes and answers, and the run goes on with it.
        const bytes = filter.serialize();
        const probes = [...pool.slice(0, 300), "never-added"];
        const intProbes = Array.from({ length: 50 }, pickInt);
        const answers = checkAnswers(kind, filter, model, probes, intModel, intProbes, where);
        const copy = random() < 0.5 ? kind.load(bytes) : await kind.loadChunks([...filter.serializeChunks(1 + Math.floor(random() * 200))]);
        expect(Buffer.from(copy.serialize()).equals(Buffer.from(bytes)), `${where}: bytes after a round trip`).toBe(true);
        expect(copy.size, `${where}: size after a round trip`).toBe(filter.size);
        expect(checkAnswers(kind, copy, model, probes, intModel, intProbes, `${where} (copy)`)).toEqual(answers);
        filter.dispose();
        filter = copy;
      }
      const held = [...model.values()].reduce((a, b) => a + b, 0) + [...intModel.values()].reduce((a, b) => a + b, 0);
      if (kind.counts) expect(filter.size, `${where}: size`).toBe(expectedSize);
      else {
        const distinct = [...model.values()].filter((n) => n > 0).length + intModel.size;
        if (exactSize) expect(filter.size, `${where}: size`).toBe(expectedSize);
        expect(filter.size, `${where}: size at most the distinct keys`).toBeLessThanOrEqual(distinct);
        expectedSize = filter.size;
      }
      if (kind.counts) expect(held, `${where}: model copies`).toBe(expectedSize);
    }
    // The whole pool at the end: no false negatives anywhere.
    checkAnswers(kind, filter, model, pool, intModel, [...intModel.keys()], `${kind.name} at the end`);
    expect(failures).toBeLessThan(STEPS / 20);
    filter.dispose();
  });
});

describe("BinaryFuseFilter against an exact model", () => {
  it("seeded random sets: every member present over every route, the same after serialisation", async () => {
    const random = rng(18);
    const pool = keyPool(4000, random);
    for (let round = 0; round < 40; round++) {
      const members = Array.from({ length: Math.floor(random() * 600) }, () => pool[Math.floor(random() * pool.length)]);
      const ints = Array.from({ length: Math.floor(random() * 300) }, () => Math.floor(random() * 2 ** 32));
      const builds = [
        BinaryFuseFilter.build(members),
        BinaryFuseFilter.build(members.map((key) => encoder.encode(key))),
        BinaryFuseFilter.buildPacked(pack(members.map((key) => encoder.encode(key))).bytes, pack(members.map((key) => encoder.encode(key))).ends),
        BinaryFuseFilter.buildLines(encoder.encode(members.map((key) => `${key}\n`).join(""))),
      ];
      const distinct = new Set(members).size;
      const probes = [...pool.slice(0, 500), ...members];
      const reference = run(builds[0], "has", probes, "many");
      const model = new Set(members);
      probes.forEach((key, i) => {
        if (model.has(key)) expect(reference[i], `round ${round}: false negative`).toBe(1);
      });
      for (const filter of builds) {
        expect(filter.size).toBe(distinct);
        expect(Buffer.from(filter.serialize()).equals(Buffer.from(builds[0].serialize())), `round ${round}: the same set gives the same filter by every route`).toBe(true);
        for (const route of ["single", "many", "bytes", "packed", "lines"] as const) expect(run(filter, "has", probes, route)).toEqual(reference);
      }
      const copy = await BinaryFuseFilter.deserializeChunks([...builds[0].serializeChunks(64)]);
      expect(run(copy, "has", probes, "many")).toEqual(reference);
      const fromInts = BinaryFuseFilter.buildInts(Uint32Array.from(ints));
      expect(Array.from(fromInts.hasInts(BigUint64Array.from(ints, BigInt))).every((bit) => bit === 1)).toBe(true);
      expect(Array.from(BinaryFuseFilter.deserialize(fromInts.serialize()).hasInts(Uint32Array.from(ints)))).toEqual(Array.from(fromInts.hasInts(Uint32Array.from(ints))));
      for (const filter of [...builds, copy, fromInts]) filter.dispose();
    }
  });
});
