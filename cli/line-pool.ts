// The CLI's --threads: a pipeline over pieces of lines. Worker threads
// (line-worker.ts) split and hash each piece; this thread tests or adds the
// hashes in input order; a worker then groups the piece's lines by answer;
// this thread writes the groups. The reading thread keeps the one stage that
// must run in order and only that, so the output is byte for byte the output
// of one thread.
import { Worker } from "node:worker_threads";
import { BloomFilter, type SplitBlockBloomFilter } from "bloomkit";
import { CliError, UsageError, type OptionSpec, type Parsed } from "./args.js";
import { cores } from "./memory.js";
import { cannot } from "./os-errors.js";

/** The --threads option of dedup, intersect, build and query. */
export const threadsOption: OptionSpec = {
  name: "threads",
  value: "N",
  help: "threads that hash and test lines (default: the number of cores); 1 does all in one thread. The output is the same",
};

/** Most threads --threads takes. */
const MAX_THREADS = 256;

/** --threads N, or the number of cores. */
export function parseThreads(options: Parsed["options"]): number {
  if (!options.has("threads")) return Math.min(MAX_THREADS, cores());
  const text = String(options.get("threads"));
  const n = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!(n >= 1 && n <= MAX_THREADS)) throw new UsageError(`--threads must be a whole number from 1 to ${MAX_THREADS}; got "${text}"`);
  return n;
}

/** Inputs smaller than this are done in this thread: starting workers would cost more than it saves. */
export const THREADED_INPUT_BYTES = 4 << 20;

/** True when an input of `size` bytes (undefined: a stream) is worth `threads` threads. */
export function worthThreads(threads: number, size: number | undefined): boolean {
  return threads > 1 && (size === undefined || size >= THREADED_INPUT_BYTES);
}

/** Work for a worker: hash a piece (and hold it for its answers, or give it back), or group a held piece by its answers. */
export type LineJob =
  | { kind: "hash"; seq: number; buffer: ArrayBuffer; length: number; hold: boolean; front?: number; keepBack?: boolean; endLines?: boolean }
  | { kind: "group"; seq: number; answers: Uint8Array; front: number; keepBack: boolean; endLines: boolean };

/** A piece hashed: each line's key hash; the piece comes back only when it was not held. */
export interface Hashed {
  seq: number;
  hashes: BigUint64Array;
  buffer: ArrayBuffer | undefined;
}

/** A piece grouped: the front group's bytes, then the back group's, at the start of `buffer`. */
export interface Grouped {
  seq: number;
  buffer: ArrayBuffer;
  lines: number;
  frontBytes: number;
  backBytes: number;
  /** Lines answered 1. */
  ones: number;
}

/** A piece done, for the caller to write: its groups are valid only during the call. */
export interface DonePiece {
  /** Bytes of the piece. */
  length: number;
  lines: number;
  /** Lines answered 1 (0 when the stage adds). */
  ones: number;
  front: Buffer;
  back: Buffer;
}

export interface LineWorkerData {
  /** The BloomFilter's key hash, or null for a SplitBlockBloomFilter's (xxh64, seed 0). */
  hashing: { hash: string; seed: number } | null;
  /** Where the workers write the groups in input order (front group, back group), or undefined when this thread writes. */
  outputs: OutputTarget[] | undefined;
  /** [0]: the sequence number of the piece that may write now. [1]: a word to sleep on. */
  turn: SharedArrayBuffer;
  /** A shared filter the workers add to or query themselves (no order needed), or undefined when this thread does. */
  shared: { handle: unknown; kind: "bloom" | "split-block"; op: "add" | "has" } | undefined;
}

/** An output the workers write to: its file descriptor, its name for errors, and whether they may flush it to disk as they go. */
export interface OutputTarget {
  fd: number;
  path: string;
  flushAhead: boolean;
}

