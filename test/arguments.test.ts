// Every public function and method of every type, given every kind of bad
// value in each argument: each call either works or throws a TypeError or
// RangeError naming the argument as the API names it and showing the value,
// and a call that throws changes nothing (serialize() before and after).
import { describe, expect, it } from "vitest";
import * as api from "../bindings/index.js";
import { BinaryFuseFilter, BloomFilter, CountingBloomFilter, CuckooFilter, FormatError, ScalableBloomFilter, SplitBlockBloomFilter } from "../bindings/index.js";
import { describe as show } from "../bindings/errors.js";

/** The bad values every argument is given. */
const BAD: unknown[] = [NaN, Infinity, -Infinity, -1, 0, 1e-300, 1e300, 2 ** 53, 1.5, "10", { valueOf: () => 10 }, 10n, null, undefined, {}, [], [1], [null], () => 1];
/** Bad options objects, for arguments named options. */
const BAD_OPTIONS: unknown[] = [{ bogus: 1 }, { seed: -1 }, { seed: "1" }, { hash: null }, { hash: 5 }, { strategy: null }, { counterBits: null }, { growth: 1e300 }, { growth: 2 ** 53 }, { growth: NaN }, { tightening: 0 }, { fingerprintBits: null }, { powerOfTwo: 1 }, { foldable: "yes" }];

/** Names that are internal (marked @internal) or protected: not part of the surface. */
const INTERNAL = new Set(["constructor", "blockKernel", "oneString", "routeChunk", "kernel", "runOp", "runLinesEach", "runDedupLines", "oneKey", "live", "segments", "describeParameters", "runChunk", "indices", "recordSource", "fromFill", "loader", "sharedLoader", "keyHash", "arena", "batchArena", "core", "addKeyCount", "setKeyCount", "keyCount", "sharedMemories", "viaBatch", "addSource", "checkKeyHashes", "checkHashesFor", "countAdded", "blockAddress", "segmentBytes", "bitsWritten", "inSegments", "checkIntKeys"]);

/** Static functions that are internal (BloomFilter.sizing: the sizes of create(), sizeFor() and Redis copies, from checked arguments). */
const INTERNAL_STATIC = new Set(["BloomFilter.sizing"]);

/** Parameter names of a function, read from its source (the names the API documents). */
function parameterNames(fn: (...args: never[]) => unknown): string[] {
  const source = Function.prototype.toString.call(fn);
  const list = /^[^(]*\(([^)]*)\)/.exec(source)?.[1] ?? "";
  return list
    .split(",")
    .map((part) => part.trim().replace(/\s*=.*$/, ""))
    .filter((name) => name.length > 0);
}

const lines = new TextEncoder().encode("a\nb\nc\n");
const packedBytes = new TextEncoder().encode("abc");
const packedEnds = Uint32Array.of(1, 2, 3);

/** A valid value for each parameter name, by the method it belongs to. */
function valid(name: string, method: string, self: unknown): unknown {
  const ints = /Ints$/.test(method);
  switch (name) {
    case "key":
      return "a";
    case "keys":
      return ints ? Uint32Array.of(1, 2, 3) : ["a", "b", "c"];
    case "bytes":
      if (/deserialize$/.test(method)) return BloomFilter.withSize(64, 1).serialize();
      return packedBytes;
    case "ends":
      return packedEnds;
    case "buffer":
      return lines;
    case "visit":
      return () => {};
    case "other":
      return (self as { constructor: { deserialize(b: Uint8Array): unknown } }).constructor.deserialize((self as { serialize(): Uint8Array }).serialize());
    case "factor":
      return 2;
    case "items":
      return 5;
    case "chunkBytes":
      return 1024;
    case "expectedItems":
    case "initialCapacity":
      return 100;
    case "falsePositiveRate":
      return 0.01;
    case "options":
      return undefined;
    case "bits":
      return 1024;
    case "hashes":
      // Key hashes for the *Hashes methods; a count of hash functions for the rest.
      return /Hashes$/.test(method) ? BigUint64Array.of(1n, 2n, 3n) : 3;
    case "into":
      // Room for the results: hashLines' arrays, or the *Hashes methods' answers.
      return method === "hashLines" ? { hashes: new BigUint64Array(3), ends: new Uint32Array(3) } : new Uint8Array(3);
    case "counters":
      return 64;
    case "blocks":
      return 4;
    case "buckets":
      return 16;
    case "fingerprintBits":
      return 8;
    case "layer":
    case "index":
      return 0;
    case "bitset":
      return new Uint8Array(64);
    case "text":
      return BloomFilter.withSize(64, 1).toBase64();
    case "source":
      return [BloomFilter.withSize(64, 1).serialize()];
    case "name":
      return "xxh64";
    case "seed":
      return 0;
    case "input":
      return { n: 100, p: 0.01 };
    case "n":
      return 100;
    case "p":
      return 0.01;
    case "m":
      return 1000;
    case "k":
      return 3;
    case "powerOfTwo":
      return true;
    default:
      throw new Error(`the test has no valid value for ${name} (of ${method})`);
  }
}

