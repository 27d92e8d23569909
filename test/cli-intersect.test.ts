// `bloomkit intersect` against an exact Set of keys, on seeded random files of
// lines made of few bytes: "\r" in all places, empty lines, bytes that are no
// UTF-8, with and without a final newline. A key is a line without its "\n"
// and one trailing "\r", in A and B alike.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rng } from "./helpers.js";

const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "bloomkit-intersect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

function run(args: string[], input?: Buffer) {
  const result = spawnSync(process.execPath, [BIN, ...args], { input, maxBuffer: 1 << 28 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.toString("utf8") };
}

/** The end of --exact's summary: the buckets, and the splits of buckets that were too large for the memory when there were any. */
const EXACT_END = /exactly; ([\d,]+) buckets?(?:, and ([\d,]+) splits? of a bucket too large for the memory)?\n$/;
/** The buckets and the splits --exact's summary reports (0 splits when it names none). */
function bucketsOf(stderr: string): { buckets: number; splits: number } {
  const match = EXACT_END.exec(stderr);
  if (!match) throw new Error(`not --exact's summary: ${stderr}`);
  return { buckets: Number(match[1].replace(/,/g, "")), splits: Number((match[2] ?? "0").replace(/,/g, "")) };
}

/** Bytes lines are made of: "\r" and NUL among them, and 0xff and a lone 0xe4, which are no UTF-8. */
const BYTES = [0x61, 0x62, 0x0d, 0xff, 0xe4, 0x20, 0x00];

/** `count` lines of 0 to 3 bytes picked from `pool`, a third of them with a "\r" added (CRLF). */
function randomLines(random: () => number, pool: Buffer[], count: number): Buffer[] {
  return Array.from({ length: count }, () => {
    const line = pool[Math.floor(random() * pool.length)];
    return random() < 0.3 ? Buffer.concat([line, Buffer.from("\r")]) : line;
  });
}

/** A file of `lines`, each ended by "\n", the last one too only when `finalNewline`. */
function fileOf(lines: Buffer[], finalNewline: boolean): Buffer {
  return Buffer.concat(lines.flatMap((line, i) => (i < lines.length - 1 || finalNewline ? [line, Buffer.from("\n")] : [line])));
}

/** A line's key, as latin1 text (one char a byte): without one trailing "\r". */
const keyOf = (line: Buffer) => (line.at(-1) === 13 ? line.subarray(0, -1) : line).toString("latin1");

/** The lines of an output, as latin1 text, each without its "\n". */
function outputLines(output: Buffer): string[] {
  const lines = output.toString("latin1").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Two seeded files A and B, written, with their lines. */
function randomPair(seed: number) {
  const random = rng(seed);
  const pool = Array.from({ length: 3000 }, () => Buffer.from(Array.from({ length: Math.floor(random() * 4) }, () => BYTES[Math.floor(random() * BYTES.length)])));
  const a = randomLines(random, pool, 2000 + Math.floor(random() * 2000));
  const b = randomLines(random, pool, 2000 + Math.floor(random() * 2000));
  writeFileSync(file(`a${seed}.txt`), fileOf(a, random() < 0.5));
  writeFileSync(file(`b${seed}.txt`), fileOf(b, random() < 0.5));
  return { a, b, aPath: file(`a${seed}.txt`), bPath: file(`b${seed}.txt`) };
}

describe("intersect against an exact Set", () => {
  for (const seed of [1, 2, 3]) {
    it(`--exact writes each common key once and no other (seed ${seed})`, () => {
      const { a, b, aPath, bPath } = randomPair(seed);
      const keysA = new Set(a.map(keyOf));
      const common = new Set(b.map(keyOf).filter((key) => keysA.has(key)));
      const result = run(["intersect", aPath, bPath, "--exact", "--memory", "2KB", "--tmp", dir]);
      expect(result.code, result.stderr).toBe(0);
      // 2KB holds a few lines a bucket: more than 512 buckets' worth, so buckets are split again, repeats and all.
      expect(bucketsOf(result.stderr).splits).toBeGreaterThan(0);
      // Each output line is read back as a line of input is: its key.
      const written = outputLines(result.stdout).map((line) => keyOf(Buffer.from(line, "latin1")));
      expect(written.length).toBe(common.size);
      expect(new Set(written)).toEqual(common);
    });

    it(`approximate writes B's lines whose key is in A, as they were and in order, and few others (seed ${seed})`, () => {
      const { a, b, aPath, bPath } = randomPair(seed);
      const keysA = new Set(a.map(keyOf));
      const wanted = b.filter((line) => keysA.has(keyOf(line))).map((line) => line.toString("latin1"));
      const result = run(["intersect", aPath, bPath]);
      expect(result.code).toBe(0);
      // The wanted lines are a subsequence of the output; what else is there passed the filter falsely.
      let found = 0;
      let others = 0;
      for (const line of outputLines(result.stdout)) {
        if (found < wanted.length && line === wanted[found]) found++;
        else others++;
      }
      expect(found).toBe(wanted.length);
      expect(others).toBeLessThanOrEqual(5); // p = 0.001 of at most a few hundred lines not in A
    });
  }

  it('--exact tells the key "x\\r" (the line "x\\r\\r\\n") from "x", and writes it back so it reads as "x\\r"', () => {
    writeFileSync(file("cr-a.txt"), "x\r\r\ny\r\r\n");
    writeFileSync(file("cr-b.txt"), "x\ny\r\r\n");
    const result = run(["intersect", file("cr-a.txt"), file("cr-b.txt"), "--exact", "--tmp", dir]);
    expect(result.code).toBe(0);
    expect(result.stdout.toString("latin1")).toBe("y\r\r\n");
    expect(result.stderr).toMatch(/^1 distinct line is in both/);
  });
});

describe("intersect --exact with A from a pipe", () => {
  it("splits A into as many buckets as the same file gets, or more, so one bucket still fits --memory", () => {
    const text = Buffer.from(Array.from({ length: 100_000 }, (_, i) => `https://a.example/${i}\n`).join(""));
    writeFileSync(file("piped-a.txt"), text);
    writeFileSync(file("piped-b.txt"), "https://a.example/7\nhttps://b.example/7\n");
    const fromFile = run(["intersect", file("piped-a.txt"), file("piped-b.txt"), "--exact", "--memory", "100KB", "--tmp", dir]);
    const fromPipe = run(["intersect", "-", file("piped-b.txt"), "--exact", "--memory", "100KB", "--tmp", dir], text);
    expect([fromFile.code, fromPipe.code]).toEqual([0, 0]);
    expect(fromPipe.stdout.toString()).toBe("https://a.example/7\n");
    expect(bucketsOf(fromFile.stderr).buckets).toBeGreaterThan(4);
    expect(bucketsOf(fromPipe.stderr).buckets).toBeGreaterThanOrEqual(bucketsOf(fromFile.stderr).buckets);
  });
});

describe("intersect --exact on many short lines", () => {
  it("gives a bucket at most about 8 million lines, since one Set of a bucket holds at most 16,777,216", () => {
    // 8.5 million empty lines, 8.5 MB: so much memory alone asks for 1 bucket.
    writeFileSync(file("empty-lines.txt"), "\n".repeat(8_500_000));
    writeFileSync(file("one-empty.txt"), "\n");
    const result = run(["intersect", file("empty-lines.txt"), file("one-empty.txt"), "--exact", "--memory", "3GB", "--tmp", dir]);
    expect(result.code).toBe(0);
    expect(result.stdout.toString()).toBe("\n");
    expect(result.stderr).toMatch(/^1 distinct line is in both /);
    // One bucket holds all 8.5 million (one key): within the tolerance a bucket may exceed its lines by, so not split.
    expect(bucketsOf(result.stderr)).toEqual({ buckets: 2, splits: 0 });
  });

  it("keeps a bucket's Set within the JavaScript heap when --memory asks for more than the heap holds", () => {
    // A Node whose heap holds about 117 MB, and 60 MB of A in lines of 1,000 bytes: --memory 1GB alone put it in one Set, and Node died out of heap.
    const line = (i: number) => `${String(i).padStart(8, "0")}${"x".repeat(991)}\n`;
    writeFileSync(file("long-a.txt"), Array.from({ length: 60_000 }, (_, i) => line(i)).join(""));
    writeFileSync(file("long-b.txt"), line(59_999) + line(60_000));
    const result = spawnSync(process.execPath, ["--max-old-space-size=64", BIN, "intersect", file("long-a.txt"), file("long-b.txt"), "--exact", "--memory", "1GB", "--tmp", dir], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(line(59_999));
    expect(bucketsOf(result.stderr).buckets).toBeGreaterThan(1);
  });

  it("gives a file of many short lines more buckets than one of as many bytes in long lines (a line costs the Set more than its bytes)", () => {
    // 3.6 MB each: 400,000 lines of 9 bytes, and 10,000 of 360.
    const short = Array.from({ length: 400_000 }, (_, i) => `s${String(i).padStart(7, "0")}\n`).join("");
    const long = Array.from({ length: 10_000 }, (_, i) => `l${String(i).padStart(358, "0")}\n`).join("");
    expect(short.length).toBe(long.length);
    writeFileSync(file("short-lines.txt"), short);
    writeFileSync(file("long-lines.txt"), long);
    writeFileSync(file("probes.txt"), "s0000007\nl" + "0".repeat(355) + "123\nnone\n");
    const buckets = (name: string) => {
      const result = run(["intersect", file(name), file("probes.txt"), "--exact", "--memory", "64MB", "--tmp", dir]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.toString()).toBe(name === "short-lines.txt" ? "s0000007\n" : "l" + "0".repeat(355) + "123\n");
      return bucketsOf(result.stderr).buckets;
    };
    expect(buckets("short-lines.txt")).toBeGreaterThan(buckets("long-lines.txt"));
  });
});

describe("intersect --exact when A holds more than 512 buckets' worth", () => {
  it("splits a bucket too large for --memory again, and still writes exactly the common lines", () => {
    // 512 bucket files at most are open at once: the seed problem's 5 billion URLs (about 320 GB) at 1 GB need about
    // 1,280, and each of 512 held several times --memory, in one Set. --memory 64KiB asks as much of 17 MB.
    const random = rng(41);
    const a = Array.from({ length: 400_000 }, (_, i) => `https://example.com/a/${i}/page?x=${Math.floor(random() * 1e9)}`);
    const b = Array.from({ length: 60_000 }, (_, i) => (i % 3 === 0 ? a[Math.floor(random() * a.length)] : `https://other.example/${i}`));
    writeFileSync(file("many-a.txt"), a.join("\n") + "\n");
    writeFileSync(file("many-b.txt"), b.join("\n") + "\n");
    const result = run(["intersect", file("many-a.txt"), file("many-b.txt"), "--exact", "--memory", "64KiB", "--tmp", dir]);
    expect(result.code, result.stderr).toBe(0);
    const { buckets, splits } = bucketsOf(result.stderr);
    expect(buckets).toBe(512);
    expect(splits).toBeGreaterThanOrEqual(512);
    const keysA = new Set(a);
    const common = new Set(b.filter((line) => keysA.has(line)));
    const written = outputLines(result.stdout);
    expect(written.length).toBe(common.size);
    expect(new Set(written)).toEqual(common);
  });

  it("stops splitting a bucket that one repeated line fills, and holds that line once", () => {
    // 300,000 copies of one line go to one bucket whatever the seed: split once, it stays whole, and is read as it is.
    writeFileSync(file("repeats-a.txt"), "same line\n".repeat(300_000) + Array.from({ length: 1_000 }, (_, i) => `other-${i}\n`).join(""));
    writeFileSync(file("repeats-b.txt"), "same line\nother-5\nnone\n");
    const result = run(["intersect", file("repeats-a.txt"), file("repeats-b.txt"), "--exact", "--memory", "64KiB", "--tmp", dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.toString().split("\n").sort()).toEqual(["", "other-5", "same line"]);
    const { splits } = bucketsOf(result.stderr);
    expect(splits).toBeGreaterThanOrEqual(1);
    expect(splits).toBeLessThanOrEqual(2);
  });
});
