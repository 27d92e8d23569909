// Outputs that are not plain files, through the real `bloomkit` binary: a
// named pipe another program reads, and standard output named twice.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
