// Filters shared between worker threads (node:worker_threads): workers adding
// disjoint ranges at the same time lose no bit, queries during adds see every
// key whose add completed, disposing in one thread leaves the others working,
// and a shared filter answers and serializes as a private one given the same
// keys. The workers run test/fixtures/shared-worker.mjs over the built library.
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { BloomFilter, FormatError, MAX_SEGMENT_BITS, SplitBlockBloomFilter, deserialize, deserializeBase64, deserializeChunks } from "../bindings/index.js";
import { firstDifference } from "./helpers.js";

const WORKER = new URL("./fixtures/shared-worker.mjs", import.meta.url);
const encoder = new TextEncoder();

type Shared = BloomFilter | SplitBlockBloomFilter;

/** Runs the worker with `data` and resolves with the first message it posts. */
function run<T>(data: Record<string, unknown>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: data });
    worker.once("message", (message: T) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`worker exited with ${code} before answering`)));
  });
}

function ints(from: number, to: number): Uint32Array {
  return Uint32Array.from({ length: to - from }, (_, i) => from + i);
}

function lines(from: number, to: number): Uint8Array {
  let text = "";
  for (let i = from; i < to; i++) text += `k${i}\n`;
  return encoder.encode(text);
}

/** The same keys the workers add (integers and lines), added here in one thread. */
function addRange(filter: Shared, from: number, to: number): void {
  filter.addInts(ints(from, to));
  filter.addLines(lines(from, to));
}

/** The filter's bits: Bloom's bit array or the Parquet bitset. */
function bitsOf(filter: Shared): Uint8Array {
  return filter instanceof BloomFilter ? filter.bitArray() : filter.toParquetBitset();
}

const kinds = [
  { name: "BloomFilter", make: (shared: boolean) => BloomFilter.create(400_000, 0.01, { shared }) },
  { name: "SplitBlockBloomFilter", make: (shared: boolean) => SplitBlockBloomFilter.create(400_000, 0.01, { shared }) },
] as const;

