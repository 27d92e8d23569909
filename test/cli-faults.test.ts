// The CLI under faults: it never destroys a file. Inputs are checked before an
// output is touched, outputs are written under a temporary name and renamed when
// complete (so even SIGKILL leaves the old output), an output that is an input is
// refused, and every failure is one line in words with exit code 1.
import { spawn, spawnSync, type SpawnSyncOptions } from "node:child_process";
import {
  chmodSync,
  constants,
  closeSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "bloomkit-faults-"));
chmodSync(dir, 0o755); // the unprivileged runs below must reach their files
const file = (name: string) => join(dir, name);
const mounts: string[] = [];
afterAll(() => {
  for (const mount of mounts) spawnSync("umount", [mount]);
  rmSync(dir, { recursive: true, force: true });
});

/** Content every output starts with: after a failure it must still be there, byte for byte. */
const OLD = "the old output, which must survive\n";

function run(args: string[], options: SpawnSyncOptions = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { maxBuffer: 1 << 30, ...options });
  return { code: result.status, signal: result.signal, stdout: String(result.stdout ?? ""), stderr: String(result.stderr ?? "") };
}

/** A failure as the CLI must report it: exit 1, one line, words, no code and no stack. */
function expectOneLineError(result: ReturnType<typeof run>, message: RegExp, code = 1) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr.trim()).toMatch(message);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\bE[A-Z]{3,}\b/); // ENOENT, EISDIR, EACCES, EROFS …
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

/** Files in a folder that are leftovers of an atomic write. */
const strays = (folder: string) => readdirSync(folder).filter((name) => name.endsWith(".tmp"));

/** Run as a user who is not root: root reads and writes through any permission bits. */
const UNPRIVILEGED: SpawnSyncOptions = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

/** Why the unprivileged user cannot run this Node (one installed under /root, say), or undefined when it can. */
function unprivilegedProblem(): string | undefined {
  const probe = spawnSync(process.execPath, ["-e", "0"], UNPRIVILEGED);
  if (probe.error) return `${process.execPath} cannot be run as uid ${UNPRIVILEGED.uid}: ${probe.error.message}`;
  return probe.status === 0 ? undefined : `${process.execPath} exits ${probe.status} as uid ${UNPRIVILEGED.uid}`;
}

/** Mounts a tmpfs; the reason it cannot be mounted otherwise. */
function mountTmpfs(target: string, options: string): string | undefined {
  mkdirSync(target, { recursive: true });
  const result = spawnSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", target], { encoding: "utf8" });
  if (result.error) return result.error.message;
  if (result.status !== 0) return result.stderr.trim() || `mount exited ${result.status}`;
  mounts.push(target);
  return undefined;
}

