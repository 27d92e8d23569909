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

// The deletable filters where they are hardest to keep right: cuckoo tables
// small enough to fill (refused adds, batches refused whole, keys whose two
// buckets are one) and counters small enough to saturate, under adds, tryAdds,
// testAndAdds, removes of held keys, removes of absent keys and round trips,
// over every route, integers included.
type Op = "add" | "tryAdd" | "testAndAdd" | "remove";
type ModelKey = string | number;

/** `op` over `keys` (all strings, or all numbers taken as integer keys) through `route`; one answer per key, or none. */
function apply(filter: AnyFilter, op: Op, keys: ModelKey[], route: Route | "ints", wide: boolean): number[] {
  if (route !== "ints") return run(filter, op, keys as string[], route);
  const ints = wide ? BigUint64Array.from(keys as number[], BigInt) : Uint32Array.from(keys as number[]);
  return Array.from((filter[`${op}Ints`](ints) ?? []) as ArrayLike<number>);
}

const DELETABLE_CONFIGS = [
  { name: "CuckooFilter of 4 buckets, 8-bit fingerprints", make: () => CuckooFilter.withSize(4, 8) },
  { name: "CuckooFilter of 16 buckets, 16-bit fingerprints, xxh64", make: () => CuckooFilter.withSize(16, 16, { hash: "xxh64", seed: 5 }) },
  { name: "CuckooFilter of 1 bucket (every key's two buckets are one)", make: () => CuckooFilter.withSize(1, 32) },
  { name: "CountingBloomFilter, 64 4-bit counters", make: () => CountingBloomFilter.withSize(64, 3) },
  { name: "CountingBloomFilter, 96 8-bit counters, double hashing", make: () => CountingBloomFilter.withSize(96, 4, { counterBits: 8, strategy: "double" }) },
  { name: "CountingBloomFilter, 64 16-bit counters, independent hashes", make: () => CountingBloomFilter.withSize(64, 2, { counterBits: 16, hash: ["murmur3_32", "fnv1a_32"] }) },
];