/**
 * What is done with each piece's hashes: `test` here, in input order; or,
 * for a filter created with { shared: true }, `sharedOp` in the workers
 * themselves (adds and queries need no order).
 */
export interface LineStage {
  /** The filter whose key hash the workers use. */
  readonly filter: BloomFilter | SplitBlockBloomFilter;
  /** Answers for the hashes (testAndAddHashes, hasHashes), or undefined when the stage only adds them. */
  test(hashes: BigUint64Array): Uint8Array | undefined;
  /** The workers add to or query the shared filter themselves. */
  readonly sharedOp?: "add" | "has";
  /** The answer whose lines come first (0: new lines of a test-and-add; 1: lines a query found); −1 when the stage only adds. */
  readonly front: number;
  /** Whether the other lines are wanted too, after them. */
  readonly keepBack: boolean;
  /** Whether a last line without "\n" gets one when it is in the front group (as intersect writes lines). */
  readonly endLines?: boolean;
  /** Where the workers write each piece's groups in input order (front, then back), so this thread only reads and tests; or undefined. */
  readonly outputs?: OutputTarget[];
  /** Called for each piece done, in input order: writes it, unless the workers did (then its groups are empty). */
  write(done: DonePiece): void;
}

/** Bytes of a piece buffer: a piece of the CLI's reader (a line longer than that gets a larger one). */
const PIECE_BYTES = 1 << 20;

/** Pieces hashed ahead of the ordered stage, per thread. */
const HASHED_AHEAD_PER_THREAD = 8;
/** Pieces tested and being grouped before this thread waits to write the oldest. */
const GROUPED_AHEAD = 8;

type Waiting<T> = { resolve(value: T): void; reject(error: Error): void };

export class LinePipeline {
  readonly #workers: Worker[];
  readonly #waiting = new Map<string, Waiting<Hashed> | Waiting<Grouped>>();
  readonly #hashing: { seq: number; length: number; result: Promise<Hashed> }[] = [];
  readonly #grouping: { length: number; result: Promise<Grouped> }[] = [];
  readonly #spare: ArrayBuffer[] = [];
  #seq = 0;
  #failure: Error | undefined;
  #closing = false;

  /** Starts `threads` workers that hash lines as `stage.filter` does. */
  constructor(private readonly stage: LineStage, readonly threads: number) {
    const { filter } = stage;
    const data: LineWorkerData = {
      hashing: filter instanceof BloomFilter ? { hash: filter.hash as string, seed: filter.seed } : null,
      outputs: stage.outputs,
      turn: new SharedArrayBuffer(8),
      shared: stage.sharedOp ? { handle: filter.share(), kind: filter instanceof BloomFilter ? "bloom" : "split-block", op: stage.sharedOp } : undefined,
    };
    this.#workers = Array.from({ length: threads }, () => {
      const worker = new Worker(new URL("./line-worker.js", import.meta.url), { workerData: data });
      worker.on("message", (message: Hashed | Grouped | { seq: number; error: string; code?: string; output?: number }) => {
        if ("error" in message) {
          const { error, code, output } = message;
          return this.#fail(output !== undefined ? cannot("write", stage.outputs![output].path, Object.assign(new Error(error), { code })) : new CliError(`a worker thread failed: ${error}`));
        }
        const key = `${"hashes" in message ? "hash" : "group"} ${message.seq}`; // a shared filter's pieces answer "group" at once
        const waiting = this.#waiting.get(key) as Waiting<typeof message> | undefined;
        this.#waiting.delete(key);
        waiting?.resolve(message);
      });
      worker.on("error", (error) => this.#fail(new CliError(`a worker thread failed: ${error.message}`)));
      worker.on("exit", (code) => {
        if (code !== 0 && !this.#closing) this.#fail(new CliError(`a worker thread stopped (exit code ${code})`));
      });
      return worker;
    });
  }

