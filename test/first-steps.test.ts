// The mistakes a newcomer makes first, and what they are told: each message
// says what is wrong (the argument as the API names it, and its value) and
// what to do instead.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BinaryFuseFilter,
  BloomFilter,
  CountingBloomFilter,
  CuckooFilter,
  ScalableBloomFilter,
  SplitBlockBloomFilter,
  deserialize,
  deserializeBase64,
  deserializeChunks,
} from "../bindings/index.js";

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

type Saved = { serialize(): Uint8Array; toBase64(): string };
type Reader = { name: string; bytes: (bytes: unknown) => unknown; text: (text: unknown) => unknown; chunks: (source: unknown) => Promise<unknown>; filter: () => Saved };

// Each public reader, by the names its hints give: the generic pair, then each type's static deserialize and fromBase64.
const READERS: Reader[] = [
  { name: "", bytes: deserialize as never, text: deserializeBase64 as never, chunks: deserializeChunks as never, filter: () => BloomFilter.create(100, 0.01).add("kept") },
  ...(
    [
      [BloomFilter, () => BloomFilter.create(100, 0.01)],
      [CountingBloomFilter, () => CountingBloomFilter.create(100, 0.01)],
      [CuckooFilter, () => CuckooFilter.create(100, 0.01)],
      [SplitBlockBloomFilter, () => SplitBlockBloomFilter.create(100, 0.01)],
      [ScalableBloomFilter, () => ScalableBloomFilter.create(100, 0.01)],
      [BinaryFuseFilter, () => BinaryFuseFilter.build(["a", "b"])],
    ] as const
  ).map(([type, make]) => ({
    name: type.name,
    bytes: type.deserialize as never,
    text: type.fromBase64 as never,
    chunks: type.deserializeChunks as never,
    filter: make as () => Saved,
  })),
];
const nameOf = (reader: Reader, call: "deserialize" | "fromBase64" | "deserializeChunks") =>
  reader.name ? `${reader.name}.${call}` : { deserialize: "deserialize", fromBase64: "deserializeBase64", deserializeChunks: "deserializeChunks" }[call];

