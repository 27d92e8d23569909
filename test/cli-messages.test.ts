// What the CLI says: grammar, sizes, where usage errors send the user, the
// version, the accepted forms of sizes and numbers, the cause of a failed
// cuckoo build, intersect's sizing and warning when A comes on stdin, and a
// write to standard output that fails.
import { spawnSync } from "node:child_process";
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = new URL("..", import.meta.url).pathname;
const BIN = join(ROOT, "dist/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "bloomkit-messages-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

function run(args: string[], input?: string, bin = BIN) {
  const result = spawnSync(process.execPath, [bin, ...args], { input, maxBuffer: 1 << 30, encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const lines = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe("the version", () => {
  const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };

  it.each(["-v", "--version"])("%s prints the package's version, exit 0", (flag) => {
    expect(run([flag])).toEqual({ code: 0, stdout: `bloomkit ${version}\n`, stderr: "" });
  });

  it("is read from package.json, not written into the program", () => {
    // A copy of the package whose package.json says another version.
    const copy = file("package-copy");
    cpSync(join(ROOT, "dist"), join(copy, "dist"), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    writeFileSync(join(copy, "package.json"), JSON.stringify({ ...manifest, version: "9.8.7-test" }));
    expect(run(["--version"], undefined, join(copy, "dist/cli/main.js")).stdout).toBe("bloomkit 9.8.7-test\n");
  });
});

describe("usage errors point to the command's own help, exit 2", () => {
  it.each([
    [["dedup", "--bogus"], "unknown option --bogus (see bloomkit dedup --help)"],
    [["intersect", "one"], "intersect takes two files, got 1 (see bloomkit intersect --help)"],
    [["build", "x.txt"], "build needs -o FILE (see bloomkit build --help)"],
    [["query"], "query needs a filter file (see bloomkit query --help)"],
    [["calc", "--n", "10"], "calc needs --n and --p, --n and --m, --m and --p, or any three of --n --p --m --k; got --n (see bloomkit calc --help)"],
    [["frobnicate"], 'unknown command "frobnicate"; commands: dedup, intersect, build, query, info, merge, calc (see bloomkit --help)'],
    [["constructor"], 'unknown command "constructor"; commands: dedup, intersect, build, query, info, merge, calc (see bloomkit --help)'],
  ])("%j", (args, message) => {
    const result = run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`bloomkit: ${message}\n`);
  });
});

describe("an option whose value is missing, before another option", () => {
  writeFileSync(file("in.txt"), "a\nb\n");

  it.each([
    [["build", "in.txt", "-o", "-q"], "-o needs a value (see bloomkit build --help)", "-q"],
    [["merge", "a.bloom", "b.bloom", "-o", "--output"], "-o needs a value (see bloomkit merge --help)", "--output"],
    [["dedup", "in.txt", "--repeats", "--quiet"], "--repeats needs a value (see bloomkit dedup --help)", "--quiet"],
    [["calc", "--n", "--p", "0.01"], "--n needs a value (see bloomkit calc --help)", "--p"],
    [["calc", "--n", "10k", "--p"], "--p needs a value (see bloomkit calc --help)", "--p"],
  ])("%j is a usage error, and makes no file named after the next option", (args, message, stray) => {
    const result = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: "utf8" });
    expect({ code: result.status, stderr: result.stderr }).toEqual({ code: 2, stderr: `bloomkit: ${message}\n` });
    expect(existsSync(file(stray))).toBe(false);
  });

  it("still takes - for standard output, a value given with =, and a negative number for its own check", () => {
    expect(run(["dedup", file("in.txt"), "-o", "-", "-q"]).stdout).toBe("a\nb\n");
    expect(run(["dedup", file("in.txt"), "--output=" + file("-q"), "-q"]).code).toBe(0);
    expect(readFileSync(file("-q"), "utf8")).toBe("a\nb\n");
    const negative = run(["calc", "--n", "-5", "--p", "0.01"]);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toMatch(/^bloomkit: --n must be a positive whole number: .*; got "-5"/);
    expect(run(["calc", "--n", "10", "--p", "-.5"]).stderr).toMatch(/^bloomkit: --p must be a probability .*; got "-\.5"/);
  });
});

describe("an option given twice", () => {
  it.each([
    [["dedup", "in.txt", "-o", "first.txt", "-o", "second.txt"], '-o is given twice, as "first.txt" and as "second.txt"; give it once (see bloomkit dedup --help)'],
    [["dedup", "in.txt", "--output=first.txt", "-o", "second.txt"], '--output is given twice, as "first.txt" and as "second.txt"; give it once (see bloomkit dedup --help)'],
    [["build", "in.txt", "-o", "first.txt", "--n", "5", "--n=6"], '--n is given twice, as "5" and as "6"; give it once (see bloomkit build --help)'],
  ])("%j is a usage error, and writes neither output", (args, message) => {
    const result = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: "utf8" });
    expect({ code: result.status, stderr: result.stderr }).toEqual({ code: 2, stderr: `bloomkit: ${message}\n` });
    expect(existsSync(file("first.txt")) || existsSync(file("second.txt"))).toBe(false);
  });

  it("a flag given twice is the flag", () => {
    expect(run(["dedup", file("in.txt"), "-q", "--quiet"]).code).toBe(0);
  });
});

describe("messages stay one line, and name what was typed", () => {
  it.each([
    [["dedup", ""], 2, `bloomkit: an input's file name is empty ("") (see bloomkit dedup --help)\n`],
    [["dedup", "no\nsuch"], 1, "bloomkit: cannot read no\\nsuch: no such file or directory\n"],
    [["calc", "--n", "5\r\n6", "--p", "0.01"], 2, /^bloomkit: --n must be .*; got "5\\r\\n6" \(see bloomkit calc --help\)\n$/],
    [["calc", "--n", "1000", "--p", "1e-400"], 2, 'bloomkit: --p must be at least 5e-324, the smallest number there is here; got "1e-400" (see bloomkit calc --help)\n'],
    [["build", "in.txt", "-q=1", "-o", "x.bloom"], 2, "bloomkit: unknown option -q=1 (see bloomkit build --help)\n"],
    [["intersect", "in.txt", "in.txt", "--exact", "--tmp", ""], 2, 'bloomkit: --tmp names no folder ("") (see bloomkit intersect --help)\n'],
    // The option as typed: short or long.
    [["build", "in.txt", "-o", "x.bloom", "-t", "foo"], 2, /^bloomkit: -t must be one of bloom, .*, got "foo" \(see bloomkit build --help\)\n$/],
    [["build", "in.txt", "-o", "x.bloom", "--type", "foo"], 2, /^bloomkit: --type must be one of bloom, .*, got "foo" \(see bloomkit build --help\)\n$/],
    // dedup takes -t as build does: it said "unknown option -t".
    [["dedup", "in.txt", "-t", "foo"], 2, /^bloomkit: -t must be split-block or bloom, got "foo" \(see bloomkit dedup --help\)\n$/],
    [["dedup", "in.txt", "--output="], 2, `bloomkit: an output's file name is empty (--output "") (see bloomkit dedup --help)\n`],
    [["build", "in.txt", "--output="], 2, `bloomkit: an output's file name is empty (--output "") (see bloomkit build --help)\n`],
  ] as const)("%j", (args, code, message) => {
    const result = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: "utf8" });
    expect(result.status).toBe(code);
    if (typeof message === "string") expect(result.stderr).toBe(message);
    else expect(result.stderr).toMatch(message);
  });

  // /proc/version exists, but /proc takes no new file: the temporary output beside it was "no such file or directory".
  it.runIf(existsSync("/proc/version"))("an output in a folder that takes no new files says so, not that there is no such file", () => {
    writeFileSync(file("proc-in.txt"), "a\n");
    const result = run(["build", file("proc-in.txt"), "-o", "/proc/version", "--n", "10"]);
    expect(result).toEqual({ code: 1, stdout: "", stderr: "bloomkit: cannot write /proc/version: /proc does not take new files (the output is written as a new file beside it, then renamed)\n" });
  });

  it("merge of filters of different sizes says m, naming each file with its own", () => {
    writeFileSync(file("merge-in.txt"), "a\nb\n");
    expect(run(["build", file("merge-in.txt"), "-o", file("p1.bloom"), "--n", "1000", "--p", "0.01"]).code).toBe(0);
    expect(run(["build", file("merge-in.txt"), "-o", file("p10.bloom"), "--n", "1000", "--p", "0.1"]).code).toBe(0);
    // It said "this filter's is 9586, other's is 4793", the library's words for union()'s filters, which left the user to work out which file was which.
    expect(run(["merge", file("p1.bloom"), file("p10.bloom"), "-o", file("merged.bloom")]).stderr).toBe(
      `bloomkit: cannot merge ${file("p1.bloom")} and ${file("p10.bloom")}: different bits (m): ${file("p1.bloom")}'s is 9586, ${file("p10.bloom")}'s is 4793; build both with the same --n and --p (without --n, build sizes each for its own line count)\n`,
    );
  });
});