  /** Sends a copy of `piece` to be hashed; runs the later stages of older pieces when enough are ahead. */
  async push(piece: Uint8Array): Promise<void> {
    if (this.#failure) throw this.#failure;
    const seq = this.#seq++;
    const index = this.#spare.findIndex((buffer) => buffer.byteLength > piece.length);
    // One byte more than the piece: room for the "\n" endLines may add.
    const buffer = index >= 0 ? this.#spare.splice(index, 1)[0] : new ArrayBuffer(Math.max(piece.length + 1, PIECE_BYTES));
    new Uint8Array(buffer).set(piece);
    if (this.stage.sharedOp) {
      // The worker adds or queries, groups and writes the piece: one reply when it is done.
      this.#grouping.push({ length: piece.length, result: this.#expect<Grouped>(`group ${seq}`) });
      const { front, keepBack, endLines = false } = this.stage;
      this.#worker(seq).postMessage({ kind: "hash", seq, buffer, length: piece.length, hold: false, front, keepBack, endLines } satisfies LineJob, [buffer]);
      while (this.#grouping.length >= HASHED_AHEAD_PER_THREAD * this.threads) await this.#writeOldest();
      return;
    }
    const result = this.#expect<Hashed>(`hash ${seq}`);
    this.#hashing.push({ seq, length: piece.length, result });
    const hold = this.stage.front >= 0;
    this.#worker(seq).postMessage({ kind: "hash", seq, buffer, length: piece.length, hold } satisfies LineJob, [buffer]);
    while (this.#hashing.length >= HASHED_AHEAD_PER_THREAD * this.threads) await this.#testOldest();
  }

  /** Runs every piece through to the end. */
  async finish(): Promise<void> {
    while (this.#hashing.length > 0) await this.#testOldest();
    while (this.#grouping.length > 0) await this.#writeOldest();
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }

  /** The ordered stage: the oldest piece's hashes tested (or added) here, its answers sent back for grouping. */
  async #testOldest(): Promise<void> {
    const { seq, length, result } = this.#hashing.shift()!;
    const hashed = await result;
    const answers = this.stage.test(hashed.hashes);
    if (answers === undefined) {
      this.#spare.push(hashed.buffer!);
      const empty = Buffer.alloc(0);
      this.stage.write({ length, lines: hashed.hashes.length, ones: 0, front: empty, back: empty });
      return;
    }
    const own = answers.byteLength === answers.buffer.byteLength ? answers : answers.slice();
    const grouped = this.#expect<Grouped>(`group ${seq}`);
    this.#grouping.push({ length, result: grouped });
    const { front, keepBack, endLines = false } = this.stage;
    this.#worker(seq).postMessage({ kind: "group", seq, answers: own, front, keepBack, endLines } satisfies LineJob, [own.buffer as ArrayBuffer]);
    while (this.#grouping.length >= GROUPED_AHEAD) await this.#writeOldest();
  }

  async #writeOldest(): Promise<void> {
    const { length, result } = this.#grouping.shift()!;
    const grouped = await result;
    const { buffer, frontBytes, backBytes } = grouped;
    const written = this.stage.outputs !== undefined;
    this.stage.write({
      length,
      lines: grouped.lines,
      ones: grouped.ones,
      front: Buffer.from(buffer, 0, written ? 0 : frontBytes),
      back: Buffer.from(buffer, frontBytes, written ? 0 : backBytes),
    });
    this.#spare.push(buffer);
  }

  /** The worker of a piece: both of its jobs go to the same one, which holds the piece between them. */
  #worker(seq: number): Worker {
    return this.#workers[seq % this.#workers.length];
  }

  #expect<T>(key: string): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    const promise = new Promise<T>((resolve, reject) => this.#waiting.set(key, { resolve, reject } as Waiting<Hashed>));
    promise.catch(() => {}); // awaited in order; a failure meanwhile is not unhandled
    return promise;
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    for (const { reject } of this.#waiting.values()) reject(error);
    this.#waiting.clear();
  }
}
