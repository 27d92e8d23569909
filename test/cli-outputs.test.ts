// Outputs that are not plain files, through the real `bloomkit` binary: a
// named pipe another program reads, and standard output named twice.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { urls } from "./helpers.js";

const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "bloomkit-outputs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

/** Runs bloomkit; a run that hangs is killed after 20 s (status null). */
function run(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { timeout: 20_000, killSignal: "SIGKILL" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.toString("utf8") };
}

/** Starts `cat fifo > copy`; resolves to what it read once the writer closes the pipe. */
function readerOf(fifo: string, copy: string): Promise<Buffer> {
  const reader = spawn("sh", ["-c", 'exec cat "$0" > "$1"', fifo, copy], { stdio: "ignore" });
  return new Promise((resolve) => reader.once("close", () => resolve(readFileSync(copy))));
}

describe("a filter file written to a named pipe", () => {
  const lines = file("lines.txt");
  writeFileSync(lines, urls(2_000, 5).join("\n") + "\n");
  const filter = file("lines.bloom");

  it.each([
    ["build --type bloom", ["build", lines, "--n", "2000", "-q"]],
    ["build --type fuse8", ["build", lines, "--type", "fuse8", "-q"]],
    ["merge", ["merge", filter, filter]],
  ])("%s -o FIFO gives the pipe's reader the whole filter, as a file gets it, and ends", async (name, args) => {
    if (args[0] === "merge") expect(run(["build", lines, "--n", "2000", "-q", "-o", filter]).code).toBe(0);
    const plain = file(`${name.replace(/\W+/g, "-")}.bloom`);
    expect(run([...args, "-o", plain]).code).toBe(0);
    const fifo = `${plain}.fifo`;
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const read = readerOf(fifo, `${fifo}.copy`);
    // Opening the pipe to check it and closing it again ended the reader's input with nothing; the
    // filter then waited forever for a reader that was gone, deaf to Ctrl-C.
    const { code, stderr } = run([...args, "-o", fifo]);
    expect(stderr).not.toMatch(/bloomkit:/);
    expect(code).toBe(0);
    expect((await read).equals(readFileSync(plain))).toBe(true);
  });
});

describe("standard output named twice", () => {
  const lines = file("twice.txt");
  writeFileSync(lines, "a\nb\na\n");

  it.each([
    ["-o /dev/stdout --repeats -", ["-o", "/dev/stdout", "--repeats", "-"]],
    ["--repeats /dev/fd/1", ["--repeats", "/dev/fd/1"]],
  ])("dedup %s to a pipe is refused, as it is when standard output is a file", (_, outputs) => {
    // The unique lines and the repeats went into the one pipe, mixed, with no word said.
    const { code, stdout, stderr } = run(["dedup", lines, "-q", ...outputs]);
    expect(stderr).toMatch(/^bloomkit: .* are the same file: give each output its own file\n$/);
    expect(code).toBe(1);
    expect(stdout.length).toBe(0);
  });
});

/** Starts bloomkit; resolves to its exit signal or code, and to "still running" if it has not ended `ms` after `settled` is called. */
function start(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<string | number | null>((resolve) => child.on("close", (code, signal) => resolve(signal ?? code)));
  const ended = (ms: number) => Promise.race([exited, new Promise((r) => setTimeout(() => r("still running"), ms))]);
  return { child, ended, stderr: () => stderr };
}

/** A new named pipe in the test's folder. */
function fifoNamed(name: string): string {
  const fifo = file(name);
  expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
  return fifo;
}