/** Runs a call to its end: generators iterated, promises awaited. */
async function settle(result: unknown): Promise<unknown> {
  if (result && typeof (result as Promise<unknown>).then === "function") return await result;
  if (result && typeof (result as Generator).next === "function" && typeof (result as Generator)[Symbol.iterator] === "function") return [...(result as Generator)];
  return result;
}

interface Problem {
  call: string;
  problem: string;
}

/** What a throw must look like: the right class, the argument's name, the value shown. */
function judge(error: unknown, name: string, value: unknown, call: string, problems: Problem[]): void {
  if (!(error instanceof TypeError || error instanceof RangeError || error instanceof FormatError)) {
    problems.push({ call, problem: `threw ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}` });
    return;
  }
  const message = error.message;
  if (error instanceof FormatError) return; // bytes that are not a record: the reader says what is wrong with them
  if (/Cannot read properties|is not a function|is not iterable|undefined|unreachable/.test(message) && !message.includes(show(value))) {
    problems.push({ call, problem: `raw engine message: ${message}` });
    return;
  }
  if (!message.includes(name) && !(name === "options" && /option/.test(message))) problems.push({ call, problem: `does not name ${name}: ${message}` });
  else if (error instanceof FormatError) return; // bytes that are not a record: the reader says what is wrong with them
  else if (name !== "options" && !message.includes(show(value)) && !(typeof value === "object" && value !== null)) problems.push({ call, problem: `does not show ${show(value)}: ${message}` });
}

/** The TypeError message of `method` called with valid arguments on a filter made by `make`, or undefined when it works. */
async function refusalOf(make: () => object, method: string, names: string[]): Promise<string | undefined> {
  const filter = make() as Record<string, (...args: unknown[]) => unknown> & { dispose(): void };
  try {
    await settle(filter[method](...names.map((name) => valid(name, method, filter))));
    return undefined;
  } catch (error) {
    return error instanceof TypeError ? error.message : undefined;
  } finally {
    filter.dispose();
  }
}

/** Every public method of a filter made by `make`, every argument, every bad value. */
async function checkInstance(type: string, make: () => object, problems: Problem[]): Promise<number> {
  let calls = 0;
  const probe = make();
  const methods = new Set<string>();
  for (let proto = Object.getPrototypeOf(probe); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
      if (typeof descriptor.value === "function" && !INTERNAL.has(name) && !name.startsWith("_")) methods.add(name);
    }
  }
  for (const method of methods) {
    if (method === "dispose") continue;
    const names = parameterNames((probe as Record<string, (...args: never[]) => unknown>)[method]);
    // What a call with valid arguments throws, when this filter has no such operation (key hashes of the
    // independent strategy): an optional last argument left undefined gets the same answer, which is not about it.
    const refusal = await refusalOf(make, method, names);
    for (let at = 0; at < names.length; at++) {
      const values = names[at] === "options" ? BAD_OPTIONS : BAD;
      for (const value of values) {
        const filter = make() as Record<string, (...args: unknown[]) => unknown> & { serialize(): Uint8Array; dispose(): void };
        const args = names.map((name, i) => (i === at ? value : valid(name, method, filter)));
        const call = `${type}#${method}(${names.map((n, i) => (i === at ? `${n} = ${show(value)}` : n)).join(", ")})`;
        const before = filter.serialize();
        calls++;
        try {
          const result = await settle(filter[method](...args));
          if (typeof result === "number" && Number.isNaN(result)) problems.push({ call, problem: "returned NaN" });
        } catch (error) {
          const unrelated = value === undefined && at === names.length - 1 && refusal !== undefined && error instanceof TypeError && error.message === refusal;
          if (!unrelated) judge(error, names[at], value, call, problems);
          const after = filter.serialize();
          if (Buffer.compare(Buffer.from(before), Buffer.from(after)) !== 0) problems.push({ call, problem: "threw but changed the filter" });
        }
        filter.dispose();
      }
    }
  }
  return calls;
}

