// The CLI's reading and writing, as functions: linePieces (a file read ahead
// in libuv's thread pool while the caller works on the last piece, or a pipe
// read as it comes) and Output over a temporary file written in the thread
// pool and flushed to disk along the way. The commands that use them are run
// in cli.test.ts and cli-threads.test.ts; here, also with a file-size limit
// that makes the writes in the background fail.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AtomicFile, FLUSH_AHEAD_BYTES, WRITE_BEHIND_BYTES } from "../cli/atomic-output.js";
import { closeInput, openInput } from "../cli/input.js";
import { estimateLines, linePieces, MAX_LINE_BYTES, Output, sizedPieces } from "../cli/io.js";
import { rng } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "bloomkit-io-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MiB = 1 << 20;

/**
 * Random lines of 0 to 200 bytes, and a few of 0.9 to 3.5 MiB (longer than the
 * reader's 1 MiB pieces), with or without a final newline: the text and its lines.
 */
function randomText(seed: number, lines: number, finalNewline: boolean): Buffer {
  const random = rng(seed);
  const parts: Buffer[] = [];
  for (let i = 0; i < lines; i++) {
    const long = random() < 0.002;
    const length = long ? Math.floor((0.9 + 2.6 * random()) * MiB) : Math.floor(random() * 200);
    // Bytes other than "\n", so every line is one line.
    const line = Buffer.alloc(length, 97 + (i % 26));
    if (length > 0) line[Math.floor(random() * length)] = 13; // a "\r" somewhere is a byte like any other
    parts.push(line, Buffer.from(i < lines - 1 || finalNewline ? "\n" : ""));
  }
  return Buffer.concat(parts);
}

/** Every piece linePieces yields for `path`, copied (a piece without `buffers` is valid only until the next is asked for), and whether each ended at a newline. */
async function piecesOf(path: string, withBuffers: boolean): Promise<{ pieces: Buffer[]; handedOver: ArrayBufferLike[] }> {
  const taken: ArrayBuffer[] = [];
  const take = (bytes: number) => {
    const buffer = new ArrayBuffer(bytes);
    taken.push(buffer);
    return buffer;
  };
  const pieces: Buffer[] = [];
  const handedOver: ArrayBufferLike[] = [];
  for await (const piece of linePieces(path, withBuffers ? take : undefined)) {
    pieces.push(Buffer.from(piece));
    if (withBuffers) {
      handedOver.push(piece.buffer);
      // The piece is the caller's: scribbling over it must not change later pieces.
      piece.fill(0x21);
    }
  }
  if (withBuffers) for (const buffer of handedOver) expect(taken).toContain(buffer);
  return { pieces, handedOver };
}

