// The command line with filters larger than one wasm memory and with files
// that are not filters: filter files are streamed in pieces both ways, and
// --memory is honoured up to the memory the machine has free.
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { freemem, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "bloomkit-cli-large-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

function run(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { input, maxBuffer: 1 << 28, timeout: 300_000 });
  return { code: result.status, stdout: result.stdout.toString("utf8"), stderr: result.stderr.toString("utf8") };
}

describe("filter files larger than 4 GiB", () => {
  it("build, info and query a 6 GiB filter file, read and written in pieces", () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `https://crawl.example/page/${i}`);
    writeFileSync(file("urls.txt"), keys.join("\n") + "\n");
    // n = 5.4 billion at 1%: 51.7 billion bits, 6.02 GiB, in two segments.
    const built = run(["build", file("urls.txt"), "-o", file("big.bloom"), "--n", "5.4G", "--p", "0.01", "--quiet"]);
    expect(built.stderr).toMatch(/20,000 lines read/);
    expect(built.code).toBe(0);
    expect(statSync(file("big.bloom")).size).toBeGreaterThan(6 * 2 ** 30);
    const info = run(["info", file("big.bloom")]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/type BloomFilter/);
    expect(info.stdout).toMatch(/n 20,000 keys added/);
    const query = run(["query", file("big.bloom"), "-"], `${keys[0]}\n${keys[19_999]}\nhttps://crawl.example/absent\n`);
    expect(query.code).toBe(0);
    expect(query.stdout.trim().split("\n")).toEqual([
      `${keys[0]}\tprobably present`,
      `${keys[19_999]}\tprobably present`,
      "https://crawl.example/absent\tdefinitely absent",
    ]);
    // A 6 GiB file built, read and queried: 73 s on a slow day of this 2-core machine, near the 120 s default.
  }, 300_000);
});

describe("files that are not one filter", () => {
  it("stops reading /dev/zero at once: one line, exit 1", () => {
    const result = run(["info", "/dev/zero"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^bloomkit: \/dev\/zero is not a bloomkit filter: the magic number is missing\n$/);
  });

  it("rejects a filter file with bytes after the record, naming the file", () => {
    writeFileSync(file("small.txt"), "a\nb\n");
    expect(run(["build", file("small.txt"), "-o", file("small.bloom"), "--quiet"]).code).toBe(0);
    appendFileSync(file("small.bloom"), "trailing");
    const result = run(["info", file("small.bloom")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/small\.bloom cannot be read as a bloomkit filter: bytes follow the record/);
  });
});

describe("intersect --n", () => {
  it("sizes the filter for the lines given, not A's size, and is a usage error with --exact", () => {
    writeFileSync(file("a.txt"), "x\ny\nz\n");
    writeFileSync(file("b.txt"), "y\nq\nz\n");
    const result = run(["intersect", file("a.txt"), file("b.txt"), "--n", "1M", "--p", "0.01"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("y\nz\n");
    // A filter for a million lines at 1% answers a line not in A with about its formula's rate, not the rate of 3 lines' filter.
    expect(result.stderr).toMatch(/passes with probability [0-9.e-]+/);
    const rate = Number(/passes with probability ([0-9.e-]+)/.exec(result.stderr)![1]);
    expect(rate).toBeLessThan(1e-10);
    const exact = run(["intersect", file("a.txt"), file("b.txt"), "--n", "1M", "--exact"]);
    expect(exact.code).toBe(2);
    expect(exact.stderr).toMatch(/--n sizes the approximate filter/);
  });
});

describe("--memory", () => {
  it("above the free memory is one line, exit 1, naming both", () => {
    writeFileSync(file("few.txt"), "a\nb\n");
    const tooMuch = `${Math.ceil((freemem() * 2) / 1e9)}GB`;
    for (const args of [["dedup", file("few.txt"), "--memory", tooMuch], ["intersect", file("few.txt"), file("few.txt"), "--memory", tooMuch]]) {
      const result = run(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^bloomkit: --memory .* [GT]iB is more than the .* of memory free on this machine\n$/);
    }
  });

  it("sizes dedup's filter above 1 GiB when it is given more", () => {
    writeFileSync(file("lines.txt"), "x\ny\nx\n");
    const result = run(["dedup", file("lines.txt"), "--memory", "1.5GiB", "--type", "bloom", "-o", file("out.txt")]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/a Bloom filter of 12,884,901,888 bits \(1\.50 GiB\)/);
  });
});