/** Every static function of a class (or module function), every argument, every bad value. */
async function checkFunctions(owner: string, functions: Record<string, unknown>, problems: Problem[]): Promise<number> {
  let calls = 0;
  for (const [name, fn] of Object.entries(functions)) {
    if (typeof fn !== "function" || INTERNAL.has(name) || INTERNAL_STATIC.has(`${owner}${name}`) || /^[A-Z]/.test(name)) continue;
    const names = parameterNames(fn as never);
    for (let at = 0; at < names.length; at++) {
      const values = names[at] === "options" ? BAD_OPTIONS : BAD;
      for (const value of values) {
        const args = names.map((param, i) => (i === at ? value : valid(param, name, undefined)));
        const call = `${owner}${name}(${names.map((n, i) => (i === at ? `${n} = ${show(value)}` : n)).join(", ")})`;
        calls++;
        if (process.env.TRACE_CALLS) process.stderr.write(`${call}\n`);
        try {
          const result = await settle((fn as (...args: unknown[]) => unknown).call(functions, ...args));
          if (typeof result === "number" && Number.isNaN(result)) problems.push({ call, problem: "returned NaN" });
          (result as { dispose?: () => void } | undefined)?.dispose?.();
        } catch (error) {
          judge(error, names[at], value, call, problems);
        }
      }
    }
  }
  return calls;
}

const someKeys = ["a", "b", "c", "d"];
const ALL_TYPES: [string, () => object][] = [
  ["BloomFilter", () => BloomFilter.create(100, 0.01, { foldable: true }).addMany(someKeys)],
  ["BloomFilter(independent)", () => BloomFilter.create(100, 0.01, { hash: ["xxh64", "fnv1a_32"] }).addMany(someKeys)],
  ["ScalableBloomFilter", () => ScalableBloomFilter.create(4, 0.01).addMany(someKeys)],
  ["CountingBloomFilter", () => CountingBloomFilter.create(100, 0.01).addMany(someKeys)],
  ["CuckooFilter", () => CuckooFilter.create(100, 0.01).addMany(someKeys)],
  ["SplitBlockBloomFilter", () => SplitBlockBloomFilter.create(100, 0.01).addMany(someKeys)],
  ["BinaryFuseFilter", () => BinaryFuseFilter.build(someKeys)],
];

const TYPES = ALL_TYPES.filter(([name]) => !process.env.ONLY_TYPE || name === process.env.ONLY_TYPE);

describe("every public method, every bad argument", () => {
  it.each(TYPES)("%s: works, or a TypeError/RangeError naming the argument and its value, and nothing changed", async (type, make) => {
    const problems: Problem[] = [];
    const calls = await checkInstance(type, make, problems);
    expect(calls).toBeGreaterThan(100);
    expect(problems.map((p) => `${p.call}: ${p.problem}`)).toEqual([]);
  });

  const classes = { BloomFilter, ScalableBloomFilter, CountingBloomFilter, CuckooFilter, SplitBlockBloomFilter, BinaryFuseFilter };
  it.each(Object.entries(classes))("%s's static functions", async (name, cls) => {
    const problems: Problem[] = [];
    const statics: Record<string, unknown> = {};
    for (const key of Object.getOwnPropertyNames(cls)) if (typeof (cls as unknown as Record<string, unknown>)[key] === "function") statics[key] = (cls as unknown as Record<string, unknown>)[key];
    const calls = await checkFunctions(`${name}.`, statics, problems);
    expect(calls).toBeGreaterThan(20);
    expect(problems.map((p) => `${p.call}: ${p.problem}`)).toEqual([]);
  });

  it("the module's functions", async () => {
    const problems: Problem[] = [];
    const calls = await checkFunctions("", api as unknown as Record<string, unknown>, problems);
    expect(calls).toBeGreaterThan(100);
    expect(problems.map((p) => `${p.call}: ${p.problem}`)).toEqual([]);
  });
});

