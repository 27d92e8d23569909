// The real `bloomkit` binary in a child process, on generated files.
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BloomFilter, CuckooFilter, deserialize, MAX_SEGMENT_BITS, SplitBlockBloomFilter, splitBlockFalsePositiveRate } from "../bindings/index.js";
import { rng } from "./helpers.js";
import { buildRecord, parseRecord, reseal } from "./records.js";

const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "bloomkit-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

function run(args: string[], input?: string | Buffer) {
  const result = spawnSync(process.execPath, [BIN, ...args], { input, maxBuffer: 1 << 30 });
  return { code: result.status, stdout: result.stdout.toString("utf8"), stderr: result.stderr.toString("utf8"), raw: result.stdout };
}

/** A crawler-like file: repeats, CRLF lines, empty lines, Chinese, and no final newline. */
function crawlFile(lines: number, seed: number): { text: string; keys: string[] } {
  const random = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const id = random() < 0.3 && i > 0 ? Math.floor(random() * i) : i; // ~30% repeats
    const base = id % 97 === 0 ? "" : `https://例子.example/${id}?q=${id % 13}`;
    out.push(random() < 0.1 ? `${base}\r` : base);
  }
  const keys = out.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  return { text: out.join("\n"), keys };
}

/** The first occurrence of each key, in order: what dedup must approximate. */
function exactFirstOccurrences(keys: string[]): Set<number> {
  const seen = new Set<string>();
  const firsts = new Set<number>();
  keys.forEach((key, i) => {
    if (!seen.has(key)) {
      seen.add(key);
      firsts.add(i);
    }
  });
  return firsts;
}

describe("bloomkit dedup", () => {
  const { text, keys } = crawlFile(60_000, 1);
  writeFileSync(file("crawl.txt"), text);
  const lines = text.split("\n");
  const firsts = exactFirstOccurrences(keys);

  /** Checks an output against the input: kept lines in order, each a first occurrence, losses within the expected count. */
  function check(output: string, stderr: string, repeats?: string) {
    const kept = output.split("\n");
    if (kept[kept.length - 1] === "") kept.pop();
    // Map kept lines back to input positions, in order.
    let at = 0;
    const positions: number[] = [];
    for (const line of kept) {
      while (at < lines.length && lines[at] !== line) at++;
      expect(at, `kept line ${JSON.stringify(line)} is in input order`).toBeLessThan(lines.length);
      positions.push(at++);
    }
    for (const p of positions) expect(firsts.has(p)).toBe(true);
    const lost = firsts.size - positions.length;
    const expectedLoss = Number(/wrongly dropped as repeats \(false positives\): ([\d.]+)/.exec(stderr)?.[1]);
    expect(lost).toBeGreaterThanOrEqual(0);
    expect(lost).toBeLessThanOrEqual(Math.max(5, 3 * expectedLoss));
    expect(stderr).toContain(`There are ${lines.length.toLocaleString("en-US")} lines.`);
    expect(stderr).toContain(`There are ${positions.length.toLocaleString("en-US")} not repeated lines.`);
    if (repeats !== undefined) {
      const repeated = repeats.split("\n").filter((l, i, all) => !(i === all.length - 1 && l === ""));
      expect(repeated.length + kept.length).toBe(lines.length);
    }
  }

  it("keeps the first occurrence of each line in order and drops at most its expected false positives", () => {
    const result = run(["dedup", file("crawl.txt"), "-o", file("unique.txt"), "--repeats", file("repeats.txt")]);
    expect(result.code).toBe(0);
    check(readFileSync(file("unique.txt"), "utf8"), result.stderr, readFileSync(file("repeats.txt"), "utf8"));
    expect(result.stderr).not.toContain("\r"); // no progress line when stderr is not a terminal
  });

  it("reads standard input with a growing filter, writing to standard output", () => {
    const result = run(["dedup", "-"], text);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("a growing split-block Bloom filter of 1 layer");
    check(result.stdout, result.stderr);
  });

  it("honours --n/--p and --memory", () => {
    const sized = run(["dedup", file("crawl.txt"), "--n", "50k", "--p", "1/10000"]);
    expect(sized.code).toBe(0);
    check(sized.stdout, sized.stderr);
    const small = run(["dedup", file("crawl.txt"), "--memory", "64KB", "--type", "bloom"]);
    expect(small.code).toBe(0);
    expect(small.stderr).toContain("a Bloom filter of 512,000 bits");
    check(small.stdout, small.stderr);
    const blocks = run(["dedup", file("crawl.txt"), "--memory", "64KB"]);
    expect(blocks.stderr).toContain("a split-block Bloom filter of 512,000 bits");
    check(blocks.stdout, blocks.stderr);
    expect(run(["dedup", file("crawl.txt"), "--type", "cuckoo"]).stderr).toMatch(/--type must be split-block or bloom, got "cuckoo"/);
  });

  it("keeps bytes as they are: CRLF, empty lines, a missing final newline, very long lines", () => {
    const long = "L".repeat(5_000_000);
    const input = `a\r\nb\n\n${long}\na\n\nb\r\n${long}\nend`;
    const result = run(["dedup"], input);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`a\r\nb\n\n${long}\nend`);
    expect(run(["dedup"], "").stdout).toBe("");
  });
});