describe("linePieces", () => {
  for (const [seed, lines, finalNewline] of [
    [1, 60_000, true],
    [2, 40_000, false],
    [3, 1, false],
    [4, 3, true],
  ] as const) {
    for (const withBuffers of [false, true]) {
      it(`yields the file's bytes in order, cut only after a newline (seed ${seed}, ${lines} lines, ${withBuffers ? "pieces handed over" : "pieces in turns"})`, async () => {
        const text = randomText(seed, lines, finalNewline);
        const path = join(dir, `text-${seed}`);
        writeFileSync(path, text);
        const { pieces, handedOver } = await piecesOf(path, withBuffers);
        expect(Buffer.compare(Buffer.concat(pieces), text)).toBe(0);
        for (const piece of pieces.slice(0, -1)) expect(piece.at(-1)).toBe(10);
        expect(pieces.every((piece) => piece.length > 0)).toBe(true);
        // Handed-over pieces each have a buffer of their own.
        if (withBuffers) expect(new Set(handedOver).size).toBe(handedOver.length);
        if (text.length > 4 * MiB) expect(pieces.length).toBeGreaterThan(3);
      });
    }
  }

  it("sizes for a file's lines from windows spread through it, not from its first piece alone", async () => {
    // 1,100 lines of 1,000 bytes, then 1,500,000 short numbers: the first piece alone suggested 12,000 lines.
    const long = Array.from({ length: 1_100 }, (_, i) => `${i}-${"x".repeat(990)}`.padEnd(999, "x"));
    const short = Array.from({ length: 1_500_000 }, (_, i) => String(i));
    const path = join(dir, "skewed-lines.txt");
    writeFileSync(path, [...long, ...short].join("\n") + "\n");
    const input = await openInput(path);
    const first = readFileSync(path).subarray(0, MiB);
    const estimate = estimateLines(input, input.size, first)!;
    closeInput(input);
    expect(estimate).toBeGreaterThan(1_501_100 * 0.8);
    expect(estimate).toBeLessThan(1_501_100 * 1.25);
  });

  it("sizes for a file's lines from its size, and not at all for a size less than its first piece (files of /proc say 0)", () => {
    const piece = Buffer.from("aaaa\nbbbbbbb\ncccc\n"); // 3 lines of 6 bytes on average
    // An input that cannot be read at an offset (no identity here): the first piece's average line.
    const unread = { path: "x", fd: -1, size: undefined, regular: false, identity: undefined };
    expect(estimateLines(unread, 6_000, piece)).toBe(1_000);
    expect(estimateLines(unread, piece.length, piece)).toBe(3);
    expect(estimateLines(unread, 0, piece)).toBeUndefined();
    expect(estimateLines(unread, piece.length - 1, piece)).toBeUndefined();
    expect(estimateLines(unread, undefined, piece)).toBeUndefined();
    // A file of /proc reports 0 bytes and reads as many: dedup then grows its filter as for standard input.
    const proc = spawnSync(process.execPath, [new URL("../dist/cli/main.js", import.meta.url).pathname, "dedup", "/proc/self/mountinfo"], { encoding: "utf8" });
    expect(proc.status).toBe(0);
    expect(proc.stderr).toMatch(/a growing split-block Bloom filter of 1 layer/);
  });

  it("yields nothing for an empty file, and the same pieces from an open input as from its path", async () => {
    const empty = join(dir, "empty");
    writeFileSync(empty, "");
    expect((await piecesOf(empty, false)).pieces).toEqual([]);
    const path = join(dir, "open");
    const text = randomText(5, 20_000, true);
    writeFileSync(path, text);
    const input = await openInput(path);
    const fromInput: Buffer[] = [];
    for await (const piece of linePieces(input)) fromInput.push(Buffer.from(piece));
    closeInput(input);
    expect(Buffer.compare(Buffer.concat(fromInput), text)).toBe(0);
  });

  it("stops cleanly when the caller stops early, with a read still running", async () => {
    const path = join(dir, "early");
    const text = randomText(6, 50_000, true);
    writeFileSync(path, text);
    let first: Buffer | undefined;
    for await (const piece of linePieces(path)) {
      first = Buffer.from(piece);
      break;
    }
    expect(first && Buffer.compare(first, text.subarray(0, first.length))).toBe(0);
    // The generator closed its file: reading the same path again from the start works.
    expect(Buffer.compare(Buffer.concat((await piecesOf(path, false)).pieces), text)).toBe(0);
  });

  it("learns the size of a short named pipe by reading it ahead, as it does for standard input, and gives every byte", async () => {
    const fifo = join(dir, "named.fifo");
    execFileSync("mkfifo", [fifo]);
    const text = randomText(11, 3_000, true); // a few lines longer than a piece among them
    const writer = spawn("sh", ["-c", `cat > '${fifo}'`], { stdio: ["pipe", "ignore", "ignore"] });
    writer.stdin.end(text);
    const input = await openInput(fifo);
    try {
      const { size, pieces } = await sizedPieces(input);
      const got: Buffer[] = [];
      for await (const piece of pieces) got.push(Buffer.from(piece));
      expect(size).toBe(text.length);
      expect(Buffer.concat(got).equals(text)).toBe(true);
    } finally {
      closeInput(input);
    }
  });

  it("reads a pipe as it comes", async () => {
    const text = randomText(7, 30_000, false);
    const path = join(dir, "piped");
    writeFileSync(path, text);
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    const writer = spawn("sh", ["-c", 'exec cat "$0" > "$1"', path, fifo], { stdio: "inherit" });
    const closed = new Promise((resolve) => writer.once("close", resolve));
    const input = await openInput(fifo); // waits until the writer opens the pipe
    expect(input.regular).toBe(false);
    const pieces: Buffer[] = [];
    for await (const piece of linePieces(input)) pieces.push(Buffer.from(piece));
    closeInput(input);
    await closed;
    expect(Buffer.compare(Buffer.concat(pieces), text)).toBe(0);
  });
});