describe("build from a pipe", () => {
  // Counting the lines of a pipe would read it to its end, leaving nothing to build from (an empty filter, exit 0).
  const viaPipe = (args: string) => spawnSync("bash", ["-c", `'${process.execPath}' '${BIN}' build <(printf 'a\\nb\\nc\\n') ${args}`], { encoding: "utf8" });

  it("without --n is refused as reading standard input is, and no filter file is made", () => {
    for (const type of ["bloom", "split-block", "counting", "cuckoo"]) {
      const result = viaPipe(`--type ${type} -o '${file(`pipe-${type}.bloom`)}'`);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/^bloomkit: reading \/dev\/fd\/\d+, which is not a regular file, build needs --n \(or --type scalable\) \(see bloomkit build --help\)\n$/);
      expect(existsSync(file(`pipe-${type}.bloom`))).toBe(false);
    }
  });

  it("with --n, or as a scalable filter, holds every line", () => {
    for (const args of ["--n 10", "--type scalable"]) {
      const out = file(`pipe-${args.replace(/\W+/g, "-")}.bloom`);
      expect(viaPipe(`${args} -o '${out}'`).status).toBe(0);
      expect(run(["query", out, "a", "b", "c"]).stdout).not.toMatch(/absent/);
    }
  });
});

describe("build from standard input redirected from a file", () => {
  /** `bloomkit build - …` with standard input the file at `path`, `skip` bytes of it already read (as a shell's `read` leaves it). */
  const fromFile = (path: string, args: string[], skip = 0) => {
    const fd = openSync(path, "r");
    try {
      if (skip > 0) expect(readSync(fd, Buffer.alloc(skip), 0, skip, null)).toBe(skip); // read on from where it stands: moves its offset
      const result = spawnSync(process.execPath, [BIN, "build", "-", ...args], { stdio: [fd, "pipe", "pipe"], encoding: "utf8" });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    } finally {
      closeSync(fd);
    }
  };

  it("without --n counts the file's lines, as build of the file by name does: the same filter, byte for byte", () => {
    writeFileSync(file("redirected.txt"), lines(5000, "url-").join("\n") + "\n");
    for (const type of ["bloom", "split-block", "counting", "cuckoo"]) {
      expect(run(["build", file("redirected.txt"), "--type", type, "-q", "-o", file(`named-${type}.bloom`)]).code).toBe(0);
      const result = fromFile(file("redirected.txt"), ["--type", type, "-q", "-o", file(`redirected-${type}.bloom`)]);
      expect(result, type).toMatchObject({ code: 0, stderr: expect.stringContaining("5,000 lines read") });
      expect(readFileSync(file(`redirected-${type}.bloom`)).equals(readFileSync(file(`named-${type}.bloom`))), type).toBe(true);
    }
  });

  it("counts only what is left to read when standard input does not start at the file's start", () => {
    const head = "skipped-0\nskipped-1\n";
    writeFileSync(file("offset.txt"), head + lines(300, "kept-").join("\n") + "\n");
    writeFileSync(file("offset-rest.txt"), lines(300, "kept-").join("\n") + "\n");
    expect(run(["build", file("offset-rest.txt"), "-q", "-o", file("rest.bloom")]).code).toBe(0);
    const result = fromFile(file("offset.txt"), ["-q", "-o", file("offset.bloom")], Buffer.byteLength(head));
    expect(result).toMatchObject({ code: 0, stderr: expect.stringContaining("300 lines read") });
    expect(readFileSync(file("offset.bloom")).equals(readFileSync(file("rest.bloom")))).toBe(true);
  });

  it("from a pipe it still needs --n, in words that say why", () => {
    expect(run(["build", "-", "-o", file("piped.bloom")], "a\nb\n")).toEqual({
      code: 2,
      stdout: "",
      stderr: "bloomkit: reading standard input from a pipe or a device, build needs --n (or --type scalable): its lines cannot be counted first without reading it to its end (see bloomkit build --help)\n",
    });
    expect(existsSync(file("piped.bloom"))).toBe(false);
  });
});

describe("wrong usage is reported before what the machine or the files refuse", () => {
  // --memory 1000TB is more than any machine has free (exit 1), and missing.txt cannot be read (exit 1): the usage error comes first, exit 2.
  it.each([
    [["dedup", "missing.txt", "--n", "10", "--memory", "1000TB"], "give --n and --p, or --memory, not both (see bloomkit dedup --help)"],
    [["dedup", "missing.txt", "--memory", "1000TB", "--threads", "x"], '--threads must be a whole number from 1 to 256; got "x" (see bloomkit dedup --help)'],
    [["intersect", "missing.txt", "b.txt", "--exact", "--n", "5", "--memory", "1000TB"], "--n sizes the approximate filter; --exact needs none (see bloomkit intersect --help)"],
    [["intersect", "missing.txt", "b.txt", "--threads", "2", "--exact", "--memory", "1000TB"], "--threads is for the approximate intersection; --exact runs in one thread (see bloomkit intersect --help)"],
  ])("%j", (args, message) => {
    const result = run(args as string[]);
    expect(result.stderr).toBe(`bloomkit: ${message}\n`);
    expect(result.code).toBe(2);
  });
});

