// Streams for the CLI: input in chunks of whole lines, buffered output with
// backpressure, and a progress line on stderr when it is a terminal.
import { closeSync, fstatSync, openSync, read, readSync } from "node:fs";
import { writeAllSync } from "./write-all.js";
import { PipeWriter, openNamedPipe } from "./pipe-writer.js";
import { CliError } from "./args.js";
import { AtomicFile, WRITE_BEHIND_BYTES, descriptorOf, isNamedPipe, refuseOwnPipe } from "./atomic-output.js";
import { STDIO, closeInput, inputName, openInput, streamed, type Input } from "./input.js";
import { cannot, inWords } from "./os-errors.js";
import { fmt, formatBytes, oneLine } from "./words.js";

/** Read size, and how much output is buffered before a write. */
const CHUNK = 1 << 20;
/** Buffers an output has, with its writes in the background: what WRITE_BEHIND_BYTES hold in pieces of CHUNK, and one to fill meanwhile. */
const SPARE_BUFFERS = WRITE_BEHIND_BYTES / CHUNK + 1;

/**
 * The longest line read (256 MiB, before its newline), from a file or a pipe
 * alike: a line is a key, copied whole into wasm memory. An input with no
 * newline at all, such as /dev/zero, grew the buffer until the read itself
 * refused, at 4.2 GB of memory, with Node's own message about its "length"
 * argument.
 */
export const MAX_LINE_BYTES = 256 << 20;

/** The error for a line longer than MAX_LINE_BYTES, starting `from` bytes into the input named `name`. */
function lineTooLong(name: string, from: number): CliError {
  return new CliError(`cannot read ${name}: the line at byte ${fmt(from)} is longer than ${formatBytes(MAX_LINE_BYTES)}, the most one line (one key) can be`);
}

/** Where linePieces reads a file into: a buffer of at least `bytes` bytes that the caller owns once its piece is yielded. */
export type PieceBufferSource = (bytes: number) => ArrayBuffer;

/**
 * Yields the input in pieces that end at a newline (the last piece may not),
 * so no line is split across two pieces. A piece is valid only until the next
 * one is asked for: two buffers take turns, and the line that spans two reads
 * moves to the next one first. With `buffers`, each piece is read into a
 * buffer from it instead and is the caller's to keep or hand to another
 * thread, so the worker threads of --threads get the input without a copy;
 * the buffers keep one byte after the piece free. A regular file is read by
 * position from its start, the next read running in libuv's thread pool
 * while the caller works on the piece just yielded (measured on dedup of the
 * 498 MB crawl log: its reads took 63 ms of a 1.08 s run in one thread, and
 * 143 ms of the main thread with --threads 2). A pipe or device is read as it
 * comes, once the next piece is asked for: a read ahead there could wait for
 * data that never comes, and the pipe could not be closed under it. Standard
 * input is streamed, unless it is redirected from a file (Input.size known):
 * that is read as a file, on from where it stands. An open Input is left
 * open; a path is opened and closed here.
 */