describe("Output to a file, flushed along the way", () => {
  /** Writes `total` bytes in pieces through every Output method, then commits or aborts; the bytes written. */
  function writeThrough(path: string, total: number, seed: number): Buffer {
    const random = rng(seed);
    const out = new Output(path);
    const written: Buffer[] = [];
    let bytes = 0;
    while (bytes < total) {
      const length = Math.floor(random() * 3 * MiB);
      const part = Buffer.alloc(length, 97 + (bytes % 26));
      const way = Math.floor(random() * 3);
      if (way === 0) out.write(part);
      else if (way === 1) out.writeThrough(part);
      else out.writeRange(Buffer.concat([Buffer.from("xx"), part]), 2, 2 + length);
      written.push(part);
      bytes += length;
    }
    return Object.assign(Buffer.concat(written), { out });
  }

  it("writes every byte, in order, past several flushes, and leaves no temporary file", async () => {
    const path = join(dir, "flushed.txt");
    writeFileSync(path, "the old output");
    const expected = writeThrough(path, 3 * FLUSH_AHEAD_BYTES + 12345, 8) as Buffer & { out: Output };
    // Let the background flushes run, as the commands' loops do between pieces.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expected.out.close();
    expect(Buffer.compare(readFileSync(path), expected)).toBe(0);
    expect(readdirSync(dir).filter((name) => name.startsWith(".flushed.txt."))).toEqual([]);
  });

  it("leaves the old output as it was when the run is abandoned with a flush still running", async () => {
    const path = join(dir, "kept.txt");
    writeFileSync(path, "the old output");
    const file = new AtomicFile(path);
    file.write(Buffer.alloc(FLUSH_AHEAD_BYTES + MiB, 120)); // past FLUSH_AHEAD_BYTES: a flush starts
    file.abort();
    expect(readFileSync(path, "utf8")).toBe("the old output");
    expect(readdirSync(dir).filter((name) => name.startsWith(".kept.txt."))).toEqual([]);
    // The flush's own descriptor is closed when the flush ends: nothing stays open on the removed file.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const open = readdirSync("/proc/self/fd").map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return ""; // the descriptor readdir itself used
      }
    });
    expect(open.filter((target) => target.includes(".kept.txt."))).toEqual([]);
    expect(existsSync(path)).toBe(true);
  });
});