describe("numbers and sizes: the errors list the forms accepted", () => {
  it("takes a count with a suffix that binary floating point misses by a rounding step (4.35T is 4349999999999.9995)", () => {
    expect(run(["calc", "--n", "4.35T", "--p", "0.01"]).stdout).toMatch(/^n = 4,350,000,000,000\n/);
    expect(run(["calc", "--n", "2.5k", "--p", "0.01"]).stdout).toMatch(/^n = 2,500\n/);
  });

  it("takes kB, the SI symbol of a kilobyte (as ls and du write it), as KB", () => {
    expect(run(["calc", "--n", "1k", "--m", "1kB"])).toEqual(run(["calc", "--n", "1k", "--m", "1KB"]));
    expect(run(["calc", "--n", "1k", "--m", "1kB"]).stdout).toContain("\nm = 8,000 bits (");
    expect(run(["dedup", "--memory", "64kB", "-q"], "a\nb\na\n")).toMatchObject({ code: 0, stdout: "a\nb\n" });
  });

  it.each([
    [["dedup", "--memory", "64M"], /--memory must be a size: a number of bytes with an optional unit, B, KB, MB, GB or TB \(powers of 1000\) or KiB, MiB, GiB or TiB \(powers of 1024\), as in 64MB, 17\.55KiB or 1GiB; got "64M"/],
    [["intersect", "a", "b", "--memory", "lots"], /--memory must be a size: .*KiB, MiB, GiB or TiB.*; got "lots"/],
    [["calc", "--n", "ten"], /--n must be a positive whole number: 10000 or 2\.5e6, or with k, M, G or T for thousand, million, billion, trillion \(10k, 5M\); got "ten"/],
    // A count of keys is whole: --n 1.5 sized a filter for one and a half keys, 1.2345k for 1,234.5.
    [["calc", "--n", "1.5", "--p", "0.01"], /--n must be a positive whole number: .*; got "1\.5"/],
    [["build", "x.txt", "-o", "x.bloom", "--n", "1.2345k"], /--n must be a positive whole number: .*; got "1\.2345k"/],
    [["dedup", "--n", "2.5"], /--n must be a positive whole number: .*; got "2\.5"/],
    [["intersect", "a", "b", "--n", "0.0005k"], /--n must be a positive whole number: .*; got "0\.0005k"/],
    [["calc", "--n", "10k", "--p", "2"], /--p must be a probability between 0 and 1: a decimal \(0\.01, 1e-3\), a percentage \(1%\) or a fraction \(1\/1000\); got "2"/],
    // Each part of a rate is an unsigned decimal: -1/-1000 read as 0.001, and Number() took 0x1% for 1%.
    [["calc", "--n", "10k", "--p", "-1/-1000"], /--p must be a probability between 0 and 1: .*; got "-1\/-1000"/],
    [["dedup", "--p", "-1/-2"], /--p must be a probability between 0 and 1: .*; got "-1\/-2"/],
    [["calc", "--n", "10k", "--p", "0x1%"], /--p must be a probability between 0 and 1: .*; got "0x1%"/],
    [["build", "x.txt", "-o", "x.bloom", "--p", "0b1%"], /--p must be a probability between 0 and 1: .*; got "0b1%"/],
    [["intersect", "a", "b", "--p", "-1e-400"], /--p must be a probability between 0 and 1: .*; got "-1e-400"/],
    // A rate of 0 written as a fraction: "must be at least 5e-324" took the 1 of 0/1 for a rate written above 0.
    [["calc", "--n", "10k", "--p", "0/1"], /--p must be a probability between 0 and 1: .*; got "0\/1"/],
    [["build", "x.txt", "-o", "x.bloom", "--p", "0.0/25"], /--p must be a probability between 0 and 1: .*; got "0\.0\/25"/],
    [["calc", "--n", "10k", "--m", "12 parsecs"], /--m must be a whole number of bits \(958506, 1e6, or with k, M, G or T: 1M\) or a size with a unit \(B, KB, MB, GB, TB, KiB, MiB, GiB or TiB: 17\.55KiB, 64MB\); got "12 parsecs"/],
    [["calc", "--n", "10k", "--m", "1M", "--k", "2.5"], /--k must be a whole number of hash functions, 1 or more \(as in 7\); got "2\.5"/],
    // Number() reads these as 16 and 3.
    [["calc", "--n", "10k", "--m", "1M", "--k", "0x10"], /--k must be a whole number of hash functions, 1 or more \(as in 7\); got "0x10"/],
    [["calc", "--n", "10k", "--m", "1M", "--k", "0b11"], /--k must be a whole number of hash functions, 1 or more \(as in 7\); got "0b11"/],
  ])("%j", (args, message) => {
    const result = run(args as string[]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("values that do not go together: usage errors naming the options and values as typed, exit 2", () => {
  writeFileSync(file("calc-a.txt"), lines(10_000, "a-").join("\n") + "\n");
  writeFileSync(file("calc-b.txt"), lines(100, "b-").join("\n") + "\n");
  writeFileSync(file("calc-$&.txt"), "x\ny\nz\n");
  writeFileSync(file("calc-empty.txt"), "");
  const smallest = "6\\.1\\d+e-78";
  const smallestForAny = "6\\.1066\\d+e-78";

  it.each([
    [["calc", "--n", "10k", "--p", "0.01", "--k", "300"], '--k must be an integer from 1 to 256; got "300"'],
    // Options for the other way of intersecting are refused, not ignored.
    [["intersect", file("calc-a.txt"), file("calc-b.txt"), "--exact", "--p", "0.01"], "--p is the approximate filter's false-positive rate; --exact makes no false matches"],
    [["intersect", file("calc-a.txt"), file("calc-b.txt"), "--tmp", dir], "--tmp is where --exact puts its bucket files; the approximate intersection writes none"],
    [["calc", "--n", "10", "--m", "0.4"], '--m must be a whole number of bits \\(958506, .*; got "0\\.4"'],
    [["calc", "--n", "10", "--m", "1.5"], '--m must be a whole number of bits \\(958506, .*; got "1\\.5"'],
    [["calc", "--n", "10", "--m", "0.01B"], '--m must be at least 1 bit; got "0\\.01B"'],
    // A size is rounded to the nearest bit once it holds one: 0.1 bytes are 0.8 bits, none.
    [["calc", "--n", "10", "--m", "0.1B"], '--m must be at least 1 bit; got "0\\.1B"'],
    // A number past the largest double is too large, not malformed.
    [["calc", "--n", "1e400", "--p", "0.01"], '--n must be below 1\\.8e308, the largest number there is here; got "1e400"'],
    [["calc", "--n", "10", "--m", "1e400"], '--m must be below 1\\.8e308, .*; got "1e400"'],
    [["calc", "--n", "10", "--m", "1e400KiB"], '--m must be below 1\\.8e308, .*; got "1e400KiB"'],
    [["dedup", file("calc-a.txt"), "--memory", "1e306TB"], '--memory must be below 1\\.8e308, .*; got "1e306TB"'],
    [["intersect", file("calc-a.txt"), file("calc-b.txt"), "--n", "1e306k"], '--n must be below 1\\.8e308, .*; got "1e306k"'],
    [["calc", "--n", "10", "--m", "2e16"], '--m must be an integer from 1 to 9007199254740991; got "2e16"'],
    [["calc", "--n", "10k", "--p", "0.01", "--m", "1M", "--k", "3"], "calc takes at most three of --n --p --m --k: the fourth follows from them; got all four"],
    [["calc", "--n", "1000", "--m", "100", "--p", "1/1e9"], "--m 100 cannot reach --p 1/1e9 for --n 1000: the best is 0\\.99\\d+ with k = 1"],
    [["calc", "--m", "10", "--k", "5", "--p", "0.1%"], "--m 10 with --k 5 cannot hold even one item at --p 0\\.1%"],
    // An m it would refuse as --m is not printed either; it is written as calc writes a count past 2^53 − 1, to 6 digits.
    [["calc", "--n", "1e15", "--p", "0.01"], "--n 1e15 and --p 0\\.01 need m = 9\\.58506e\\+15 bits, more than the 9007199254740991 \\(2\\^53 − 1\\) the calculator takes: give a smaller --n or a larger --p"],
    [["calc", "--n", "1e15", "--p", "0.01", "--k", "7"], "--n 1e15 and --p 0\\.01 with --k 7 need m = 9\\.\\d{5}e\\+15 bits, more than the 9007199254740991 .*"],
    [["calc", "--n", "1e300", "--p", "0.5"], "--n 1e300 and --p 0\\.5 need m = 1\\.44270e\\+300 bits, more than the 9007199254740991 .*"],
    // A --p no filter reaches is refused before the inputs are opened (a missing one too): for --n, or for any number of lines.
    [["intersect", file("calc-a.txt"), file("calc-b.txt"), "--p", "1e-100"], `--p 1e-100 needs k = 332 hash functions, more than the 256 a filter takes; the smallest p possible for any number of lines is ${smallestForAny}`],
    [["intersect", file("missing.txt"), file("calc-b.txt"), "--p", "1e-100"], `--p 1e-100 needs k = 332 .* the smallest p possible for any number of lines is ${smallestForAny}`],
    [["intersect", file("calc-a.txt"), file("calc-b.txt"), "--p", "1e-100", "--n", "5k"], `--p 1e-100 needs k = 332 .* the smallest p possible for --n 5k is ${smallest}`],
    // build and dedup size their filters with create(): its refusals name --n and --p too, or where n came from.
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--p", "1e-100"], `--p 1e-100 needs k = 332 hash functions, more than the 256 a filter takes; the smallest p possible for any number of lines is ${smallestForAny}`],
    [["build", file("missing.txt"), "-o", file("calc.bloom"), "--n", "10k", "--p", "1e-100"], `--p 1e-100 needs k = 332 .* the smallest p possible for --n 10k is ${smallest}`],
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--type", "counting", "--p", "1e-100", "--n", "10k"], `--p 1e-100 needs k = 332 .* the smallest p possible for --n 10k is ${smallest}`],
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--type", "cuckoo", "--p", "1e-100"], "--p 1e-100 needs 336-bit fingerprints; the largest is 32 bits .*"],
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--type", "split-block", "--p", "1e-100"], `a split-block filter for a single line at --p 1e-100 needs more than \\d+ blocks; a filter holds at most 4294967295 \\(128\\.00 GiB\\)`],
    // A --p a single line reaches, but not the lines counted (or estimated): refused once they are, naming them.
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--type", "split-block", "--p", "1e-19"], `a split-block filter for the 10,000 lines of ${file("calc-a.txt")} at --p 1e-19 needs \\d+ blocks \\(2\\.65 TiB\\); a filter holds at most 4294967295 \\(128\\.00 GiB\\)`],
    [["dedup", file("calc-a.txt"), "-o", file("calc-out.txt"), "--p", "1e-19"], `a split-block filter for the 10,000 lines estimated in ${file("calc-a.txt")} at --p 1e-19 needs \\d+ blocks .*`],
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--n", "1T", "--p", "1e-9"], "a filter for --n 1T at --p 1e-9 needs \\d+ bits \\(4\\.90 TiB\\); a filter holds at most .*"],
    [["dedup", file("calc-a.txt"), "-o", file("calc-out.txt"), "--type", "bloom", "--p", "1e-100"], `--p 1e-100 needs k = 332 .* the smallest p possible for any number of lines is ${smallestForAny}`],
    [["dedup", file("missing.txt"), "-o", file("calc-out.txt"), "--n", "10k", "--p", "1e-100"], `a split-block filter for --n 10k at --p 1e-100 needs more than \\d+ blocks; .*`],
    // --p does not change a split-block filter of --memory: refused, not ignored (with --type bloom it caps k).
    [["dedup", file("calc-a.txt"), "--memory", "1MB", "--p", "0.01"], "--p does not size a split-block filter given --memory, which takes all of that memory: give --n and --p instead, or add --type bloom \\(whose k --p caps\\)"],
    [["dedup", file("missing.txt"), "--memory", "1MB", "--p", "0.01", "--type", "split-block"], "--p does not size a split-block filter given --memory.*"],
    // An empty input has no lines to size for: the --p is refused all the same.
    [["dedup", file("calc-empty.txt"), "-o", file("calc-out.txt"), "--p", "1e-100"], `a split-block filter for a single line at --p 1e-100 needs more than \\d+ blocks; .*`],
    [["intersect", file("calc-empty.txt"), file("calc-b.txt"), "--p", "1e-100"], `--p 1e-100 needs k = 332 .* the smallest p possible for any number of lines is ${smallestForAny}`],
    // A file name is text in the message, "$&" included.
    [["build", file("calc-$&.txt"), "-o", file("calc.bloom"), "--type", "split-block", "--p", "4e-22"], `a split-block filter for the 3 lines of ${file("calc-\\$&.txt")} at --p 4e-22 needs .*`],
    // A scalable filter's first layer has a tighter rate of its own: that one keeps a plain name.
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--type", "scalable", "--n", "1e15"], "--n 1e15 at p = 0\\.01 \\(the default --p\\): a filter for the first layer's capacity = 1000000000000000 at its share of the rate = 0\\.0015\\d* needs \\d+ bits .*"],
    // Its later layers' refusals named create()'s growth and tightening options, which build does not take, and put the
    // user's --n and --p on the second layer's own n and p: "a filter for --n 100G at p = 0.01 needs 322.98 GiB" was false.
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--type", "scalable", "--n", "100G"], "--n 100G at p = 0\\.01 \\(the default --p\\): the second layer of a scalable filter, for 200,000,000,000 keys, could never be made \\(a filter for n = 200000000000 at p = 0\\.001275 needs \\d+ bits \\(322\\.98 GiB\\); a filter holds at most \\d+ bits \\(255\\.87 GiB\\)\\)"],
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--type", "scalable", "--n", "1", "--p", "7e-78"], "--p 7e-78: layer 0 of a scalable filter, for 1 key, would need a rate of 1\\.05\\d*e-78 \\(p·\\(1 − r\\)·r\\^0, r = 0\\.85\\), below 6\\.259\\d*e-78, the smallest it can have"],
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--type", "scalable", "--n", "1", "--p", "1e-76"], "--p 1e-76: layer 6 of a scalable filter, for 64 keys, would need a rate of 5\\.657\\d*e-78 \\(p·\\(1 − r\\)·r\\^6, r = 0\\.85\\), below 6\\.119\\d*e-78, the smallest it can have"],
    [["build", file("calc-a.txt"), "-o", file("calc.bloom"), "--n", "1e308"], "a filter for --n 1e308 at p = 0\\.01 \\(the default --p\\) needs more bits than any filter holds"],
    // A --n past what the calculator sizes is checked at a little less: the smallest p possible is the one for many lines.
    [["intersect", file("calc-a.txt"), file("calc-b.txt"), "--n", "1e15", "--p", "1e-100"], `--p 1e-100 needs k = 332 .* the smallest p possible for --n 1e15 is ${smallest}`],
  ])("%j", (args, message) => {
    const result = run(args);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^bloomkit: ${message} \\(see bloomkit ${args[0]} --help\\)\n$`));
    expect(result.stdout).toBe("");
  });

  it("help takes a command's name, not an option", () => {
    for (const args of [["help", "--version"], ["help", "-q"], ["help", "calc", "x"]]) {
      const result = run(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/^bloomkit: help takes one command name \(dedup, intersect, build, query, info, merge, calc\); got ".+" \(see bloomkit --help\)\n$/);
      expect(result.stdout).toBe("");
    }
    expect(run(["help", "calc"]).stdout).toMatch(/^usage: bloomkit calc /);
  });

  it("calc's usage names every pair of options it works from, and none it does not", () => {
    const usage = run(["calc", "--help"]).stdout.split("\n")[0];
    const values = { n: "10k", p: "0.01", m: "1M", k: "7" };
    const names = Object.keys(values) as (keyof typeof values)[];
    for (const [i, first] of names.entries()) {
      for (const second of names.slice(i + 1)) {
        const works = run(["calc", `--${first}`, values[first], `--${second}`, values[second]]).code === 0;
        const named = usage.includes(`${first} and ${second}`) || usage.includes(`${second} and ${first}`);
        expect(named, `${first} and ${second} in "${usage}"`).toBe(works);
      }
    }
  });

  it("--help and -h followed by a command print that command's usage, as help COMMAND does; --version takes no word after it", () => {
    for (const flag of ["--help", "-h"]) {
      expect(run([flag, "calc"]), flag).toEqual(run(["help", "calc"]));
      expect(run([flag, "calc", "x"]), flag).toEqual(run(["help", "calc", "x"]));
    }
    for (const flag of ["--version", "-v"]) {
      const result = run([flag, "calc"]);
      expect(result, flag).toEqual({ code: 2, stdout: "", stderr: `bloomkit: ${flag} takes no arguments; got "calc" (see bloomkit --help)\n` });
    }
  });

  it("help -h and help --help print help's usage, as help help does (as calc -h prints calc's)", () => {
    const help = run(["help", "help"]);
    expect(help.stdout).toMatch(/^usage: bloomkit help /);
    for (const args of [["help", "-h"], ["help", "--help"], ["help", "calc", "-h"]]) {
      expect(run(args), args.join(" ")).toEqual(help);
    }
  });

  it("a --p that one line cannot reach but the lines given can is taken (k = 256): only what no number of lines reaches is refused before reading", () => {
    // 6.2e-78 is below the smallest p for one line (6.259e-78) and above that for 10,000 (6.107e-78).
    for (const args of [
      ["build", file("calc-a.txt"), "-o", file("window.bloom"), "--p", "6.2e-78"],
      ["build", file("calc-a.txt"), "-o", file("window.bloom"), "--type", "counting", "--p", "6.2e-78"],
      ["dedup", file("calc-a.txt"), "-o", file("window-out.txt"), "--type", "bloom", "--p", "6.2e-78"],
      ["dedup", file("calc-a.txt"), "-o", file("window-out.txt"), "--type", "bloom", "--memory", "1MB", "--p", "6.2e-78"],
      ["intersect", file("calc-a.txt"), file("calc-a.txt"), "-o", file("window-out.txt"), "--p", "6.2e-78"],
    ]) {
      const result = run(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
    }
    expect(run(["info", file("window.bloom")]).stdout).toMatch(/\nk 256 /);
    expect(readFileSync(file("window-out.txt"), "utf8").split("\n")).toHaveLength(10_001);
  });

  it("dedup of an empty input says so, whether its filter was made before reading (--n, standard input) or not", () => {
    for (const [args, input] of [[[file("calc-empty.txt")], undefined], [[file("calc-empty.txt"), "--n", "10"], undefined], [["-"], ""]] as const) {
      const result = run(["dedup", ...args], input);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/^There are 0 lines\.\n[\s\S]*: 0\.0 \(no input\)\n$/);
    }
  });

  it("dedup of standard input with --memory: a --p no k reaches is a usage error too", () => {
    const result = run(["dedup", "-", "--type", "bloom", "--memory", "1MB", "--p", "1e-100", "-o", file("calc-stdin.txt")], "a\nb\n");
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^bloomkit: --p 1e-100 needs k = 332 .* the smallest p possible for any number of lines is .* \(see bloomkit dedup --help\)\n$/);
    expect(existsSync(file("calc-stdin.txt"))).toBe(false);
  });

  it("a --n far past any filter still gives intersect a filter of all the memory", () => {
    const result = run(["intersect", file("calc-a.txt"), file("calc-b.txt"), "--n", "1e15", "--memory", "1MB"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^\d+ lines? of .*calc-b\.txt \(of 100\) (is|are) probably in/);
  });
});

describe("an exponent with a capital E", () => {
  it("is a count, a number of bits and a size, as it is a rate (--p 1E-3)", () => {
    const m = (args: string[]) => /\nm = ([\d,]+) bits/.exec(run(["calc", ...args]).stdout)?.[1];
    expect(run(["calc", "--n", "1E6", "--p", "1E-3"]).stdout).toMatch(/^n = 1,000,000\n/);
    expect(m(["--n", "1E4", "--m", "1E6"])).toBe("1,000,000");
    expect(m(["--n", "1E4", "--m", "1E6B"])).toBe("8,000,000");
    expect(run(["dedup", file("in.txt"), "--memory", "1E6", "-q"]).code).toBe(0);
  });
});

describe("a --memory without a unit", () => {
  writeFileSync(file("memory-a.txt"), lines(100, "line-").join("\n") + "\n");
  writeFileSync(file("memory-b.txt"), lines(100, "line-").join("\n") + "\n");
  const dedup = (memory: string) => run(["dedup", file("memory-a.txt"), "--memory", memory, "-q", "-o", file("memory-out.txt")]);
  const intersect = (memory: string, ...more: string[]) => run(["intersect", file("memory-a.txt"), file("memory-b.txt"), "--memory", memory, "-q", "-o", file("memory-out.txt"), ...more]);

  // --memory 1 made the smallest filter without a word: a unit forgotten (1GB, 512MB) is wrong usage, said on one line.
  it.each([
    ["dedup", "1", "1 byte", "1"],
    ["dedup", "512", "512 bytes", "512"],
    ["intersect", "1", "1 byte", "1"],
    ["intersect", "65535", "65,535 bytes", "65535"],
    ["intersect --exact", "64", "64 bytes", "64"],
  ])("%s --memory %s is a usage error naming the bytes it was read as", (command, memory, bytes, typed) => {
    const result = command === "dedup" ? dedup(memory) : command === "intersect" ? intersect(memory) : intersect(memory, "--exact");
    const name = command.split(" ")[0];
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `bloomkit: --memory ${typed} has no unit, so it reads as ${bytes}, less than 64 KiB; give a unit, as in --memory ${typed}MB or --memory 1GB (--memory ${typed}B if bytes are meant) (see bloomkit ${name} --help)\n`,
    );
  });

  it("a unit keeps any size working, and a bare number of 64 KiB or more is bytes", () => {
    for (const memory of ["32B", "1KB", "1.5KiB", "65536", "1E6", "1MB"]) {
      expect(dedup(memory).code, `dedup --memory ${memory}`).toBe(0);
      expect(intersect(memory).code, `intersect --memory ${memory}`).toBe(0);
    }
  });
});

describe("a file name with a newline and terminal controls", () => {
  // "b\n" then the terminal's clear-screen sequence: raw, it breaks the line and wipes the user's screen.
  const name = "b\n\x1b[2J.txt";
  const shown = "b\\n\\x1b[2J.txt";
  writeFileSync(file("names-a.txt"), lines(20_000, "line-").join("\n") + "\n");
  writeFileSync(file(name), lines(20_000, "line-").join("\n") + "\n");

  it("is shown escaped in an error, on one line", () => {
    const result = run(["dedup", file(`missing-${name}`)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`bloomkit: cannot read ${file(`missing-${shown}`)}: no such file or directory\n`);
  });

  it("is shown escaped in the summaries of intersect and build", () => {
    const intersect = run(["intersect", file("names-a.txt"), file(name), "-o", file("names-out.txt")]);
    expect(intersect.code).toBe(0);
    expect(intersect.stderr).toContain(`of ${file(shown)} (of 20,000)`);
    const build = run(["build", file(name), "-o", file(`${name}.bloom`)]);
    expect(build.code).toBe(0);
    expect(build.stderr).toContain(`${file(shown)}.bloom: `);
    // Line ends are the messages' own; no other control character comes through.
    for (const stderr of [intersect.stderr, build.stderr]) expect(stderr.replaceAll("\n", "")).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });

  // The progress line is shown only on a terminal: script(1) gives the command one.
  const script = spawnSync("script", ["-V"]).status === 0;
  it.skipIf(!script)("is shown escaped in the progress line, as errors show it", () => {
    const env = { ...process.env, BIN, A: file("names-a.txt"), B: file(name), OUT: file("names-out.txt") };
    const result = spawnSync("script", ["-qec", 'node "$BIN" intersect "$A" "$B" -o "$OUT"', "/dev/null"], { env, encoding: "utf8" });
    expect(result.status, result.stdout).toBe(0);
    expect(result.stdout).toContain(`\r\x1b[2Kprobing with ${file(shown)}: `);
    // Every progress line holds no control character of its own: each starts at "\r\x1b[2K" and runs to its figures.
    const progress = [...result.stdout.matchAll(/\r\x1b\[2K((?:reading|probing with) [^]*?lines)/g)].map((match) => match[1]);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (const line of progress) expect(line).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });
});

describe("grammar and readable sizes", () => {
  it("dedup: one line, one repeat, and a tiny filter in bytes", () => {
    writeFileSync(file("one.txt"), "only\n");
    const one = run(["dedup", file("one.txt"), "-o", file("one-out.txt")]);
    expect(one.code).toBe(0);
    expect(one.stderr).toMatch(/^There is 1 line\.\nThere is 1 not repeated line\.\nThere are 0 repeated lines\.\n/);
    expect(one.stderr).toMatch(/a split-block Bloom filter of 256 bits \(32 bytes\)/);
    expect(one.stderr).not.toMatch(/0\.00 MiB/);
    writeFileSync(file("two.txt"), "a\na\n");
    const repeat = run(["dedup", file("two.txt"), "--type", "bloom"]);
    expect(repeat.stderr).toMatch(/^There are 2 lines\.\nThere is 1 not repeated line\.\nThere is 1 repeated line\.\n/);
    expect(repeat.stderr).toMatch(/a Bloom filter of [\d,]+ bits \([\d,.]+ (bytes|KiB|MiB)\), k = \d+/);
    const growing = run(["dedup"], "x\ny\n");
    expect(growing.stderr).toMatch(/a growing split-block Bloom filter of 1 layer, [\d,]+ bits \(\d+\.\d\d MiB\)/);
  });

  it("intersect --exact: 1 bucket, 1 distinct line", () => {
    writeFileSync(file("ia.txt"), "shared\nonly-a\n");
    writeFileSync(file("ib.txt"), "shared\nonly-b\n");
    const result = run(["intersect", file("ia.txt"), file("ib.txt"), "--exact", "--tmp", dir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("shared\n");
    expect(result.stderr).toMatch(/^1 distinct line is in both .*ia\.txt \(2 lines\) and .*ib\.txt \(2 lines\), exactly; 1 bucket\n$/);
  });

  it("build and info: 1 layer, 1 key, 1 bucket", () => {
    writeFileSync(file("k.txt"), "k\n");
    expect(run(["build", file("k.txt"), "-o", file("k.scalable"), "--type", "scalable", "--n", "1"]).stderr).toMatch(/, 1 line read\n$/);
    expect(run(["info", file("k.scalable")]).stdout).toMatch(/^type ScalableBloomFilter\nn 1 key added \(not already probably present\)\nm [\d,]+ bits in 1 layer\ncapacity 1 key before the next layer\nevery layer: triple hashing, xxh3, seed 0\n/);
    expect(run(["build", file("k.txt"), "-o", file("k.cuckoo"), "--type", "cuckoo", "--n", "1"]).code).toBe(0);
    expect(run(["info", file("k.cuckoo")]).stdout).toMatch(/^type CuckooFilter\nn 1 fingerprint stored\nm 4 slots \(1 bucket of 4\)/);
  });

  it("calc: a tiny filter in bytes, a large one in KiB/MiB", () => {
    expect(run(["calc", "--n", "100", "--p", "0.01"]).stdout).toContain("m = 959 bits (120 bytes)\n");
    expect(run(["calc", "--n", "10k", "--p", "1/1000"]).stdout).toContain("(17.55 KiB)");
    expect(run(["calc", "--n", "1", "--p", "0.5"]).stdout).toMatch(/\(1 byte\)\n[\s\S]*size = 1 byte\n/);
    expect(run(["calc", "--n", "10", "--m", "0.15B"]).stdout).toContain("m = 1 bit (1 byte)\n");
    expect(run(["calc", "--n", "1", "--m", "2"]).stdout).toContain("m = 2 bits (1 byte)\n");
  });
});

describe("info's n", () => {
  it("of a scalable filter counts the keys it did not take for present already, and says so", () => {
    // 5,000 distinct lines in layers from 100 keys: 4,983 were added, 17 taken for present by an older layer. "n 4,983
    // keys added" read as 17 lines lost; the Bloom filter's n says what it counts, and so does this one now.
    writeFileSync(file("distinct.txt"), lines(5000, "d-").join("\n") + "\n");
    expect(run(["build", file("distinct.txt"), "-o", file("distinct.scalable"), "--type", "scalable", "--n", "100"]).code).toBe(0);
    const n = /^n ([\d,]+) keys added (.*)$/m.exec(run(["info", file("distinct.scalable")]).stdout)!;
    expect(Number(n[1].replaceAll(",", ""))).toBeLessThan(5000);
    expect(n[2]).toBe("(not already probably present)");
  });
});

describe("rates in words", () => {
  it("info: a scalable filter's target rate is a percentage, as its current rate is", () => {
    writeFileSync(file("rates.txt"), lines(100, "r-").join("\n") + "\n");
    expect(run(["build", file("rates.txt"), "-o", file("rates.scalable"), "--type", "scalable", "--p", "0.01"]).code).toBe(0);
    expect(run(["info", file("rates.scalable")]).stdout).toMatch(/\ncurrent FPR [\d.e+-]+% \(target 1\.00%\)\n$/);
  });

  it("calc: a rate too small for a double, and a 1 in N past 15 digits, in exponent form, never 0 or ∞", () => {
    expect(run(["calc", "--n", "10k", "--m", "64MB"]).stdout).toContain("\np = 4.55500e-590 (1 in 2.19539e+589)\n");
    expect(run(["calc", "--n", "10k", "--m", "1MB"]).stdout).toContain("\np = 1.00845e-144 (1 in 9.91622e+143)\n");
    expect(run(["calc", "--n", "10", "--p", "1e-12"]).stdout).toContain("\np = 9.57870e-13 (1 in 1,043,982,555,082)\n");
  });

  it("calc: a large rate's 1 in N to 3 digits, as the formula gives it, never rounded to a whole 1 in 1 or 1 in 3", () => {
    // The rate by the formula in plain float math: (1 − e^(−kn/m))^k.
    const formula = (n: number, m: number, k: number) => (1 - Math.exp((-k * n) / m)) ** k;
    for (const [n, m, k] of [[1, 2, 1], [2, 1, 1], [10, 8, 1], [1e6, 9_585_059, 7]]) {
      const shown = /\np = [\d.]+ \(1 in ([\d.,]+)\)\n/.exec(run(["calc", "--n", String(n), "--m", String(m), "--k", String(k)]).stdout);
      expect(shown, `n = ${n}, m = ${m}, k = ${k}`).not.toBeNull();
      const oneIn = 1 / formula(n, m, k);
      expect(Math.abs(Number(shown![1].replaceAll(",", "")) - oneIn) / oneIn, `n = ${n}, m = ${m}, k = ${k}: 1 in ${shown![1]}`).toBeLessThan(0.005);
    }
    expect(run(["calc", "--n", "1", "--p", "0.5"]).stdout).toContain("\np = 0.393469 (1 in 2.54)\n");
    expect(run(["calc", "--n", "10k", "--p", "1/1000"]).stdout).toContain("\np = 0.00100002 (1 in 1,000)\n");
  });
});

describe("a cuckoo build that fails says why", () => {
  it("a line repeated more than 8 times: the cause is the repeats, and a larger --n does not help", () => {
    writeFileSync(file("dup.txt"), [...lines(100, "distinct-"), ...Array.from({ length: 20 }, () => "https://same.example/page")].join("\n"));
    // Sized for the file, other keys share the line's buckets and fewer copies fit; in a roomy filter, exactly 8.
    for (const [n, lost] of [[[], /1[2-9]/], [["--n", "1M"], /12/]] as const) {
      const result = run(["build", file("dup.txt"), "-o", file("dup.cuckoo"), "--type", "cuckoo", ...n]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(
          '^bloomkit: the line "https://same\\.example/page" repeats more than a cuckoo filter can hold: at most 8 copies of one key ' +
            "\\(2 buckets of 4 slots, fewer when other keys share them\\), whatever --n; " +
            `${lost.source} of 120 lines did not fit\\. Remove repeated lines first \\(bloomkit dedup\\) or use another --type\n$`,
        ),
      );
    }
    // Deduplicated first, the same lines build.
    const unique = run(["dedup", file("dup.txt"), "-o", file("dup-unique.txt")]);
    expect(unique.code).toBe(0);
    expect(run(["build", file("dup-unique.txt"), "-o", file("dup.cuckoo"), "--type", "cuckoo"]).code).toBe(0);
  });

  it("lines repeated a few times that crowd their buckets: dedup first or a larger --n, which then builds", () => {
    writeFileSync(file("thrice.txt"), [...lines(1000, ""), ...lines(1000, ""), ...lines(1000, "")].join("\n") + "\n");
    const result = run(["build", file("thrice.txt"), "-o", file("thrice.cuckoo"), "--type", "cuckoo"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^bloomkit: the line "\d+" repeats, and its copies and the other keys in its two buckets filled them; [\d,]+ of 3,000 lines did not fit\. Remove repeated lines first \(bloomkit dedup\), or give a larger --n\n$/);
    expect(run(["build", file("thrice.txt"), "-o", file("thrice.cuckoo"), "--type", "cuckoo", "--n", "10000"]).code).toBe(0);
  });

  it("a filter too small for its keys that also has a line repeated past what its buckets hold: --n, and dedup as well", () => {
    writeFileSync(file("many-and-again.txt"), [...Array.from({ length: 20 }, () => "again"), ...lines(5000, "key-")].join("\n"));
    const result = run(["build", file("many-and-again.txt"), "-o", file("many-and-again.cuckoo"), "--type", "cuckoo", "--n", "100"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^bloomkit: the cuckoo filter is full: [\d,]+ of 5,020 keys did not fit \(and [\d,]+ more were repeats of lines whose two buckets their own copies had filled\); build with a larger --n, and remove repeated lines first \(bloomkit dedup\)\n$/);
    // A larger --n alone still leaves the line's 12 copies past its two buckets.
    expect(run(["build", file("many-and-again.txt"), "-o", file("many-and-again.cuckoo"), "--type", "cuckoo", "--n", "10000"]).stderr).toMatch(/^bloomkit: the line "again" repeats more than a cuckoo filter can hold/);
  });

  it("a filter too small for its keys: the cause is --n", () => {
    writeFileSync(file("many.txt"), lines(5000, "key-").join("\n"));
    const result = run(["build", file("many.txt"), "-o", file("many.cuckoo"), "--type", "cuckoo", "--n", "100"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^bloomkit: the cuckoo filter is full: [\d,]+ of 5,000 keys did not fit; build with a larger --n\n$/);
  });
});

describe("intersect with A on standard input", () => {
  const a = lines(2000, "https://a.example/");
  const shared = lines(300, "https://shared.example/");
  const b = lines(30_000, "https://b.example/");
  writeFileSync(file("A.txt"), [...a, ...shared].join("\n") + "\n");
  writeFileSync(file("B.txt"), [...shared, ...b].join("\n") + "\n");
  const aText = readFileSync(file("A.txt"), "utf8");

  /** The summary with A's name taken out, so the stdin and file routes compare. */
  const summary = (stderr: string, name: string) => stderr.replaceAll(name, "A");

  it("sizes the filter for a short stdin as for the same file, not for all of --memory", () => {
    const fromFile = run(["intersect", file("A.txt"), file("B.txt")]);
    const fromStdin = run(["intersect", "-", file("B.txt")], aText);
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toBe(fromFile.stdout);
    // The same filter: the same pass probability to three digits (a filter of the whole 1 GB would show ~1e-60).
    const rate = (stderr: string) => /passes with probability ([\d.e+-]+)/.exec(stderr)?.[1];
    expect(rate(fromStdin.stderr)).toBe(rate(fromFile.stderr));
    expect(Number(rate(fromStdin.stderr))).toBeGreaterThan(1e-5);
    expect(summary(fromStdin.stderr, "standard input")).toBe(summary(fromFile.stderr, file("A.txt")));
  });

  it("warns when false matches would swamp the output, with their expected number, close to the real one", () => {
    const result = run(["intersect", "-", file("B.txt"), "--memory", "1KB"], aText);
    expect(result.code).toBe(0);
    const written = result.stdout.trim().split("\n");
    const truth = new Set(shared);
    for (const line of shared) expect(written).toContain(line); // no false negatives
    const falseMatches = written.filter((line) => !truth.has(line)).length;
    expect(falseMatches).toBeGreaterThan(written.length / 4);
    const [, warning] = result.stderr.trim().split("\n");
    const match = /^bloomkit: warning: about ([\d,]+) of the ([\d,]+) lines written \(([\d.]+)%\) are expected to be false matches, lines not in standard input: a filter of 1,000 bytes is too small for 2,300 lines; give a larger --memory or use --exact$/.exec(warning);
    expect(match, warning).not.toBeNull();
    expect(Number(match![2].replaceAll(",", ""))).toBe(written.length);
    const expected = Number(match![1].replaceAll(",", ""));
    expect(Math.abs(expected - falseMatches)).toBeLessThan(0.1 * falseMatches);
  });

  it("says nothing more when the filter reaches its rate", () => {
    const result = run(["intersect", "-", file("B.txt")], aText);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toContain("warning");
  });

  it("advises a smaller --p when p, not memory, lets too much through", () => {
    const result = run(["intersect", file("A.txt"), file("B.txt"), "--p", "0.05"]);
    expect(result.stderr).toMatch(/warning: about [\d,]+ of the [\d,]+ lines written .*B\.txt has many lines not in .*A\.txt for --p 0\.05; give a smaller --p or use --exact\n$/);
  });
});

describe("intersect's warning names what made the filter too small", () => {
  writeFileSync(file("many-a.txt"), lines(10_000, "a-").join("\n") + "\n");
  writeFileSync(file("many-b.txt"), lines(20_000, "b-").join("\n") + "\n");
  const warning = (stderr: string) => stderr.trim().split("\n")[1];

  it("--n below A's lines, with memory to spare: --n, not --memory", () => {
    const result = run(["intersect", file("many-a.txt"), file("many-b.txt"), "--n", "100", "--memory", "1GB"]);
    expect(result.code).toBe(0);
    expect(warning(result.stderr)).toMatch(/: the filter is sized for --n 100 lines, and .*many-a\.txt has 10,000 lines; give a larger --n or use --exact$/);
  });

  it("--n below A's lines at a --p of 0.5 or more: --n, not a smaller --p", () => {
    // Twice such a p is 100% or more, which a full filter's rate never passes.
    const result = run(["intersect", file("many-a.txt"), file("many-b.txt"), "--n", "10", "--p", "0.6"]);
    expect(result.code).toBe(0);
    expect(warning(result.stderr)).toMatch(/: the filter is sized for --n 10 lines, and .*many-a\.txt has 10,000 lines; give a larger --n or use --exact$/);
  });

  it("--memory below what --n asks for: --memory", () => {
    const result = run(["intersect", file("many-a.txt"), file("many-b.txt"), "--n", "100k", "--memory", "1KB"]);
    expect(warning(result.stderr)).toMatch(/: a filter of 1,000 bytes is too small for 10,000 lines; give a larger --memory or use --exact$/);
  });

  it("every line of B passing a filter that passes most lines: up to how many may be false, not about none", () => {
    // None of B is in A; the filter of 400 bytes for 10,000 lines passes about 95% of lines not in A, and all 5 here.
    writeFileSync(file("five-b.txt"), lines(5, "b-").join("\n") + "\n");
    const result = run(["intersect", file("many-a.txt"), file("five-b.txt"), "--memory", "400B"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(lines(5, "b-").join("\n") + "\n");
    expect(result.stderr).toMatch(/passes with probability 0\.9\d+, up to 5 of them\n/);
    expect(warning(result.stderr)).toMatch(/^bloomkit: warning: up to 5 of the 5 lines written \(100%\) may be false matches, lines not in .*many-a\.txt: a filter of 400 bytes is too small for 10,000 lines; give a larger --memory or use --exact$/);
    // B within A, through a filter at its rate: every line passing then tells that none is false.
    const within = run(["intersect", file("many-a.txt"), file("many-a.txt")]);
    expect(within.stderr).toMatch(/passes with probability [\d.e-]+, about 0 of them\n$/);
  });

  it("the warning's share is of the count it shows: 'about 2 of the 2 lines' is not 79.5%", () => {
    // A filter too small for A, and 20 lines of B, none in A: a couple pass, and about 1.6 of them are expected to.
    writeFileSync(file("hundred-k-a.txt"), lines(100_000, "a").join("\n") + "\n");
    writeFileSync(file("twenty-b.txt"), lines(20, "b").join("\n") + "\n");
    const result = run(["intersect", file("hundred-k-a.txt"), file("twenty-b.txt"), "--memory", "64KiB"]);
    expect(result.code).toBe(0);
    const match = /^bloomkit: warning: about ([\d,]+) of the ([\d,]+) lines? written \(([\d.]+)%\)/.exec(warning(result.stderr));
    expect(match, result.stderr).not.toBeNull();
    const [shown, written, percent] = [match![1], match![2], match![3]].map((text) => Number(text.replaceAll(",", "")));
    expect(written).toBe(result.stdout.split("\n").length - 1);
    expect(percent).toBeCloseTo((100 * shown) / written, 1);
  });

  it("lines estimated from windows of A far longer than the rest: the estimate, and --n to give", () => {
    // Line lengths are sampled in A's first piece (1 MiB) and at the start of each 64th of it: there, this file has
    // lines of 1,000 bytes; after each start, short ones. Parts of 100,000 bytes: the first 11 all long lines.
    const part = 100_000;
    const parts: string[] = [];
    let next = 0;
    let long = 0;
    for (let p = 0; p < 64; p++) {
      const longLines = p < 11 ? 100 : 17;
      long += longLines;
      let text = Array.from({ length: longLines }, (_, i) => `long-${p}-${i}-`.padEnd(999, "x") + "\n").join("");
      if (p >= 11) {
        while (part - text.length > 40) text += `s-${next++}\n`;
        text += `pad-${p}-`.padEnd(part - text.length - 1, "y") + "\n";
        long++;
      }
      parts.push(text);
    }
    writeFileSync(file("skewed.txt"), parts.join(""));
    const total = long + next;
    const result = run(["intersect", file("skewed.txt"), file("many-b.txt")]);
    expect(result.code).toBe(0);
    expect(warning(result.stderr)).toMatch(new RegExp(`: the filter is sized for the [\\d,]+ lines estimated in .*skewed\\.txt, which has ${total.toLocaleString("en-US")} lines; give --n or use --exact$`));
  });
});

describe("build warns when given more lines than --n", () => {
  writeFileSync(file("ten-thousand.txt"), lines(10_000, "k-").join("\n") + "\n");

  it.each([
    ["bloom", "10", "100%"],
    ["counting", "5000", /1\d\.\d%/],
    ["split-block", "1000", /\d+(\.\d+)?%/],
  ] as const)("--type %s --n %s: the file is written, and the rate it answers at is said", (type, n, rate) => {
    const output = file(`over-${type}.bloom`);
    const result = run(["build", file("ten-thousand.txt"), "-o", output, "--type", type, "--n", n]);
    expect(result.code, result.stderr).toBe(0);
    const [summary, warning, ...rest] = result.stderr.trim().split("\n");
    expect(summary).toMatch(/10,000 lines read$/);
    expect(rest).toEqual([]);
    expect(warning).toMatch(new RegExp(`^bloomkit: warning: .*over-${type}\\.bloom is sized for --n ${n} and was given 10,000 lines: it answers "probably present" for about (.+) of the keys it does not hold, not p = 1\\.00%; build it with --n 10,000 \\(or the number of distinct lines\\)$`));
    expect(/about (\S+) of the keys/.exec(warning)![1]).toMatch(rate);
    // What it says is what the file does: most keys it never held are "probably present" at --n 10.
    if (type === "bloom") expect(run(["query", output, "never-added"]).stdout).toBe("never-added\tprobably present\n");
  });

  it("warns at a --p of 0.5 or more too, whose twice is no rate a filter can pass", () => {
    const output = file("over-half.bloom");
    const result = run(["build", file("ten-thousand.txt"), "-o", output, "--n", "10", "--p", "0.5"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/\nbloomkit: warning: .*over-half\.bloom is sized for --n 10 and was given 10,000 lines: it answers "probably present" for about 100% of the keys it does not hold, not p = 50\.0%; /);
    expect(run(["query", output, "never-added"]).stdout).toBe("never-added\tprobably present\n");
  });

  it("says nothing when --n is the lines, or more, or the lines repeat (as many distinct keys as --n)", () => {
    for (const args of [[], ["--n", "10000"], ["--n", "20k"], ["--type", "split-block", "--n", "10000"]]) {
      const result = run(["build", file("ten-thousand.txt"), "-o", file("fits.bloom"), ...args]);
      expect(result.stderr, args.join(" ")).toMatch(/^[^\n]*10,000 lines read\n$/);
    }
    writeFileSync(file("repeated.txt"), [...lines(1_000, "r-"), ...lines(1_000, "r-"), ...lines(1_000, "r-")].join("\n") + "\n");
    expect(run(["build", file("repeated.txt"), "-o", file("fits.bloom"), "--n", "1000"]).stderr).toMatch(/^[^\n]*3,000 lines read\n$/);
  });
});

describe("a failed write to standard output is one line, exit 1", () => {
  writeFileSync(file("keys.txt"), lines(100, "key-").join("\n") + "\n");
  const filter = file("keys.bloom");
  run(["build", file("keys.txt"), "-o", filter]);

  /** The command with its standard output on /dev/full, or on a pipe whose reader has already gone. */
  const toFull = (args: string[]) => {
    const full = openSync("/dev/full", "w");
    try {
      const result = spawnSync(process.execPath, [BIN, ...args], { stdio: ["ignore", full, "pipe"], encoding: "utf8" });
      return { code: result.status, stderr: result.stderr };
    } finally {
      closeSync(full);
    }
  };
  const toClosedPipe = (args: string[]) => {
    const quoted = args.map((arg) => `'${arg}'`).join(" ");
    const result = spawnSync("bash", ["-c", `'${process.execPath}' '${BIN}' ${quoted} | (exec 0<&-; sleep 0.5); exit "\${PIPESTATUS[0]}"`], { encoding: "utf8" });
    return { code: result.status, stderr: result.stderr };
  };

  it.each([[["--help"]], [["--version"]], [["calc", "--help"]], [["calc", "--n", "1", "--p", "0.5"]], [["info", filter]]])("%j to a full disk", (args) => {
    expect(toFull(args)).toEqual({ code: 1, stderr: "bloomkit: cannot write standard output: no space left on the device\n" });
  });

  // query has said so all along; the others are to say the same.
  it.each([[["query", filter, "key-1"]], [["info", filter]], [["--help"]], [["calc", "--n", "1", "--p", "0.5"]]])("%j to a reader gone", (args) => {
    expect(toClosedPipe(args)).toEqual({ code: 1, stderr: "bloomkit: cannot write standard output: the reader went away\n" });
  });
});

describe("CuckooOverflow's advice for a full filter", () => {
  it("names --n when it was given, and the lines it was sized for when it was not", async () => {
    const { CuckooOverflow } = await import("../cli/cuckoo-overflow.js");
    const { CuckooFilter } = await import("../bindings/index.js");
    const encoder = new TextEncoder();
    const advice = (counted?: string) => {
      using filter = CuckooFilter.withSize(4, 8);
      const overflow = new CuckooOverflow(filter);
      const keys = lines(200, "distinct-").map((line) => encoder.encode(line));
      overflow.note(keys, filter.tryAddMany(keys));
      return overflow.error(keys.length, counted)?.message;
    };
    expect(advice()).toMatch(/^the cuckoo filter is full: [\d,]+ of 200 keys did not fit; build with a larger --n$/);
    expect(advice("the 200 lines of in.txt")).toMatch(/^the cuckoo filter is full: [\d,]+ of 200 keys did not fit; it was sized for the 200 lines of in\.txt; give a larger --n$/);
  });
});