describe.each(DELETABLE_CONFIGS)("$name against an exact model of copies held", ({ make }) => {
  it("full tables and saturated counters: no false negatives, refusals change nothing, every route agrees", async () => {
    const random = rng(make.toString().length * 131);
    let filter: AnyFilter = make();
    const cuckoo = filter instanceof CuckooFilter;
    const ints = !(filter instanceof CountingBloomFilter && filter.strategy === "independent");
    // Most copies a count reports: a cuckoo key's two buckets, or a counter at its maximum.
    const most = cuckoo ? 2 * filter.bucketSize : 2 ** filter.counterBits - 1;
    const words = keyPool(30, random);
    const numbers = Array.from({ length: 20 }, (_, i) => (i * 2654435761 + 12345) >>> 0);
    const model = new Map<ModelKey, number>();
    const held = (key: ModelKey) => model.get(key) ?? 0;
    const hold = (key: ModelKey, change: number) => model.set(key, held(key) + change);
    let refusals = 0;
    let saturated = 0;
    for (let step = 0; step < 1500; step++) {
      const fromInts = ints && random() < 0.3;
      const route = fromInts ? "ints" : ROUTES[Math.floor(random() * ROUTES.length)];
      const wide = random() < 0.5;
      const pool: ModelKey[] = fromInts ? numbers : words;
      const batch = Array.from({ length: 1 + Math.floor(random() * 6) }, () => pool[Math.floor(random() * pool.length)]);
      const where = `step ${step}, ${route}`;
      const before = Buffer.from(filter.serialize());
      const unchanged = (what: string) => expect(Buffer.from(filter.serialize()).equals(before), `${where}: ${what} changed the filter`).toBe(true);
      const choice = random();
      if (choice < 0.3) {
        // add, or testAndAdd: a refused call (a full cuckoo filter) changes nothing; one key at a time, each refusal alone.
        const op: Op = random() < 0.5 ? "add" : "testAndAdd";
        const keys = route === "single" ? batch.map((key) => [key]) : [batch];
        for (const some of keys) {
          const start = Buffer.from(filter.serialize());
          let answers: number[];
          try {
            answers = route === "single" ? [Number(filter[op](some[0]))] : apply(filter, op, some, route, wide);
          } catch (error) {
            expect(cuckoo, `${where}: ${(error as Error).message}`).toBe(true);
            expect(error).toBeInstanceOf(RangeError);
            expect(Buffer.from(filter.serialize()).equals(start), `${where}: a refused ${op} changed the filter`).toBe(true);
            refusals++;
            continue;
          }
          const seen = new Set<ModelKey>();
          some.forEach((key, i) => {
            if (op === "testAndAdd" && (held(key) > 0 || seen.has(key))) expect(answers[i], `${where}: testAndAdd of a held key`).toBe(1);
            seen.add(key);
            // A counting filter counts every add; a cuckoo filter's testAndAdd stores only what it answered absent.
            if (op === "add" || !cuckoo || answers[i] === 0) hold(key, 1);
          });
        }
      } else if (choice < 0.4 && cuckoo) {
        // tryAdd stores what fits: 1 where stored; a full table refuses the rest.
        const answers = route === "single" ? batch.map((key) => Number(filter.tryAdd(key))) : apply(filter, "tryAdd", batch, route, wide);
        batch.forEach((key, i) => (answers[i] === 1 ? hold(key, 1) : refusals++));
      } else if (choice < 0.45 && !cuckoo) {
        // One key pushed past its counters' maximum: they stick there.
        const key = batch[0];
        const times = most + 1 - Math.min(held(key), most);
        apply(filter, "add", new Array<ModelKey>(times).fill(key), fromInts ? "ints" : "many", wide);
        hold(key, times);
        expect(filter.saturatedCounters, `${where}: counters of a key added ${held(key)} times`).toBeGreaterThan(0);
      } else if (choice < 0.7) {
        // Removes of copies held: each answers 1.
        const left = new Map(model);
        const keys = batch.filter((key) => {
          if ((left.get(key) ?? 0) === 0) return false;
          left.set(key, left.get(key)! - 1);
          return true;
        });
        expect(apply(filter, "remove", keys, route, wide), `${where}: removes of held keys`).toEqual(keys.map(() => 1));
        for (const key of keys) hold(key, -1);
      } else if (choice < 0.8) {
        // Removes of keys never added that the filter answers absent: 0, and nothing changes.
        const absent = fromInts ? Array.from({ length: 4 }, () => Math.floor(random() * 2 ** 32)).filter((key) => !model.has(key)) : Array.from({ length: 4 }, (_, i) => `never-${step}-${i}`);
        const probe = route === "ints" ? Array.from(filter.hasInts(Uint32Array.from(absent as number[])) as Uint8Array) : run(filter, "has", absent as string[], "many");
        const keys = absent.filter((_, i) => probe[i] === 0);
        expect(apply(filter, "remove", keys, route, wide), `${where}: removes of absent keys`).toEqual(keys.map(() => 0));
        unchanged("removing absent keys");
      } else if (choice < 0.95) {
        const reference = run(filter, "has", words, "many");
        for (const way of ROUTES) expect(run(filter, "has", words, way), `${where}: has via ${way}`).toEqual(reference);
        const counts = Array.from(filter.countMany(words) as Uint32Array);
        for (const way of ROUTES) expect(run(filter, "count", words, way), `${where}: count via ${way}`).toEqual(counts);
        const asked = [...words, ...(ints ? numbers : [])];
        if (ints) {
          reference.push(...Array.from(filter.hasInts(Uint32Array.from(numbers)) as Uint8Array));
          const small = Array.from(filter.countInts(Uint32Array.from(numbers)) as Uint32Array);
          expect(Array.from(filter.countInts(BigUint64Array.from(numbers, BigInt)) as Uint32Array), `${where}: u32 and u64 integer keys`).toEqual(small);
          counts.push(...small);
        }
        asked.forEach((key, i) => {
          if (held(key) > 0) expect(reference[i], `${where}: false negative for ${JSON.stringify(key)}, held ${held(key)} times`).toBe(1);
          expect(counts[i], `${where}: count of ${JSON.stringify(key)}`).toBeGreaterThanOrEqual(Math.min(held(key), most));
          expect(counts[i] > 0, `${where}: count and has of ${JSON.stringify(key)}`).toBe(reference[i] === 1);
        });
      } else {
        const copy = random() < 0.5 ? filter.constructor.deserialize(before) : await filter.constructor.deserializeChunks([...filter.serializeChunks(1 + Math.floor(random() * 40))]);
        expect(Buffer.from(copy.serialize()).equals(before), `${where}: bytes after a round trip`).toBe(true);
        filter.dispose();
        filter = copy;
      }
      if (!cuckoo) saturated = Math.max(saturated, filter.saturatedCounters);
      expect(filter.size, `${where}: size`).toBe([...model.values()].reduce((sum, n) => sum + n, 0));
    }
    // The situations this test is for were reached.
    if (cuckoo) expect(refusals).toBeGreaterThan(20);
    else expect(saturated).toBeGreaterThan(0);
    filter.dispose();
  });
});
