// Standard output that is a pipe, written in libuv's thread pool: one write
// at a time, in order, each blocking there until the reader has taken it (a
// pipe another process left non-blocking is tried again on a timer).
// This thread goes on meanwhile, and waits for the writes only on the event
// loop (drain), where Ctrl-C and SIGTERM are heard: a write blocking in this
// thread could not be stopped by them, since their handler is JS. Writing
// while the next piece is tested is faster too: `dedup --threads 1` of the
// 10,000,000-line crawl log into `| cat` took 1.45-1.81 s, against 1.9-2.7 s
// writing in this thread (3 runs each, in turn), for 34 MB more at its peak
// (120 MB), the copies of what is being written. Polling a non-blocking pipe
// on a timer instead took 2.2-3.3 s.
import { close, closeSync, constants, fstatSync, open, openSync, write } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { onCleanup } from "./cleanup.js";
import { FIRST_WAIT_MS, nextWait } from "./write-all.js";

/** Why a named pipe output that became another kind of file is not written (the caller names the file). */
const REPLACED = "it is no longer a named pipe (it was replaced while the command waited for its reader)";

/** How often a named pipe with no reader is tried again: a reader that comes waits at most this long for the first bytes. */
const READER_POLL_MS = 50;

export class PipeWriter {
  /** The descriptor, or its opening (a named pipe's, which waits for a reader). */
  #fd: number | Promise<number>;
  #queue: Buffer[] = [];
  /** Bytes given and not yet written. */
  #pending = 0;
  #writing = false;
  #failure: NodeJS.ErrnoException | undefined;
  /** drain()'s callers, woken after each write. */
  #waiting: (() => void)[] = [];

  constructor(fd: number | Promise<number>) {
    this.#fd = fd;
    // A failed opening is thrown by the next write or drain; until then it must not count as unhandled.
    if (typeof fd !== "number") fd.then((opened) => (this.#fd = opened), (error) => (this.#failure ??= error));
  }

  /** The descriptor, once it is open. */
  async opened(): Promise<number> {
    const fd = await this.#fd;
    if (this.#failure) throw this.#failure;
    return fd;
  }

  /** Queues a copy of `bytes` (the caller's may change once this returns); a failed earlier write is thrown. */
  write(bytes: Uint8Array): void {
    if (this.#failure) throw this.#failure;
    if (bytes.length === 0) return;
    this.#queue.push(Buffer.from(bytes));
    this.#pending += bytes.length;
    if (!this.#writing) void this.#next();
  }

  /** Resolves once at most `bytes` are still to be written (0: all of them); rejects with a write's failure. */
  async drain(bytes = 0): Promise<void> {
    while (this.#pending > bytes && !this.#failure) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    if (this.#failure) throw this.#failure;
  }

  /** Writes the queue's pieces in order until it is empty or a write fails. */
  async #next(): Promise<void> {
    this.#writing = true;
    try {
      const fd = await this.#fd;
      for (let piece = this.#queue.shift(); piece !== undefined; piece = this.#queue.shift()) {
        // A pipe another process left non-blocking and full is tried again after sleeps as write-all.ts's.
        for (let at = 0, wait = FIRST_WAIT_MS; at < piece.length; ) {
          const written = await writeSome(fd, piece.subarray(at));
          if (written === undefined) {
            await sleep(wait);
            wait = nextWait(wait);
            continue;
          }
          at += written;
          wait = FIRST_WAIT_MS;
        }
        this.#pending -= piece.length;
        this.#wake();
      }
    } catch (error) {
      this.#failure = error as NodeJS.ErrnoException;
      this.#queue = [];
      this.#pending = 0;
    } finally {
      this.#writing = false;
      this.#wake();
    }
  }

  #wake(): void {
    for (const resolve of this.#waiting.splice(0)) resolve();
  }
}

/** One write of `bytes` to `fd` in the thread pool: the bytes taken, or undefined when a non-blocking pipe is full. */
function writeSome(fd: number, bytes: Uint8Array): Promise<number | undefined> {
  return new Promise((resolve, reject) =>
    write(fd, bytes, 0, bytes.length, null, (error, written) => {
      if (error?.code === "EAGAIN") resolve(undefined);
      else if (error) reject(error);
      else resolve(written);
    }),
  );
}

/**
 * Opens a named pipe for writing without holding this thread: an open waits
 * until the pipe has a reader, and a thread waiting so never hears Ctrl-C or
 * SIGTERM (their handler is JS). It is tried non-blocking now (other errors
 * are thrown at once), then every READER_POLL_MS on a timer while it has no
 * reader; once it has one, it is opened as usual in the thread pool (at once,
 * with the reader there), so its writes wait for the reader as a pipe on
 * standard output's do. The non-blocking descriptor stays open until then:
 * were the pipe left with no writer, its reader would read an end of input.
 * A command that stops meanwhile stops the timer.
 */
export function openNamedPipe(path: string): Promise<number> {
  /** A non-blocking descriptor of the pipe, or undefined while it has no reader. */
  const probe = (): number | undefined => {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
      if (fstatSync(fd).isFIFO()) return fd;
      closeSync(fd);
      throw new Error(REPLACED);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENXIO") return undefined;
      throw error;
    }
  };
  // Neither descriptor creates or empties a file: a pipe replaced by a regular file while this waited is
  // refused, not written in place (outputs that are files go through a temporary file).
  const openBehind = (held: number) =>
    new Promise<number>((resolve, reject) =>
      open(path, constants.O_WRONLY, (error, fd) => {
        close(held, () => {});
        if (error) return reject(error);
        if (fstatSync(fd).isFIFO()) return resolve(fd);
        close(fd, () => {});
        reject(new Error(REPLACED));
      }),
    );
  const now = probe();
  if (now !== undefined) return openBehind(now);
  return new Promise<number>((resolve, reject) => {
    let timer: NodeJS.Timeout;
    const stop = onCleanup(() => clearTimeout(timer));
    const poll = () => {
      let held: number | undefined;
      try {
        held = probe();
      } catch (error) {
        stop();
        return reject(error);
      }
      if (held === undefined) {
        timer = setTimeout(poll, READER_POLL_MS);
        return;
      }
      stop();
      resolve(openBehind(held));
    };
    timer = setTimeout(poll, READER_POLL_MS);
  });
}