describe("a disposed filter", () => {
  it.each(TYPES)("%s: every method works or throws a TypeError saying it was disposed", async (type, make) => {
    const problems: string[] = [];
    const probe = make() as Record<string, unknown>;
    const methods = new Set<string>();
    for (let proto = Object.getPrototypeOf(probe); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const name of Object.getOwnPropertyNames(proto)) {
        const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
        if (!INTERNAL.has(name)) methods.add(name);
        void descriptor;
      }
    }
    for (const method of methods) {
      const filter = make() as Record<string, unknown> & { dispose(): void; serialize(): Uint8Array };
      const other = make();
      const value = (filter as Record<string, unknown>)[method];
      const args = typeof value === "function" ? parameterNames(value as never).map((name) => valid(name, method, filter)) : [];
      filter.dispose();
      try {
        const descriptor = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(filter), method) ?? Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Object.getPrototypeOf(filter)), method);
        if (descriptor?.get) void filter[method];
        else if (typeof value === "function") await settle((value as (...a: unknown[]) => unknown).apply(filter, args));
      } catch (error) {
        // (Integer keys on a filter of independent hashes are refused before anything else: no call of them can work.)
        if (!(error instanceof TypeError) || !/disposed|integer keys need triple or double hashing/.test((error as Error).message)) problems.push(`${type}#${method}: ${(error as Error)?.constructor?.name}: ${(error as Error).message}`);
      }
      (other as { dispose(): void }).dispose();
    }
    expect(problems).toEqual([]);
  });
});

