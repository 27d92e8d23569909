// `--threads N` on dedup and intersect: worker threads hash the lines (and,
// for intersect, add and query a shared filter), this thread keeps the one
// stage that must run in input order. The output must be byte for byte the
// output of one thread: first occurrences kept in input order, repeats that
// span the reader's 1 MiB pieces, CRLF and empty lines, a last line without
// "\n", and the same false positives. Inputs are larger than the size below
// which the CLI stays in one thread (4 MiB).
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BloomFilter, deserialize } from "../bindings/index.js";
import { rng } from "./helpers.js";

const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "bloomkit-threads-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

function run(args: string[], input?: Buffer, env?: Record<string, string>) {
  const result = spawnSync(process.execPath, [BIN, ...args], { input, maxBuffer: 1 << 30, env: { ...process.env, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.toString("utf8") };
}

/**
 * A crawl log of `lines` URLs (about 70 bytes each), a third of them repeats
 * of lines anywhere before, so repeats cross the reader's pieces; ids from
 * `idBase` so two files can share some URLs.
 */
function crawlLog(lines: number, seed: number, idBase: number, finalNewline: boolean): Buffer {
  const random = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const id = i > 0 && random() < 0.33 ? idBase + Math.floor(random() * i) : idBase + i;
    const url = id % 211 === 0 ? "" : `https://crawl.example/${(id * 2654435761) % 1e9}/page-${id}.html?from=${id % 17}`;
    out.push(random() < 0.1 ? `${url}\r` : url);
  }
  return Buffer.from(out.join("\n") + (finalNewline ? "\n" : ""));
}

const log = crawlLog(100_000, 1, 0, false);
writeFileSync(file("log.txt"), log);
expect(log.length).toBeGreaterThan(5 << 20);

describe("dedup --threads", () => {
  for (const extra of [[], ["--repeats", "REPEATS"], ["--type", "bloom"], ["--memory", "64KB"], ["--n", "10k", "--p", "0.2"]]) {
    it(`writes what one thread writes (${extra.join(" ") || "defaults"})`, () => {
      const outputs = [1, 2, 3].map((threads) => {
        const args = extra.map((arg) => (arg === "REPEATS" ? file(`repeats-${threads}.txt`) : arg));
        const result = run(["dedup", file("log.txt"), "-o", file(`out-${threads}.txt`), "--threads", String(threads), ...args]);
        expect(result.stderr).not.toMatch(/bloomkit:/);
        expect(result.code).toBe(0);
        return { out: readFileSync(file(`out-${threads}.txt`)), summary: result.stderr, repeats: extra.includes("--repeats") ? readFileSync(file(`repeats-${threads}.txt`)) : undefined };
      });
      for (const other of outputs.slice(1)) {
        expect(other.out.equals(outputs[0].out)).toBe(true);
        expect(other.summary).toBe(outputs[0].summary);
        if (other.repeats) expect(other.repeats.equals(outputs[0].repeats!)).toBe(true);
      }
      // Not trivially equal: some lines were dropped, and (with a tiny filter) some wrongly.
      expect(outputs[0].out.length).toBeLessThan(log.length);
      expect(outputs[0].out.length).toBeGreaterThan(0);
    });
  }

  it("writes what one thread writes when lines are longer than the reader's pieces (1 MiB)", () => {
    // Lines of 1.5 and 3 MiB, each twice, among short ones: the reader grows its buffer and the piece goes to a worker as it is.
    const random = rng(7);
    const long = (bytes: number, seed: number) => Buffer.alloc(bytes, `line-${seed}-`).toString("latin1");
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++) lines.push(i % 20_000 === 5 ? long(3 << 20, i) : i % 15_000 === 7 ? long(3 << 19, i) : `https://crawl.example/${Math.floor(random() * 40_000)}`);
    lines.push(...lines.filter((line) => line.length > 1 << 20));
    writeFileSync(file("long.txt"), lines.join("\n"), "latin1");
    // Three threads start two workers for dedup: lent arrays then go to and come back from each in turn.
    const outputs = [1, 2, 3].map((threads) => {
      const result = run(["dedup", file("long.txt"), "-o", file(`long-${threads}.txt`), "--threads", String(threads)]);
      expect(result.stderr).not.toMatch(/bloomkit:/);
      return readFileSync(file(`long-${threads}.txt`), "latin1");
    });
    expect(outputs[1] === outputs[0]).toBe(true);
    // Every long line is kept once.
    const kept = outputs[0].split("\n").filter((line) => line.length > 1 << 20);
    expect(kept.length).toBe(new Set(lines.filter((line) => line.length > 1 << 20)).size);
    expect(new Set(kept).size).toBe(kept.length);
  });

  it("keeps every first occurrence in order when the filter makes no mistake", () => {
    const result = run(["dedup", file("log.txt"), "--threads", "2", "--p", "1e-9"]);
    expect(result.code).toBe(0);
    const seen = new Set<string>();
    const expected: string[] = [];
    for (const line of log.toString("utf8").split("\n")) {
      const key = line.endsWith("\r") ? line.slice(0, -1) : line;
      if (!seen.has(key)) {
        seen.add(key);
        expected.push(line);
      }
    }
    expect(result.stdout.toString("utf8")).toBe(expected.join("\n"));
  });

  it("reads standard input with --threads (a filter sized by --n)", () => {
    const one = run(["dedup", "--n", "100k", "--threads", "1"], log);
    const two = run(["dedup", "--n", "100k", "--threads", "2"], log);
    expect(two.code).toBe(0);
    expect(two.stdout.equals(one.stdout)).toBe(true);
  });

  it("stops with the one-line error of one thread when the output cannot be written", () => {
    const [one, two] = [1, 2].map((threads) => run(["dedup", file("log.txt"), "-o", "/dev/full", "--threads", String(threads)]));
    expect(two.code).toBe(1);
    expect(two.stderr).toBe("bloomkit: cannot write /dev/full: no space left on the device\n");
    expect(two.stderr).toBe(one.stderr);
  });

  it("refuses a --threads that is not a whole number from 1 to 256, with exit code 2", () => {
    for (const bad of ["0", "-1", "1.5", "many", "257"]) {
      const result = run(["dedup", file("log.txt"), "-o", file("never.txt"), "--threads", bad]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--threads must be a whole number from 1 to 256; got "${bad}"`);
    }
    expect(() => readFileSync(file("never.txt"))).toThrow();
  });

  it("build checks --threads before it reads anything, for every type (fuse8 took any), and before a missing input", () => {
    for (const type of ["bloom", "cuckoo", "fuse8", "fuse16"]) {
      const result = run(["build", file("log.txt"), "-o", file("never.bloom"), "--type", type, "--threads", "abc"]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`--threads must be a whole number from 1 to 256; got "abc"`);
    }
    expect(run(["build", file("missing.txt"), "-o", file("never.bloom"), "--threads", "abc"]).code).toBe(2);
    expect(() => readFileSync(file("never.bloom"))).toThrow();
  });
});

describe("pieces whose number of lines changes", () => {
  // Workers hash each piece into the arrays of a piece done before, and this thread answers into
  // answer arrays that come back: 1 MiB of 1 KiB lines is about 1,000 lines, of 4-byte lines about
  // 260,000, so the lent arrays must grow when short lines follow long ones, and be reused after.
  const random = rng(23);
  const lines: string[] = [];
  const longLine = () => `https://crawl.example/${Math.floor(random() * 3_000)}/${"p".repeat(1_000)}`;
  const shortLine = () => String(Math.floor(random() * 200_000)).padStart(3, "0");
  for (const [count, make] of [[4_500, longLine], [1_200_000, shortLine], [4_500, longLine], [300_000, shortLine]] as const) {
    for (let i = 0; i < count; i++) lines.push(make());
  }
  const text = Buffer.from(lines.join("\n") + "\n");
  writeFileSync(file("mixed.txt"), text);

  it("dedup, build, query and intersect write what one thread writes", () => {
    expect(text.length).toBeGreaterThan(12 << 20);
    // Three threads start two workers for dedup: lent arrays then go to and come back from each in turn.
    const outputs = [1, 2, 3].map((threads) => {
      const t = String(threads);
      const dedup = run(["dedup", file("mixed.txt"), "-o", file(`mixed-out-${t}.txt`), "--repeats", file(`mixed-rep-${t}.txt`), "--n", "1600k", "--threads", t]);
      const build = run(["build", file("mixed.txt"), "-o", file(`mixed-${t}.bloom`), "--type", "bloom", "--p", "0.01", "--threads", t]);
      // The keys on standard input: this thread answers each piece into lent arrays, the workers write in turns.
      const query = run(["query", file("mixed-1.bloom"), "-", "--threads", t], text);
      const intersect = run(["intersect", file("mixed.txt"), file("log.txt"), "--n", "1600k", "--threads", t]);
      for (const result of [dedup, build, query, intersect]) expect([result.code, result.stderr.match(/bloomkit:.*/)?.[0]]).toEqual([0, undefined]);
      return { unique: readFileSync(file(`mixed-out-${t}.txt`)), repeats: readFileSync(file(`mixed-rep-${t}.txt`)), summary: dedup.stderr, bits: deserialize(readFileSync(file(`mixed-${t}.bloom`))), query: query.stdout, intersect: intersect.stdout };
    });
    const [one, ...others] = outputs;
    for (const other of others) {
      expect(other.unique.equals(one.unique)).toBe(true);
      expect(other.repeats.equals(one.repeats)).toBe(true);
      expect(other.summary).toBe(one.summary);
      expect(Buffer.from((other.bits as BloomFilter).bitArray()).equals(Buffer.from((one.bits as BloomFilter).bitArray()))).toBe(true);
      expect(other.query.equals(one.query)).toBe(true);
      expect(other.intersect.equals(one.intersect)).toBe(true);
    }
    // Every line is asked about: the query wrote one answer per line, every one of them present.
    const answers = one.query.toString("latin1").split("\n").slice(0, -1);
    expect(answers.length).toBe(lines.length);
    expect(answers.every((line) => line.endsWith("\tprobably present"))).toBe(true);
    // Every distinct line is kept once (at p = 0.001 a few may be lost to false positives), and no line is lost by the filter built from them.
    const distinct = new Set(lines).size;
    const kept = one.unique.toString("latin1").split("\n").length - 1;
    expect(kept).toBeLessThanOrEqual(distinct);
    expect(kept).toBeGreaterThan(distinct * 0.99);
    expect(kept + one.repeats.toString("latin1").split("\n").length - 1).toBe(lines.length);
    expect((others[0].bits as BloomFilter).hasLines(text).every((answer) => answer === 1)).toBe(true);
    for (const { bits } of outputs) bits.dispose();
  });
});

describe("intersect --threads", () => {
  // B shares about half its URLs with the log, and ends with one of them without a "\n".
  const shared = log.toString("utf8").split("\n").find((line, i) => i > 1000 && line.length > 0 && !line.endsWith("\r"))!;
  const b = Buffer.concat([crawlLog(80_000, 2, 45_000, true), Buffer.from(shared)]);
  writeFileSync(file("b.txt"), b);

  for (const extra of [[], ["--memory", "32KB"]]) {
    it(`writes what one thread writes (${extra.join(" ") || "defaults"})`, () => {
      const [one, two] = [1, 2].map((threads) => {
        const result = run(["intersect", file("log.txt"), file("b.txt"), "-o", file(`common-${threads}.txt`), "--threads", String(threads), ...extra]);
        expect(result.code).toBe(0);
        return { out: readFileSync(file(`common-${threads}.txt`)), summary: result.stderr };
      });
      expect(two.out.equals(one.out)).toBe(true);
      expect(two.summary).toBe(one.summary);
      expect(one.out.length).toBeGreaterThan(0);
      // The last line of B, found in A, is written with its "\n".
      expect(one.out.subarray(-(shared.length + 1)).toString()).toBe(`${shared}\n`);
    });
  }

  it("finds every line B shares with A (no false negatives)", () => {
    const result = run(["intersect", file("log.txt"), file("b.txt"), "--threads", "2"]);
    const found = new Set(result.stdout.toString("utf8").split("\n").map((line) => line.replace(/\r$/, "")));
    const inA = new Set(log.toString("utf8").split("\n").map((line) => line.replace(/\r$/, "")));
    for (const line of b.toString("utf8").split("\n")) {
      const key = line.replace(/\r$/, "");
      if (inA.has(key)) expect(found.has(key)).toBe(true);
    }
  });

  it("says --threads is not for --exact", () => {
    const result = run(["intersect", file("log.txt"), file("b.txt"), "--exact", "--threads", "2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--threads is for the approximate intersection");
  });
});

/** The crawl log to a pipeline in pieces of whole lines of about 256 KiB, so that every worker runs batches. */
async function pushWholeLines(pool: { push(piece: Buffer): Promise<unknown> }): Promise<void> {
  const text = log.toString("latin1");
  for (let at = 0; at < log.length; ) {
    const end = Math.min(log.length, text.indexOf("\n", at + (256 << 10)) + 1 || log.length);
    await pool.push(log.subarray(at, end));
    at = end;
  }
}

describe("the worker threads of a shared filter's pipeline (intersect's two, build's one)", () => {
  // Each worker takes a batch area in the shared filter's memory (at most 256, fewer in a filter of nearly 4 GiB) at its
  // first batch. Workers stopped without dispose() kept theirs: intersect's second pipeline (B's queries) then found
  // the areas of the first (A's adds) still taken, and --threads above 128 (above 1 per pipeline for a filter of
  // nearly 4 GiB, which has room for 3) failed with "all … batch areas … are taken".
  it("give their batch areas back when the pipeline closes", async () => {
    const { LinePipeline } = await import("../dist/cli/line-pool.js");
    const { Progress } = await import("../dist/cli/io.js");
    const { BloomFilter: BuiltBloomFilter } = await import("../dist/index.js");
    const { BATCH_STATES_BYTE, BUSY, MAX_SCRATCH_SLOTS } = await import("../dist/shared-arena.js");
    const filter = BuiltBloomFilter.create(200_000, 0.01, { shared: true });
    const states = new Int32Array(filter.share().memories[0].buffer, BATCH_STATES_BYTE, MAX_SCRATCH_SLOTS);
    const busy = () => states.filter((state) => state === BUSY).length;
    for (const op of ["add", "has"] as const) {
      const pool = new LinePipeline({ filter, op, outputs: [] }, 2, new Progress("test", log.length, true));
      await pushWholeLines(pool);
      await pool.finish();
      await pool.close();
      expect(busy(), `after the pipeline that runs "${op}"`).toBe(0);
    }
    expect(filter.hasLines(log).every((answer) => answer === 1)).toBe(true);
    filter.dispose();
  });
});

describe("--threads above what a shared filter's memory has room for", () => {
  // Each worker of a shared filter holds a batch area in each of its memories: 256 at most, fewer in a segment near
  // 4 GiB (3 when nearly 4 GiB). More workers than that failed mid-run, "a worker thread failed: all … batch areas
  // … (dispose() …)". A filter of several GiB is too large to make here: other threads stand in for the
  // difference, holding all but two areas of a small filter.
  it("start as many workers as there is room for, and say so once when --threads asked for more", async () => {
    const { LinePipeline } = await import("../dist/cli/line-pool.js");
    const { Progress } = await import("../dist/cli/io.js");
    const { BloomFilter: BuiltBloomFilter } = await import("../dist/index.js");
    const { BATCH_STATES_BYTE, BUSY, MAX_SCRATCH_SLOTS } = await import("../dist/shared-arena.js");
    const said: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => said.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      for (const asked of [true, false]) {
        const filter = BuiltBloomFilter.create(200_000, 0.01, { shared: true });
        new Int32Array(filter.share().memories[0].buffer, BATCH_STATES_BYTE, MAX_SCRATCH_SLOTS).fill(BUSY, 2);
        // intersect's two pipelines over one filter: A's adds, then B's queries.
        for (const op of ["add", "has"] as const) {
          const pool = new LinePipeline({ filter, op, outputs: [], threadsAsked: asked }, 4, new Progress("test", log.length, true));
          await pushWholeLines(pool);
          await pool.finish();
          await pool.close();
          expect(pool.threads).toBe(2);
          if (op === "has") expect(pool.ones).toBe(pool.lines);
        }
        filter.dispose();
      }
    } finally {
      process.stderr.write = write;
    }
    // Once for the filter, though two pipelines were cut; nothing when --threads was the default (the cores).
    expect(said).toEqual(["--threads 4: this filter's memory has room for 2 threads at once; using 2\n"]);
  });
});

describe("build --threads", () => {
  it("sets the bits one thread sets, and counts the keys within a few", () => {
    for (const type of ["split-block", "bloom"]) {
      const [one, two] = [1, 2].map((threads) => {
        const result = run(["build", file("log.txt"), "-o", file(`${type}-${threads}.bloom`), "--type", type, "--threads", String(threads)]);
        expect(result.code).toBe(0);
        return readFileSync(file(`${type}-${threads}.bloom`));
      });
      const [a, b] = [one, two].map((bytes) => deserialize(bytes));
      expect(a.constructor).toBe(b.constructor);
      const bits = (filter: typeof a) => ("bitArray" in filter ? filter.bitArray() : (filter as { toParquetBitset(): Uint8Array }).toParquetBitset());
      expect(Buffer.from(bits(b)).equals(Buffer.from(bits(a)))).toBe(true);
      // Two threads adding one new key at the same moment may both count it: the count is an estimate either way.
      expect(Math.abs(b.size - a.size)).toBeLessThanOrEqual(a.size * 0.001);
      const lines = log.toString("utf8").split("\n").map((line) => line.replace(/\r$/, ""));
      expect(b.hasMany(lines).every((answer) => answer === 1)).toBe(true);
      a.dispose();
      b.dispose();
    }
  });
});

describe("query --threads", () => {
  // A filter of the first half of the log, asked about all of it on standard input: both answers, in input order.
  const half = Buffer.from(log.toString("latin1").split("\n").slice(0, 50_000).join("\n") + "\n", "latin1");
  writeFileSync(file("half.txt"), half);

  it("writes what one thread writes, every line with its answer, for standard and split-block filters", () => {
    for (const type of ["bloom", "split-block"]) {
      const built = run(["build", file("half.txt"), "-o", file(`half-${type}.bloom`), "--type", type, "--p", "0.05", "--threads", "1"]);
      expect(built.code).toBe(0);
      const [one, ...others] = [1, 2, 3].map((threads) => {
        const result = run(["query", file(`half-${type}.bloom`), "-", "--threads", String(threads)], log);
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        return result.stdout;
      });
      for (const other of others) expect(other.equals(one)).toBe(true);
      // The answers are the library's, line by line: the key without "\r", then a tab and the answer.
      const filter = deserialize(readFileSync(file(`half-${type}.bloom`)));
      const keys = log.toString("utf8").split("\n").map((line) => line.replace(/\r$/, ""));
      const answers = filter.hasMany(keys);
      const expected = keys.map((key, i) => `${key}\t${answers[i] ? "probably present" : "definitely absent"}\n`).join("");
      expect(one.toString("utf8")).toBe(expected);
      expect(answers.includes(0) && answers.includes(1)).toBe(true);
      filter.dispose();
    }
  });

  it("answers in one thread, as the library does, for filters whose key hash workers cannot take apart", () => {
    const lines = log.toString("latin1").split("\n").slice(0, 50_000);
    const makers = {
      murmur: () => BloomFilter.create(50_000, 0.05, { hash: "murmur3_128" }),
      independent: () => BloomFilter.create(50_000, 0.05, { hash: ["fnv1a_32", "murmur3_32", "djb"] }),
    };
    for (const [name, make] of Object.entries(makers)) {
      const filter = make();
      filter.addMany(lines.map((line) => line.replace(/\r$/, "")));
      writeFileSync(file(`${name}.bloom`), filter.serialize());
      const keys = log.toString("utf8").split("\n").map((line) => line.replace(/\r$/, ""));
      const answers = filter.hasMany(keys);
      filter.dispose();
      const result = run(["query", file(`${name}.bloom`), "-", "--threads", "2"], log);
      expect(result.code).toBe(0);
      expect(result.stdout.toString("utf8")).toBe(keys.map((key, i) => `${key}\t${answers[i] ? "probably present" : "definitely absent"}\n`).join(""));
    }
    // A counting filter built by the CLI: the same answers whatever --threads says.
    expect(run(["build", file("half.txt"), "-o", file("half-counting.bloom"), "--type", "counting", "--p", "0.05"]).code).toBe(0);
    const outputs = [1, 2].map((threads) => run(["query", file("half-counting.bloom"), "-", "--threads", String(threads)], log));
    expect(outputs[0].code).toBe(0);
    expect(outputs[1].stdout.equals(outputs[0].stdout)).toBe(true);
  });

  it("with keys around -, answers them before and after the lines the workers wrote", () => {
    const filter = file("half-bloom.bloom");
    const lines = run(["query", filter, "-", "--threads", "1"], log).stdout.toString("utf8");
    const result = run(["query", filter, "https://crawl.example/before", "-", "https://crawl.example/after", "--threads", "2"], log, { BLOOMKIT_DEBUG: "1" });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/worker threads/); // the lines of standard input went to the workers
    expect(result.stdout.toString("utf8")).toBe(`https://crawl.example/before\tdefinitely absent\n${lines}https://crawl.example/after\tdefinitely absent\n`);
  });

  it("says --threads is not for --redis", () => {
    const result = run(["query", "--redis", "redis://127.0.0.1:1/0", "--name", "x", "k", "--threads", "2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--threads is for a filter file/);
  });
});

describe("which work goes to worker threads (BLOOMKIT_DEBUG says)", () => {
  const debug = { BLOOMKIT_DEBUG: "1" };
  /** The pipelines a run started: "N workers: what they do", in order. */
  const started = (stderr: string) => Array.from(stderr.matchAll(/^bloomkit debug: (\d+) worker threads? \(([^)]*)\)$/gm), (m) => `${m[1]} worker${m[1] === "1" ? "" : "s"}: ${m[2]}`);
  const half = Buffer.from(log.toString("latin1").split("\n").slice(0, 60_000).join("\n") + "\n", "latin1");
  writeFileSync(file("half.txt"), half);
  const ordered = "2 workers: hashing for this thread, which tests in input order";
  // dedup's thread also writes the groups: it counts as one of the two threads.
  const orderedWrites = "1 worker: hashing for this thread, which tests in input order and writes";
  const cases: [string, string[], Buffer | undefined, string[]][] = [
    ["dedup", ["dedup", file("log.txt"), "-o", file("debug-dedup.txt")], undefined, [orderedWrites]],
    ["dedup of standard input with --n", ["dedup", "-", "--n", "100k", "-o", file("debug-stdin.txt")], log, [orderedWrites]],
    ["intersect", ["intersect", file("log.txt"), file("half.txt"), "-o", file("debug-common.txt")], undefined, ["2 workers: add", "2 workers: has"]],
    ["build --type bloom", ["build", file("log.txt"), "--type", "bloom", "-o", file("debug.bloom")], undefined, ["2 workers: add"]],
    ["build --type split-block (one thread is as fast)", ["build", file("log.txt"), "--type", "split-block", "-o", file("debug.sbbf")], undefined, []],
  ];
  for (const [name, args, input, work] of cases) {
    it(`${name}: ${work.join(", ") || "no workers"} with --threads 2, none with --threads 1`, () => {
      const two = run([...args, "--threads", "2"], input, debug);
      expect(two.code, two.stderr).toBe(0);
      expect(started(two.stderr)).toEqual(work);
      const one = run([...args, "--threads", "1"], input, debug);
      expect(one.code, one.stderr).toBe(0);
      expect(started(one.stderr)).toEqual([]);
    });
  }

  it("query of standard input: lines past the first 4 MiB are hashed in 2 workers, queried here", () => {
    const built = run(["build", file("log.txt"), "--type", "split-block", "-o", file("query.sbbf"), "--threads", "1"]);
    expect(built.code, built.stderr).toBe(0);
    const two = run(["query", file("query.sbbf"), "-", "--threads", "2"], log, debug);
    expect(two.code, two.stderr).toBe(0);
    expect(started(two.stderr)).toEqual([ordered]);
    const one = run(["query", file("query.sbbf"), "-", "--threads", "1"], log, debug);
    expect(one.stdout.equals(two.stdout)).toBe(true);
    expect(started(one.stderr)).toEqual([]);
  });
});

describe("standard input of unknown length: dedup's growing filter", () => {
  // More distinct lines than the first layer's 1,000,000, so a second layer starts: each layer takes exactly its
  // count however the input comes in pieces (64 KiB from a pipe in one thread, 1 MiB to the workers).
  const random = rng(31);
  const lines: string[] = [];
  for (let i = 0; i < 1_400_000; i++) lines.push(String(i > 0 && random() < 0.2 ? Math.floor(random() * i) : i));
  const text = Buffer.from(lines.join("\n") + "\n");

  it("writes what one thread writes, keeping every first occurrence (a Set of the lines seen)", () => {
    const [one, ...others] = [1, 2, 3].map((threads) => {
      const result = run(["dedup", "-", "--repeats", file("growing-repeats.txt"), "--threads", String(threads)], text, { BLOOMKIT_DEBUG: "1" });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/a growing split-block Bloom filter of 2 layers/);
      if (threads > 1) expect(result.stderr).toMatch(/worker thread/);
      return { unique: result.stdout, repeats: readFileSync(file("growing-repeats.txt")), stderr: result.stderr.replace(/^bloomkit debug: .*\n/m, "") };
    });
    for (const other of others) {
      expect(other.unique.equals(one.unique)).toBe(true);
      expect(other.repeats.equals(one.repeats)).toBe(true);
      expect(other.stderr).toBe(one.stderr);
    }
    // No repeat is ever kept, and the first occurrences missing are within what the summary expects.
    const seen = new Set<string>();
    const firsts = lines.filter((line) => !seen.has(line) && Boolean(seen.add(line)));
    const kept = one.unique.toString("latin1").split("\n").slice(0, -1);
    expect(new Set(kept).size).toBe(kept.length);
    expect(kept.every((line) => seen.has(line))).toBe(true);
    const expectedLoss = Number(/false positives\): ([\d.]+)/.exec(one.stderr)?.[1]);
    expect(firsts.length - kept.length).toBeLessThanOrEqual(Math.max(5, 3 * expectedLoss));
    expect(kept.length + one.repeats.toString("latin1").split("\n").length - 1).toBe(lines.length);
  });

  it("starts no worker for a short pipe: threads begin once 4 MiB have come", () => {
    const short = run(["dedup", "-", "--threads", "4"], Buffer.from("a\nb\na\n"), { BLOOMKIT_DEBUG: "1" });
    expect(short.code, short.stderr).toBe(0);
    expect(short.stdout.toString()).toBe("a\nb\n");
    expect(short.stderr).not.toMatch(/worker thread/);
    expect(short.stderr).toMatch(/^There are 3 lines\.\nThere are 2 not repeated lines\./);
  });

  it("with --type bloom, grows standard Bloom layers, the same with threads", () => {
    const [one, two] = [1, 2].map((threads) => run(["dedup", "-", "--type", "bloom", "--threads", String(threads)], text));
    expect(one.stderr).toMatch(/a growing Bloom filter of 2 layers/);
    expect(two.stdout.equals(one.stdout)).toBe(true);
  });
});

describe("standard input redirected from a file", () => {
  /** Runs bloomkit with standard input the file at `path`, read from `offset` on (the shell's `< file` after a reader took the first bytes). */
  function redirected(args: string[], path: string, offset = 0) {
    const fd = openSync(path, "r");
    try {
      if (offset > 0) readSync(fd, Buffer.alloc(offset), 0, offset, null);
      const result = spawnSync(process.execPath, [BIN, ...args], { stdio: [fd, "pipe", "pipe"], maxBuffer: 1 << 30 });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr.toString("utf8") };
    } finally {
      closeSync(fd);
    }
  }

  it("is sized and read as the file is: dedup writes what it writes for the file's path", () => {
    for (const threads of ["1", "2"]) {
      const fromPath = run(["dedup", file("log.txt"), "--threads", threads]);
      const fromStdin = redirected(["dedup", "-", "--threads", threads], file("log.txt"));
      expect(fromStdin.code, fromStdin.stderr).toBe(0);
      expect(fromStdin.stderr).toMatch(/\(a split-block Bloom filter of /);
      expect(fromStdin.stderr).toBe(fromPath.stderr);
      expect(fromStdin.stdout.equals(fromPath.stdout)).toBe(true);
    }
  });

  it("is read on from where it stands, and sized for what is left", () => {
    const offset = log.indexOf(10, 1_000_000) + 1;
    writeFileSync(file("log-rest.txt"), log.subarray(offset));
    const fromPath = run(["dedup", file("log-rest.txt")]);
    const fromStdin = redirected(["dedup", "-"], file("log.txt"), offset);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stderr).toBe(fromPath.stderr);
    expect(fromStdin.stdout.equals(fromPath.stdout)).toBe(true);
    // query answers each line left, as for the same lines through a pipe.
    expect(run(["build", file("half.txt"), "-o", file("half-redirected.bloom"), "--type", "split-block"]).code).toBe(0);
    const piped = run(["query", file("half-redirected.bloom"), "-"], log.subarray(offset));
    const asked = redirected(["query", file("half-redirected.bloom"), "-"], file("log.txt"), offset);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout.equals(piped.stdout)).toBe(true);
  });

  it("is sized from samples of what is left, not of the bytes before where it stands", () => {
    // 4 MB of 2-byte lines before the offset, 2 MB of 100-byte lines after it: samples taken from the file's start
    // would count some 25 times too many lines, and size the filter for them.
    const before = Buffer.from("x\n".repeat(2_000_000));
    const rest = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `${String(i).padStart(8, "0")}-${"y".repeat(90)}\n`).join(""));
    writeFileSync(file("short-then-long.txt"), Buffer.concat([before, rest]));
    writeFileSync(file("long-only.txt"), rest);
    const fromPath = run(["dedup", file("long-only.txt"), "-o", "/dev/null"]);
    const fromStdin = redirected(["dedup", "-", "-o", "/dev/null"], file("short-then-long.txt"), before.length);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stderr).toMatch(/^There are 20,000 lines\.\n.*\(a split-block Bloom filter of /s);
    expect(fromStdin.stderr).toBe(fromPath.stderr);
  });
});