describe.each(kinds)("a shared $name", ({ name, make }) => {
  it.each([2, 4])("takes disjoint ranges from %i workers at once: every key present in every thread, the bits a private filter's", async (workers) => {
    const filter = make(true);
    const per = 40_000;
    const total = per * workers;
    const sync = new SharedArrayBuffer(8);
    const results = await Promise.all(
      Array.from({ length: workers }, (_, w) =>
        run<{ missing: number; size: number }>({ task: "add", type: name, handle: filter.share(), from: w * per, to: (w + 1) * per, batch: 997, sync, workers, total }),
      ),
    );
    for (const result of results) expect(result.missing).toBe(0);
    expect(filter.hasInts(ints(0, total)).every((answer) => answer === 1)).toBe(true);
    expect(filter.hasLines(lines(0, total)).every((answer) => answer === 1)).toBe(true);
    // No bit lost to a race: exactly the bits one thread adding the same keys sets.
    const single = make(false);
    addRange(single, 0, total);
    expect(firstDifference(bitsOf(filter), bitsOf(single))).toBe(-1);
    // Sizes count keys that set a new bit; in what order keys came decides a few of them.
    expect(Math.abs(filter.size - single.size)).toBeLessThanOrEqual(total * 2 * 0.01);
    expect(results.every((result) => result.size <= filter.size)).toBe(true);
    // Answers for keys never added are the private filter's too.
    const probes = ints(10_000_000, 10_050_000);
    expect(firstDifference(filter.hasInts(probes), single.hasInts(probes))).toBe(-1);
    filter.dispose();
    single.dispose();
  });

  it("answers queries during adds: no key whose add completed before the query began is absent", async () => {
    const filter = make(true);
    const ranges = [
      [0, 60_000],
      [60_000, 120_000],
    ];
    const progress = new SharedArrayBuffer(4 * ranges.length);
    // All three start together, so the queries overlap the adds.
    const start = { sync: new SharedArrayBuffer(4), workers: ranges.length + 1 };
    const adders = ranges.map(([from, to], slot) => run({ task: "add-progress", type: name, handle: filter.share(), from, to, batch: 200, progress, slot, ...start }));
    const query = run<{ rounds: number; partial: number; absent: number }>({ task: "query-during", type: name, handle: filter.share(), ranges, progress, ...start });
    const [seen] = await Promise.all([query, ...adders]);
    expect(seen.absent).toBe(0);
    expect(seen.rounds).toBeGreaterThanOrEqual(1);
    process.stderr.write(`${name}: ${seen.rounds} query rounds, ${seen.partial} of them while adds were under way\n`);
  });

  it("serializes while another thread adds: every record reads back, with every key added before it began", async () => {
    const filter = make(true);
    const to = 200_000;
    const progress = new SharedArrayBuffer(4);
    const done = new Int32Array(progress);
    // The main thread counts as the second of the two to start, so its snapshots overlap the adds.
    const sync = new SharedArrayBuffer(4);
    const adder = run({ task: "add-progress", type: name, handle: filter.share(), from: 0, to, batch: 200, progress, slot: 0, sync, workers: 2 });
    const counter = new Int32Array(sync);
    Atomics.add(counter, 0, 1);
    Atomics.notify(counter, 0);
    // Snapshots begin once the first batch is in.
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; Atomics.load(done, 0) === 0 && waited < 10_000; waited++) Atomics.wait(pause, 0, 0, 1);
    let snapshots = 0;
    let during = 0;
    while (snapshots < 40) {
      const before = Atomics.load(done, 0);
      const loaded = deserialize(filter.serialize()) as Shared;
      snapshots++;
      if (before > 0 && before < to) during++;
      expect(firstDifference(loaded.hasInts(ints(0, before)), new Uint8Array(before).fill(1))).toBe(-1);
      loaded.dispose();
      if (before === to) break;
    }
    await adder;
    expect(during).toBeGreaterThanOrEqual(1);
    filter.dispose();
  });

  it("keeps working in other threads when one disposes (the creator included)", async () => {
    const filter = make(true);
    const handle = filter.share();
    filter.addInts(ints(0, 1000));
    const long = run<{ absent: number; size: number }>({ task: "work-long", type: name, handle, from: 50_000, to: 70_000, rounds: 20 });
    const early = run<{ refused: string }>({ task: "dispose-early", type: name, handle, from: 100_000, to: 110_000 });
    filter.dispose();
    expect(() => filter.has("k0")).toThrow(`this ${name} was disposed`);
    const [worked, disposed] = await Promise.all([long, early]);
    expect(worked.absent).toBe(0);
    expect(disposed.refused).toBe(`this ${name} was disposed; it cannot be used after dispose()`);
    // The keys of the thread that disposed are still there for the others.
    const again = (name === "BloomFilter" ? BloomFilter : SplitBlockBloomFilter).fromShared(handle as never);
    expect(again.hasInts(ints(100_000, 110_000)).every((answer) => answer === 1)).toBe(true);
    expect(again.hasInts(ints(0, 1000)).every((answer) => answer === 1)).toBe(true);
    again.dispose();
  });

  it("serializes byte for byte as a private filter given the same keys, and union, fold and deserialize give private filters that answer alike", () => {
    const shared = make(true);
    const other = (name === "BloomFilter" ? BloomFilter : SplitBlockBloomFilter).fromShared(shared.share() as never);
    const single = make(false);
    addRange(shared, 0, 5000);
    addRange(other, 5000, 9000);
    addRange(single, 0, 9000);
    shared.add("one key").testAndAdd("another");
    single.add("one key").testAndAdd("another");
    expect(firstDifference(shared.serialize(), single.serialize())).toBe(-1);
    expect(firstDifference(other.serialize(), single.serialize())).toBe(-1);
    expect(shared.size).toBe(single.size);
    expect(other.size).toBe(single.size);
    const copy = deserialize(shared.serialize());
    const probes = ints(0, 20_000);
    expect(firstDifference(copy.hasInts(probes), single.hasInts(probes))).toBe(-1);
    expect(shared.has("one key") && other.has("another")).toBe(true);
    expect(JSON.stringify(shared.toJSON())).toContain('"shared":true');
    if (shared instanceof BloomFilter && single instanceof BloomFilter) {
      const union = shared.union(single);
      expect(union.shared).toBe(false);
      expect(firstDifference(union.bitArray(), single.bitArray())).toBe(-1);
      expect(shared.positions("one key")).toEqual(single.positions("one key"));
      expect(shared.estimatedCount()).toBe(single.estimatedCount());
    } else if (shared instanceof SplitBlockBloomFilter && single instanceof SplitBlockBloomFilter) {
      expect(shared.falsePositiveRate()).toBe(single.falsePositiveRate());
      expect(firstDifference(shared.toParquetBitset(), single.toParquetBitset())).toBe(-1);
    }
    shared.dispose();
    other.dispose();
    single.dispose();
  });

  it("deserialize(…, { shared: true }) reads a saved filter into shared memory: workers add to it, and it stays the private filter's bytes", async () => {
    const Type = name === "BloomFilter" ? BloomFilter : SplitBlockBloomFilter;
    const saved = make(false);
    addRange(saved, 0, 30_000);
    const bytes = saved.serialize();
    const loads = [
      Type.deserialize(bytes, { shared: true }),
      Type.fromBase64(saved.toBase64(), { shared: true }),
      await Type.deserializeChunks([bytes.subarray(0, 1000), bytes.subarray(1000)], { shared: true }),
      // The readers of any type, given { shared: true }, load it the same way.
      deserialize(bytes, { shared: true }) as InstanceType<typeof Type>,
      deserializeBase64(saved.toBase64(), { shared: true }) as InstanceType<typeof Type>,
      (await deserializeChunks([bytes.subarray(0, 7), bytes.subarray(7)], { shared: true, size: bytes.length })) as InstanceType<typeof Type>,
    ];
    for (const loaded of loads) {
      expect(loaded).toBeInstanceOf(Type);
      expect(loaded.shared).toBe(true);
      expect(firstDifference(loaded.serialize(), bytes)).toBe(-1);
    }
    const [loaded] = loads;
    const sync = new SharedArrayBuffer(8);
    const results = await Promise.all(
      [0, 1].map((w) => run<{ missing: number }>({ task: "add", type: name, handle: loaded.share(), from: 30_000 + w * 20_000, to: 50_000 + w * 20_000, batch: 997, sync, workers: 2, total: 40_000 })),
    );
    for (const result of results) expect(result.missing).toBe(0);
    // The saved keys and the workers' keys are all there, with the bits one thread adding them all sets.
    addRange(saved, 30_000, 70_000);
    expect(loaded.hasInts(ints(0, 70_000)).every((answer) => answer === 1)).toBe(true);
    expect(firstDifference(bitsOf(loaded), bitsOf(saved))).toBe(-1);
    // A private load is private, and a bad option is refused before anything is read.
    const privately = Type.deserialize(bytes);
    expect(privately.shared).toBe(false);
    const generic = deserialize(bytes, { shared: false }) as InstanceType<typeof Type>;
    expect(generic.shared).toBe(false);
    generic.dispose();
    expect(() => deserialize(bytes, { shared: 1 } as never)).toThrow(new TypeError("options.shared must be a boolean, got 1"));
    expect(() => Type.deserialize(bytes, { shared: "yes" } as never)).toThrow(new TypeError('options.shared must be a boolean, got "yes"'));
    expect(() => Type.deserialize(bytes, { sharde: true } as never)).toThrow('unknown option "sharde" in options; known options: shared');
    // Corrupted bytes are refused into shared memory as into private memory.
    const broken = bytes.slice();
    broken[broken.length - 5] ^= 0x10;
    expect(() => Type.deserialize(broken, { shared: true })).toThrow(FormatError);
    for (const filter of [...loads, privately, saved]) filter.dispose();
  });

  it("testAndAdd from two threads at once: for each new key at least one thread hears absent (both may)", async () => {
    const filter = make(true);
    const keys = Array.from(ints(0, 100_000));
    const sync = new SharedArrayBuffer(8);
    const [a, b] = await Promise.all(
      [0, 1].map(() => run<{ answers: Uint8Array }>({ task: "test-and-add", type: name, handle: filter.share(), keys, sync, workers: 2 })),
    );
    let neither = 0;
    let both = 0;
    for (let i = 0; i < keys.length; i++) {
      if (a.answers[i] === 1 && b.answers[i] === 1) neither++;
      if (a.answers[i] === 0 && b.answers[i] === 0) both++;
    }
    // "Present" from both is allowed only as a false positive of the filter, at its rate.
    expect(neither).toBeLessThan(keys.length * 0.02);
    // size counts each "absent" answer, so a key both threads heard "absent" for counts twice (docs/THREADS.md).
    const absent = (answers: Uint8Array) => answers.reduce((sum, answer) => sum + (answer ^ 1), 0);
    expect(filter.size).toBe(absent(a.answers) + absent(b.answers));
    process.stderr.write(`${name}: ${both} of ${keys.length} keys heard "absent" in both threads, ${neither} "present" in both\n`);
    filter.dispose();
  });
});

