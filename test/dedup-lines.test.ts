// dedupLines: the crawler program's step. It must hand over exactly the lines
// testAndAddLines answers 0 for, byte for byte and in order, and leave the
// filter as testAndAddLines leaves it, for every kind of key hash, shared or
// not, across the pieces a buffer is split into (lines longer than a piece
// included).
import { describe, expect, it } from "vitest";
import { BloomFilter, SplitBlockBloomFilter } from "../bindings/index.js";
import { rng } from "./helpers.js";

/** A crawl log of `lines` lines, about a third repeats of any line before; CRLF, empty lines, a few long lines and no final "\n". */
function crawlLog(lines: number, seed: number, longBytes: number): Uint8Array {
  const random = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const id = i > 0 && random() < 0.33 ? Math.floor(random() * i) : i;
    const url = id % 97 === 0 ? "" : id % 5003 === 1 ? `${"x".repeat(longBytes)}/${id}` : `https://crawl.example/${id}?ref=${id % 13}`;
    out.push(id % 7 === 0 ? `${url}\r` : url);
  }
  return new TextEncoder().encode(out.join("\n"));
}

/** The lines testAndAddLines answers 0 for, as they are in `buffer`. */
function expectedNew(filter: { testAndAddLinesWithEnds(buffer: Uint8Array): { answers: Uint8Array; ends: Uint32Array } }, buffer: Uint8Array) {
  const { answers, ends } = filter.testAndAddLinesWithEnds(buffer);
  const parts: Uint8Array[] = [];
  let start = 0;
  answers.forEach((answer, i) => {
    if (answer === 0) parts.push(buffer.subarray(start, ends[i]));
    start = ends[i];
  });
  return { bytes: Buffer.concat(parts), newCount: answers.length - answers.reduce((sum, a) => sum + a, 0), lines: answers.length };
}

/** What dedupLines hands over, gathered. */
function gathered(filter: { dedupLines(buffer: Uint8Array, visit: (newLines: Uint8Array, newCount: number, lineCount: number) => void): void }, buffer: Uint8Array) {
  const parts: Buffer[] = [];
  let newCount = 0;
  let lines = 0;
  filter.dedupLines(buffer, (fresh, n, count) => {
    parts.push(Buffer.from(fresh)); // a view of wasm memory: copied during the call
    newCount += n;
    lines += count;
  });
  return { bytes: Buffer.concat(parts), newCount, lines };
}

type Made = BloomFilter | SplitBlockBloomFilter;
/** Each kind, and whether it keeps most new lines (a tiny filter takes most for repeats). */
const kinds: [string, () => Made, boolean?][] = [
  ["BloomFilter, xxh64 double hashing", () => BloomFilter.create(60_000, 0.01)],
  ["BloomFilter, murmur3_128", () => BloomFilter.create(60_000, 0.01, { hash: "murmur3_128" })],
  ["BloomFilter, independent hashes", () => BloomFilter.create(60_000, 0.01, { strategy: "independent", hash: ["fnv1a_32", "murmur3_32", "xxh32"] })],
  ["BloomFilter, shared", () => BloomFilter.create(60_000, 0.01, { shared: true })],
  ["SplitBlockBloomFilter", () => SplitBlockBloomFilter.create(60_000, 0.01)],
  ["SplitBlockBloomFilter, shared", () => SplitBlockBloomFilter.create(60_000, 0.01, { shared: true })],
  ["SplitBlockBloomFilter, tiny (many false positives)", () => SplitBlockBloomFilter.withSize(64), false],
];

describe("dedupLines", () => {
  for (const [name, make, exactEnough = true] of kinds) {
    it(`${name}: the lines testAndAddLines answers 0 for, and the same filter after`, () => {
      for (const [seed, longBytes] of [
        [1, 100],
        [2, 1_500_000],
      ]) {
        const log = crawlLog(80_000, seed, longBytes);
        const [reference, tested] = [make(), make()];
        // Twice: the second pass finds every line (or nearly: these filters are exact enough) already there.
        for (let pass = 0; pass < 2; pass++) {
          const want = expectedNew(reference, log);
          const got = gathered(tested, log);
          expect(got.lines).toBe(want.lines);
          expect(got.newCount).toBe(want.newCount);
          expect(got.bytes.equals(want.bytes)).toBe(true);
          // Not trivially equal: the first pass keeps most lines, or (a tiny filter) drops many new ones, and the second keeps almost none.
          if (pass === 0) expect(got.newCount).toBeGreaterThan(exactEnough ? want.lines / 2 : 1000);
          else expect(got.newCount).toBeLessThan(want.lines / 100);
        }
        expect(Buffer.from(tested.serialize()).equals(Buffer.from(reference.serialize()))).toBe(true);
        expect(tested.size).toBe(reference.size);
        reference.dispose();
        tested.dispose();
      }
    });
  }

  it("hands over a piece's new lines as they were: CRLF, empty lines and a last line without \\n", () => {
    const filter = SplitBlockBloomFilter.create(100, 0.001);
    const seen: string[] = [];
    filter.dedupLines(new TextEncoder().encode("a\r\nb\n\nb\na\r\n\nc"), (fresh) => seen.push(new TextDecoder().decode(fresh)));
    expect(seen.join("")).toBe("a\r\nb\n\nc");
  });

  it("names a visit that is not a function, and adds nothing", () => {
    const filter = BloomFilter.create(100, 0.01);
    expect(() => filter.dedupLines(new TextEncoder().encode("a\n"), "write" as never)).toThrow(/visit must be a function, got "write"/);
    expect(filter.size).toBe(0);
    expect(filter.has("a")).toBe(false);
  });
});
