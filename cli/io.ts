// Streams for the CLI: input in chunks of whole lines, buffered output with
// backpressure, and a progress line on stderr when it is a terminal.
import { createReadStream, createWriteStream, statSync, type WriteStream } from "node:fs";
import { CliError } from "./args.js";

/** Read size, and how much output is buffered before a write. */
const CHUNK = 1 << 20;

/** Byte size of a file, or undefined for stdin. */
export function inputSize(path: string): number | undefined {
  if (path === "-") return undefined;
  try {
    return statSync(path).size;
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * Yields the input in pieces that end at a newline (the last piece may not),
 * so no line is split across two pieces.
 */
export async function* linePieces(path: string): AsyncGenerator<Buffer> {
  const stream = path === "-" ? process.stdin : createReadStream(path, { highWaterMark: CHUNK });
  let carry: Buffer | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      if (carry) {
        // Only the line that spans two chunks is copied.
        const newline = chunk.indexOf(10);
        if (newline < 0) {
          carry = Buffer.concat([carry, chunk]);
          continue;
        }
        yield Buffer.concat([carry, chunk.subarray(0, newline + 1)]);
        carry = undefined;
        start = newline + 1;
      }
      const last = chunk.lastIndexOf(10);
      if (last < start) {
        carry = chunk.subarray(start);
        continue;
      }
      if (last + 1 < chunk.length) carry = chunk.subarray(last + 1);
      yield chunk.subarray(start, last + 1);
    }
  } catch (error) {
    throw new CliError(`cannot read ${path === "-" ? "standard input" : path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (carry && carry.length > 0) yield carry;
}

/** Splits a piece into line views without the "\n" and one trailing "\r" (the keys), and their end offsets. */
export function splitLines(piece: Uint8Array): { keys: Uint8Array[]; ends: Uint32Array } {
  const keys: Uint8Array[] = [];
  const ends: number[] = [];
  let at = 0;
  while (at < piece.length) {
    let end = piece.indexOf(10, at);
    const next = end < 0 ? piece.length : end + 1;
    if (end < 0) end = piece.length;
    const keyEnd = end > at && piece[end - 1] === 13 ? end - 1 : end;
    keys.push(piece.subarray(at, keyEnd));
    ends.push(next);
    at = next;
  }
  return { keys, ends: Uint32Array.from(ends) };
}

/** Buffered writer over a file or stdout that waits when the stream is full. */
export class Output {
  #stream: WriteStream | NodeJS.WriteStream;
  #parts: Uint8Array[] = [];
  #size = 0;
  #error: Error | undefined;
  readonly path: string;

  constructor(path: string | undefined) {
    this.path = path ?? "-";
    this.#stream = path === undefined || path === "-" ? process.stdout : createWriteStream(path);
    this.#stream.on("error", (error) => (this.#error ??= error)); // thrown by the next flush or close
  }

  write(bytes: Uint8Array | string): void {
    const part = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
    if (part.length === 0) return;
    this.#parts.push(part);
    this.#size += part.length;
  }

  /** Writes what is buffered once there is enough of it. */
  async maybeFlush(): Promise<void> {
    if (this.#size >= CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    this.#check();
    if (this.#size === 0) return;
    const parts = this.#parts;
    this.#parts = [];
    this.#size = 0;
    // Corked writes go out as one vectored write, without copying the parts together.
    this.#stream.cork();
    let ok = true;
    for (const part of parts) ok = this.#stream.write(part);
    this.#stream.uncork();
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.#stream.off("drain", done);
          this.#stream.off("error", done);
          resolve();
        };
        this.#stream.on("drain", done);
        this.#stream.on("error", done);
      });
    }
    this.#check();
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.#stream !== process.stdout) {
      await new Promise<void>((resolve) => (this.#stream as WriteStream).end(() => resolve()));
    }
    this.#check();
  }

  #check(): void {
    if (this.#error) throw this.#failed(this.#error);
  }

  #failed(error: Error): CliError {
    return new CliError(`cannot write ${this.path}: ${(error as NodeJS.ErrnoException).code ?? error.message}`);
  }
}

/** A rate line on stderr, only when stderr is a terminal and not --quiet. */
export class Progress {
  #enabled: boolean;
  #started = Date.now();
  #shown = 0;
  constructor(private readonly label: string, private readonly total: number | undefined, quiet: boolean) {
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
    process.stderr.write(`\r\x1b[2K${this.label}: ${mb.toFixed(1)} MB${share}, ${(mb / seconds).toFixed(1)} MB/s, ${lines.toLocaleString("en-US")} lines`);
  }

  done(): void {
    if (this.#enabled) process.stderr.write("\r\x1b[2K");
  }
}

/** Thousands separators. */
export const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");