describe("shared filters under random adds from three workers, against the exact set of keys added", () => {
  // Every key kind and hashing layout the batch area carries (one u64 hash a key, two, integers, key bytes), added in
  // random calls by three workers at once over one key space, so that they add the same keys and touch the same
  // words: no key any worker added may be absent (in any worker, while the others add, or here after), and the bits
  // are exactly those of a private filter given the same keys.
  const models = [
    { name: "BloomFilter", label: "BloomFilter (triple, xxh3)", make: (shared: boolean) => BloomFilter.create(40_000, 0.01, { shared }) },
    { name: "BloomFilter", label: "BloomFilter (murmur3_128)", make: (shared: boolean) => BloomFilter.create(40_000, 0.01, { shared, hash: "murmur3_128", seed: 3 }) },
    { name: "BloomFilter", label: "BloomFilter (double, fnv1a_64)", make: (shared: boolean) => BloomFilter.create(40_000, 0.01, { shared, strategy: "double", hash: "fnv1a_64" }) },
    { name: "BloomFilter", label: "BloomFilter (independent)", make: (shared: boolean) => BloomFilter.withSize(400_000, 3, { shared, hash: ["murmur3_32", "xxh32", "fnv1a_32"] }) },
    { name: "SplitBlockBloomFilter", label: "SplitBlockBloomFilter", make: (shared: boolean) => SplitBlockBloomFilter.create(40_000, 0.01, { shared }) },
  ] as const;

  it.each(models)("$label", async ({ name, make }) => {
    const filter = make(true);
    const workers = 3;
    const sync = new SharedArrayBuffer(4);
    const results = await Promise.all(
      Array.from({ length: workers }, (_, w) =>
        run<{ strings: string[]; numbers: number[]; absent: number }>({ task: "random", type: name, handle: filter.share(), seed: 100 + w, steps: 120, keySpace: 15_000, sync, workers }),
      ),
    );
    expect(results.map((result) => result.absent)).toEqual([0, 0, 0]);
    const strings = [...new Set(results.flatMap((result) => result.strings))];
    const numbers = Uint32Array.from(new Set(results.flatMap((result) => result.numbers)));
    expect(filter.hasMany(strings).every((answer) => answer === 1)).toBe(true);
    if (numbers.length > 0) expect(filter.hasInts(numbers).every((answer) => answer === 1)).toBe(true);
    const single = make(false);
    single.addMany(strings);
    if (numbers.length > 0) single.addInts(numbers);
    expect(firstDifference(bitsOf(filter), bitsOf(single))).toBe(-1);
    filter.dispose();
    single.dispose();
  });
});