export async function* linePieces(source: string | Input, buffers?: PieceBufferSource): AsyncGenerator<Buffer> {
  const input = typeof source === "string" ? await openInput(source) : source;
  if (streamed(input)) {
    yield* streamPieces();
    return;
  }
  /** A buffer for `bytes` bytes of input: the caller's, with a byte to spare after them, or one allocated here. */
  const fresh = (bytes: number) => (buffers ? Buffer.from(buffers(bytes + 1), 0, bytes) : Buffer.allocUnsafe(bytes));
  let position = 0;
  /** A file's read running in the thread pool: it must end before the file can be closed. */
  let running: Promise<number> | undefined;
  /** Reads into `target` after its first `carry` bytes: a file's read starts now, a pipe's when its answer is asked for. */
  const readInto = (target: Buffer, carry: number): (() => Promise<number>) => {
    if (input.size !== undefined) {
      // Standard input redirected from a file is read on from where it stands (by no position).
      const reading = (running = readAt(input.fd, target, carry, input.regular ? position : null));
      // The error is raised where the read is awaited; until then it must not count as unhandled.
      reading.catch(() => {});
      return () => reading;
    }
    // Read once asked for, in the thread pool too: this thread's event loop runs meanwhile, so Ctrl-C and SIGTERM
    // (which remove the temporary files) are handled while a pipe or terminal has nothing to give; in readSync they
    // waited for its next line, forever with a writer that stays idle.
    return () => (running = readAt(input.fd, target, carry, null));
  };
  let buffer = fresh(CHUNK);
  let spare = buffers ? undefined : fresh(CHUNK);
  let carry = 0;
  try {
    let next = readInto(buffer, 0);
    for (;;) {
      const read = await next();
      running = undefined;
      position += read;
      const filled = carry + read;
      if (read === 0) {
        if (carry > 0) yield buffer.subarray(0, carry);
        return;
      }
      const last = buffer.lastIndexOf(10, filled - 1);
      if (last < 0) {
        carry = filled;
        if (carry === buffer.length) {
          // A full buffer of MAX_LINE_BYTES may still hold a line of exactly that many: its newline comes in the next byte.
          if (carry > MAX_LINE_BYTES) throw lineTooLong(inputName(input), position - carry);
          const larger = fresh(Math.min(buffer.length * 2, MAX_LINE_BYTES + 1)); // a line longer than the buffer
          buffer.copy(larger, 0, 0, carry);
          buffer = larger;
        }
        next = readInto(buffer, carry);
        continue;
      }
      carry = filled - last - 1;
      // The rest of the last line moves to the next buffer, whose read (a file's) starts before this piece is handed out.
      const following = spare !== undefined && spare.length >= Math.max(CHUNK, carry * 2) ? spare : fresh(Math.max(CHUNK, carry * 2));
      buffer.copy(following, 0, last + 1, filled);
      next = readInto(following, carry);
      yield buffer.subarray(0, last + 1);
      if (!buffers) spare = buffer; // free again now that the next piece is asked for
      buffer = following;
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw cannot("read", inputName(input), error);
  } finally {
    if (running) await running.catch(() => {});
    if (typeof source === "string") closeInput(input);
  }
}

/** fs.read as a promise: the bytes read. */
function readAt(fd: number, buffer: Buffer, offset: number, position: number | null): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buffer, offset, buffer.length - offset, position, (error, bytes) => (error ? reject(error) : resolve(bytes))));
}

/** At most this much of a pipe is held in memory to learn its size before a filter is sized for it. */
const READ_AHEAD_BYTES = 64 << 20;

/**
 * The input's pieces of whole lines and its size (a file read into `buffers`, as linePieces says). A file's size is known; a pipe
 * (standard input, a named pipe) is read ahead until it ends or READ_AHEAD_BYTES are held, so a short one
 * has a size too (undefined only for a long stream, which then plays on).
 */
export async function sizedPieces(input: Input, buffers?: PieceBufferSource): Promise<{ size: number | undefined; pieces: AsyncIterable<Buffer> }> {
  if (input.size !== undefined) return { size: input.size, pieces: linePieces(input, buffers) };
  // A named pipe (mkfifo, <(…)) is read ahead too, each piece into a buffer of its own: held, they must not be reused.
  const stream = linePieces(input, streamed(input) ? undefined : (bytes) => new ArrayBuffer(bytes));
  const held: Buffer[] = [];
  let bytes = 0;
  let ended = false;
  while (bytes <= READ_AHEAD_BYTES) {
    const next = await stream.next();
    if (next.done) {
      ended = true;
      break;
    }
    held.push(next.value); // no piece here is reused, so holding them is safe
    bytes += next.value.length;
  }
  async function* replay(): AsyncGenerator<Buffer> {
    for (let piece = held.shift(); piece !== undefined; piece = held.shift()) yield piece;
    if (!ended) yield* stream;
  }
  return { size: ended ? bytes : undefined, pieces: replay() };
}

