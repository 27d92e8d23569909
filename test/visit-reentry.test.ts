// The line methods that call back once per piece (testAndAddLinesEach,
// hasLinesEach, dedupLines) hand over views of wasm memory. A callback may use
// other filters in the same memory meanwhile: a key longer than the batch area
// (which made the memory take a larger area and free the one the batch was
// using, where new filters were then placed and overwritten by the batch's
// later pieces), new filters, batches. None of it may change the batch's
// answers or the keys of the other filters. (The views themselves are valid
// until the callback calls into bloomkit, as the README says: it copies them
// first.)
import { describe, expect, it, vi } from "vitest";

type Lib = typeof import("../bindings/index.js");
type Visit = (a: Uint8Array | number, b?: Uint32Array | number, c?: number) => void;
type LineFilter = { addLines(buffer: Uint8Array): void; dispose(): void } & Record<string, unknown>;

const LINES = 50_000;
const buffer = new TextEncoder().encode(Array.from({ length: LINES }, (_, i) => `https://crawl.example/${i % 40_000}`).join("\n") + "\n");

const cases: { name: string; method: string; make: (lib: Lib) => unknown }[] = [
  { name: "BloomFilter", method: "testAndAddLinesEach", make: (lib) => lib.BloomFilter.create(60_000, 0.01) },
  { name: "BloomFilter", method: "hasLinesEach", make: (lib) => lib.BloomFilter.create(60_000, 0.01) },
  { name: "BloomFilter", method: "dedupLines", make: (lib) => lib.BloomFilter.create(60_000, 0.01) },
  { name: "BloomFilter (hash list)", method: "dedupLines", make: (lib) => lib.BloomFilter.create(60_000, 0.01, { hash: ["fnv1a_32", "djb", "sdbm"] }) },
  { name: "SplitBlockBloomFilter", method: "testAndAddLinesEach", make: (lib) => lib.SplitBlockBloomFilter.create(60_000, 0.01) },
  { name: "SplitBlockBloomFilter", method: "hasLinesEach", make: (lib) => lib.SplitBlockBloomFilter.create(60_000, 0.01) },
  { name: "SplitBlockBloomFilter", method: "dedupLines", make: (lib) => lib.SplitBlockBloomFilter.create(60_000, 0.01) },
  { name: "ScalableBloomFilter", method: "testAndAddLinesEach", make: (lib) => lib.ScalableBloomFilter.create(5_000, 0.01) },
  { name: "ScalableBloomFilter", method: "hasLinesEach", make: (lib) => lib.ScalableBloomFilter.create(5_000, 0.01) },
];

/** What a run hands its callback, copied out at once; `during` runs in each callback after the copy. */
function record(lib: Lib, c: (typeof cases)[number], during?: () => void): number[][] {
  const filter = c.make(lib) as LineFilter;
  // Some members first, so that queries answer both ways.
  filter.addLines(buffer.subarray(0, buffer.indexOf(10, buffer.length >> 2) + 1));
  const seen: number[][] = [];
  const copy = (view: unknown) => (typeof view === "number" ? [view] : Array.from(view as Uint8Array));
  (filter[c.method] as (b: Uint8Array, v: Visit) => void).call(filter, buffer, (a, b) => {
    seen.push([...copy(a), ...copy(b)]);
    during?.();
  });
  filter.dispose();
  return seen;
}

describe("callbacks of the line methods that use other filters", () => {
  it.each(cases)("$name $method: the answers, and the keys of filters made in the callback, stay as they were", async (c) => {
    // A fresh copy of the library: memory as a program that just started has it, so the area a long key
    // frees is the only gap new filters can take.
    vi.resetModules();
    const lib: Lib = await import("../bindings/index.js");
    const alone = record(lib, c);
    expect(alone.length).toBeGreaterThan(1); // several pieces, so the batch goes on after a callback
    const made: { filter: { has(key: string): boolean; dispose(): void }; key: string }[] = [];
    let first = true;
    const withCalls = record(lib, c, () => {
      if (first) {
        // A key longer than the batch area: the memory takes a larger area for it.
        const long = "x".repeat(3 << 20);
        const holder = lib.BloomFilter.create(10, 0.1);
        holder.add(long);
        expect(holder.has(long)).toBe(true);
        holder.dispose();
        first = false;
      }
      for (let j = 0; j < 8; j++) {
        const key = `kept-${made.length}`;
        const filter = j % 2 === 0 ? lib.BloomFilter.create(20_000, 0.001) : lib.SplitBlockBloomFilter.create(20_000, 0.001);
        filter.addMany([key, `${key}-b`]);
        expect(filter.hasMany([key, `${key}-b`])).toEqual(new Uint8Array([1, 1]));
        made.push({ filter, key });
      }
    });
    expect(withCalls).toEqual(alone);
    // No filter made in a callback lost its keys to the batch's later pieces.
    const lost = made.filter(({ filter, key }) => !filter.has(key) || !filter.has(`${key}-b`)).map(({ key }) => key);
    expect(lost).toEqual([]);
    for (const { filter } of made) filter.dispose();
  });
});

describe("a callback that shrinks or transfers the buffer being read", () => {
  it.each(cases)("$name $method: a TypeError naming buffer and the lines taken, not a silent stop", async (c) => {
    const lib: Lib = await import("../bindings/index.js");
    for (const how of ["shrink", "transfer"] as const) {
      const filter = c.make(lib) as LineFilter;
      const resizable = new ArrayBuffer(buffer.length, { maxByteLength: buffer.length });
      const view = new Uint8Array(resizable);
      view.set(buffer);
      let calls = 0;
      const run = () =>
        (filter[c.method] as (b: Uint8Array, v: Visit) => void).call(filter, view, () => {
          // The first piece's callback: the lines of the later pieces are gone from the buffer.
          if (calls++ === 0) how === "shrink" ? resizable.resize(100) : structuredClone(resizable, { transfer: [resizable] });
        });
      // The batch stopped after its first piece and returned as if every line had been read.
      expect(run).toThrow(TypeError);
      expect(calls).toBe(1);
      filter.dispose();
    }
    const filter = c.make(lib) as LineFilter;
    const resizable = new ArrayBuffer(buffer.length, { maxByteLength: buffer.length });
    const view = new Uint8Array(resizable);
    view.set(buffer);
    expect(() => (filter[c.method] as (b: Uint8Array, v: Visit) => void).call(filter, view, () => resizable.resize(100))).toThrow(
      /^buffer shrank from \d+ to 100 bytes while its lines were read \(in a callback\?\): the lines before byte \d+ were taken, the rest were not$/,
    );
    // Done with it in the last piece's callback (here the only piece): every line was read, nothing is refused.
    const small = new Uint8Array(new ArrayBuffer(8, { maxByteLength: 8 }));
    small.set(new TextEncoder().encode("a\nb\nc\nd\n"));
    (filter[c.method] as (b: Uint8Array, v: Visit) => void).call(filter, small, () => structuredClone(small.buffer, { transfer: [small.buffer] }));
    filter.dispose();
  });
});