describe("a shared filter in segments (above 4 GiB: a shared memory per segment)", () => {
  // Wasm memory is committed as it is touched: a few thousand keys touch a few thousand pages of the 4.3 GB.
  const bits = Math.ceil((MAX_SEGMENT_BITS + 1) / 128) * 128;
  const segmented = [
    { name: "BloomFilter", make: (shared: boolean) => BloomFilter.withSize(bits, 7, { shared }) },
    { name: "SplitBlockBloomFilter", make: (shared: boolean) => SplitBlockBloomFilter.withSize(Math.floor(bits / 256) + 2 ** 20, { shared }) },
  ] as const;

  it.each(segmented)("$name: two workers add at once, and it answers as a private filter in segments", async ({ name, make }) => {
    const filter = make(true);
    expect(filter.segmentCount).toBe(2);
    expect(filter.share().memories).toHaveLength(2);
    const sync = new SharedArrayBuffer(8);
    const results = await Promise.all(
      [0, 1].map((w) => run<{ missing: number }>({ task: "add", type: name, handle: filter.share(), from: w * 2000, to: (w + 1) * 2000, batch: 250, sync, workers: 2, total: 4000 })),
    );
    for (const result of results) expect(result.missing).toBe(0);
    const single = make(false);
    addRange(single, 0, 4000);
    const probes = ints(0, 8000);
    expect(firstDifference(filter.hasInts(probes), single.hasInts(probes))).toBe(-1);
    expect(firstDifference(filter.hasLines(lines(0, 8000)), single.hasLines(lines(0, 8000)))).toBe(-1);
    expect(filter.has("k3999") && !filter.has("k9999")).toBe(single.has("k3999") && !single.has("k9999"));
    if (filter instanceof BloomFilter && single instanceof BloomFilter) expect(filter.positions("k1")).toEqual(single.positions("k1"));
    filter.dispose();
    single.dispose();
  });
});