describe("writes in the background", () => {
  it("puts the bytes of writeBehind and write in the order they were given, and releases each buffer once", async () => {
    const random = rng(10);
    const path = join(dir, "behind.bin");
    const file = new AtomicFile(path);
    const expected: Buffer[] = [];
    const released = new Map<Uint8Array, number>();
    let behind = 0;
    for (let i = 0; i < 400; i++) {
      const part = Buffer.alloc(Math.floor(random() * 256 * 1024), i % 251);
      expected.push(part);
      if (random() < 0.7 && file.writeBehind(part, (bytes) => released.set(bytes, (released.get(bytes) ?? 0) + 1))) behind++;
      else file.write(part);
      // Now and then, let the thread pool catch up, as a command does between pieces.
      if (random() < 0.05) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(behind).toBeGreaterThan(50);
    await file.settle();
    file.commit();
    expect(Buffer.compare(readFileSync(path), Buffer.concat(expected))).toBe(0);
    expect(released.size).toBe(behind);
    expect([...released.values()].every((times) => times === 1)).toBe(true);
  });

  it("takes at most WRITE_BEHIND_BYTES at once, and refuses commit() before settle()", async () => {
    const file = new AtomicFile(join(dir, "budget.bin"));
    const chunk = Buffer.alloc(1 << 20);
    let taken = 0;
    while (file.writeBehind(chunk, () => {})) taken += chunk.length;
    expect(taken).toBe(WRITE_BEHIND_BYTES);
    expect(() => file.commit()).toThrow(/settle/);
    await file.settle();
    file.commit();
    expect(readFileSync(join(dir, "budget.bin")).length).toBe(WRITE_BEHIND_BYTES);
  });

  it("on a terminal, the error of a run that fails mid-way starts its own line, not the end of the rate line", () => {
    // Half a million repeats first (a rate line is shown while they are read), then distinct lines past a 1 MiB file-size limit.
    const input = join(dir, "tty-limited-in.txt");
    writeFileSync(input, "repeat\n".repeat(3_000_000) + Array.from({ length: 100_000 }, (_, i) => `https://example.com/${i}/${"y".repeat(i % 30)}`).join("\n") + "\n");
    const output = join(dir, "tty-limited-out.txt");
    const bin = new URL("../dist/cli/main.js", import.meta.url).pathname;
    const command = `trap '' XFSZ; ulimit -f 1024; exec '${process.execPath}' '${bin}' dedup '${input}' -o '${output}' --threads 1`;
    // script(1) gives the command a pseudo-terminal: the rate line and the error both arrive on its stdout.
    const result = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8" });
    expect(result.stdout).toMatch(/MB\/s/);
    expect(result.stdout).toMatch(/\r\x1b\[2Kbloomkit: cannot write .*tty-limited-out\.txt: file too large\r?\n$/);
  });

  it("query of standard input shows its rate line on a terminal's stderr, and --quiet hides it", () => {
    const keys = join(dir, "quiet-keys.txt");
    writeFileSync(keys, Array.from({ length: 1_000 }, (_, i) => `key-${i}`).join("\n") + "\n");
    const filter = join(dir, "quiet.bloom");
    const bin = new URL("../dist/cli/main.js", import.meta.url).pathname;
    expect(spawnSync(process.execPath, [bin, "build", keys, "-o", filter]).status).toBe(0);
    // script(1) makes stderr a terminal; the answers go to a file, where a rate line would not overwrite them.
    const shown = (quiet: string) => {
      const answers = join(dir, `quiet-answers${quiet}.txt`);
      const command = `exec '${process.execPath}' '${bin}' query '${filter}' - ${quiet} < '${keys}' > '${answers}'`;
      const result = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8" });
      expect(readFileSync(answers, "utf8").split("\n")[0]).toBe("key-0\tprobably present");
      return result.stdout;
    };
    expect(shown("")).toMatch(/query: .* MB\/s, 1,000 lines/);
    expect(shown("--quiet")).not.toMatch(/MB\/s/);
  });

  for (const threads of [1, 2]) {
    it(`a command whose output outgrows the file-size limit says so in one line and leaves the old output (--threads ${threads})`, () => {
      const input = join(dir, `limited-in-${threads}.txt`);
      const lines = Array.from({ length: 200_000 }, (_, i) => `https://example.com/${i}/${"x".repeat(i % 40)}`);
      writeFileSync(input, lines.join("\n") + "\n");
      const output = join(dir, `limited-out-${threads}.txt`);
      writeFileSync(output, "the old output\n");
      // 2 MiB (in 1024-byte blocks); SIGXFSZ ignored, so a write past it fails with EFBIG instead of killing the process.
      const bin = new URL("../dist/cli/main.js", import.meta.url).pathname;
      const result = spawnSync("sh", ["-c", `trap '' XFSZ; ulimit -f 2048; exec "$0" "$@"`, process.execPath, bin, "dedup", input, "-o", output, "--threads", String(threads)], { encoding: "utf8" });
      expect(result.stderr).toBe(`bloomkit: cannot write ${output}: file too large\n`);
      expect(result.status).toBe(1);
      expect(readFileSync(output, "utf8")).toBe("the old output\n");
      expect(readdirSync(dir).filter((name) => name.startsWith(`.limited-out-${threads}.txt.`))).toEqual([]);
    });
  }
});

describe("an output named by an open descriptor (/dev/stdout, /dev/stderr, /dev/fd/N)", () => {
  const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
  const lines = "a\nb\na\nc\n";

  /** Runs the CLI with descriptor `fd` (1, 2 or 3) opened on `log` for appending, as the shell's `N>> log` does. */
  function withAppended(fd: 1 | 2 | 3, args: string[]): { log: string; status: number | null } {
    const input = join(dir, "open-fd-input.txt");
    const log = join(dir, `open-fd-${fd}.log`);
    writeFileSync(input, lines);
    writeFileSync(log, "kept from before\n");
    const script = `exec '${process.execPath}' '${BIN}' ${args.map((a) => `'${a.replace("INPUT", input)}'`).join(" ")} ${fd}>> '${log}'`;
    const before = readdirSync(dir).length;
    const { status } = spawnSync("sh", ["-c", script], { encoding: "utf8" });
    expect(readdirSync(dir).length).toBe(before); // no temporary file left
    return { log: readFileSync(log, "utf8"), status };
  }

  it.runIf(existsSync("/proc/self/fd"))("is written where the descriptor stands: a file the shell opened for appending keeps what it held", () => {
    for (const [fd, name] of [[1, "/dev/stdout"], [2, "/dev/stderr"], [1, "/dev/fd/1"], [3, "/dev/fd/3"], [3, "/proc/self/fd/3"]] as const) {
      const { log, status } = withAppended(fd, ["dedup", "INPUT", "-o", name, "-q"]);
      expect(status, name).toBe(0);
      expect(log.startsWith("kept from before\na\nb\nc\n"), `${name}: ${JSON.stringify(log)}`).toBe(true);
    }
    // A filter file too: build writes it after what the log held.
    const { log, status } = withAppended(1, ["build", "INPUT", "-o", "/dev/stdout"]);
    expect(status).toBe(0);
    expect(log.startsWith("kept from before\nBLMK")).toBe(true);
  });

  it.runIf(existsSync("/proc/self/fd"))("is not one of Node's own descriptors: a number the shell did not open is refused as a name with no file", () => {
    const { status } = spawnSync(process.execPath, [BIN, "dedup", join(dir, "open-fd-input.txt"), "-o", "/dev/fd/9", "-q"], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
    expect(status).toBe(1);
  });

  it.runIf(existsSync("/proc/self/fd"))("as an input, is none of Node's own pipes: each one is refused at once, where the read waited forever", () => {
    // Read by its name, the pipe Node's event loop wakes on gave its wake-ups to the input: the read never ended,
    // and Ctrl-C (SIGTERM too) went unheard, as the signal's wake-up went to the input as well.
    // Which numbers are Node's own pipes differs between Node versions and with what the command has open: under
    // Node 24 the command's /dev/fd/20 is a /dev/null Node holds, which reads as empty. So every run must end by
    // itself, refused in one line or having read something that ended, and some of Node's pipes must be among them.
    let ownPipesRefused = 0;
    for (const command of [["dedup", "-o", join(dir, "own-pipe-out.txt")], ["build", "--n", "10", "-o", join(dir, "own-pipe.bloom")], ["info"]]) {
      for (let fd = 3; fd < 32; fd++) {
        const name = `/dev/fd/${fd}`;
        const args = command[0] === "info" ? ["info", name] : [command[0], name, ...command.slice(1), "-q"];
        const { status, signal, stderr } = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"], timeout: 10_000, killSignal: "SIGKILL" });
        expect([command[0], name, signal]).toEqual([command[0], name, null]);
        if (status === 0) continue;
        expect([command[0], name, status]).toEqual([command[0], name, 1]);
        expect(stderr, `${command[0]} ${name}`).toMatch(new RegExp(`^bloomkit: [^\n]*${name}[^\n]*\n$`));
        if (stderr.includes("it is a pipe this process holds open for writing too")) ownPipesRefused++;
      }
    }
    expect(ownPipesRefused).toBeGreaterThanOrEqual(3);
  });

  it("is a socket passed by the program that started bloomkit: refused as a socket, not called one of Node's own", () => {
    // Node's spawn() makes a 'pipe' descriptor a socket: /dev/fd/3 of one was refused as "one of Node's own".
    const input = join(dir, "open-fd-input.txt");
    writeFileSync(input, lines);
    const { status, stderr, output } = spawnSync(process.execPath, [BIN, "dedup", input, "-q", "-o", "/dev/fd/3"], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe", "pipe"] });
    expect({ status, stderr }).toEqual({ status: 1, stderr: "bloomkit: cannot write /dev/fd/3: descriptor 3 is a socket, which bloomkit cannot open by name: pass it as standard output and write there (-o -)\n" });
    expect(output[3]).toBe("");
  });

  it.runIf(existsSync("/proc/self/fd"))("as an input, a named pipe the shell opened read-write (3<> fifo) is refused as one whose end never comes, not called Node's own", () => {
    // This process holds a writing end of it, so a read would never end; it was called "one of Node's own".
    const fifo = join(dir, "read-write-input.fifo");
    execFileSync("mkfifo", [fifo]);
    const script = `exec '${process.execPath}' '${BIN}' dedup /dev/fd/3 -q -o '${join(dir, "read-write-input.out")}' 3<> '${fifo}'`;
    const { status, stderr } = spawnSync("sh", ["-c", script], { encoding: "utf8", timeout: 10_000, killSignal: "SIGKILL" });
    expect({ status, stderr }).toEqual({
      status: 1,
      stderr: "bloomkit: cannot read /dev/fd/3: it is a pipe this process holds open for writing too (one of Node's own, or one the shell opened with <>), so its end would never come\n",
    });
    expect(existsSync(join(dir, "read-write-input.out"))).toBe(false);
  });

  it.runIf(existsSync("/proc/self/fd"))("is a named pipe the shell opened read-write (3<> fifo): build writes the filter there, as dedup writes its lines", () => {
    // A descriptor open for reading and writing on the pipe is the shell's here, not one of Node's own: build
    // refused it ("a pipe this process reads itself"), while dedup wrote to it.
    const input = join(dir, "open-fd-input.txt");
    const fifo = join(dir, "read-write.fifo");
    const file = join(dir, "read-write-build.bloom");
    writeFileSync(input, lines);
    execFileSync("mkfifo", [fifo]);
    execFileSync(process.execPath, [BIN, "build", input, "-q", "--n", "10", "-o", file]);
    for (const [command, expected] of [
      [["build", input, "-q", "--n", "10"], readFileSync(file)],
      [["dedup", input, "-q"], Buffer.from("a\nb\nc\n")],
    ] as const) {
      // The reader takes what is written; bloomkit's descriptor 3 is the fifo opened read-write, so it never waits for it.
      const script = `cat '${fifo}' > '${fifo}.got' & exec '${process.execPath}' '${BIN}' ${command.map((a) => `'${a}'`).join(" ")} -o /dev/fd/3 3<> '${fifo}'`;
      const { status, stderr } = spawnSync("sh", ["-c", script], { encoding: "utf8", timeout: 10_000 });
      expect({ command: command[0], status, refused: /^bloomkit:/m.test(stderr) }).toEqual({ command: command[0], status: 0, refused: false });
      // The reader ends when the last writer (bloomkit) is gone.
      for (let i = 0; i < 100 && !readFileSync(`${fifo}.got`).equals(expected); i++) spawnSync("sleep", ["0.05"]);
      expect(readFileSync(`${fifo}.got`).equals(expected), command[0]).toBe(true);
    }
  });

  it.runIf(existsSync("/proc/self/fd"))("is a named pipe the shell also opened for reading (-o fifo 3< fifo): refused without calling it Node's own, nothing written", () => {
    // The output would come back to this process; the refusal called the shell's descriptor "one of Node's own".
    const input = join(dir, "open-fd-input.txt");
    const fifo = join(dir, "read-too.fifo");
    writeFileSync(input, lines);
    execFileSync("mkfifo", [fifo]);
    for (const command of [["dedup", input, "-q"], ["build", input, "-q", "--n", "10"]]) {
      // Descriptor 4 holds a writer while the shell opens 3 for reading (else that open waits), and is closed for bloomkit.
      const script = `exec 4<> '${fifo}'; exec '${process.execPath}' '${BIN}' ${command.map((a) => `'${a}'`).join(" ")} -o '${fifo}' 3< '${fifo}' 4<&-`;
      const { status, stderr } = spawnSync("sh", ["-c", script], { encoding: "utf8", timeout: 10_000, killSignal: "SIGKILL" });
      expect({ command: command[0], status, stderr }).toEqual({
        command: command[0],
        status: 1,
        stderr: `bloomkit: cannot write ${fifo}: it is a pipe this process reads itself (one of Node's own, or one the shell opened with <), not an output the shell opened\n`,
      });
    }
  });

  // /proc hidden in a mount namespace of its own (root only): what macOS and the BSDs give, where /proc is missing.
  const hidesProc = spawnSync("unshare", ["-m", "sh", "-c", "mount -t tmpfs none /proc && test ! -e /proc/self"]).status === 0;
  it.runIf(hidesProc)("past standard error, without /proc: refused as a descriptor that cannot be told from Node's own, not called Node's", () => {
    // With no /proc/self/fd to look in, a descriptor the shell opened (3>> log) was refused as "one of Node's own".
    const input = join(dir, "open-fd-input.txt");
    const log = join(dir, "no-proc.log");
    writeFileSync(input, lines);
    writeFileSync(log, "kept from before\n");
    const script = `mount -t tmpfs none /proc && exec '${process.execPath}' '${BIN}' dedup '${input}' -q -o /dev/fd/3 3>> '${log}'`;
    const { status, stderr } = spawnSync("unshare", ["-m", "sh", "-c", script], { encoding: "utf8" });
    expect({ status, stderr }).toEqual({ status: 1, stderr: "bloomkit: cannot write /dev/fd/3: descriptor 3 cannot be told from one of Node's own here, with no /proc/self/fd to look in: name the file itself\n" });
    expect(readFileSync(log, "utf8")).toBe("kept from before\n");
  });

  it.runIf(existsSync("/proc/self/fd"))("is none of Node's own pipes, whatever its number: each one the shell did not open is refused, and nothing is written", () => {
    // Node's event loop reads pipes of its own (both ends in this process): /dev/fd/N reopened one by name, and the
    // output went into it. dedup said 0 and its lines were gone; build said "3 lines read", and Node, reading the
    // filter as wake-ups, died of a segmentation fault.
    const input = join(dir, "open-fd-input.txt");
    writeFileSync(input, lines);
    for (const command of [["dedup", input, "-q"], ["build", input, "-q"]]) {
      for (let fd = 3; fd < 32; fd++) {
        const name = `/dev/fd/${fd}`;
        const { status, signal, stderr } = spawnSync(process.execPath, [BIN, ...command, "-o", name], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
        expect([command[0], name, status, signal]).toEqual([command[0], name, 1, null]);
        expect(stderr, `${command[0]} ${name}`).toMatch(new RegExp(`^bloomkit: [^\n]*${name}[^\n]*\n$`));
        // Nor taken for a file in /dev/fd, which said that folder "does not take new files": what the descriptor is.
        expect(stderr, `${command[0]} ${name}`).toMatch(new RegExp(`^bloomkit: cannot write ${name}: (descriptor ${fd} is (one of Node's own, not one the shell opened|not open)|it is a pipe this process reads itself|bad file descriptor)|^bloomkit: ${name} is the same file as the input`));
      }
    }
  });
});

describe("lines longer than any buffer", () => {
  const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;

  it("an input with no newline (/dev/zero, from its name or through a pipe) is refused in one line once a line passes MAX_LINE_BYTES", () => {
    for (const [what, script] of [
      ["a file", `exec '${process.execPath}' '${BIN}' dedup /dev/zero --n 10 -o '${join(dir, "zero.out")}'`],
      ["a pipe", `head -c ${MAX_LINE_BYTES + (4 << 20)} /dev/zero | '${process.execPath}' '${BIN}' dedup - -q`],
    ]) {
      const { status, stderr, stdout } = spawnSync("sh", ["-c", script], { encoding: "utf8", maxBuffer: 1 << 20 });
      expect(status, what).toBe(1);
      expect(stderr, what).toMatch(/^bloomkit: cannot read (\/dev\/zero|standard input): the line at byte 0 is longer than 256\.00 MiB, the most one line \(one key\) can be\n$/);
      expect(stdout, what).toBe("");
    }
    expect(existsSync(join(dir, "zero.out"))).toBe(false);
  });

  it("a line of exactly MAX_LINE_BYTES is read from a file and from a pipe alike, and one less than a pipe chunk longer is refused from either", () => {
    /** A file of `bytes` zeros and a newline: sparse, so the test takes no disk. */
    const lineOf = (name: string, bytes: number) => {
      const path = join(dir, name);
      const fd = openSync(path, "w");
      writeSync(fd, "\n", bytes);
      closeSync(fd);
      return path;
    };
    const dedup = (input: string) => spawnSync("sh", ["-c", `${input} '${process.execPath}' '${BIN}' dedup - -q -o /dev/null`], { encoding: "utf8" });
    const exact = lineOf("max-line.txt", MAX_LINE_BYTES);
    for (const [what, input] of [
      ["a file", `exec < '${exact}';`],
      ["a pipe", `cat '${exact}' |`],
    ]) {
      const { status, stderr } = dedup(input);
      expect(stderr, what).toMatch(/^There is 1 line\.\n/);
      expect(status, what).toBe(0);
    }
    rmSync(exact);
    // 60,000 bytes more, the newline in the line's last pipe chunk: its length was checked only on chunks without one.
    const longer = lineOf("longer-line.txt", MAX_LINE_BYTES + 60_000);
    for (const [what, input] of [
      ["a file", `exec < '${longer}';`],
      ["a pipe", `cat '${longer}' |`],
    ]) {
      const { status, stderr } = dedup(input);
      expect(stderr, what).toMatch(/^bloomkit: cannot read standard input: the line at byte 0 is longer than 256\.00 MiB/);
      expect(status, what).toBe(1);
    }
    rmSync(longer);
  });

  it("lines of many pipe chunks come through a pipe whole, as from the file", () => {
    const long = (byte: string, bytes: number) => byte.repeat(bytes);
    const text = `${long("u", 3 << 20)}\nx\nu\n${long("u", 3 << 20)}\n${long("v", (1 << 20) + 7)}`;
    const file = join(dir, "long-lines.txt");
    writeFileSync(file, text);
    const fromFile = execFileSync(process.execPath, [BIN, "dedup", file, "-q"], { maxBuffer: 64 << 20 });
    const fromPipe = execFileSync("sh", ["-c", `cat '${file}' | '${process.execPath}' '${BIN}' dedup - -q`], { maxBuffer: 64 << 20 });
    expect(fromPipe.equals(fromFile)).toBe(true);
    expect(fromFile.toString()).toBe(`${long("u", 3 << 20)}\nx\nu\n${long("v", (1 << 20) + 7)}`); // the last line as it was, without a "\n"
  });
});