describe("bloomkit intersect", () => {
  const random = rng(7);
  const a = Array.from({ length: 30_000 }, (_, i) => `https://a.example/${i}`);
  const shared = Array.from({ length: 5_000 }, (_, i) => `https://shared.example/${i}/${Math.floor(random() * 1e6)}`);
  const b = Array.from({ length: 30_000 }, (_, i) => `https://b.example/${i}`);
  writeFileSync(file("A.txt"), [...a, ...shared, ...shared.slice(0, 100)].join("\n") + "\n");
  writeFileSync(file("B.txt"), [...shared.slice().reverse(), ...b].join("\r\n"));

  it("--exact equals the true intersection and removes its bucket files", () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const result = run(["intersect", file("A.txt"), file("B.txt"), "--exact", "--memory", "200KB", "--tmp", tmp]);
    expect(result.code).toBe(0);
    expect(new Set(result.stdout.trim().split("\n"))).toEqual(new Set(shared));
    expect(result.stdout.trim().split("\n")).toHaveLength(shared.length);
    expect(result.stderr).toMatch(/5,000 distinct lines are in both/);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("approximate output contains the true intersection", () => {
    const result = run(["intersect", file("A.txt"), file("B.txt")]);
    expect(result.code).toBe(0);
    const got = new Set(result.stdout.split(/\r?\n/).filter(Boolean));
    for (const line of shared) expect(got.has(line)).toBe(true);
    expect(got.size - shared.length).toBeLessThan(200); // false positives, about 0.1% of 30,000
  });

  it("removes its temporary files on error", () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const result = run(["intersect", file("A.txt"), file("missing.txt"), "--exact", "--tmp", tmp]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/^bloomkit: cannot read .*missing\.txt: no such file or directory$/);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("removes its temporary files on Ctrl-C", async () => {
    const big = file("big.txt");
    writeFileSync(big, Array.from({ length: 2_000_000 }, (_, i) => `https://big.example/${i}`).join("\n"));
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const child = spawn(process.execPath, [BIN, "intersect", big, big, "--exact", "--memory", "4MB", "--tmp", tmp], { stdio: "ignore" });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal ? 130 : _code)));
    for (let i = 0; i < 400 && readdirSync(tmp).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(readdirSync(tmp).length).toBe(1); // its bucket folder exists
    child.kill("SIGINT");
    expect(await exited).not.toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe("signals while a pipe has nothing to give", () => {
  it("SIGTERM stops dedup of a FIFO whose writer is idle at once, and leaves the old output and no temporary file", async () => {
    const fifo = file("idle.fifo");
    spawnSync("mkfifo", [fifo]);
    const out = file("idle-out.txt");
    writeFileSync(out, "the old output\n");
    const child = spawn(process.execPath, [BIN, "dedup", fifo, "-q", "-o", out], { stdio: "ignore" });
    const exited = new Promise<string | number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
    // A writer that gives two lines and then keeps the FIFO open with nothing more (exec: killing it ends the sleep).
    const writer = spawn("sh", ["-c", `printf 'a\\nb\\n'; exec sleep 30`], { stdio: ["ignore", "pipe", "ignore"] });
    writer.stdout.pipe(createWriteStream(fifo));
    // The temporary output exists once the command's signal handlers are in place: only then does SIGTERM test them.
    const temporary = () => readdirSync(dir).filter((name) => name.startsWith(".idle-out.txt."));
    for (let i = 0; i < 400 && temporary().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(temporary()).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300)); // the two lines read, the read of more waiting
    const sent = Date.now();
    child.kill("SIGTERM");
    const result = await Promise.race([exited, new Promise((r) => setTimeout(() => r("still running"), 5000))]);
    writer.kill();
    child.kill("SIGKILL");
    expect(result).not.toBe("still running");
    expect(Date.now() - sent).toBeLessThan(5000);
    expect(readFileSync(out, "utf8")).toBe("the old output\n");
    expect(readdirSync(dir).filter((name) => name.startsWith(".idle-out.txt."))).toEqual([]);
  });
});

describe("bloomkit build, query, info, merge", () => {
  writeFileSync(file("keys1.txt"), Array.from({ length: 20_000 }, (_, i) => `key-${i}`).join("\n") + "\n");
  writeFileSync(file("keys2.txt"), Array.from({ length: 20_000 }, (_, i) => `key-${i + 10_000}`).join("\n") + "\n");

  it.each(["bloom", "counting", "cuckoo", "scalable", "split-block"])("builds a %s filter file that query and info read", (type) => {
    const out = file(`f-${type}.bloom`);
    const built = run(["build", file("keys1.txt"), "-o", out, "--type", type]);
    expect(built.code).toBe(0);
    expect(existsSync(out)).toBe(true);
    const queried = run(["query", out, "key-5", "key-19999", "nope"]);
    expect(queried.stdout).toBe("key-5\tprobably present\nkey-19999\tprobably present\nnope\tdefinitely absent\n");
    const piped = run(["query", out, "-"], "key-1\r\nabsent-key\n");
    expect(piped.stdout).toBe("key-1\tprobably present\nabsent-key\tdefinitely absent\n");
    const info = run(["info", out]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/^type \w+Filter\nn [\d,]+ /);
    expect(info.stdout).toMatch(/current FPR/);
  });

  it("info on a counting filter built from repeated lines says how many adds it holds and about how many distinct keys", () => {
    // Each of 10,000 keys twice: the counting filter's size counts 20,000 adds.
    const keys = Array.from({ length: 10_000 }, (_, i) => `twice-${i}`);
    writeFileSync(file("twice.txt"), [...keys, ...keys].join("\n") + "\n");
    const out = file("twice.counting");
    expect(run(["build", file("twice.txt"), "-o", out, "--type", "counting", "--n", "20000"]).code).toBe(0);
    const info = run(["info", out]).stdout;
    expect(info).toMatch(/^n 20,000 adds held \(less removes; a key added twice counts twice\)$/m);
    const estimate = Number(/^estimated count ([\d,]+) \(distinct keys, from the fill\)$/m.exec(info)![1].replaceAll(",", ""));
    expect(Math.abs(estimate - keys.length) / keys.length).toBeLessThan(0.03);
  });

  it.each([1e-9, 1e-4, 0.05])("sizes a split-block file to meet --p %s with the input's lines, not to Parquet's power of two", (p) => {
    // Parquet's sizing (the library's default) gave 131,072 bits for 1,000 lines at 1e-9, which answer at 3.6e-8 (splitBlockFalsePositiveRate(1000, 512)).
    writeFileSync(file("thousand.txt"), Array.from({ length: 1000 }, (_, i) => `line-${i}`).join("\n") + "\n");
    const out = file(`thousand-${p}.sbbf`);
    expect(run(["build", file("thousand.txt"), "-o", out, "--type", "split-block", "--p", String(p)]).code).toBe(0);
    const filter = deserialize(readFileSync(out));
    expect(filter).toBeInstanceOf(SplitBlockBloomFilter);
    const blocks = (filter as SplitBlockBloomFilter).bits / 256;
    expect(splitBlockFalsePositiveRate(1000, blocks)).toBeLessThanOrEqual(p);
    expect(splitBlockFalsePositiveRate(1000, blocks - 1)).toBeGreaterThan(p); // and no more blocks than that takes
    filter.dispose();
  });

  it("merges two Bloom filter files into their union", () => {
    expect(run(["build", file("keys1.txt"), "-o", file("m1.bloom"), "--n", "40k"]).code).toBe(0);
    expect(run(["build", file("keys2.txt"), "-o", file("m2.bloom"), "--n", "40k"]).code).toBe(0);
    expect(run(["merge", file("m1.bloom"), file("m2.bloom"), "-o", file("m3.bloom")]).code).toBe(0);
    expect(run(["query", file("m3.bloom"), "key-0", "key-29999", "zzz"]).stdout).toBe(
      "key-0\tprobably present\nkey-29999\tprobably present\nzzz\tdefinitely absent\n",
    );
  });

  it("builds with --strategy double a file that merges with one built before triple hashing, and says so when a merge needs it", () => {
    // test/fixtures/bloom-double-strings.bin: BloomFilter.create(1000, 0.001) of these lines, written at 641c217 (double hashing).
    const old = fileURLToPath(new URL("./fixtures/bloom-double-strings.bin", import.meta.url));
    writeFileSync(file("fixture-keys.txt"), Array.from({ length: 1000 }, (_, i) => `https://example.com/fixture/${i}`).join("\n") + "\n");
    writeFileSync(file("more-keys.txt"), "https://example.com/more/1\nhttps://example.com/more/2\n");
    expect(run(["build", file("more-keys.txt"), "-o", file("more-triple.bloom"), "--n", "1000", "--p", "0.001"]).code).toBe(0);
    const refused = run(["merge", old, file("more-triple.bloom"), "-o", file("merged-double.bloom")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`bloomkit: cannot merge ${old} and ${file("more-triple.bloom")}: different strategy: ${old}'s is double, ${file("more-triple.bloom")}'s is triple (build the second again with --strategy double)\n`);
    expect(existsSync(file("merged-double.bloom"))).toBe(false);
    expect(run(["build", file("more-keys.txt"), "-o", file("more-double.bloom"), "--n", "1000", "--p", "0.001", "--strategy", "double"]).code).toBe(0);
    expect(run(["info", file("more-double.bloom")]).stdout).toContain("(double hashing, xxh3, seed 0)");
    expect(run(["merge", old, file("more-double.bloom"), "-o", file("merged-double.bloom")]).code).toBe(0);
    const answers = run(["query", file("merged-double.bloom"), "-"], readFileSync(file("fixture-keys.txt"), "utf8") + "https://example.com/more/2\n").stdout;
    expect(answers.split("\n").filter((line) => line.endsWith("\tprobably present"))).toHaveLength(1001);
    // The same lines built with --strategy double give the old file byte for byte.
    expect(run(["build", file("fixture-keys.txt"), "-o", file("again.bloom"), "--n", "1000", "--p", "0.001", "--strategy", "double"]).code).toBe(0);
    expect(readFileSync(file("again.bloom")).equals(readFileSync(old))).toBe(true);
    expect(run(["info", file("more-triple.bloom")]).stdout).toContain("(triple hashing, xxh3, seed 0)");
  });

  it("a merge refused for both the size and the strategy says to build again with the same --n and --p and with --strategy double", () => {
    // It said only "--strategy double" under a message about m: built again that way, the merge was refused again, for m.
    const old = fileURLToPath(new URL("./fixtures/bloom-double-strings.bin", import.meta.url));
    writeFileSync(file("few-keys.txt"), "https://example.com/few/1\nhttps://example.com/few/2\n");
    expect(run(["build", file("few-keys.txt"), "-o", file("few-triple.bloom"), "-q"]).code).toBe(0);
    const refused = run(["merge", file("few-triple.bloom"), old, "-o", file("merged-few.bloom")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^bloomkit: cannot merge .*few-triple\.bloom and .*bloom-double-strings\.bin: different bits \(m\): .*few-triple\.bloom's is \d+, .*bloom-double-strings\.bin's is 14378; build both with the same --n and --p \(without --n, build sizes each for its own line count\), and the first with --strategy double\n$/,
    );
    expect(existsSync(file("merged-few.bloom"))).toBe(false);
  });

  it("refuses --strategy it does not take, and for types it does not apply to, before reading anything", () => {
    const wrong = run(["build", file("keys1.txt"), "-o", file("s.bloom"), "--strategy", "independent"]);
    expect([wrong.code, wrong.stderr]).toEqual([2, expect.stringContaining('--strategy must be triple or double, got "independent"')]);
    const cuckoo = run(["build", file("keys1.txt"), "-o", file("s.bloom"), "--type", "cuckoo", "--strategy", "double"]);
    expect([cuckoo.code, cuckoo.stderr]).toEqual([2, expect.stringContaining("--strategy does not apply to --type cuckoo: it applies to bloom, counting, scalable")]);
    expect(existsSync(file("s.bloom"))).toBe(false);
    for (const type of ["counting", "scalable"]) {
      expect(run(["build", file("keys1.txt"), "-o", file(`s-${type}.bloom`), "--type", type, "--strategy", "double"]).code).toBe(0);
      expect(run(["info", file(`s-${type}.bloom`)]).stdout).toMatch(/double hashing|strategy double/);
    }
  });
});

describe("a folded BloomFilter file (fold() in the library)", () => {
  const keys = Array.from({ length: 500 }, (_, i) => `https://example.com/folded/${i}`);
  /** A foldable filter of the keys, folded by 2 when asked, written to `name`; its bits and base bits. */
  function written(name: string, fold: boolean) {
    const whole = BloomFilter.create(1000, 0.01, { foldable: true }).addMany(keys);
    const filter = fold ? whole.fold(2) : whole;
    writeFileSync(file(name), filter.serialize());
    const sizes = { bits: filter.bits, baseBits: whole.bits };
    if (filter !== whole) filter.dispose();
    whole.dispose();
    return sizes;
  }

  it("info says it was folded, and from how many bits", () => {
    // Its m line read as an unfolded filter's of that m: nothing said why a merge with one was refused.
    const { bits, baseBits } = written("folded.bloom", true);
    const fmt = (n: number) => n.toLocaleString("en-US");
    expect(run(["info", file("folded.bloom")]).stdout).toContain(`\nm ${fmt(bits)} bits (${fmt(bits / 8)} bytes), folded by 2 from ${fmt(baseBits)} bits\n`);
    written("unfolded.bloom", false);
    expect(run(["info", file("unfolded.bloom")]).stdout).not.toContain("folded");
  });

  it("a merge with an unfolded file of the same m, or with the file it was folded from, says which is folded and what merges with it", () => {
    const { bits, baseBits } = written("folded.bloom", true);
    written("unfolded.bloom", false);
    // An unfolded filter of the folded one's m: refused as "different folding (base bits)", with no hint of what to do.
    const same = BloomFilter.withSize(bits, BloomFilter.deserialize(readFileSync(file("folded.bloom"))).hashes).addMany(["x"]);
    writeFileSync(file("same-m.bloom"), same.serialize());
    same.dispose();
    const fmt = (n: number) => n.toLocaleString("en-US");
    const hint = "a folded filter merges only with one folded from the same m to the same m: merge the filters before folding them";
    const refused = run(["merge", file("folded.bloom"), file("same-m.bloom"), "-o", file("fm.bloom")]);
    expect([refused.code, refused.stderr]).toEqual([
      1,
      `bloomkit: cannot merge ${file("folded.bloom")} and ${file("same-m.bloom")}: different folding (base bits): ${file("folded.bloom")}'s is ${baseBits}, ${file("same-m.bloom")}'s is ${bits}; ${file("folded.bloom")} is folded by 2 from ${fmt(baseBits)} bits, ${file("same-m.bloom")} is not folded: ${hint}\n`,
    ]);
    // With the file it was folded from, m differs: building both with the same --n and --p would not help.
    const original = run(["merge", file("unfolded.bloom"), file("folded.bloom"), "-o", file("fm.bloom")]);
    expect([original.code, original.stderr]).toEqual([
      1,
      `bloomkit: cannot merge ${file("unfolded.bloom")} and ${file("folded.bloom")}: different bits (m): ${file("unfolded.bloom")}'s is ${baseBits}, ${file("folded.bloom")}'s is ${bits}; ${file("unfolded.bloom")} is not folded, ${file("folded.bloom")} is folded by 2 from ${fmt(baseBits)} bits: ${hint}\n`,
    ]);
    expect(existsSync(file("fm.bloom"))).toBe(false);
    // Two files folded alike merge, and the union answers as the library's does.
    expect(run(["merge", file("folded.bloom"), file("folded.bloom"), "-o", file("ff.bloom")]).code).toBe(0);
    const merged = BloomFilter.deserialize(readFileSync(file("ff.bloom")));
    expect(run(["query", file("ff.bloom"), keys[0], "absent-key"]).stdout).toBe(`${keys[0]}\tprobably present\nabsent-key\t${merged.has("absent-key") ? "probably present" : "definitely absent"}\n`);
    merged.dispose();
  });
});

describe("files written before triple hashing (double hashing, test/fixtures/*-double-*.bin from 641c217)", () => {
  const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;
  const members = Array.from({ length: 1000 }, (_, i) => `https://example.com/fixture/${i}`);

  it.each(["bloom-double-strings.bin", "counting-double-strings.bin", "scalable-double-strings.bin"])("%s: info says double hashing, query finds every key", (name) => {
    const info = run(["info", fixture(name)]);
    expect(info.code).toBe(0);
    // A scalable file said nothing of its hashing: a double and a triple one read the same.
    expect(info.stdout).toMatch(/\n(k \d+ \(double hashing, xxh3, seed 0\)|every layer: double hashing, xxh3, seed 0)\n/);
    const queried = run(["query", fixture(name), "-"], members.join("\n") + "\n");
    expect(queried.code).toBe(0);
    expect(queried.stdout.split("\n").filter((line) => line.endsWith("\tprobably present")).length).toBe(members.length);
  });

  it("a scalable file built now says triple hashing", () => {
    expect(run(["build", file("keys1.txt"), "-o", file("triple.scalable"), "--type", "scalable"]).code).toBe(0);
    expect(run(["info", file("triple.scalable")]).stdout).toMatch(/\nevery layer: triple hashing, xxh3, seed 0\n/);
  });

  it("info says a cuckoo file's key hash and seed, as it says a Bloom file's", () => {
    // A cuckoo file said nothing of its hash: one made with murmur3_128 and seed 9 read as one of the defaults.
    const made = CuckooFilter.create(1000, 0.01, { hash: "murmur3_128", seed: 9 });
    made.addMany(members);
    writeFileSync(file("murmur.cuckoo"), made.serialize());
    made.dispose();
    expect(run(["info", file("murmur.cuckoo")]).stdout).toMatch(/\nm [\d,]+ slots \([\d,]+ buckets of 4\), \d+-bit fingerprints\nhash murmur3_128, seed 9\n/);
    writeFileSync(file("members-cuckoo.txt"), members.join("\n") + "\n");
    expect(run(["build", file("members-cuckoo.txt"), "-o", file("built.cuckoo"), "--type", "cuckoo"]).code).toBe(0);
    expect(run(["info", file("built.cuckoo")]).stdout).toMatch(/\nhash xxh3, seed 0\n/);
  });

  it("merges two double-hashing files into a double-hashing file, and refuses a double and a triple one", () => {
    writeFileSync(file("members.txt"), members.join("\n") + "\n");
    expect(run(["merge", fixture("bloom-double-strings.bin"), fixture("bloom-double-strings.bin"), "-o", file("dd.bloom")]).code).toBe(0);
    expect(run(["info", file("dd.bloom")]).stdout).toMatch(/\nk 10 \(double hashing, xxh3, seed 0\)\n/);
    expect(run(["query", file("dd.bloom"), members[0], members[999]]).stdout).toBe(`${members[0]}\tprobably present\n${members[999]}\tprobably present\n`);
    expect(run(["build", file("members.txt"), "-o", file("t.bloom"), "--n", "1000", "--p", "0.001"]).code).toBe(0);
    const mixed = run(["merge", fixture("bloom-double-strings.bin"), file("t.bloom"), "-o", file("dt.bloom")]);
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toMatch(/different strategy: .*bloom-double-strings\.bin's is double, .*t\.bloom's is triple/);
    expect(existsSync(file("dt.bloom"))).toBe(false);
  });
});

describe("a merge with a file whose hashing build does not make", () => {
  // Files built before xxh3 became the default (6d490d8) hash with xxh64, double hashing: made here as they were.
  const keys = Array.from({ length: 100 }, (_, i) => `https://example.com/xxh64/${i}`);
  const made = BloomFilter.create(1000, 0.01, { strategy: "double", hash: "xxh64" }).addMany(keys);
  writeFileSync(file("old-xxh64.bloom"), made.serialize());
  made.dispose();
  writeFileSync(file("new-keys.txt"), "https://example.com/new/1\n");
  const library = "bloomkit build hashes with xxh3 and seed 0 only: a filter that merges with";

  it("does not tell the user to build again with --strategy double, which is refused again, for the hash; it says the library makes one", () => {
    expect(run(["build", file("new-keys.txt"), "-o", file("new-triple.bloom"), "--n", "1000", "--p", "0.01", "-q"]).code).toBe(0);
    const refused = run(["merge", file("old-xxh64.bloom"), file("new-triple.bloom"), "-o", file("merged-xxh64.bloom")]);
    expect(refused.code).toBe(1);
    // It said "(build the second again with --strategy double)"; built so, the merge was refused for "different hash".
    expect(refused.stderr).not.toContain("--strategy double");
    expect(refused.stderr).toBe(
      `bloomkit: cannot merge ${file("old-xxh64.bloom")} and ${file("new-triple.bloom")}: different strategy: ${file("old-xxh64.bloom")}'s is double, ${file("new-triple.bloom")}'s is triple; ${library} ${file("old-xxh64.bloom")} (double hashing, xxh64, seed 0) is made with the library's BloomFilter.create, with that hashing\n`,
    );
    expect(run(["build", file("new-keys.txt"), "-o", file("new-double.bloom"), "--n", "1000", "--p", "0.01", "-q", "--strategy", "double"]).code).toBe(0);
    const again = run(["merge", file("new-double.bloom"), file("old-xxh64.bloom"), "-o", file("merged-xxh64.bloom")]);
    expect(again.stderr).toBe(
      `bloomkit: cannot merge ${file("new-double.bloom")} and ${file("old-xxh64.bloom")}: different hash: ${file("new-double.bloom")}'s is xxh3, ${file("old-xxh64.bloom")}'s is xxh64; ${library} ${file("old-xxh64.bloom")} (double hashing, xxh64, seed 0) is made with the library's BloomFilter.create, with that hashing\n`,
    );
    expect(existsSync(file("merged-xxh64.bloom"))).toBe(false);
    // What the hint says works: a filter made so merges, and holds both files' keys.
    const fresh = BloomFilter.create(1000, 0.01, { strategy: "double", hash: "xxh64" }).addMany(["https://example.com/new/1"]);
    writeFileSync(file("fresh.bloom"), fresh.serialize());
    fresh.dispose();
    expect(run(["merge", file("old-xxh64.bloom"), file("fresh.bloom"), "-o", file("merged-xxh64.bloom")]).code).toBe(0);
    const answers = run(["query", file("merged-xxh64.bloom"), "-"], [...keys, "https://example.com/new/1"].join("\n") + "\n").stdout;
    expect(answers.split("\n").filter((line) => line.endsWith("\tprobably present"))).toHaveLength(keys.length + 1);
  });

  it("with m differing too, says the same n and p as well, and not to build both with --n and --p", () => {
    const refused = run(["merge", file("new-triple.bloom"), file("old-xxh64.bloom"), "-o", file("merged-xxh64-2.bloom")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${library} ${file("old-xxh64.bloom")} (double hashing, xxh64, seed 0)`);
    const small = run(["build", file("new-keys.txt"), "-o", file("unsized.bloom"), "-q"]);
    expect(small.code).toBe(0);
    const both = run(["merge", file("unsized.bloom"), file("old-xxh64.bloom"), "-o", file("merged-xxh64-2.bloom")]);
    expect(both.stderr).toMatch(new RegExp(`different bits \\(m\\): .*; ${library} .*old-xxh64\\.bloom \\(double hashing, xxh64, seed 0\\) is made with the library's BloomFilter\\.create, with that hashing and the same n and p\\n$`));
    expect(both.stderr).not.toContain("--strategy double");
  });
});

describe("query with - among its keys", () => {
  it("answers the keys before -, standard input's lines in its place, then the keys after (the README's query urls.bloom https://example.com/ -)", () => {
    writeFileSync(file("some.txt"), "url1\nurl7\n");
    expect(run(["build", file("some.txt"), "-o", file("some.bloom")]).code).toBe(0);
    expect(run(["query", file("some.bloom"), "url1", "-"], "url7\nurl9\n").stdout).toBe("url1\tprobably present\nurl7\tprobably present\nurl9\tdefinitely absent\n");
    expect(run(["query", file("some.bloom"), "url9", "-", "url1"], "url7").stdout).toBe("url9\tdefinitely absent\nurl7\tprobably present\nurl1\tprobably present\n");
    expect(run(["query", file("some.bloom"), "-", "url1"], "").stdout).toBe("url1\tprobably present\n");
  });

  it("refuses - twice: standard input is read once", () => {
    expect(run(["query", file("some.bloom"), "-", "url1", "-"], "url7\n")).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "bloomkit: - is given twice: standard input is read once (see bloomkit query --help)\n",
    });
  });
});

describe("- for a filter file: standard output for -o, standard input for a filter read", () => {
  writeFileSync(file("std1.txt"), "one\ntwo\n");
  writeFileSync(file("std2.txt"), "three\n");
  const names = () => readdirSync(dir);

  it("build and merge -o - write the filter to standard output, byte for byte the file, and no file named -", () => {
    for (const type of ["bloom", "fuse8"]) {
      expect(run(["build", file("std1.txt"), "-o", file(`std1.${type}`), "--type", type]).code).toBe(0);
      const piped = spawnSync(process.execPath, [BIN, "build", file("std1.txt"), "-o", "-", "--type", type], { cwd: dir });
      expect(piped.status).toBe(0);
      expect(piped.stderr.toString()).toMatch(/^standard output: type \w+, 2 lines read\n$/);
      expect(Buffer.compare(piped.stdout, readFileSync(file(`std1.${type}`)))).toBe(0);
    }
    expect(run(["build", file("std2.txt"), "-o", file("std2.bloom"), "--n", "2"]).code).toBe(0);
    expect(run(["build", file("std1.txt"), "-o", file("std1-n2.bloom"), "--n", "2"]).code).toBe(0);
    expect(run(["merge", file("std1-n2.bloom"), file("std2.bloom"), "-o", file("std-merged.bloom")]).code).toBe(0);
    const merged = spawnSync(process.execPath, [BIN, "merge", file("std1-n2.bloom"), file("std2.bloom"), "-o", "-"], { cwd: dir });
    expect(merged.status).toBe(0);
    expect(Buffer.compare(merged.stdout, readFileSync(file("std-merged.bloom")))).toBe(0);
    expect(names()).not.toContain("-");
  });

  it("info, query and merge read a filter given as - from standard input", () => {
    const filter = readFileSync(file("std1.bloom"));
    expect(run(["info", "-"], filter).stdout).toBe(run(["info", file("std1.bloom")]).stdout);
    expect(run(["query", "-", "two", "nine"], filter).stdout).toBe("two\tprobably present\nnine\tdefinitely absent\n");
    const merged = run(["merge", "-", file("std2.bloom"), "-o", file("std-merged-in.bloom")], readFileSync(file("std1-n2.bloom")));
    expect(merged.code).toBe(0);
    expect(Buffer.compare(readFileSync(file("std-merged-in.bloom")), readFileSync(file("std-merged.bloom")))).toBe(0);
    const junk = run(["info", "-"], "not a filter\n");
    expect(junk.code).toBe(1);
    expect(junk.stderr).toBe("bloomkit: standard input is not a bloomkit filter: the magic number is missing\n");
  });

  it("refuses standard input twice", () => {
    expect(run(["query", "-", "-"], readFileSync(file("std1.bloom")))).toMatchObject({
      code: 2,
      stderr: "bloomkit: the filter and the keys cannot both come from standard input (see bloomkit query --help)\n",
    });
    expect(run(["merge", "-", "-", "-o", file("twice.bloom")])).toMatchObject({
      code: 2,
      stderr: "bloomkit: only one of the two filters can come from standard input (see bloomkit merge --help)\n",
    });
  });
});

describe("bloomkit calc", () => {
  it("reproduces hur.st's worked example (n = 10,000, p = 0.001), with SI suffixes and fractions", () => {
    const result = run(["calc", "--n", "10k", "--p", "1/1000"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("m = 143,776 bits (17.55 KiB)\nk = 10\n");
    expect(result.stdout).toContain("size = 17,972 bytes");
  });

  it("takes m as bits or as a size, and any three of n, p, m, k", () => {
    expect(run(["calc", "--m", "143776", "--n", "10000"]).stdout).toContain("k = 10");
    expect(run(["calc", "--m", "17.55KiB", "--n", "10k"]).stdout).toContain("m = 143,770 bits");
    expect(run(["calc", "--m", "1M", "--k", "7", "--p", "1%"]).stdout).toMatch(/n = 10[0-9],[0-9]{3}/);
    expect(run(["calc", "--n", "5M", "--m", "64MB", "--k", "7"]).stdout).toMatch(/p = /);
  });

  it("says so beside k when the best k is more hashes than a filter takes, naming that k", () => {
    // --n with --m: k* = m/n · ln 2; its rate is below k = 256's, by the formula.
    const rate = (n: number, m: number, k: number) => k * Math.log1p(-Math.exp((-k * n) / m)); // ln p
    const wide = run(["calc", "--n", "10000", "--m", "512e6"]).stdout;
    const best = Math.round((512e6 / 10000) * Math.LN2);
    expect(wide).toContain(`k = 256 (the most a filter takes; ${best.toLocaleString("en-US")} would give a lower rate)\n`);
    expect(rate(10000, 512e6, best)).toBeLessThan(rate(10000, 512e6, 256));
    // --m with --p: k = −log₂ p holds more items at that p than 256 does.
    const capacity = (m: number, k: number, p: number) => Math.floor((-m * Math.log1p(-Math.exp(Math.log(p) / k))) / k);
    expect(run(["calc", "--m", "64MB", "--p", "1e-300"]).stdout).toContain(`k = 256 (the most a filter takes; 997 would hold more items at this p)\n`);
    expect(capacity(512e6, 997, 1e-300)).toBeGreaterThan(capacity(512e6, 256, 1e-300));
    // --n with --p: k = 256 reaches p in more bits than −log₂ p hashes would, as calc --n 10k --p 1e-100 --k 256 says.
    // It was refused, naming 6.1e-78 as "the smallest p possible for --n 10k".
    const tiny = run(["calc", "--n", "10k", "--p", "1e-100"]);
    expect(tiny.code).toBe(0);
    expect(tiny.stdout).toContain(`k = 256 (the most a filter takes; 332 would need fewer bits)\n`);
    expect(tiny.stdout.replace(/k = 256 .*\n/, "k = 256\n")).toBe(run(["calc", "--n", "10k", "--p", "1e-100", "--k", "256"]).stdout);
    const m = Number(/m = ([0-9,]+) bits/.exec(tiny.stdout)![1].replaceAll(",", ""));
    expect(rate(10000, m, 256)).toBeLessThanOrEqual(Math.log(1e-100));
    expect(rate(10000, m - 1, 256)).toBeGreaterThan(Math.log(1e-100));
    // At the edge, k* = 256.46 rounds to 256: nothing to say; nor when --k is given.
    expect(run(["calc", "--n", "10000", "--m", "3700000"]).stdout).toContain("k = 256\n");
    expect(run(["calc", "--n", "10000", "--m", "512e6", "--k", "256"]).stdout).toContain("k = 256\n");
  });

  it("writes a count past 2^53 − 1 in exponent form, as it writes a tiny rate, not in 300 digits", () => {
    const huge = run(["calc", "--n", "1e300", "--m", "1000", "--k", "1"]);
    expect(huge.code, huge.stderr).toBe(0);
    expect(huge.stdout).toMatch(/^n = 1\.00000e\+300\np = /);
    // A derived n past 2^53 − 1 too (p within 1e-16 of 1: about 37 items a bit), whose last digits were noise ("…677,100").
    expect(run(["calc", "--m", "1e15", "--p", "0.9999999999999999", "--k", "1"]).stdout).toMatch(/^n = 3\.67368e\+16\n/);
    // m and the size stay exact: the calculator takes at most 2^53 − 1 bits.
    const largest = run(["calc", "--m", "9007199254740991", "--n", "1e300", "--k", "1"]).stdout;
    expect(largest).toContain("m = 9,007,199,254,740,991 bits (");
    expect(largest).toContain("size = 1,125,899,906,842,624 bytes\n");
    for (const line of huge.stdout.split("\n")) expect(line.length, line).toBeLessThan(60);
  });

  it("writes bits per item below 0.005 to 3 digits, in exponent form when tiny, not as 0.00", () => {
    expect(run(["calc", "--n", "1e300", "--m", "1000", "--k", "1"]).stdout).toContain("\nbits per item = 1.00e-297\n");
    expect(run(["calc", "--n", "1e6", "--m", "3000", "--k", "1"]).stdout).toContain("\nbits per item = 0.00300\n");
    expect(run(["calc", "--n", "1e6", "--m", "5000", "--k", "1"]).stdout).toContain("\nbits per item = 0.01\n");
  });

  it("writes a size of a TiB or more in TiB, as the library's messages do, not in thousands of GiB", () => {
    expect(run(["calc", "--n", "1e14", "--p", "0.01"]).stdout).toContain(" bits (108.97 TiB)\n");
    expect(run(["calc", "--m", "9007199254740991", "--n", "1e6"]).stdout).toContain("m = 9,007,199,254,740,991 bits (1024.00 TiB)\n");
    expect(run(["calc", "--n", "1e11", "--p", "0.01"]).stdout).toContain(" bits (111.58 GiB)\n");
  });
});

describe("errors and exit codes", () => {
  it.each([
    [["frobnicate"], 2, /unknown command "frobnicate"/],
    [["dedup", "--bogus"], 2, /unknown option --bogus/],
    [["dedup", "a", "b"], 2, /dedup takes one input/],
    [["dedup", "--n", "lots"], 2, /--n must be a positive whole number: 10000 or 2.5e6, or with k, M, G or T .*\(10k, 5M\); got "lots"/],
    [["dedup", "--n", "10k", "--memory", "1MB"], 2, /not both/],
    [["dedup", "--memory", "12 parsecs"], 2, /--memory must be a size/],
    [["build", "x.txt"], 2, /build needs -o FILE/],
    [["build", "-", "-o", "x.bloom"], 2, /needs --n/],
    [["build", "x.txt", "-o", "x.bloom", "--type", "magic"], 2, /--type must be one of bloom, counting, cuckoo, scalable, split-block, fuse8, fuse16, got "magic"/],
    [["calc", "--n", "10"], 2, /calc needs --n and --p/],
    [["calc", "--p", "2", "--n", "1"], 2, /--p must be a probability/],
    [["intersect", "onlyone"], 2, /intersect takes two files/],
    [["query"], 2, /query needs a filter file/],
    [["dedup", "/no/such/file"], 1, /^bloomkit: cannot read \/no\/such\/file: no such file or directory$/],
    [["info", "/no/such.bloom"], 1, /cannot read \/no\/such.bloom: no such file or directory/],
    [["calc", "--n", "1000", "--m", "100", "--p", "1e-9"], 2, /--m 100 cannot reach --p 1e-9 for --n 1000/],
  ])("%j exits %i", (args, code, message) => {
    const result = run(args as string[]);
    expect(result.code).toBe(code);
    expect(result.stderr.trim()).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("rejects files that are not filters, and merges of incompatible filters", () => {
    writeFileSync(file("junk.bloom"), "not a filter at all");
    expect(run(["info", file("junk.bloom")])).toMatchObject({ code: 1 });
    expect(run(["info", file("junk.bloom")]).stderr).toMatch(/^bloomkit: \S*junk\.bloom is not a bloomkit filter: the magic number is missing\n$/);
    expect(run(["build", file("keys1.txt"), "-o", file("small.bloom"), "--n", "10"]).code).toBe(0);
    expect(run(["build", file("keys1.txt"), "-o", file("cuckoo.bloom"), "--type", "cuckoo"]).code).toBe(0);
    const incompatible = run(["merge", file("small.bloom"), file("f-bloom.bloom"), "-o", file("x.bloom")]);
    expect(incompatible.code).toBe(1);
    expect(incompatible.stderr).toMatch(/cannot merge .*different bits/);
    // A filter of another type is named by the --type word it was built with, not the library's class.
    for (const type of ["counting", "scalable", "split-block", "fuse8", "fuse16"]) {
      expect(run(["build", file("keys1.txt"), "-o", file(`${type}.bloom`), "--type", type]).code, type).toBe(0);
    }
    // [first file, its --type word, second file, its word]. The paths are put in whole: a placeholder replaced in
    // the finished text could match a letter of the random temporary folder's name instead.
    for (const [a, aType, b, bType] of [
      ["small", "bloom", "cuckoo", "cuckoo"],
      ["split-block", "split-block", "small", "bloom"],
      ["counting", "counting", "scalable", "scalable"],
      ["fuse8", "fuse8", "fuse16", "fuse16"],
    ]) {
      const result = run(["merge", file(`${a}.bloom`), file(`${b}.bloom`), "-o", file("x.bloom")]);
      expect(result, `${a} ${b}`).toMatchObject({
        code: 1,
        stdout: "",
        stderr: `bloomkit: merge takes two filter files of --type bloom; got ${aType} (${file(`${a}.bloom`)}) and ${bType} (${file(`${b}.bloom`)})\n`,
      });
    }
  });

  it("has --help for every command, exit 0, and bloomkit help COMMAND says the same", () => {
    expect(run(["--help"]).stdout).toMatch(/commands:\n {2}dedup/);
    for (const command of ["dedup", "intersect", "build", "query", "info", "merge", "calc"]) {
      const help = run([command, "--help"]);
      expect(help.code, command).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^usage: bloomkit ${command}`));
      expect(run(["help", command]), `help ${command}`).toEqual(help);
    }
    // No command: the list of commands, as wrong usage is told, on standard error with exit code 2.
    expect(run([])).toMatchObject({ code: 2, stdout: "", stderr: run(["--help"]).stdout });
    expect(run(["help", "frobnicate"])).toMatchObject({ code: 2, stderr: 'bloomkit: unknown command "frobnicate"; commands: dedup, intersect, build, query, info, merge, calc (see bloomkit --help)\n' });
  });

  it("bloomkit help help says what help does, as help calc says what calc does", () => {
    const result = run(["help", "help"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^usage: bloomkit help \[COMMAND\]\n\n.*\bCOMMAND\b.*\n$/);
  });

  it("a cuckoo build of a short file, sized by its line count, holds every line", () => {
    // Sized at 95% load, 14 lines took 4 buckets and 30 took 8, which these lines overfilled ("the cuckoo filter is full: 2 of 14 keys did not fit").
    for (const [name, lines] of [["nodes.txt", Array.from({ length: 14 }, (_, i) => `node-${i + 1}`)], ["pages.txt", Array.from({ length: 30 }, (_, i) => `https://example.com/${i + 1}`)]] as const) {
      writeFileSync(file(name), `${lines.join("\n")}\n`);
      const built = run(["build", file(name), "-o", file(`${name}.cuckoo`), "--type", "cuckoo"]);
      expect(built.stderr).not.toMatch(/full/);
      expect(built.code, name).toBe(0);
      expect(run(["query", file(`${name}.cuckoo`), ...lines]).stdout).toBe(lines.map((line) => `${line}\tprobably present\n`).join(""));
    }
  });

  it("a cuckoo build that overflows says so", () => {
    writeFileSync(file("dup.txt"), Array.from({ length: 20 }, () => "same").join("\n"));
    const result = run(["build", file("dup.txt"), "-o", file("dup.bloom"), "--type", "cuckoo"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the line "same" repeats more than a cuckoo filter can hold: at most 8 copies of one key .*; 12 of 20 lines did not fit/);
  });
});

describe("a filter file whose header declares more than the file holds", () => {
  /**
   * A Bloom filter record's header alone, with checksums that match: bits to
   * fill `segments` wasm memories (4 GiB each), the payload they need declared
   * and missing. 65 bytes for one segment, 69 with the segment count of more.
   */
  function headerOnly(segments: number): Uint8Array {
    const { params } = parseRecord(BloomFilter.withSize(64, 1).serialize());
    const edited = new Uint8Array(params.length + (segments > 1 ? 4 : 0));
    edited.set(params);
    const view = new DataView(edited.buffer);
    const bits = segments * MAX_SEGMENT_BITS;
    view.setBigUint64(0, BigInt(bits), true); // bits
    view.setBigUint64(8, BigInt(bits), true); // base bits
    if (segments > 1) view.setUint32(params.length, segments, true);
    const record = buildRecord({ version: segments > 1 ? 2 : 1, type: 1, params: edited, payload: new Uint8Array(0) });
    new DataView(record.buffer).setBigUint64(12 + edited.length, BigInt(bits / 8), true);
    return reseal(record).subarray(0, 12 + edited.length + 16);
  }

  it.each([
    { segments: 1, what: "one segment (4 GiB)" },
    { segments: 64, what: "64 segments (256 GiB)" },
  ])("declaring $what is truncated, said before the filter is allocated", ({ segments }) => {
    const header = headerOnly(segments);
    expect(header.length).toBe(segments > 1 ? 69 : 65);
    const damaged = file(`damaged-${segments}.bloom`);
    writeFileSync(damaged, header);
    const needed = header.length + (segments * MAX_SEGMENT_BITS) / 8 + 8;
    writeFileSync(file("ok-1.bloom"), BloomFilter.withSize(64, 1).serialize());
    for (const args of [["info", damaged], ["query", damaged, "key"], ["merge", damaged, file("ok-1.bloom"), "-o", file("merged.bloom")]]) {
      const result = run(args);
      expect(result.code, args.join(" ")).toBe(1);
      // "the record needs", compared with the file's size: not "the stream ended", read after 4 GiB were allocated, nor "cannot allocate".
      expect(result.stderr).toBe(`bloomkit: ${damaged} cannot be read as a bloomkit filter: truncated: ${header.length} bytes, the record needs ${needed}\n`);
    }
    expect(existsSync(file("merged.bloom"))).toBe(false);
  });
});

describe("a filter file this bloomkit cannot read", () => {
  it("is named as empty, as not a filter, or as a truncated filter, by what its few bytes are", () => {
    const record = BloomFilter.withSize(64, 1).serialize();
    for (const [name, content, said] of [
      ["empty.bloom", new Uint8Array(0), "is empty: not a bloomkit filter"],
      ["hi.bloom", new TextEncoder().encode("hi\n"), "is not a bloomkit filter: the magic number is missing"],
      ["head.bloom", record.subarray(0, 6), "cannot be read as a bloomkit filter: truncated: the stream ended after 6 bytes"],
    ] as const) {
      writeFileSync(file(name), content);
      const result = run(["info", file(name)]);
      expect(result.code).toBe(1);
      expect(result.stderr.startsWith(`bloomkit: ${file(name)} ${said}`), result.stderr).toBe(true);
    }
    expect(run(["info", "-"], "").stderr).toBe("bloomkit: standard input is empty: not a bloomkit filter\n");
  });

  it("is named as a bloomkit filter of a newer format or type, not as something else", () => {
    const bytes = BloomFilter.withSize(64, 1).serialize();
    const newer = Uint8Array.from(bytes);
    new DataView(newer.buffer).setUint16(4, 99, true);
    const unknownType = Uint8Array.from(bytes);
    unknownType[6] = 250;
    for (const [name, content, reason] of [
      ["newer.bloom", newer, "unsupported format version 99 (this bloomkit reads versions 1 to"],
      ["unknown-type.bloom", unknownType, "unknown filter type 250"],
    ] as const) {
      writeFileSync(file(name), content);
      const result = run(["info", file(name)]);
      expect(result.code).toBe(1);
      expect(result.stderr.startsWith(`bloomkit: ${file(name)} cannot be read as a bloomkit filter: ${reason}`)).toBe(true);
    }
  });
});

describe("progress", () => {
  // script(1) gives the command a pseudo-terminal as its stderr; the output itself goes to a file.
  const inTerminal = (extra: string) =>
    spawnSync("script", ["-qec", `'${process.execPath}' '${BIN}' dedup '${file("crawl.txt")}' -o '${file("tty-out.txt")}' ${extra}`, "/dev/null"], { encoding: "utf8" });

  it("shows a rate line on stderr when it is a terminal", () => {
    const result = inTerminal("");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/\r\x1b\[2Kdedup: [\d.]+ MB of [\d.]+ MB \([\d.]+%\), [\d.]+ MB\/s, [\d,]+ lines/);
    expect(result.stdout).toContain("not repeated lines");
  });

  it("query of standard input redirected from a file shows how far through the file it is", () => {
    expect(run(["build", file("crawl.txt"), "-o", file("tty.bloom")]).code).toBe(0);
    const result = spawnSync("script", ["-qec", `'${process.execPath}' '${BIN}' query '${file("tty.bloom")}' - < '${file("crawl.txt")}' > '${file("tty-answers.txt")}'`, "/dev/null"], {
      encoding: "utf8",
    });
    expect(result.status, result.stdout).toBe(0);
    const size = statSync(file("crawl.txt")).size;
    expect(result.stdout).toMatch(new RegExp(`\\r\\x1b\\[2Kquery: [\\d.]+ MB of ${(size / 1e6).toFixed(1)} MB \\([\\d.]+%\\)`));
    // One answer a line, each ending in a newline (the file's last line has none).
    const lines = readFileSync(file("crawl.txt"), "utf8").replace(/\n$/, "").split("\n").length;
    expect(readFileSync(file("tty-answers.txt"), "utf8").match(/\n/g)).toHaveLength(lines);
  });

  it("--quiet hides it", () => {
    const result = inTerminal("--quiet");
    expect(result.status).toBe(0);
    expect(result.stdout).not.toMatch(/MB\/s/);
    expect(result.stdout).toContain("not repeated lines");
  });
});