describe("a named pipe nobody opens at the other end", () => {
  const lines = file("waiting.txt");
  writeFileSync(lines, urls(3_000, 11).join("\n") + "\n");

  // The open of a pipe with no reader (or, to read, no writer) held the main thread, where the
  // handler of Ctrl-C is JS: the command waited for ever, deaf to it.
  it.each([
    ["dedup -o FIFO", (fifo: string) => ["dedup", lines, "-q", "-o", fifo]],
    ["dedup --repeats FIFO", (fifo: string) => ["dedup", lines, "-q", "-o", file("waiting-unique.txt"), "--repeats", fifo]],
    ["build -o FIFO", (fifo: string) => ["build", lines, "--n", "3000", "-q", "-o", fifo]],
    ["dedup of a FIFO", (fifo: string) => ["dedup", fifo, "-q", "-o", file("waiting-out.txt")]],
    ["query of a FIFO filter", (fifo: string) => ["query", fifo, "a"]],
  ])("%s: Ctrl-C stops the command while it waits, and leaves no temporary file", async (name, args) => {
    const fifo = fifoNamed(`${name.replace(/\W+/g, "-")}.fifo`);
    const before = new Set(readdirSync(dir));
    const run = start(args(fifo));
    expect(await run.ended(700)).toBe("still running"); // waiting for the other end
    run.child.kill("SIGINT");
    const result = await run.ended(5000);
    run.child.kill("SIGKILL");
    expect(result).toBe("SIGINT");
    expect(readdirSync(dir).filter((entry) => !before.has(entry))).toEqual([]);
  });

  it.each([
    ["dedup", ["dedup", lines, "-q"]],
    ["dedup of an empty file", ["dedup", file("empty.txt"), "-q"]],
    ["build", ["build", lines, "--n", "3000", "-q"]],
  ])("%s -o FIFO writes everything to a reader that comes late, as to a file", async (name, args) => {
    writeFileSync(file("empty.txt"), "");
    const plain = file(`late-${name.replace(/\W+/g, "-")}.out`);
    expect(run([...args, "-o", plain]).code).toBe(0);
    const fifo = fifoNamed(`late-${name.replace(/\W+/g, "-")}.fifo`);
    const writer = start([...args, "-o", fifo]);
    expect(await writer.ended(400)).toBe("still running");
    const read = readerOf(fifo, `${fifo}.copy`);
    expect(await writer.ended(15_000)).toBe(0);
    expect(writer.stderr()).not.toMatch(/bloomkit:/);
    expect((await read).equals(readFileSync(plain))).toBe(true);
  });

  it("refuses a named pipe output replaced by a file while it waits for its reader, and leaves that file as it is", async () => {
    // The wait ended by opening the path to write: a regular file put there meanwhile was emptied and written in place.
    const fifo = fifoNamed("replaced.fifo");
    const writer = start(["dedup", lines, "-q", "-o", fifo]);
    expect(await writer.ended(400)).toBe("still running");
    rmSync(fifo);
    writeFileSync(fifo, "precious\n");
    const result = await writer.ended(5000);
    writer.child.kill("SIGKILL");
    expect(result).toBe(1);
    expect(writer.stderr()).toBe(`bloomkit: cannot write ${fifo}: it is no longer a named pipe (it was replaced while the command waited for its reader)\n`);
    expect(readFileSync(fifo, "utf8")).toBe("precious\n");
  });

  it("merge reads a filter from a named pipe its writer fills", async () => {
    // merge opened each input to compare it with the output, closed it and opened it again to load it: a
    // writer that wrote in between had no reader (EPIPE). Inputs are now only looked at before the load.
    const a = file("merge-a.bloom");
    const b = file("merge-b.bloom");
    writeFileSync(file("merge-a.txt"), urls(500, 1).join("\n") + "\n");
    writeFileSync(file("merge-b.txt"), urls(500, 2).join("\n") + "\n");
    expect(run(["build", file("merge-a.txt"), "--n", "1000", "-q", "-o", a]).code).toBe(0);
    expect(run(["build", file("merge-b.txt"), "--n", "1000", "-q", "-o", b]).code).toBe(0);
    expect(run(["merge", a, b, "-o", file("merged-plain.bloom")]).code).toBe(0);
    const fifo = fifoNamed("merge-a.fifo");
    const writer = spawn("sh", ["-c", 'exec cat "$0" > "$1"', a, fifo], { stdio: "ignore" });
    const merged = start(["merge", fifo, b, "-o", file("merged.bloom")]);
    const result = await merged.ended(15_000);
    merged.child.kill("SIGKILL");
    writer.kill();
    expect(merged.stderr()).not.toMatch(/bloomkit:/);
    expect(result).toBe(0);
    expect(readFileSync(file("merged.bloom")).equals(readFileSync(file("merged-plain.bloom")))).toBe(true);
  });

  it("merge into a folder it cannot write says so before it reads a filter, as build does", async () => {
    // The output was first tried after both filters were loaded: a filter's named pipe was waited for, and a
    // large file read whole, only to be told the folder is missing.
    const b = file("merge-b.bloom");
    if (!existsSync(b)) {
      writeFileSync(file("merge-b.txt"), urls(500, 2).join("\n") + "\n");
      expect(run(["build", file("merge-b.txt"), "--n", "1000", "-q", "-o", b]).code).toBe(0);
    }
    const fifo = fifoNamed("merge-unwritten.fifo");
    const merged = start(["merge", fifo, b, "-o", file("no-folder/merged.bloom")]);
    const result = await merged.ended(10_000);
    merged.child.kill("SIGKILL");
    expect(result).toBe(1);
    expect(merged.stderr()).toBe(`bloomkit: cannot write ${file("no-folder/merged.bloom")}: no such file or directory\n`);
  });
});

describe("a named pipe that is both an input and the output", () => {
  const lines = file("self.txt");
  writeFileSync(lines, urls(3_000, 13).join("\n") + "\n");

  // The command read back what it wrote there and, holding the pipe open to write, never saw its input
  // end: it waited for ever. It is refused as an output that is an input is.
  it.each([
    ["dedup FIFO -o FIFO", (fifo: string) => ["dedup", fifo, "-q", "-o", fifo]],
    ["dedup FIFO --repeats FIFO", (fifo: string) => ["dedup", fifo, "-q", "-o", file("self-unique.txt"), "--repeats", fifo]],
    ["build FIFO -o FIFO", (fifo: string) => ["build", fifo, "--n", "3000", "-q", "-o", fifo]],
    ["build --type fuse8 FIFO -o FIFO", (fifo: string) => ["build", fifo, "--type", "fuse8", "-q", "-o", fifo]],
    ["intersect FILE FIFO -o FIFO", (fifo: string) => ["intersect", lines, fifo, "-q", "-o", fifo]],
  ])("%s is refused in one line, exit 1", async (name, args) => {
    const fifo = fifoNamed(`self-${name.replace(/\W+/g, "-")}.fifo`);
    const writer = spawn("sh", ["-c", 'exec cat "$0" > "$1"', lines, fifo], { stdio: "ignore" });
    const command = start(args(fifo));
    const result = await command.ended(10_000);
    command.child.kill("SIGKILL");
    writer.kill("SIGKILL");
    expect(result).toBe(1);
    expect(command.stderr()).toMatch(/^bloomkit: \S+ is also an input: .*\n$/);
  });
});