/** Standard input as pieces of whole lines; only the line spanning two chunks is copied. */
async function* streamPieces(): AsyncGenerator<Buffer> {
  /** The start of a line that spans chunks, kept as its chunks and joined once its end comes: joined at each chunk, a 40 MB line took 12 s. */
  const carry: Buffer[] = [];
  let carried = 0;
  /** Bytes of standard input up to the end of the current chunk, for the error of a line too long. */
  let position = 0;
  try {
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
      position += chunk.length;
      let start = 0;
      if (carried > 0) {
        const newline = chunk.indexOf(10);
        if (newline < 0) {
          carry.push(chunk);
          carried += chunk.length;
          if (carried > MAX_LINE_BYTES) throw lineTooLong("standard input", position - carried);
          continue;
        }
        // The line's last chunk counts too: checked only while no newline came, lines up to a chunk longer passed.
        if (carried + newline > MAX_LINE_BYTES) throw lineTooLong("standard input", position - chunk.length - carried);
        carry.push(chunk.subarray(0, newline + 1));
        yield Buffer.concat(carry);
        carry.length = 0;
        carried = 0;
        start = newline + 1;
      }
      const last = chunk.lastIndexOf(10);
      if (last < start) {
        if (start < chunk.length) carry.push(chunk.subarray(start));
        carried = chunk.length - start;
        continue;
      }
      if (last + 1 < chunk.length) {
        carry.push(chunk.subarray(last + 1));
        carried = chunk.length - last - 1;
      }
      yield chunk.subarray(start, last + 1);
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read standard input: ${inWords(error)}`);
  }
  if (carried > 0) yield Buffer.concat(carry);
}

/**
 * The lines of an input that is a file (Input.size known: a file by name, or
 * standard input redirected from one), to size a filter for them before they
 * are read. It reads by position from where the unread bytes start, so the
 * input is left where it stands for the read that follows: standard input,
 * which cannot be opened again, is counted too. The next read runs while a
 * piece is counted.
 */
export async function countLines(input: Input): Promise<number> {
  const start = input.size === undefined ? undefined : unreadStart(input, input.size);
  if (start === undefined || start < 0) throw new Error(`countLines needs a file, got ${inputName(input)}`);
  const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
  let position = start;
  let lines = 0;
  let last = 10;
  try {
    let next = readAt(input.fd, buffers[0], 0, position);
    for (let turn = 0; ; turn ^= 1) {
      const read = await next;
      if (read === 0) break;
      position += read;
      next = readAt(input.fd, buffers[turn ^ 1], 0, position);
      lines += countNewlines(buffers[turn].subarray(0, read));
      last = buffers[turn][read - 1];
    }
  } catch (error) {
    throw cannot("read", inputName(input), error);
  }
  // A last line without its newline is a line too.
  return last === 10 ? lines : lines + 1;
}

/** Number of "\n" bytes in a piece. */
export function countNewlines(piece: Uint8Array): number {
  let lines = 0;
  for (let at = piece.indexOf(10); at >= 0; at = piece.indexOf(10, at + 1)) lines++;
  return lines;
}

/** Equal parts of an input whose line lengths are sampled, one window each, to size a filter for it. */
const SAMPLE_PARTS = 64;
/** Bytes read at the start of each part: 1 MiB in all. */
const SAMPLE_BYTES = 1 << 14;

/**
 * Lines to size a filter for, from the input's size: each of SAMPLE_PARTS
 * equal parts is taken to hold lines as dense as a window at its start, so a
 * file whose first lines are long and the rest short (1,100 lines of 1,000
 * bytes, then 1.5 million numbers) is not sized from its first piece alone,
 * which took it for 12,000 lines and dropped 95% of them as repeats. Windows
 * can miss short lines too (a few lines of megabytes among short ones), so
 * the estimate is the larger of the windows' and the first piece's: too
 * large costs memory, too small loses lines. Undefined on stdin that is not
 * a file, and for a file whose size is less than its first piece (files of
 * /proc report 0): its size tells nothing.
 */
export function estimateLines(input: Input, size: number | undefined, firstPiece: Uint8Array): number | undefined {
  if (size === undefined || firstPiece.length === 0 || size < firstPiece.length) return undefined;
  const fromPiece = Math.max(1, Math.ceil(size / (firstPiece.length / Math.max(1, countNewlines(firstPiece)))));
  const start = unreadStart(input, size);
  if (size === firstPiece.length || start === undefined || start < 0) return fromPiece;
  const window = Buffer.allocUnsafe(SAMPLE_BYTES);
  let lines = 0;
  try {
    for (let part = 0; part < SAMPLE_PARTS; part++) {
      const from = Math.floor((part * size) / SAMPLE_PARTS);
      const to = Math.floor(((part + 1) * size) / SAMPLE_PARTS);
      const read = readSync(input.fd, window, 0, Math.min(SAMPLE_BYTES, to - from), start + from);
      if (read === 0) continue;
      // A window inside one long line counts none: the first piece's estimate below is the floor.
      lines += ((to - from) * countNewlines(window.subarray(0, read))) / read;
    }
  } catch {
    return fromPiece; // a device that cannot read at an offset: the first piece is all there is
  }
  return Math.max(fromPiece, Math.ceil(lines));
}

/**
 * Where the `size` bytes still to read of an input begin in its file
 * (standard input redirected from a file is read from where it stood), or
 * undefined when it is not a file.
 */
function unreadStart(input: Input, size: number): number | undefined {
  return input.identity === undefined ? undefined : Number(input.identity.size) - size;
}

/** Bytes headOf reads: a first piece's worth. */
const HEAD_BYTES = 1 << 20;

/**
 * The first MiB of an input's `size` unread bytes, read where they stand
 * without taking them from the input: the first piece estimateLines takes
 * before a command reads any (intersect --exact's buckets). Empty when the
 * input cannot be read at an offset: its size alone then sizes.
 */
export function headOf(input: Input, size: number): Uint8Array {
  const start = unreadStart(input, size);
  if (start === undefined || start < 0) return new Uint8Array(0);
  const head = Buffer.allocUnsafe(Math.min(HEAD_BYTES, size));
  try {
    return head.subarray(0, readSync(input.fd, head, 0, head.length, start));
  } catch {
    return head.subarray(0, 0);
  }
}

/** Splits a piece into line views without the "\n" and one trailing "\r" (the keys), and their end offsets. */
export function splitLines(piece: Uint8Array): { keys: Uint8Array[]; ends: Uint32Array } {
  const keys: Uint8Array[] = [];
  const ends: number[] = [];
  forEachLine(piece, (start, keyEnd, next) => {
    keys.push(piece.subarray(start, keyEnd));
    ends.push(next);
  });
  return { keys, ends: Uint32Array.from(ends) };
}

/** Calls `each` with every line of a piece: where it starts, where its key ends (before "\n" and one "\r"), where the next line starts. */
export function forEachLine(piece: Uint8Array, each: (start: number, keyEnd: number, next: number) => void): void {
  let at = 0;
  while (at < piece.length) {
    let end = piece.indexOf(10, at);
    const next = end < 0 ? piece.length : end + 1;
    if (end < 0) end = piece.length;
    each(at, end > at && piece[end - 1] === 13 ? end - 1 : end, next);
    at = next;
  }
}

/**
 * Bytes written to a pipe that a command goes on past (Output.drain): this
 * thread reads and tests the next piece while they are written.
 */
const PIPE_BEHIND_BYTES = 1 << 20;

/** True when `fd` is a pipe or a socket (not a terminal, a file or a device). */
function isPipe(fd: number): boolean {
  try {
    const stats = fstatSync(fd);
    return stats.isFIFO() || stats.isSocket();
  } catch {
    return false; // closed: writing to it fails with its own message
  }
}

/**
 * Buffered writer over a file or stdout. It copies what it is given into its
 * own buffers, so callers may reuse theirs at once. A file is written under a
 * temporary name, in libuv's thread pool (at most WRITE_BEHIND_BYTES at a
 * time, then in this thread), and put in place by close() (see
 * atomic-output.ts); standard output that is a pipe is written in the thread
 * pool too, in order (see pipe-writer.ts); other standard output, and a
 * scratch file the command itself removes ("direct"), in this thread.
 */
export class Output {
  #fd: number;
  #file: AtomicFile | undefined;
  /** Standard output that is a pipe or socket, or a named pipe: written in the thread pool, so this thread is never held by a reader that stops or never comes. */
  #pipe: PipeWriter | undefined;
  #buffer: Buffer;
  #used = 0;
  /** Buffers back from writes in the background, for reuse, and how many there are in all (at most SPARE_BUFFERS). */
  #spare: Buffer[] = [];
  #buffers = 1;
  readonly path: string;

  constructor(path: string | undefined, bufferBytes = CHUNK, mode: "atomic" | "direct" = "atomic") {
    this.path = path ?? STDIO;
    this.#buffer = Buffer.allocUnsafe(bufferBytes);
    // /dev/stdout and its like are standard output itself, as it is open (AtomicFile takes other open descriptors so).
    if (this.path === STDIO || (mode === "atomic" && descriptorOf(this.path) === 1)) {
      this.#fd = 1;
      if (isPipe(1)) this.#pipe = new PipeWriter(1);
    } else if (mode === "atomic" && descriptorOf(this.path) === undefined && isNamedPipe(this.path)) {
      // Its descriptor comes once the pipe has a reader (openNamedPipe); what is written meanwhile waits in the queue.
      this.#fd = -1;
      refuseOwnPipe(this.path);
      try {
        this.#pipe = new PipeWriter(openNamedPipe(this.path));
      } catch (error) {
        throw cannot("write", this.path, error);
      }
    } else if (mode === "atomic") {
      this.#file = new AtomicFile(this.path);
      this.#fd = this.#file.fd;
    } else {
      this.#fd = openScratch(this.path);
    }
  }

  /** True for a file written in full at close (AtomicFile): a command that fails leaves it as it was. */
  get writtenAtClose(): boolean {
    return this.#file !== undefined;
  }

  /** Writes bytes [start, end) of `source` without making a view of them. */
  writeRange(source: Buffer, start: number, end: number): void {
    const length = end - start;
    if (this.#used + length > this.#buffer.length) this.flushSync();
    if (length > this.#buffer.length) this.#writeAll(source.subarray(start, end));
    else {
      source.copy(this.#buffer, this.#used, start, end);
      this.#used += length;
    }
  }

  write(bytes: Uint8Array | string): void {
    const part = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
    if (this.#used + part.length > this.#buffer.length) this.flushSync();
    if (part.length > this.#buffer.length) this.#writeAll(part);
    else {
      this.#buffer.set(part, this.#used);
      this.#used += part.length;
    }
  }

  /** Writes `bytes` after what is buffered, without copying them into the buffer first: for pieces of a megabyte or so. */
  writeThrough(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.#used > 0) this.flushSync();
    this.#writeAll(bytes);
  }

  /**
   * Writes `bytes` after what is buffered without copying them, then calls
   * `release`: a temporary file's in libuv's thread pool when it can (`bytes`
   * must not change until released), any other output's at once.
   */
  writeLent(bytes: Uint8Array, release: () => void): void {
    if (bytes.length === 0) return release();
    if (this.#used > 0) this.flushSync();
    if (this.#file?.temporary) {
      if (this.#file.writeBehind(bytes, release)) return;
      this.#file.write(bytes);
    } else this.#writeAll(bytes);
    release();
  }

  /**
   * Writes what is buffered and hands the file over to writers in other
   * threads (the CLI's --threads), once it is written: they write to `fd` in
   * order, and close() still puts the file in place.
   */
  async handOver(): Promise<{ fd: number; path: string }> {
    this.flushSync();
    await this.drain(0);
    // This thread writes a file by position, which leaves its offset where the writers would start: nothing may precede them.
    if (this.#file && !this.#file.untouched) throw new Error(`${this.path} was written to before it was handed over`);
    return { fd: await this.#descriptor(), path: this.#name };
  }

  /**
   * For a file handed over: the writers have written the output of `bytes`
   * bytes of input so far. Every FLUSH_AHEAD_BYTES of them, what is written
   * is flushed to disk in libuv's thread pool (AtomicFile.flushAheadOf), so
   * neither the writers (whose turns would wait on it) nor the final fsync do it.
   */
  flushAheadOf(bytes: number): void {
    this.#file?.flushAheadOf(bytes);
  }

  /** Writes what is buffered (a file's in the background, when it can: the buffer is then swapped for a spare one). */
  flushSync(): void {
    if (this.#used === 0) return;
    const full = this.#buffer;
    const spare = this.#file?.temporary ? this.#take(full.length) : undefined;
    // Without a spare buffer to go on with, the buffer is written in this thread.
    if (spare === undefined) this.#writeAll(full.subarray(0, this.#used));
    else if (this.#writeAll(full.subarray(0, this.#used), full)) this.#buffer = spare;
    else this.#spare.push(spare);
    this.#used = 0;
  }

  /** Writes the rest; a file then replaces the output once every write in the background has ended. */
  async close(): Promise<void> {
    await closeTogether([this]);
  }

  /** Writes the rest and waits for it: a file's writes in the background have ended and it is on disk (close's first half). */
  async settle(): Promise<void> {
    this.flushSync();
    await this.drain(0);
    // A named pipe given nothing is still opened, so that its reader sees the end of an empty output.
    this.#fd = await this.#descriptor();
    if (!this.#file) return;
    await this.#file.settle();
    this.#file.sync();
  }

  /** Puts a settled file in place of the output, or closes the output's descriptor (close's second half). */
  commit(): void {
    if (this.#file) this.#file.commit();
    else if (this.#fd !== 1) closeSync(this.#fd);
  }

  /**
   * Waits, on the event loop, until at most `bytes` written to a pipe are
   * still on their way: the long-running commands call it after each piece
   * of input, so that their memory stays bounded while a reader is slow, and
   * Ctrl-C and SIGTERM are heard while it does not read at all.
   */
  async drain(bytes = PIPE_BEHIND_BYTES): Promise<void> {
    try {
      await this.#pipe?.drain(bytes);
    } catch (error) {
      throw cannot("write", this.#name, error);
    }
  }

  /** How messages name this output. */
  get #name(): string {
    return this.path === STDIO ? "standard output" : this.path;
  }

  /** The output's descriptor, once a named pipe's is open. */
  async #descriptor(): Promise<number> {
    try {
      return this.#pipe ? await this.#pipe.opened() : this.#fd;
    } catch (error) {
      throw cannot("write", this.#name, error);
    }
  }

  /** A spare buffer of at least `bytes` bytes, a new one while there are fewer than SPARE_BUFFERS, or undefined. */
  #take(bytes: number): Buffer | undefined {
    const index = this.#spare.findIndex((buffer) => buffer.length >= bytes);
    if (index >= 0) return this.#spare.splice(index, 1)[0];
    if (this.#buffers >= SPARE_BUFFERS || bytes > this.#buffer.length) return undefined;
    this.#buffers++;
    return Buffer.allocUnsafe(this.#buffer.length);
  }

  /**
   * Writes `data`. A temporary file's writes go to libuv's thread pool while
   * this thread goes on (AtomicFile.writeBehind); `owner`, the buffer `data`
   * lies in when it is this output's own, is then handed over whole, and true
   * is returned; other data is copied first (it may change once this returns).
   */
  #writeAll(data: Uint8Array, owner?: Buffer): boolean {
    if (this.#file?.temporary) {
      const held = owner ?? this.#take(data.length);
      if (held) {
        if (!owner) held.set(data);
        const release = () => this.#spare.push(held);
        if (this.#file.writeBehind(held.subarray(0, data.length), release)) return owner !== undefined;
        if (!owner) release();
      }
      this.#file.write(data);
      return false;
    }
    try {
      if (this.#pipe) this.#pipe.write(data);
      else writeFully(this.#fd, data, this.#name);
    } catch (error) {
      if (this.#pipe) throw cannot("write", this.#name, error);
      this.#file?.abort();
      throw error;
    }
    return false;
  }
}

/** Writes all of `data` to `fd` in this thread; a failure is a one-line error naming the output as `name`. */
function writeFully(fd: number, data: Uint8Array, name: string): void {
  try {
    writeAllSync(fd, data);
  } catch (error) {
    throw cannot("write", name, error);
  }
}

/**
 * Writes a short text (help, a report) to standard output at once. Not
 * process.stdout: its failures (a reader gone, a full disk) come later, as an
 * 'error' event with a stack trace; here they are the one line any output's are.
 */
export function printOut(text: string): void {
  writeFully(1, Buffer.from(text), "standard output");
}

/** Opens a scratch file for writing in place. */
function openScratch(path: string): number {
  try {
    return openSync(path, "w");
  } catch (error) {
    throw cannot("write", path, error);
  }
}

/** Whether a progress line is on stderr now, unfinished: a message written after it must clear it first. */
let progressShown = false;

/** Clears a progress line left on stderr (a command that failed leaves one), so an error message starts its own line. */
export function clearProgress(): void {
  if (!progressShown) return;
  process.stderr.write("\r\x1b[2K");
  progressShown = false;
}

/**
 * Closes outputs together: each is written and on disk before any replaces
 * its file, so that a failure to write or flush one (a full disk under
 * `--repeats`) leaves every output as it was, not the first one new and the
 * second old. Only the renames, done last, can still fail between two
 * outputs (a folder removed or made read-only meanwhile).
 */
export async function closeTogether(outputs: readonly (Output | undefined)[]): Promise<void> {
  const present = outputs.filter((output): output is Output => output !== undefined);
  for (const output of present) await output.settle();
  for (const output of present) output.commit();
}

/** A rate line on stderr, only when stderr is a terminal and not --quiet. */
export class Progress {
  #enabled: boolean;
  #started = Date.now();
  #shown = 0;
  /** The label on one line, as errors show names: a file name's newline or terminal escape would break the line or clear the screen. */
  private readonly label: string;
  constructor(label: string, private readonly total: number | undefined, quiet: boolean) {
    this.label = oneLine(label);
    this.#enabled = Boolean(process.stderr.isTTY) && !quiet;
  }

  update(bytes: number, lines: number): void {
    if (!this.#enabled) return;
    const now = Date.now();
    if (now - this.#shown < 200) return;
    this.#shown = now;
    const seconds = Math.max(0.001, (now - this.#started) / 1000);
    const mb = bytes / 1e6;
    const share = this.total ? ` of ${(this.total / 1e6).toFixed(1)} MB (${((100 * bytes) / this.total).toFixed(1)}%)` : "";
    process.stderr.write(`\r\x1b[2K${this.label}: ${mb.toFixed(1)} MB${share}, ${(mb / seconds).toFixed(1)} MB/s, ${fmt(lines)} lines`);
    progressShown = true;
  }

  done(): void {
    if (this.#enabled) process.stderr.write("\r\x1b[2K");
    progressShown = false;
  }
}