const lines = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}${i}`).join("\n") + "\n";

describe("inputs are checked before any output is touched", () => {
  beforeAll(() => {
    writeFileSync(file("words.txt"), lines(1000, "word-"));
    mkdirSync(file("a-folder"));
  });

  const cases: [string, string[], RegExp][] = [
    ["dedup of a directory", ["dedup", "@a-folder", "-o", "@out"], /^bloomkit: cannot read .*a-folder: is a directory$/],
    ["dedup of a missing file", ["dedup", "@nope.txt", "-o", "@out"], /^bloomkit: cannot read .*nope\.txt: no such file or directory$/],
    ["dedup whose --repeats is a directory", ["dedup", "@words.txt", "-o", "@out", "--repeats", "@a-folder"], /^bloomkit: cannot write .*a-folder: is a directory$/],
    ["intersect with a missing A", ["intersect", "@nope.txt", "@words.txt", "-o", "@out"], /^bloomkit: cannot read .*nope\.txt: no such file or directory$/],
    ["intersect with a missing B", ["intersect", "@words.txt", "@nope.txt", "-o", "@out"], /^bloomkit: cannot read .*nope\.txt: no such file or directory$/],
    ["intersect --exact of a directory", ["intersect", "@a-folder", "@words.txt", "--exact", "-o", "@out"], /^bloomkit: cannot read .*a-folder: is a directory$/],
    ["intersect --exact with B a directory", ["intersect", "@words.txt", "@a-folder", "--exact", "-o", "@out"], /^bloomkit: cannot read .*a-folder: is a directory$/],
    ["build of a directory", ["build", "@a-folder", "-o", "@out"], /^bloomkit: cannot read .*a-folder: is a directory$/],
    ["build into a missing folder", ["build", "@words.txt", "-o", "@no-folder/f.bloom"], /^bloomkit: cannot write .*no-folder\/f\.bloom: no such file or directory$/],
    ["merge with a missing filter", ["merge", "@nope.bloom", "@nope.bloom", "-o", "@out"], /^bloomkit: cannot read .*nope\.bloom: no such file or directory$/],
    ["info of a directory", ["info", "@a-folder"], /^bloomkit: cannot read .*a-folder: is a directory$/],
    ["an output into a missing folder", ["dedup", "@words.txt", "-o", "@no-folder/out"], /^bloomkit: cannot write .*no-folder\/out: no such file or directory$/],
    ["an output that is a directory", ["dedup", "@words.txt", "-o", "@a-folder"], /^bloomkit: cannot write .*a-folder: is a directory$/],
  ];

  it.each(cases)("%s: exit 1 in words, the old output intact, no temporary file left", (_name, args, message) => {
    writeFileSync(file("out"), OLD);
    const result = run(args.map((arg) => (arg.startsWith("@") ? file(arg.slice(1)) : arg)));
    expectOneLineError(result, message);
    expect(readFileSync(file("out"), "utf8")).toBe(OLD);
    expect(strays(dir)).toEqual([]);
  });

  // `< folder` opens the folder: read as standard input it gave no lines, so dedup -o out emptied out.
  beforeAll(() => {
    expect(run(["build", file("words.txt"), "-o", file("words.bloom"), "-q"]).code).toBe(0);
  });
  it.each([
    ["dedup", "-", "-o", "@out"],
    ["dedup", "-", "-o", "@out", "--n", "10"],
    ["build", "-", "-o", "@out", "--n", "10"],
    ["build", "-", "-o", "@out", "--type", "fuse8"],
    ["intersect", "-", "@words.txt", "-o", "@out"],
    ["intersect", "@words.txt", "-", "--exact", "-o", "@out"],
    ["query", "@words.bloom", "-"],
    ["info", "-"],
  ])("standard input that is a directory (%s %s … < folder) is refused as one, and the old output stays", (...args) => {
    writeFileSync(file("out"), OLD);
    const folder = openSync(file("a-folder"), "r");
    try {
      const result = run(args.map((arg) => (arg.startsWith("@") ? file(arg.slice(1)) : arg)), { stdio: [folder, "pipe", "pipe"] });
      expectOneLineError(result, /^bloomkit: cannot read standard input: is a directory$/);
    } finally {
      closeSync(folder);
    }
    expect(readFileSync(file("out"), "utf8")).toBe(OLD);
    expect(strays(dir)).toEqual([]);
  });
});

describe("permission denied, as a user without root's rights", () => {
  let problem: string | undefined;
  beforeAll(() => {
    problem = unprivilegedProblem();
    if (problem) console.log(`skipping the permission-denied cases: ${problem}`);
    writeFileSync(file("secret.txt"), lines(100, "secret-"));
    chmodSync(file("secret.txt"), 0o000);
    writeFileSync(file("open.txt"), lines(100, "open-"));
    chmodSync(file("open.txt"), 0o644);
    mkdirSync(file("locked"));
    writeFileSync(file("locked/out"), OLD);
    chmodSync(file("locked/out"), 0o666); // the file itself is writable; its folder is not
    chmodSync(file("locked"), 0o555);
  });

  it("an unreadable input is \"permission denied\" with its path", (context) => {
    if (problem) context.skip();
    const result = run(["dedup", file("secret.txt")], UNPRIVILEGED);
    expectOneLineError(result, /^bloomkit: cannot read .*secret\.txt: permission denied$/);
  });

  it("an output in a folder it cannot write is refused before any work, and the old output stays", (context) => {
    if (problem) context.skip();
    const result = run(["dedup", file("open.txt"), "-o", file("locked/out")], UNPRIVILEGED);
    expectOneLineError(result, /^bloomkit: cannot write .*locked\/out: permission denied$/);
    expect(readFileSync(file("locked/out"), "utf8")).toBe(OLD);
    expect(strays(file("locked"))).toEqual([]);
  });

  it("an unwritable --tmp is exit 1 with the path and the reason, not a usage error", (context) => {
    if (problem) context.skip();
    const result = run(["intersect", file("open.txt"), file("open.txt"), "--exact", "--tmp", file("locked")], UNPRIVILEGED);
    expectOneLineError(result, /^bloomkit: cannot create a temporary folder in .*locked: permission denied$/);
    expect(result.stderr).not.toContain("--help");
  });

  it("a missing --tmp says so", () => {
    const result = run(["intersect", file("open.txt"), file("open.txt"), "--exact", "--tmp", file("no-such-folder")]);
    expectOneLineError(result, /^bloomkit: cannot create a temporary folder in .*no-such-folder: no such file or directory$/);
  });
});

describe("read-only and full file systems (tmpfs mounts)", () => {
  const readOnly = file("ro");
  const tiny = file("tiny");
  let roProblem: string | undefined;
  let tinyProblem: string | undefined;
  beforeAll(() => {
    roProblem = mountTmpfs(readOnly, "ro,size=1m");
    tinyProblem = mountTmpfs(tiny, "size=64k");
    if (roProblem) console.log(`skipping the read-only --tmp case: cannot mount a read-only tmpfs (${roProblem})`);
    if (tinyProblem) console.log(`skipping the full-disk case: cannot mount a small tmpfs (${tinyProblem})`);
  });

  it("a read-only --tmp is exit 1: \"read-only file system\"", (context) => {
    if (roProblem) context.skip();
    writeFileSync(file("ro-a.txt"), lines(100, "a-"));
    const result = run(["intersect", file("ro-a.txt"), file("ro-a.txt"), "--exact", "--tmp", readOnly]);
    expectOneLineError(result, /^bloomkit: cannot create a temporary folder in .*ro: read-only file system$/);
  });

  it("a disk that fills up mid-write: exit 1, \"no space left\", the old output intact, the temporary file removed", (context) => {
    if (tinyProblem) context.skip();
    writeFileSync(join(tiny, "out"), OLD);
    writeFileSync(file("many.txt"), lines(50_000, "https://many.example/page/")); // ~1.6 MB of distinct lines
    const result = run(["dedup", file("many.txt"), "-o", join(tiny, "out")]);
    expectOneLineError(result, /^bloomkit: cannot write .*tiny\/out: no space left on the device$/);
    expect(readFileSync(join(tiny, "out"), "utf8")).toBe(OLD);
    expect(readdirSync(tiny)).toEqual(["out"]);
  });

  it("the same with --threads 2, whose writes run in the background from the workers' buffers", (context) => {
    if (tinyProblem) context.skip();
    writeFileSync(join(tiny, "out"), OLD);
    writeFileSync(file("more.txt"), lines(200_000, "https://many.example/page/")); // ~7 MB: past the 4 MiB below which one thread does it all
    const result = run(["dedup", file("more.txt"), "-o", join(tiny, "out"), "--threads", "2"]);
    expectOneLineError(result, /^bloomkit: cannot write .*tiny\/out: no space left on the device$/);
    expect(readFileSync(join(tiny, "out"), "utf8")).toBe(OLD);
    expect(readdirSync(tiny)).toEqual(["out"]);
  });

  it("--repeats on a full disk: both outputs stay as they were, not the unique lines new and the repeats old", (context) => {
    if (tinyProblem) context.skip();
    rmSync(join(tiny, "out"), { force: true }); // the small disk holds only this test's file
    writeFileSync(file("pair-out.txt"), OLD);
    writeFileSync(join(tiny, "repeats"), OLD);
    const text = lines(50_000, "https://many.example/page/");
    writeFileSync(file("twice.txt"), text + text); // ~1.6 MB of repeats, more than the small disk holds
    for (const threads of ["1", "2"]) {
      const result = run(["dedup", file("twice.txt"), "-o", file("pair-out.txt"), "--repeats", join(tiny, "repeats"), "--threads", threads]);
      expectOneLineError(result, /^bloomkit: cannot write .*tiny\/repeats: no space left on the device$/);
      expect(readFileSync(file("pair-out.txt"), "utf8")).toBe(OLD);
      expect(readFileSync(join(tiny, "repeats"), "utf8")).toBe(OLD);
      expect(readdirSync(tiny)).toEqual(["repeats"]);
      expect(strays(dir)).toEqual([]);
    }
  });

  it("--repeats to a device that is full: the unique lines' file stays as it was", () => {
    writeFileSync(file("device-out.txt"), OLD);
    writeFileSync(file("twice-small.txt"), lines(1_000, "a-") + lines(1_000, "a-"));
    const result = run(["dedup", file("twice-small.txt"), "-o", file("device-out.txt"), "--repeats", "/dev/full"]);
    expectOneLineError(result, /^bloomkit: cannot write \/dev\/full: no space left on the device$/);
    expect(readFileSync(file("device-out.txt"), "utf8")).toBe(OLD);
    expect(strays(dir)).toEqual([]);
  });
});

describe("an output that is an input is refused", () => {
  const original = lines(200, "line-") + lines(100, "line-");
  beforeAll(() => {
    writeFileSync(file("b.txt"), lines(50, "line-"));
    writeFileSync(file("other.txt"), "x\n");
  });

  /** Runs, then checks the refusal and that f is unchanged. */
  function refused(args: string[], message: RegExp, options: SpawnSyncOptions = {}) {
    const result = run(args, options);
    expectOneLineError(result, message);
    expect(readFileSync(file("f.txt"), "utf8")).toBe(original);
    expect(strays(dir)).toEqual([]);
  }

  beforeAll(() => writeFileSync(file("f.txt"), original));

  it("dedup f -o f", () => refused(["dedup", file("f.txt"), "-o", file("f.txt")], /f\.txt is also an input: writing it would destroy what is being read/));
  it("dedup f --repeats f", () => refused(["dedup", file("f.txt"), "-o", file("u.txt"), "--repeats", file("f.txt")], /f\.txt is also an input/));
  it("intersect f b -o f", () => refused(["intersect", file("f.txt"), file("b.txt"), "-o", file("f.txt")], /f\.txt is also an input/));
  it("intersect b f -o f --exact", () => refused(["intersect", file("b.txt"), file("f.txt"), "--exact", "-o", file("f.txt")], /f\.txt is also an input/));
  it("build f -o f", () => refused(["build", file("f.txt"), "-o", file("f.txt")], /f\.txt is also an input/));

  it("the same file under another name: a hard link and a symbolic link", () => {
    linkSync(file("f.txt"), file("hard.txt"));
    symlinkSync(file("f.txt"), file("soft.txt"));
    refused(["dedup", file("f.txt"), "-o", file("hard.txt")], /hard\.txt is the same file as the input .*f\.txt/);
    refused(["dedup", file("soft.txt"), "-o", file("f.txt")], /f\.txt is the same file as the input .*soft\.txt/);
  });

  it("standard input that is a file open only for writing (0>>file) is named as standard input", () => {
    writeFileSync(file("write-only.txt"), "x\n");
    const fd = openSync(file("write-only.txt"), "a");
    try {
      expectOneLineError(run(["dedup", "-"], { stdio: [fd, "pipe", "pipe"] }), /^bloomkit: cannot read standard input: bad file descriptor$/);
    } finally {
      closeSync(fd);
    }
  });

  it("standard input redirected from the output file, and standard output appending to the input", () => {
    const fd = openSync(file("f.txt"), "r");
    try {
      refused(["dedup", "-", "-o", file("f.txt")], /f\.txt is the same file as standard input/, { stdio: [fd, "pipe", "pipe"] });
    } finally {
      closeSync(fd);
    }
    const append = openSync(file("f.txt"), "a");
    try {
      refused(["dedup", file("f.txt")], /standard output is the same file as the input .*f\.txt/, { stdio: ["ignore", append, "pipe"] });
    } finally {
      closeSync(append);
    }
  });

  it("query and info with standard output appending to the filter file, or to the keys on standard input", () => {
    expect(run(["build", file("b.txt"), "-o", file("qi.bloom")]).code).toBe(0);
    const saved = readFileSync(file("qi.bloom"));
    const append = openSync(file("qi.bloom"), "a");
    try {
      for (const args of [["query", file("qi.bloom"), "5"], ["info", file("qi.bloom")]]) {
        expectOneLineError(run(args, { stdio: ["ignore", append, "pipe"] }), /standard output is the same file as the input .*qi\.bloom/);
      }
    } finally {
      closeSync(append);
    }
    expect(readFileSync(file("qi.bloom")).equals(saved)).toBe(true);
    const keys = openSync(file("f.txt"), "r");
    const appendKeys = openSync(file("f.txt"), "a");
    try {
      refused(["query", file("qi.bloom"), "-"], /standard output is the same file as standard input/, { stdio: [keys, appendKeys, "pipe"] });
    } finally {
      closeSync(keys);
      closeSync(appendKeys);
    }
  });

  it("merge a b -o a, and two outputs that are one file", () => {
    expect(run(["build", file("b.txt"), "-o", file("b.bloom")]).code).toBe(0);
    const before = readFileSync(file("b.bloom"));
    expectOneLineError(run(["merge", file("b.bloom"), file("b.bloom"), "-o", file("b.bloom")]), /b\.bloom is also an input/);
    expect(readFileSync(file("b.bloom")).equals(before)).toBe(true);
    // One name given for two outputs is wrong usage (exit 2), found before the input is read: even a missing input is not reached.
    for (const [input, repeats] of [[file("other.txt"), file("same.txt")], [file("missing.txt"), file("same.txt")], [file("other.txt"), `${dir}/./same.txt`]]) {
      expectOneLineError(run(["dedup", input, "-o", file("same.txt"), "--repeats", repeats]), /same\.txt (is given for two outputs|and .*same\.txt are the same file): give each output its own file \(see bloomkit dedup --help\)/, 2);
    }
    expect(existsSync(file("same.txt"))).toBe(false);
  });

  it("two outputs that are one new file through a linked folder, and standard output given twice to a pipe", () => {
    mkdirSync(file("real"), { recursive: true });
    symlinkSync(file("real"), file("linked"));
    expectOneLineError(
      run(["dedup", file("other.txt"), "-o", file("linked/x.txt"), "--repeats", file("real/x.txt")]),
      /linked\/x\.txt and .*real\/x\.txt are the same file: give each output its own file/,
    );
    expect(existsSync(file("real/x.txt"))).toBe(false);
    // A link to a file not there yet is that file (as > makes it): the output written through it would overwrite the other.
    symlinkSync("y.txt", file("real/to-y.txt"));
    expectOneLineError(
      run(["dedup", file("other.txt"), "-o", file("real/y.txt"), "--repeats", file("linked/to-y.txt")]),
      /real\/y\.txt and .*linked\/to-y\.txt are the same file: give each output its own file/,
    );
    expect(existsSync(file("real/y.txt"))).toBe(false);
    // spawnSync gives the child a pipe for its standard output: the two outputs would mix there.
    for (const args of [["--repeats", "-"], ["-o", "-", "--repeats", "-"]]) {
      const result = run(["dedup", file("other.txt"), ...args]);
      expectOneLineError(result, /standard output is given for two outputs: give each output its own file/, 2);
      expect(result.stdout).toBe("");
    }
  });

  it("an output name that is empty or a folder's (ending in /) is refused before the input is read", () => {
    const empty = run(["dedup", file("b.txt"), "-o", ""]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('bloomkit: an output\'s file name is empty (-o "") (see bloomkit dedup --help)\n');
    expect(empty.stdout.toString()).toBe("");
    // A name ending in "/" that is no folder yet is not "a directory": it says why it is refused.
    expectOneLineError(run(["dedup", file("b.txt"), "-o", `${file("not-yet")}/`]), /cannot write .*not-yet\/: a file's name cannot end in "\/", which names a folder$/);
    mkdirSync(file("a-folder"), { recursive: true });
    expectOneLineError(run(["dedup", file("b.txt"), "-o", `${file("a-folder")}/`]), /cannot write .*a-folder\/: is a directory$/);
    const emptyRepeats = run(["dedup", file("b.txt"), "-o", file("u2.txt"), "--repeats", ""]);
    expect(emptyRepeats.code).toBe(2);
    expect(emptyRepeats.stderr).toMatch(/^bloomkit: an output's file name is empty \(--repeats ""\)/);
    expect(existsSync(file("u2.txt"))).toBe(false);
    // An empty name is wrong usage whatever else is wrong: checked before any input is opened or output compared.
    for (const args of [
      ["build", file("missing.txt"), "-o", ""],
      ["build", file("missing.txt"), "-o", "", "--type", "fuse8"],
      ["merge", file("missing.txt"), file("missing.txt"), "-o", ""],
      ["dedup", file("b.txt"), "-o", "", "--repeats", "."],
      ["intersect", file("missing.txt"), file("b.txt"), "-o", ""],
    ]) {
      expectOneLineError(run(args), /an output's file name is empty \(-o ""\)/, 2);
    }
    expect(strays(dir)).toEqual([]);
  });


  it("writing to /dev/null is not refused, and /dev/null stays a device", () => {
    expect(run(["dedup", file("f.txt"), "-o", "/dev/null"]).code).toBe(0);
    expect(statSync("/dev/null").isCharacterDevice()).toBe(true);
  });
});

describe("a command stopped mid-write leaves the old output intact", () => {
  const big = file("big.txt");
  beforeAll(() => {
    // About 120 MB of distinct lines: many seconds of writing, so the signal lands mid-run.
    const fd = openSync(big, "w");
    for (let part = 0; part < 40; part++) writeFileSync(fd, lines(100_000, `https://big.example/${part}/some/longer/path/`));
    closeSync(fd);
  });

  /** Starts dedup of the big file into `out`, and resolves once its temporary file has data in it. */
  async function startWriting(out: string, extra: string[] = []) {
    writeFileSync(out, OLD);
    const child = spawn(process.execPath, [BIN, "dedup", big, "-o", out, ...extra], { stdio: "ignore" });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    const temporary = () => strays(dir).find((name) => name.startsWith(".out.txt."));
    for (let i = 0; i < 2000; i++) {
      const name = temporary();
      if (name && statSync(file(name), { throwIfNoEntry: false })?.size) return { child, exited, temporary: name };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error("dedup never started writing");
  }

  it.each([
    ["SIGTERM", "1"],
    ["SIGINT", "2"],
  ] as const)("%s stops dedup --threads %s whose standard output is a pipe nobody reads, at once, removing its temporary file", async (signal, threads) => {
    const child = spawn(process.execPath, [BIN, "dedup", big, "-q", "--threads", threads, "--repeats", file("stalled-rep.txt")], { stdio: ["ignore", "pipe", "ignore"] });
    child.stdout!.pause(); // read no more than the stream's buffer: the pipe fills, and dedup waits on it
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_, how) => resolve(how)));
    try {
      const temporary = () => strays(dir).find((name) => name.startsWith(".stalled-rep.txt."));
      for (let i = 0; i < 2000 && !temporary(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(temporary()).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the pipe full long since: 120 MB of new lines
      child.kill(signal);
      const how = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("still running after 5 s"), 5000))]);
      expect(how).toBe(signal);
      expect(strays(dir)).toEqual([]);
      expect(existsSync(file("stalled-rep.txt"))).toBe(false);
    } finally {
      child.kill("SIGKILL");
      child.stdout!.destroy();
    }
  });

  it("dedup --repeats - whose reader stalls holds back a bounded amount, not every repeat", async () => {
    // The big file twice: 120 MB of repeats for standard output, which nobody reads.
    const twice = file("twice.txt");
    writeFileSync(twice, Buffer.concat([readFileSync(big), readFileSync(big)]));
    const child = spawn(process.execPath, [BIN, "dedup", twice, "-q", "--threads", "1", "-o", file("twice-out.txt"), "--repeats", "-"], { stdio: ["ignore", "pipe", "ignore"] });
    child.stdout!.pause();
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_, how) => resolve(how)));
    try {
      // Long enough to read the whole file (about 2 s here) had the repeats been queued.
      await new Promise((resolve) => setTimeout(resolve, 6000));
      const resident = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) * 1024;
      expect(resident).toBeLessThan(200 * 1024 * 1024);
      child.kill("SIGTERM");
      expect(await exited).toBe("SIGTERM");
      expect(existsSync(file("twice-out.txt"))).toBe(false);
      expect(strays(dir)).toEqual([]);
    } finally {
      child.kill("SIGKILL");
      child.stdout!.destroy();
      rmSync(twice, { force: true });
    }
  });

  it("kill -9: the old output is untouched (only the temporary file is left behind)", async () => {
    const { child, exited, temporary } = await startWriting(file("out.txt"));
    child.kill("SIGKILL");
    expect((await exited).signal).toBe("SIGKILL");
    expect(readFileSync(file("out.txt"), "utf8")).toBe(OLD);
    expect(statSync(file(temporary)).size).toBeGreaterThan(0); // what was written went to the temporary file
    rmSync(file(temporary));
  });

  it.each(["SIGTERM", "SIGINT"] as const)("%s: the old output is untouched and the temporary files are removed", async (signal) => {
    const { child, exited } = await startWriting(file("out.txt"), ["--repeats", file("rep.txt")]);
    child.kill(signal);
    expect((await exited).signal).toBe(signal);
    expect(readFileSync(file("out.txt"), "utf8")).toBe(OLD);
    expect(existsSync(file("rep.txt"))).toBe(false);
    expect(strays(dir)).toEqual([]);
  });

  it("completed, the output is replaced whole, keeping the old file's permissions", () => {
    writeFileSync(file("small-out.txt"), OLD);
    chmodSync(file("small-out.txt"), 0o640);
    writeFileSync(file("small.txt"), "a\nb\na\n");
    expect(run(["dedup", file("small.txt"), "-o", file("small-out.txt")]).code).toBe(0);
    expect(readFileSync(file("small-out.txt"), "utf8")).toBe("a\nb\n");
    expect(statSync(file("small-out.txt")).mode & 0o777).toBe(0o640);
    expect(strays(dir)).toEqual([]);
  });

  it("an output whose name is as long as a file's name can be (255 bytes) is written, new or replaced: its temporary name is cut to fit", () => {
    const ascii = `${"a".repeat(251)}.txt`;
    const wide = "例".repeat(85); // 3 bytes each in UTF-8
    writeFileSync(file("long-in.txt"), "a\nb\na\n");
    for (const name of [ascii, wide]) {
      expect(Buffer.byteLength(name)).toBe(255);
      for (const old of [false, true]) {
        if (old) writeFileSync(file(name), OLD);
        const result = run(["dedup", file("long-in.txt"), "-o", file(name), "-q"]);
        expect(result.code, result.stderr).toBe(0);
        expect(readFileSync(file(name), "utf8")).toBe("a\nb\n");
      }
      expect(run(["build", file("long-in.txt"), "-o", file(name), "-q"]).code).toBe(0);
      expect(run(["query", file(name), "b"]).stdout).toBe("b\tprobably present\n");
      rmSync(file(name));
    }
    expect(strays(dir)).toEqual([]);
  });

  it("an output that is a symbolic link: the file it points to is replaced, the link stays a link", () => {
    writeFileSync(file("real-out.txt"), OLD);
    symlinkSync(file("real-out.txt"), file("link-out.txt"));
    expect(run(["dedup", file("small.txt"), "-o", file("link-out.txt")]).code).toBe(0);
    expect(lstatSync(file("link-out.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(file("real-out.txt"), "utf8")).toBe("a\nb\n");
    expect(strays(dir)).toEqual([]);
  });

  it("an output that is a link to a file not there yet, through a relative link to a link: that file is made, the links stay", () => {
    mkdirSync(file("later"), { recursive: true });
    symlinkSync("later/made.txt", file("to-made.txt"));
    symlinkSync("to-made.txt", file("to-to-made.txt"));
    expect(run(["dedup", file("small.txt"), "-o", file("to-to-made.txt")]).code).toBe(0);
    expect(lstatSync(file("to-to-made.txt")).isSymbolicLink()).toBe(true);
    expect(lstatSync(file("to-made.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(file("later/made.txt"), "utf8")).toBe("a\nb\n");
    expect(strays(dir)).toEqual([]);
    expect(strays(file("later"))).toEqual([]);
  });

  it("a link whose text climbs out of a linked folder goes where the kernel says, never onto the input; a loop of links is refused", () => {
    // linkdir → real/sub, and real/sub/out → ../x: the kernel reads that as real/x; the path's text would give ./x.
    mkdirSync(file("climb/real/sub"), { recursive: true });
    symlinkSync(file("climb/real/sub"), file("climb/linkdir"));
    writeFileSync(file("climb/real/x"), OLD);
    symlinkSync("../x", file("climb/real/sub/out"));
    writeFileSync(file("climb/x"), "p\nq\np\n");
    expect(run(["dedup", file("climb/x"), "-o", file("climb/linkdir/out")]).code).toBe(0);
    expect(readFileSync(file("climb/x"), "utf8")).toBe("p\nq\np\n");
    expect(readFileSync(file("climb/real/x"), "utf8")).toBe("p\nq\n");
    // The same with the target not there yet: the kernel's real/y is made.
    symlinkSync("../y", file("climb/real/sub/new"));
    expect(run(["dedup", file("climb/x"), "-o", file("climb/linkdir/new")]).code).toBe(0);
    expect(readFileSync(file("climb/real/y"), "utf8")).toBe("p\nq\n");
    expect(existsSync(file("climb/y"))).toBe(false);
    symlinkSync("loop-b", file("climb/loop-a"));
    symlinkSync("loop-a", file("climb/loop-b"));
    expectOneLineError(run(["dedup", file("climb/x"), "-o", file("climb/loop-a")]), /cannot write .*loop-a: too many symbolic links/);
    expect(lstatSync(file("climb/loop-a")).isSymbolicLink()).toBe(true);
    expect(strays(file("climb"))).toEqual([]);
  });
});

describe("a reader that stops reading", () => {
  /** CPU time (clock ticks, user + system, all threads) a process has used so far, from /proc. */
  const ticks = (pid: number) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return Number(fields[11]) + Number(fields[12]);
  };

  it.runIf(existsSync("/proc/self/stat"))("is waited for without spinning, with 1 and 2 threads, and the output is whole once it reads again", async () => {
    // 400,000 lines give ~4 MB of answers: far more than a pipe holds, so the CLI waits on its reader.
    writeFileSync(file("stall.txt"), lines(400_000, "stalled-reader-"));
    expect(run(["build", file("stall.txt"), "-o", file("stall.bloom")]).code).toBe(0);
    for (const threads of ["1", "2"]) {
      const fifo = file(`stall-${threads}.fifo`);
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
      // Opened without blocking for the writer to come, and not read until the CLI has waited a while.
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writer = openSync(fifo, "w");
      const input = openSync(file("stall.txt"), "r");
      const child = spawn(process.execPath, [BIN, "query", file("stall.bloom"), "-", "--threads", threads], { stdio: [input, writer, "pipe"] });
      closeSync(writer);
      closeSync(input);
      let stderr = "";
      child.stderr!.on("data", (chunk) => (stderr += chunk));
      // Once the pipe is full (the work before it may take a while on a busy machine), a second of waiting costs
      // almost nothing: retrying every millisecond used 8-11 ticks a second (of 100); the backed-off wait, about 1.
      let spent = Infinity;
      for (let tries = 0; tries < 20 && spent > 3; tries++) {
        const before = ticks(child.pid!);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        spent = ticks(child.pid!) - before;
      }
      expect(spent, `${spent} ticks in the quietest of 20 seconds waiting on a full pipe`).toBeLessThanOrEqual(3);
      const received: Buffer[] = [];
      const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
      const buffer = Buffer.alloc(1 << 16);
      for (;;) {
        let got = 0;
        try {
          got = readSync(reader, buffer);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
          await new Promise((resolve) => setTimeout(resolve, 1));
          continue;
        }
        if (got === 0) break;
        received.push(Buffer.from(buffer.subarray(0, got)));
      }
      closeSync(reader);
      expect(await exited, stderr).toBe(0);
      const answers = Buffer.concat(received).toString().split("\n").filter(Boolean);
      expect(answers).toHaveLength(400_000);
      expect(answers.every((line, i) => line === `stalled-reader-${i}\tprobably present`)).toBe(true);
    }
  });
});