describe("a record passed in the wrong form says how to read the form it is in", () => {
  it.each(READERS.map((reader) => [nameOf(reader, "deserialize"), reader] as const))("%s(toBase64()'s text) names the call that reads text", (_, reader) => {
    const base64 = reader.filter().toBase64();
    const shown = JSON.stringify(base64.slice(0, 40) + "…");
    expect(() => reader.bytes(base64)).toThrow(new TypeError(`bytes must be a Uint8Array, got ${shown}; this looks like base64 text (as toBase64() writes): read it with ${nameOf(reader, "fromBase64")}(text)`));
    expect(reader.text(base64)).toBeTruthy(); // the hint's call reads it
  });

  it("a string that is not base64 (a path) gets no base64 hint", () => {
    expect(() => deserialize("filter.bloom" as never)).toThrow(new TypeError('bytes must be a Uint8Array, got "filter.bloom"'));
  });

  it.each(READERS.map((reader) => [nameOf(reader, "deserialize"), reader] as const))("%s(an ArrayBuffer) says to view it as a Uint8Array", (_, reader) => {
    const record = reader.filter().serialize();
    const buffer = record.buffer.slice(record.byteOffset, record.byteOffset + record.byteLength);
    const hint = "; view it as bytes: new Uint8Array(buffer) (a Node Buffer is a Uint8Array already: pass the Buffer, not its .buffer, which may hold other bytes too)";
    expect(() => reader.bytes(buffer)).toThrow(new TypeError(`bytes must be a Uint8Array, got an ArrayBuffer${hint}`));
    expect(reader.bytes(new Uint8Array(buffer))).toBeTruthy();
  });

  it.each(READERS.map((reader) => [nameOf(reader, "deserialize"), reader] as const))(
    "%s of a record whose buffer was transferred, or shrunk under it, says it cannot be read, not that the record is truncated",
    async (_, reader) => {
      // A record posted to a worker with its buffer in the transfer list reads as 0 bytes here afterwards: "truncated" sent the caller looking at their file.
      const transferred = reader.filter().serialize();
      structuredClone(transferred.buffer, { transfer: [transferred.buffer] });
      const record = reader.filter().serialize();
      const resizable = new ArrayBuffer(record.length + 8, { maxByteLength: record.length + 8 });
      const shrunk = new Uint8Array(resizable, 8, record.length);
      shrunk.set(record);
      resizable.resize(4);
      const unreadable = /past the end of its resizable buffer|whose buffer was transferred/;
      for (const bytes of [transferred, shrunk]) {
        expect(() => reader.bytes(bytes)).toThrow(TypeError);
        expect(() => reader.bytes(bytes)).toThrow(/^bytes must be readable, got a Uint8Array /);
        // In pieces: the unreadable piece is named, not taken as an empty one.
        await expect(reader.chunks([record.subarray(0, 5), bytes])).rejects.toThrow(TypeError);
        await expect(reader.chunks([record.subarray(0, 5), bytes])).rejects.toThrow(unreadable);
      }
    },
  );

  it("a DataView (or another typed array) says to view its bytes", () => {
    const record = BloomFilter.create(100, 0.01).add("kept").serialize();
    expect(() => BloomFilter.deserialize(new DataView(record.buffer) as never)).toThrow(
      new TypeError("bytes must be a Uint8Array, got a DataView; view its bytes: new Uint8Array(view.buffer, view.byteOffset, view.byteLength)"),
    );
  });

  it("a small Buffer's .buffer, Node's shared pool, gets the hint to pass the Buffer itself", () => {
    const record = Buffer.from(BloomFilter.create(100, 0.01).add("kept").serialize());
    expect(record.buffer.byteLength).toBeGreaterThan(record.byteLength); // the pool, with other bytes around the record
    expect(() => deserialize(record.buffer as never)).toThrow("pass the Buffer, not its .buffer");
    expect((deserialize(record) as BloomFilter).has("kept")).toBe(true);
  });

  it.each(READERS.map((reader) => [nameOf(reader, "fromBase64"), reader] as const))("%s(bytes) names the call that reads bytes", (_, reader) => {
    const record = reader.filter().serialize();
    expect(() => reader.text(record)).toThrow(new TypeError(`text must be a base64 string, got a Uint8Array; for bytes (as serialize() writes), call ${nameOf(reader, "deserialize")}(bytes)`));
  });

  it.each(READERS.map((reader) => [nameOf(reader, "deserializeChunks"), reader] as const))("%s(base64 text or an ArrayBuffer) gets the same hints", async (_, reader) => {
    const filter = reader.filter();
    const [record, base64] = [filter.serialize(), filter.toBase64()];
    await expect(reader.chunks(base64)).rejects.toThrow(`source must be a stream or an iterable of Uint8Arrays, got "${base64.slice(0, 40)}…"; this looks like base64 text`);
    await expect(reader.chunks(record.buffer)).rejects.toThrow("source must be a stream or an iterable of Uint8Arrays, got an ArrayBuffer; view it as bytes: new Uint8Array(buffer)");
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

describe("npm start or npm test in a clone before npm install", () => {
  it("says to run npm install first, in one line, rather than the shell's 'asc: not found'", () => {
    // A clone as it comes: the package and its scripts, no node_modules (none above the temporary folder either).
    const clone = mkdtempSync(join(tmpdir(), "bloomkit-clone-"));
    try {
      mkdirSync(join(clone, "scripts"));
      copyFileSync(join(ROOT, "package.json"), join(clone, "package.json"));
      copyFileSync(join(ROOT, "scripts/build-if-changed.mjs"), join(clone, "scripts/build-if-changed.mjs"));
      // Without this repository's build tools on PATH, as in a shell outside npm: `npx vitest` puts them there.
      const PATH = (process.env.PATH ?? "").split(delimiter).filter((folder) => !folder.includes("node_modules")).join(delimiter);
      // What `npm start` and `npm test` run first.
      const result = spawnSync(process.execPath, ["scripts/build-if-changed.mjs"], { cwd: clone, encoding: "utf8", env: { ...process.env, PATH } });
      expect({ code: result.status, stderr: result.stderr }).toEqual({
        code: 1,
        stderr: `bloomkit: cannot build: the build tools (assemblyscript, typescript, @types/node) are not installed; run npm install in ${clone} first\n`,
      });
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});

describe("a Set or another iterable passed as keys says to make an array of it", () => {
  const FILTERS = [
    ["BloomFilter", () => BloomFilter.create(100, 0.01)],
    ["SplitBlockBloomFilter", () => SplitBlockBloomFilter.create(100, 0.01)],
    ["CountingBloomFilter", () => CountingBloomFilter.create(100, 0.01)],
    ["CuckooFilter", () => CuckooFilter.create(100, 0.01)],
    ["ScalableBloomFilter", () => ScalableBloomFilter.create(100, 0.01)],
  ] as const;
  type Batch = (keys: unknown) => unknown;

  it.each(FILTERS)("%s.addMany and hasMany", (_, make) => {
    const filter = make();
    for (const method of ["addMany", "hasMany", "testAndAddMany"] as const) {
      const call = (keys: unknown) => () => (filter[method] as Batch).call(filter, keys);
      expect(call(new Set(["a"]))).toThrow(new TypeError("keys must be an array of strings or Uint8Arrays, got a Set; make an array of it first: Array.from(keys)"));
      expect(call(new Map([["a", 1]]))).toThrow(new TypeError("keys must be an array of strings or Uint8Arrays, got a Map; make an array of it first: Array.from(keys)"));
      expect(call(new Map([["a", 1]]).keys())).toThrow(/^keys must be an array of strings or Uint8Arrays, got an? \w+( object)?; make an array of it first: Array\.from\(keys\)$/);
      // Not iterables of keys: no such hint (an array of a Uint8Array's numbers is no batch either).
      expect(call(new Uint8Array(2))).toThrow(new TypeError("keys must be an array of strings or Uint8Arrays, got a Uint8Array"));
      expect(call("a")).toThrow(new TypeError('keys must be an array of strings or Uint8Arrays, got "a"'));
    }
    expect(filter.size).toBe(0);
  });

  it("BinaryFuseFilter.build", () => {
    expect(() => BinaryFuseFilter.build(new Set(["a"]) as unknown as string[])).toThrow(
      new TypeError("keys must be an array of strings or Uint8Arrays, got a Set; make an array of it first: Array.from(keys)"),
    );
  });
});
