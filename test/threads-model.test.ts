// Every method of a shared filter, in one thread, against a private filter
// given the same calls: a seeded random sequence of adds and queries of every
// key kind, each call made on the shared filter or on a second filter object
// over the same memory (what fromShared gives another thread), and every
// answer compared. Covers the hash layouts the batch area carries: one u64
// hash a key, two (murmur3_128), integer keys, and key bytes (independent).
import { describe, expect, it } from "vitest";
import { BloomFilter, SplitBlockBloomFilter, type BloomFilterOptions } from "../bindings/index.js";
import { pack, rng, urls } from "./helpers.js";

const encoder = new TextEncoder();

type Any = BloomFilter | SplitBlockBloomFilter;

/** Runs one randomly chosen call on `filter` and returns what it answered, as plain data. */
function call(filter: Any, step: number, random: () => number): unknown {
  const words = urls(1 + Math.floor(random() * 40), `s${Math.floor(random() * 6)}`, 1 + Math.floor(random() * 3));
  const ints = Uint32Array.from({ length: 1 + Math.floor(random() * 50) }, () => Math.floor(random() * 3000));
  const packed = pack(words.map((word: string) => encoder.encode(word)));
  const lines = encoder.encode(words.join("\n") + (random() < 0.5 ? "\n" : ""));
  const intsAllowed = !(filter instanceof BloomFilter && filter.strategy === "independent");
  const calls: (() => unknown)[] = [
    () => filter.add(words[0]) && null,
    () => filter.has(words[0]),
    () => filter.testAndAdd(words[0]),
    () => filter.addMany(words) && null,
    () => Array.from(filter.hasMany(words)),
    () => Array.from(filter.testAndAddMany(words)),
    () => filter.addPacked(packed.bytes, packed.ends) && null,
    () => Array.from(filter.hasPacked(packed.bytes, packed.ends)),
    () => Array.from(filter.testAndAddPacked(packed.bytes, packed.ends)),
    () => filter.addLines(lines) && null,
    () => Array.from(filter.hasLines(lines)),
    () => Array.from(filter.testAndAddLines(lines)),
    () => {
      const seen: number[] = [];
      filter.testAndAddLinesEach(lines, (answers, ends, offset) => answers.forEach((answer, i) => seen.push(answer, offset + ends[i])));
      return seen;
    },
    () => {
      const { answers, ends } = filter.testAndAddLinesWithEnds(lines);
      return [Array.from(answers), Array.from(ends)];
    },
    () => (intsAllowed ? filter.addInts(ints) && null : null),
    () => (intsAllowed ? Array.from(filter.hasInts(ints)) : null),
    () => (intsAllowed ? Array.from(filter.testAndAddInts(ints)) : null),
    () => [filter.size, filter.fillRatio, filter.estimatedCount(), filter.falsePositiveRate()],
    () => (filter instanceof BloomFilter ? filter.positions(words[0]) : filter.toParquetBitset().length),
  ];
  return [step, calls[Math.floor(random() * calls.length)]()];
}

const kinds: { name: string; make: (shared: boolean) => Any }[] = [
  { name: "BloomFilter (xxh64)", make: (shared) => BloomFilter.create(3000, 0.01, { shared }) },
  { name: "BloomFilter (murmur3_128: two hashes a key)", make: (shared) => BloomFilter.create(3000, 0.01, { hash: "murmur3_128", seed: 7, shared }) },
  { name: "BloomFilter (independent: key bytes)", make: (shared) => BloomFilter.withSize(30_000, 3, { hash: ["murmur3_32", "xxh32", "fnv1a_32"], shared } as BloomFilterOptions) },
  { name: "SplitBlockBloomFilter", make: (shared) => SplitBlockBloomFilter.create(3000, 0.01, { shared }) },
];

describe.each(kinds)("a shared $name", ({ make }) => {
  it("answers every call as a private filter does, whichever of two objects over its memory takes it", () => {
    const shared = make(true);
    const twin = (shared instanceof BloomFilter ? BloomFilter.fromShared(shared.share()) : SplitBlockBloomFilter.fromShared((shared as SplitBlockBloomFilter).share())) as Any;
    const single = make(false);
    const pick = rng(11);
    const sharedRandom = rng(5);
    const singleRandom = rng(5);
    for (let step = 0; step < 400; step++) {
      const target = pick() < 0.5 ? shared : twin;
      expect(call(target, step, sharedRandom)).toEqual(call(single, step, singleRandom));
    }
    expect(shared.serialize()).toEqual(single.serialize());
    shared.dispose();
    twin.dispose();
    single.dispose();
  });
});
