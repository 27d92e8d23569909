// Wasm memory: released at once by dispose() and for dropped filters by the
// garbage collector; addresses past 2 GiB and filters in many memories work
// like any other; a request the machine cannot serve fails cleanly.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BinaryFuseFilter, BloomFilter, CountingBloomFilter, SplitBlockBloomFilter } from "../bindings/index.js";
import { DEDICATED_BYTES, SCRATCH_RESERVE, defaultArena, freeMemory, poolBytes } from "../bindings/memory.js";
import { distinctInts, urls } from "./helpers.js";

const MiB = 1024 * 1024;
const ONE_MB_OF_BITS = 8 * MiB;
const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));
const encode = (text: string) => new TextEncoder().encode(text);

/** Every kind of key on one filter: no false negatives, and definite absents answered. */
function checkAllKeyKinds(filter: BloomFilter, label: string): void {
  const strings = urls(2_000, `${label}-strings`, 5);
  const bytes = strings.slice(0, 500).map(encode);
  const ints = distinctInts(2_000, true, 17);
  filter.addMany(strings).addMany(bytes).addInts(ints);
  filter.add("carol");
  expect(filter.has("carol")).toBe(true);
  expect(filter.hasMany(strings).every((hit) => hit === 1)).toBe(true);
  expect(filter.hasMany(bytes).every((hit) => hit === 1)).toBe(true);
  expect(filter.hasInts(ints).every((hit) => hit === 1)).toBe(true);
  // The failure this guards against hashed every string as the empty string: then "dave" would be present.
  const absent = urls(2_000, `${label}-absent`, 6);
  expect(filter.hasMany(absent).reduce((sum, hit) => sum + hit, 0)).toBeLessThan(100);
}

