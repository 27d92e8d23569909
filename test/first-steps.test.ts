// The mistakes a newcomer makes first, and what they are told: each message
// says what is wrong (the argument as the API names it, and its value) and
// what to do instead.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BloomFilter, CountingBloomFilter, CuckooFilter, ScalableBloomFilter, SplitBlockBloomFilter } from "../bindings/index.js";

const CREATED = [
  ["BloomFilter", BloomFilter, "expectedItems"],
  ["CountingBloomFilter", CountingBloomFilter, "expectedItems"],
  ["CuckooFilter", CuckooFilter, "expectedItems"],
  ["SplitBlockBloomFilter", SplitBlockBloomFilter, "expectedItems"],
  ["ScalableBloomFilter", ScalableBloomFilter, "initialCapacity"],
] as const;

type Create = (n?: unknown, p?: unknown) => unknown;

describe("create() with its numbers missing or wrong says how to call it", () => {
  it.each(CREATED)("%s.create() names the call and shows one that works", (name, type, first) => {
    const create = type.create as unknown as Create;
    expect(() => create()).toThrow(TypeError);
    expect(() => create()).toThrow(
      `${first} must be a number, got undefined; call ${name}.create(${first}, falsePositiveRate) with a count of keys and a rate between 0 and 1, as in ${name}.create(1_000_000, 0.01) for 1%`,
    );
  });

  it.each(CREATED)("%s.create(1000) without the rate shows the call with the caller's count", (name, type) => {
    const create = type.create as unknown as Create;
    expect(() => create(1000)).toThrow(TypeError);
    expect(() => create(1000)).toThrow(/^falsePositiveRate must be a number, got undefined; call .* as in \w+\.create\(1000, 0\.01\) for 1%$/);
    expect(() => create(1000)).toThrow(`${name}.create(`);
  });

  it("an object of options in place of the numbers gets the same hint", () => {
    expect(() => (BloomFilter.create as unknown as Create)({ n: 1000, p: 0.01 })).toThrow(/^expectedItems must be a number, got an object; call BloomFilter\.create\(expectedItems, falsePositiveRate\)/);
  });

  it.each([
    [1, "0.01"],
    [5, "0.05"],
    [1.1, "0.011"],
    [50, "0.5"],
  ])("a rate given as a percentage (%s) is a RangeError that gives the fraction", (p, fraction) => {
    for (const [, type] of CREATED) {
      const create = type.create as unknown as Create;
      expect(() => create(1000, p)).toThrow(RangeError);
      expect(() => create(1000, p)).toThrow(`falsePositiveRate must be between 0 and 1 (exclusive), got ${p}; it is a fraction, not a percentage: for ${p}% give ${fraction}`);
    }
  });

  it.each(CREATED)("%s.create(0.01, 1000), the numbers swapped, says so and shows them the right way round", (name, type, first) => {
    const create = type.create as unknown as Create;
    for (const [n, p] of [
      [0.01, 1000],
      [0.01, 50], // not "for 50% give 0.5": create(0.01, 0.5) would make a filter for a hundredth of a key
      [0.001, 1],
    ]) {
      expect(() => create(n, p)).toThrow(
        new RangeError(`falsePositiveRate must be between 0 and 1 (exclusive), got ${p}, and ${first} = ${n} looks like the rate: the count of keys comes first, as in ${name}.create(${p}, ${n})`),
      );
    }
  });

  it.each([
    ["BloomFilter", BloomFilter],
    ["CuckooFilter", CuckooFilter],
    ["SplitBlockBloomFilter", SplitBlockBloomFilter],
  ] as const)("%s.sizeFor(0.01, 1000) says the same of its own call", (name, type) => {
    expect(() => (type.sizeFor as unknown as Create)(0.01, 1000)).toThrow(`looks like the rate: the count of keys comes first, as in ${name}.sizeFor(1000, 0.01)`);
  });

  it("a rate that cannot be a percentage gets no such hint", () => {
    for (const p of [0, -1, 100, 250, NaN]) {
      expect(() => BloomFilter.create(1000, p)).toThrow(new RangeError(`falsePositiveRate must be between 0 and 1 (exclusive), got ${p}`));
    }
  });
});

describe("a promise passed without await", () => {
  const record = () => [BloomFilter.create(100, 0.01).add("kept").serialize()];

  it("a promise passed where bytes or a filter belong is named as one that wants an await", async () => {
    const pending = BloomFilter.deserializeChunks(record());
    expect(() => BloomFilter.deserialize(pending as never)).toThrow("bytes must be a Uint8Array, got a Promise (an await is missing?)");
    (await pending).dispose();
  });
});

const ROOT = new URL("..", import.meta.url).pathname;
const BIN = join(ROOT, "dist/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "bloomkit-first-steps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
  return { code: result.status, stderr: result.stderr };
}

describe("the command line's first mistakes", () => {
  it.each([
    [["dedup", "urls.txt", "-n", "5"], "unknown option -n; did you mean --n? (see bloomkit dedup --help)"],
    [["calc", "-p", "0.01", "--n", "10"], "unknown option -p; did you mean --p? (see bloomkit calc --help)"],
    [["dedup", "urls.txt", "--bogus"], "unknown option --bogus (see bloomkit dedup --help)"],
  ])("%j", (args, message) => {
    expect(run(args)).toEqual({ code: 2, stderr: `bloomkit: ${message}\n` });
  });

  it("merge of two files each sized by its own line count says to build both with the same --n and --p", () => {
    writeFileSync(join(dir, "a.txt"), "a\nb\nc\nd\n");
    writeFileSync(join(dir, "b.txt"), "e\nf\n");
    expect(run(["build", join(dir, "a.txt"), "-o", join(dir, "a.bloom"), "-q"]).code).toBe(0);
    expect(run(["build", join(dir, "b.txt"), "-o", join(dir, "b.bloom"), "-q"]).code).toBe(0);
    const result = run(["merge", join(dir, "a.bloom"), join(dir, "b.bloom"), "-o", join(dir, "both.bloom")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^bloomkit: cannot merge .*a\.bloom and .*b\.bloom: .*different bits \(m\).*; build both with the same --n and --p \(without --n, build sizes each for its own line count\)\n$/);
  });
});