describe("refusals the checker found", () => {
  it("create(n, p) with a p no k ≤ 256 reaches is refused, naming the smallest p for that n", () => {
    for (const create of [(n: number, p: number) => BloomFilter.create(n, p), (n: number, p: number) => CountingBloomFilter.create(n, p)]) {
      expect(() => create(1000, 1e-300)).toThrow(/^falsePositiveRate = 1e-300 needs k = \d+ hash functions, more than the 256 a filter takes; the smallest falsePositiveRate possible for expectedItems = 1000 is \d/);
    }
    let smallest = NaN;
    try {
      BloomFilter.create(1000, 1e-300);
    } catch (error) {
      smallest = Number(/is (\S+)$/.exec((error as Error).message)![1]);
    }
    // The smallest p named is accepted, with k = 256, and anything below it is refused.
    using filter = BloomFilter.create(1000, smallest);
    expect(filter.hashes).toBe(256);
    expect(() => BloomFilter.create(1000, smallest * 0.999)).toThrow(RangeError);
    expect(filter.expectedFalsePositiveRate(1000) / smallest).toBeCloseTo(1, 2);
  });

  it("ScalableBloomFilter.create refuses growth it could never use and layer rates that underflow", () => {
    expect(() => ScalableBloomFilter.create(10, 0.01, { growth: 1e300 })).toThrow(/^options\.growth = 1e\+300: the second layer/);
    expect(() => ScalableBloomFilter.create(10, 0.01, { growth: 2 ** 53 })).toThrow(/^options\.growth = 9007199254740992/);
    expect(() => ScalableBloomFilter.create(10, 1e-300)).toThrow(/falsePositiveRate/);
    expect(() => ScalableBloomFilter.create(10, 0.01, { growth: 1, tightening: 0.5 })).toThrow(/^options\.tightening = 0\.5 .*layer \d+'s rate/);
    // Growth 1 with the default tightening keeps every layer's rate reachable up to the layer limit.
    using filter = ScalableBloomFilter.create(1, 0.01, { growth: 1 });
    expect(filter.maxLayers).toBe(1024);
    expect(filter.layerFalsePositiveRate(1023)).toBeGreaterThan(0);
    expect(() => filter.layerCapacity(1024)).toThrow(/^layer must be an integer from 0 to 1023, got 1024/);
    expect(() => filter.layerCapacity(-1)).toThrow(RangeError);
  });

  it("a scalable batch that would need a layer the filter cannot have adds nothing", () => {
    using filter = ScalableBloomFilter.create(10, 0.01, { growth: 1e6 });
    expect(filter.maxLayers).toBe(2);
    filter.addMany(["a", "b", "c", "d", "e"]);
    const before = filter.serialize();
    const room = filter.layerCapacity(0) + filter.layerCapacity(1) - filter.size;
    // More than fit even though about 10,000 of them are false positives of the tiny first layer (added as nothing, as one by one).
    const keys = new Uint32Array(room + 50_000).map((_, i) => i);
    expect(() => filter.addInts(keys)).toThrow(/^the scalable filter is full: .*nothing was added/);
    expect(Buffer.from(filter.serialize()).equals(Buffer.from(before))).toBe(true);
    expect(filter.size).toBe(5);
    expect(filter.layers).toBe(1);
    // What fits goes in, over both layers, and answers as a model set does.
    filter.addInts(keys.subarray(0, 1000));
    expect(filter.layers).toBe(2);
    expect(Array.from(filter.hasInts(keys.subarray(0, 1000))).every((bit) => bit === 1)).toBe(true);
  });

  it("a cuckoo batch that does not fit stores none of its keys", () => {
    using filter = CuckooFilter.withSize(4, 8);
    filter.addMany(["a", "b"]);
    const before = filter.serialize();
    expect(() => filter.addMany(Array.from({ length: 40 }, (_, i) => `k${i}`))).toThrow(RangeError);
    expect(Buffer.from(filter.serialize()).equals(Buffer.from(before))).toBe(true);
  });

  it("a small batch that does not fit a large cuckoo table is taken out again: the same keys, sizes and answers", () => {
    using filter = CuckooFilter.withSize(2 ** 15, 8); // 128 KiB of slots: a batch of 9 keys is not worth a copy
    const held = new Uint32Array(90_000).map((_, i) => i * 7 + 1);
    filter.addInts(held);
    const probes = new Uint32Array(100_000).map((_, i) => i * 3);
    const before = { size: filter.size, has: filter.hasInts(probes), counts: filter.countInts(probes), again: filter.count("again") };
    // The same key 9 times: its two buckets hold 8 copies, so the batch fails after kicking others around.
    expect(() => filter.addMany(Array.from({ length: 9 }, () => "again"))).toThrow(/^the batch of 9 keys does not fit the cuckoo filter .*more than 8 times/);
    expect(filter.size).toBe(before.size);
    expect(filter.count("again")).toBe(before.again);
    expect(filter.hasInts(probes)).toEqual(before.has);
    expect(filter.countInts(probes)).toEqual(before.counts);
  });

  it("null and unknown options are refused, not taken for the default", () => {
    expect(() => CountingBloomFilter.create(100, 0.01, { counterBits: null as never })).toThrow(/^options\.counterBits must be a number, got null/);
    expect(() => BloomFilter.create(100, 0.01, { hash: null as never })).toThrow(/options\.hash/);
    expect(() => BloomFilter.create(100, 0.01, { strategy: null as never })).toThrow(/options\.strategy/);
    expect(() => BinaryFuseFilter.build(["a"], { fingerprintBits: null as never })).toThrow(/options\.fingerprintBits/);
    expect(() => BloomFilter.create(100, 0.01, { bogus: 1 } as never)).toThrow(/unknown option "bogus"/);
  });

  it("the argument filter of union() is named when it was disposed", () => {
    using a = BloomFilter.withSize(128, 2);
    const b = BloomFilter.withSize(128, 2);
    b.dispose();
    expect(() => a.union(b)).toThrow(/^other, the BloomFilter given to union\(\), was disposed/);
  });
});