describe("wasm memory", () => {
  it("stays bounded while 10,000 dropped filters of 1 MB come and go", async () => {
    const start = poolBytes();
    let peak = start;
    for (let i = 0; i < 10_000; i++) {
      const filter = BloomFilter.withSize(ONE_MB_OF_BITS, 7);
      filter.add(`key ${i}`);
      expect(filter.has(`key ${i}`)).toBe(true);
      if (i % 10 === 9) await yieldToEventLoop(); // a long-running process yields between jobs
      peak = Math.max(peak, poolBytes());
    }
    // 10,000 MB were allocated in all; without release the pools would hold all of it.
    expect(peak - start).toBeLessThan(1024 * MiB);
  });

  it("dispose() gives the memory back at once, even in a synchronous loop", () => {
    const start = poolBytes();
    for (let i = 0; i < 10_000; i++) {
      const filter = BloomFilter.withSize(ONE_MB_OF_BITS, 7);
      filter.add("x");
      filter.dispose();
    }
    expect(poolBytes() - start).toBeLessThanOrEqual(16 * MiB);
  });

  it("reuses a disposed filter's block for the next one, zeroed", () => {
    const a = BloomFilter.withSize(ONE_MB_OF_BITS, 3);
    a.add("dirty");
    a.dispose();
    const b = BloomFilter.withSize(ONE_MB_OF_BITS, 3);
    expect(b.fillRatio).toBe(0);
    expect(b.has("dirty")).toBe(false);
    b.dispose();
  });

  it("keeps every key kind working once the small filters' memory passes 2 GiB", () => {
    // 40 filters just under the size that gets its own memory: about 2.5 GB of pool, so new blocks sit above 2^31.
    const bits = (DEDICATED_BYTES - 4096) * 8;
    const held = Array.from({ length: 40 }, () => BloomFilter.withSize(bits, 7));
    expect(poolBytes()).toBeGreaterThan(2 ** 31);
    const small = BloomFilter.create(10_000, 0.01);
    checkAllKeyKinds(small, "pool-small");
    checkAllKeyKinds(held[held.length - 1], "pool-last");
    // Saving and loading through addresses above 2^31.
    const copy = BloomFilter.deserialize(small.serialize());
    expect(copy.hasMany(urls(2_000, "pool-small-strings", 5)).every((hit) => hit === 1)).toBe(true);
    for (const filter of [...held, small, copy]) filter.dispose();
  });

  it("builds a small binary fuse filter when the small filters' first memory is full", () => {
    // A build of fewer than about 170,000 keys runs in that memory: filled to 4 GiB by filters, 100,000 keys failed
    // ('needs more than one wasm memory (4 GiB) holds') though the machine had the memory for a build of its own.
    const pool = defaultArena();
    const held: BloomFilter[] = [];
    for (const bytes of [DEDICATED_BYTES - 4096, 8 * MiB, MiB]) {
      while (pool.canFit(bytes + SCRATCH_RESERVE + 64)) {
        const filter = BloomFilter.withSize(bytes * 8, 3);
        held.push(filter);
        if (filter.arena !== pool) break;
      }
    }
    expect(pool.canFit(4 * MiB + SCRATCH_RESERVE)).toBe(false);
    const keys = urls(100_000, "fuse-in-full-pool", 7);
    const fuse = BinaryFuseFilter.build(keys);
    expect(fuse.hasMany(keys).every((hit) => hit === 1)).toBe(true);
    for (const filter of [...held, fuse]) filter.dispose();
  });

  it("gives up a large filter whose stream ends after its header without writing its memory", () => {
    // A pipe that carries only the start of a 2 GiB filter: the filter is allocated from the header, then the stream
    // ends. Zeroing its memory for reuse would write every page (2.1 GB resident and 3.1 s for a 4 GiB one); its own
    // memory is dropped instead. Measured in a child process, by its VmHWM: getrusage's maxRSS carries over the
    // spawning process's resident size (a test worker's 700 MB read as the child's peak, failing this at times).
    const big = BloomFilter.withSize(2 ** 34, 7);
    const head = big.serializeChunks().next().value!.slice(); // the header alone
    big.dispose();
    const script = `
      const { deserializeChunks } = await import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)});
      const head = Buffer.from(${JSON.stringify(Buffer.from(head).toString("base64"))}, "base64");
      const error = await deserializeChunks([head]).then(() => undefined, (error) => error);
      const { existsSync, readFileSync } = await import("node:fs");
      const hwm = existsSync("/proc/self/status") ? /^VmHWM:\\s+(\\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8")) : null;
      const peak = hwm ? Number(hwm[1]) * 1024 : process.resourceUsage().maxRSS * 1024;
      console.log(JSON.stringify({ message: error?.message, peak }));`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(child.status, child.stderr).toBe(0);
    const { message, peak } = JSON.parse(child.stdout);
    expect(message).toMatch(/^truncated: the stream ended after \d+ bytes, the record needs \d+ more$/);
    expect(peak).toBeLessThan(256 * MiB);
  });

  it("lets a large filter's memory go once it is disposed, though its fold, union and intersection live on", () => {
    // A fold (made to shrink a filter), a union and an intersection were placed in the large filter's own memory,
    // which they then kept alive, written, after it was disposed: a 400 MiB filter folded by 8 kept 578 MB
    // resident for the 50 MiB fold. In a process of its own with --expose-gc: dispose, collect, see it go.
    const script = `
      const { BloomFilter } = await import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)});
      const collected = [];
      const registry = new FinalizationRegistry((name) => collected.push(name));
      const big = BloomFilter.withSize(${DEDICATED_BYTES * 8}, 3).add("in big");
      const other = BloomFilter.withSize(${DEDICATED_BYTES * 8}, 3).add("in other").add("in big");
      registry.register(big.arena.memory, "big");
      const made = { fold: big.fold(2), union: big.union(other), intersection: big.intersect(other) };
      big.dispose();
      for (let i = 0; i < 10 && collected.length === 0; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); }
      const answers = Object.fromEntries(Object.entries(made).map(([name, filter]) => [name, [filter.has("in big"), filter.has("in other")]]));
      console.log(JSON.stringify({ collected, answers }));`;
    const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(child.status, child.stderr).toBe(0);
    const { collected, answers } = JSON.parse(child.stdout);
    expect(collected).toEqual(["big"]);
    expect(answers).toEqual({ fold: [true, false], union: [true, true], intersection: [true, false] });
  });

  it("lets a large counting filter's memory go once it is disposed, though its toBloomFilter() lives on with the same bits", () => {
    // The standard filter was made in the counting filter's own memory (its kernel read both), and kept it alive.
    // Now its bits go out a piece at a time; they must be those of a standard filter given the same keys.
    const script = `
      const { BloomFilter, CountingBloomFilter } = await import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)});
      const counters = ${DEDICATED_BYTES * 2} + 100; // 4-bit counters: a memory of its own, and a last word not whole
      const keys = Array.from({ length: 200000 }, (_, i) => "key-" + i);
      const counting = CountingBloomFilter.withSize(counters, 3, { counterBits: 4 }).addMany(keys).addMany(keys.slice(0, 1000));
      counting.removeMany(keys.slice(100000, 100500));
      const memory = new WeakRef(counting.arena.memory);
      const standard = counting.toBloomFilter();
      const expected = BloomFilter.withSize(counters, 3).addMany([...keys.slice(0, 100000), ...keys.slice(100500)]);
      const sameBits = Buffer.compare(standard.bitArray(), expected.bitArray()) === 0;
      counting.dispose();
      // A WeakRef, not a FinalizationRegistry: its callback came late or not at all once this script held 200,000 more
      // strings (Node 20 often, Node 24 always), though the memory was gone. Read in a later job, which it no longer keeps alive in.
      await new Promise((r) => setTimeout(r, 0));
      globalThis.gc();
      console.log(JSON.stringify({ collected: memory.deref() === undefined, sameBits, held: standard.has("key-5") }));`;
    const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(child.status, child.stderr).toBe(0);
    const result = JSON.parse(child.stdout);
    expect(result.sameBits).toBe(true);
    expect(result.collected).toBe(true);
    expect(result.held).toBe(true);
  });

  it.each([3, 12])("says in its own words when the engine refuses a new wasm memory (ulimit -v of %s GB), and the filters made before still answer", (gigabytes) => {
    // Each wasm memory reserves gigabytes of address space: under `ulimit -v` the engine refuses one with
    // "WebAssembly.Memory(): could not allocate memory", which reached the user as it was from a pool's arena.
    // 3 GB refuses Node 20 the first pool, 12 GB a later one; at 8 GB Node 24.22 itself dies of a fatal OOM elsewhere.
    const script = `
      const { BloomFilter } = await import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)});
      const made = [];
      let error;
      try {
        for (let i = 0; i < 1000; i++) made.push(BloomFilter.withSize(8 * 60 * 2 ** 20, 3).add("key-" + i)); // 60 MiB: a pool of its own each
      } catch (caught) {
        error = caught;
      }
      const answered = made.every((filter, i) => filter.has("key-" + i));
      console.log(JSON.stringify({ made: made.length, name: error?.constructor.name, message: error?.message, answered }));`;
    const child = spawnSync("sh", ["-c", 'ulimit -v "$0" && exec "$1" --input-type=module -e "$2"', String(gigabytes * 1e6), process.execPath, script], { encoding: "utf8" });
    expect(child.status, child.stderr).toBe(0);
    const { made, name, message, answered } = JSON.parse(child.stdout);
    expect(made).toBeLessThan(1000);
    expect(name).toBe("RangeError");
    expect(message).toMatch(/^cannot make a wasm memory( of [\d.]+ MiB for a Bloom filter of 503316480 bits \(60\.00 MiB\))?: the engine refused it \(.*\); a limit on this process's address space \(ulimit -v\) can cause this$/);
    expect(answered).toBe(true);
  });

  it("holds 40 filters of 100 MB at once, each in a memory of its own", () => {
    const held = Array.from({ length: 40 }, () => BloomFilter.withSize(800_000_000, 7));
    expect(new Set(held.map((filter) => filter.arena)).size).toBe(40);
    const small = BloomFilter.create(10_000, 0.01);
    checkAllKeyKinds(small, "big-small");
    checkAllKeyKinds(held[held.length - 1], "big-last");
    const sbbf = SplitBlockBloomFilter.create(10_000, 0.01);
    sbbf.addMany(["kept"]);
    expect(sbbf.has("kept")).toBe(true);
    for (const filter of [...held, small, sbbf]) filter.dispose();
  });

  it("refuses a filter larger than the free memory before allocating, naming both, and leaves the others working", () => {
    const keep = BloomFilter.create(10_000, 0.01).addMany(["kept"]);
    const counting = CountingBloomFilter.create(1_000, 0.01).add("kept");
    const free = freeMemory();
    const items = Math.ceil((free * 1.5 * 8) / 9.6); // half again the free memory at 9.6 bits per key
    expect(() => BloomFilter.create(items, 0.01)).toThrow(RangeError);
    expect(() => BloomFilter.create(items, 0.01)).toThrow(/cannot allocate .* GiB for a Bloom filter of \d+ bits.*only .* of memory is free/);
    expect(keep.has("kept")).toBe(true);
    expect(counting.count("kept")).toBe(1);
    checkAllKeyKinds(BloomFilter.create(10_000, 0.01), "after-failure");
    keep.dispose();
    counting.dispose();
  });
});
