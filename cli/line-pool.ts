// The CLI's --threads: a pipeline over pieces of lines. Worker threads
// (line-worker.ts) split and hash each piece. For a test-and-add, this thread
// tests the hashes in input order and a worker then groups the piece's lines by
// answer; for adds and queries of a shared filter the workers do it all. The
// groups are written in input order (by this thread, or by the workers taking
// turns), so the output is byte for byte the output of one thread.
import { Worker } from "node:worker_threads";
import { BloomFilter, type SplitBlockBloomFilter } from "bloomkit";
// Package-private (package.json "imports"): not part of the library's API.
import { freeBatchAreas } from "#shared-arena";
import { CliError, UsageError, type OptionSpec, type Parsed } from "./args.js";
import type { Output, Progress } from "./io.js";
import { cores } from "./memory.js";
import { cannot } from "./os-errors.js";
import { count } from "./words.js";

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

/**
 * Work for a worker: hash a piece (and, for a test-and-add, hold it for its
 * answers), or group a held piece by its answers; the piece's hashes come
 * back with them, for the worker to hash a later piece into.
 */
export type LineJob =
  | { kind: "hash"; seq: number; buffer: ArrayBuffer; length: number }
  | { kind: "group"; seq: number; answers: Uint8Array; hashes: ArrayBuffer }
  | { kind: "release" };

/** A worker's reply to "release": its filter is disposed (a shared filter's batch area given back). */
export interface Released {
  released: true;
}

/** A piece hashed for a test-and-add: each line's key hash (the worker holds the piece). */
export interface Hashed {
  seq: number;
  hashes: BigUint64Array;
}

/** A piece done: grouped (and written) by its answers, or only added; its buffer comes back for the next piece. */
export interface Grouped {
  seq: number;
  buffer: ArrayBuffer;
  lines: number;
  frontBytes: number;
  backBytes: number;
  /** Lines answered 1. */
  ones: number;
  /** The answers' buffer back, for a later piece's answers (a test-and-add). */
  answers?: ArrayBuffer;
}

/** What every worker of a pipeline is told once. */
export interface LineWorkerData {
  /** The BloomFilter's key hash, or null for a SplitBlockBloomFilter's (xxh64, seed 0). */
  hashing: { hash: string; seed: number } | null;
  /** A shared filter the workers add to or query themselves (no order needed), or undefined for a test-and-add here. */
  shared: { handle: unknown; kind: "bloom" | "split-block"; op: "add" | "has" } | undefined;
  /** Where the workers write, in input order, the lines answered `front` and (a second output) the others. */
  outputs: OutputTarget[];
  /** Whether the lines not answered `front` follow the others in the grouped piece (for a second output). */
  keepBack: boolean;
  front: number;
  /** Whether a last line without "\n" gets one when it is written (as intersect writes lines). */
  endLines: boolean;
  /** [0]: the sequence number of the piece that may write now. [1]: a word to sleep on. */
  turn: SharedArrayBuffer;
  /** Instead of groups: every line, without its line ending, followed by annotate[its answer] (query's output). */
  annotate: readonly [string, string] | undefined;
}

/** An output the workers write to: its file descriptor and its name for errors (the thread that owns it flushes it to disk, Output.flushAheadOf). */
export interface OutputTarget {
  fd: number;
  path: string;
}

/**
 * What is done with each piece's hashes: `op` as a function runs here, in
 * input order (a test-and-add); "add" and "has" run in the workers on the
 * filter, created with { shared: true }. The lines answered `front` go to the
 * first output, the others to the second when there is one; an "add" writes
 * nothing.
 */
export interface LineStage {
  /** The filter whose key hash the workers use. */
  readonly filter: BloomFilter | SplitBlockBloomFilter;
  /** A function gets an array to answer into (testAndAddHashes' and hasHashes' `into`), with room for every hash. */
  readonly op: ((hashes: BigUint64Array, into: Uint8Array) => Uint8Array) | "add" | "has";
  readonly outputs?: OutputTarget[];
  /**
   * Instead of `outputs`, for a test-and-add: outputs this thread writes each
   * piece's groups to, in input order, from the piece's own buffer. This
   * thread then does a worker's share of the work, so the pipeline starts one
   * worker fewer than `threads`.
   */
  readonly writers?: Output[];
  /** 0: new lines of a test-and-add first; 1: lines a query found first. */
  readonly front?: number;
  readonly endLines?: boolean;
  /** Write every line, in input order, followed by the text of its answer (0, 1), to the first output instead of grouping. */
  readonly annotate?: readonly [string, string];
  /** The user gave --threads (not the default): fewer threads than asked, for a shared filter's room, are then said on stderr. */
  readonly threadsAsked?: boolean;
}

/** Shared filters whose room for threads was already said: intersect runs two pipelines over one filter and says it once. */
const roomSaid = new WeakSet<object>();

/**
 * Threads a pipeline over `filter` may start, of `threads` asked: a shared
 * filter's worker holds a batch area in each of its memories, and a memory
 * has room for 256 at most, fewer in a segment near 4 GiB (41 each in
 * intersect --memory 12.8GB; 3 when nearly 4 GiB). A worker past that room
 * would fail at its first batch, mid-run, so the pool is cut to it; when the
 * user asked for more with --threads, one line says so.
 */
export function threadsFor(filter: BloomFilter | SplitBlockBloomFilter, threads: number, shared: boolean, asked: boolean): number {
  if (!shared) return threads;
  // At least one: with no room at all, the worker's error says why.
  const room = Math.max(1, freeBatchAreas(filter.share().memories));
  if (threads <= room) return threads;
  if (asked && !roomSaid.has(filter)) {
    roomSaid.add(filter);
    process.stderr.write(`--threads ${threads}: this filter's memory has room for ${count(room, "thread")} at once; using ${room}\n`);
  }
  return room;
}

/** Bytes of a piece buffer: a piece of the CLI's reader (a line longer than that gets a larger one). */
const PIECE_BYTES = 1 << 20;

/**
 * Pieces hashed ahead of the ordered stage (or, for a shared filter, in the
 * workers' hands) per thread, and pieces tested and being grouped before this
 * thread waits to write the oldest: each holds a piece buffer of 1 MiB.
 * Measured on the 498 MB crawl log, two threads, in turns: dedup with 8 and 8
 * took 136-137 MB at most (Node 20) and 150-151 (Node 24), with 2 and 4
 * 114-115 and 127-128, in the same 1.2-1.4 s; build took 1.96-2.71 s and
 * 126-128 MB with 8, 2.18-2.52 s and 113-115 MB with 2.
 */
const HASHED_AHEAD_PER_THREAD = 2;
const GROUPED_AHEAD = 4;

type Waiting<T> = { resolve(value: T): void; reject(error: Error): void };

/**
 * The buffers pieces travel in: the reader (linePieces) reads the input into
 * them, a pipeline hands them to its workers without a copy, and each comes
 * back for reuse when its piece is done. Reading into them instead of copying
 * each piece over saved the reading thread 46–112 ms of the 498 MB crawl log.
 */
export class PieceBuffers {
  readonly #spare: ArrayBuffer[] = [];
  /** The buffers handed out or kept here (a buffer back from a worker is a new object, added when it is given back). */
  readonly #ours = new WeakSet<ArrayBuffer>();

  /** A buffer of at least `bytes` bytes. */
  readonly take = (bytes: number): ArrayBuffer => {
    const index = this.#spare.findIndex((buffer) => buffer.byteLength >= bytes);
    const buffer = index >= 0 ? this.#spare.splice(index, 1)[0] : new ArrayBuffer(Math.max(bytes, PIECE_BYTES + 1));
    this.#ours.add(buffer);
    return buffer;
  };

  /** Keeps a buffer for reuse. */
  give(buffer: ArrayBuffer): void {
    this.#ours.add(buffer);
    this.#spare.push(buffer);
  }

  /** True for a buffer that came from take(). */
  owns(buffer: ArrayBufferLike): boolean {
    return buffer instanceof ArrayBuffer && this.#ours.has(buffer);
  }
}

export class LinePipeline {
  readonly #workers: Worker[];
  readonly #waiting = new Map<string, Waiting<Hashed> | Waiting<Grouped>>();
  readonly #hashing: { seq: number; length: number; result: Promise<Hashed> }[] = [];
  readonly #grouping: { length: number; result: Promise<Grouped> }[] = [];
  readonly #buffers: PieceBuffers;
  readonly #test: ((hashes: BigUint64Array, into: Uint8Array) => Uint8Array) | undefined;
  /** Answer buffers back from the workers, for later pieces: with the hashes and line ends the workers keep, no piece allocates. */
  readonly #spareAnswers: ArrayBuffer[] = [];
  readonly #writers: Output[] | undefined;
  /** The piece being gathered from small pieces (standard input's chunks) before it is sent. */
  #gathering: { buffer: ArrayBuffer; length: number } | undefined;
  #seq = 0;
  #failure: Error | undefined;
  #closing = false;
  /** True once finish() ran every piece through: the workers are idle. */
  #finished = false;
  /** Workers that stopped: a message to one would wait for a reply forever. */
  readonly #exited = new WeakSet<Worker>();
  /** Lines, lines answered 1 and bytes of the pieces done, in input order. */
  lines = 0;
  ones = 0;
  bytes = 0;

  /** Threads the pipeline runs on: as asked, or fewer for a shared filter's room (threadsFor). */
  readonly threads: number;

  /**
   * Starts `threads` workers (one fewer with `stage.writers`; for a shared
   * filter, no more than its memory has room for) that hash lines
   * as `stage.filter` does; `progress` follows the pieces done. Pieces read
   * into `buffers` (see linePieces) go to the workers as they are.
   */
  constructor(stage: LineStage, threads: number, private readonly progress: Progress, buffers = new PieceBuffers()) {
    const { filter, op, outputs = [], writers } = stage;
    if (writers && typeof op !== "function") throw new Error("writers are for a test-and-add, which this thread runs");
    this.threads = threads = threadsFor(filter, threads, typeof op === "string", stage.threadsAsked ?? false);
    this.#buffers = buffers;
    this.#test = typeof op === "function" ? op : undefined;
    this.#writers = writers;
    const data: LineWorkerData = {
      hashing: filter instanceof BloomFilter ? { hash: filter.hash as string, seed: filter.seed } : null,
      shared: typeof op === "string" ? { handle: filter.share(), kind: filter instanceof BloomFilter ? "bloom" : "split-block", op } : undefined,
      outputs: writers ? [] : outputs,
      keepBack: (writers ?? outputs).length > 1,
      front: stage.front ?? 0,
      endLines: stage.endLines ?? false,
      turn: new SharedArrayBuffer(8),
      annotate: stage.annotate,
    };
    // Measured on dedup of the 498 MB crawl log (Node 20, 2 cores, 5 runs each, taken in turn): this thread
    // testing and writing beside one worker took 0.64-0.67 s and 171 MB at most, against 0.69-0.75 s and
    // 209 MB with two workers writing in turns (three busy threads on two cores), and 0.65-0.77 s in one thread.
    const workers = writers ? Math.max(1, threads - 1) : threads;
    const work = typeof op === "string" ? op : `hashing for this thread, which tests in input order${writers ? " and writes" : ""}`;
    // BLOOMKIT_DEBUG says which work went to threads (the tests check that --threads is used).
    if (process.env.BLOOMKIT_DEBUG) process.stderr.write(`bloomkit debug: ${workers} worker thread${workers === 1 ? "" : "s"} (${work})\n`);
    this.#workers = Array.from({ length: workers }, () => {
      const worker = new Worker(new URL("./line-worker.js", import.meta.url), { workerData: data });
      worker.on("message", (message: Hashed | Grouped | Released | { seq: number; error: string; code?: string; output?: number }) => {
        if ("released" in message) return;
        if ("error" in message) {
          const { error, code, output } = message;
          return this.#fail(output !== undefined ? cannot("write", outputs[output].path, Object.assign(new Error(error), { code })) : new CliError(`a worker thread failed: ${error}`));
        }
        const key = `${"hashes" in message ? "hash" : "group"} ${message.seq}`;
        const waiting = this.#waiting.get(key) as Waiting<typeof message> | undefined;
        this.#waiting.delete(key);
        waiting?.resolve(message);
      });
      worker.on("error", (error) => this.#fail(new CliError(`a worker thread failed: ${error.message}`)));
      worker.on("exit", (code) => {
        this.#exited.add(worker);
        if (code !== 0 && !this.#closing) this.#fail(new CliError(`a worker thread stopped (exit code ${code})`));
      });
      return worker;
    });
  }

  /**
   * Copies `piece` (whole lines) into the piece being gathered and, once that
   * holds half a piece buffer or more, sends it to a worker; runs the later
   * stages of older pieces when enough are ahead. A file's reader gives pieces
   * of about 1 MiB, sent as they come; standard input comes in 64 KiB chunks,
   * which are gathered first, so each costs no buffer and no messages of its own.
   */
  async push(piece: Uint8Array): Promise<void> {
    if (this.#failure) throw this.#failure;
    const gathering = this.#gathering;
    if (!gathering && this.#buffers.owns(piece.buffer) && piece.byteOffset === 0 && piece.length >= PIECE_BYTES / 2) {
      // A piece read into one of the buffers: it goes as it is (the buffer has a byte to spare after it).
      this.#gathering = { buffer: piece.buffer as ArrayBuffer, length: piece.length };
      return this.#send();
    }
    // One byte more than the lines: room for the "\n" endLines may add after a last line without one.
    if (gathering && gathering.length + piece.length < gathering.buffer.byteLength) {
      new Uint8Array(gathering.buffer, gathering.length).set(piece);
      gathering.length += piece.length;
    } else {
      await this.#send();
      const buffer = this.#buffers.take(piece.length + 1);
      new Uint8Array(buffer).set(piece);
      this.#gathering = { buffer, length: piece.length };
    }
    if (this.#gathering!.length >= PIECE_BYTES / 2) await this.#send();
  }

  /** Sends the gathered piece, if any, to its worker; waits while enough pieces are ahead of the later stages. */
  async #send(): Promise<void> {
    if (!this.#gathering) return;
    const { buffer, length } = this.#gathering;
    this.#gathering = undefined;
    const seq = this.#seq++;
    if (this.#test) this.#hashing.push({ seq, length, result: this.#expect<Hashed>(`hash ${seq}`) });
    // A shared filter's piece is added or queried, grouped and written by its worker: one reply when it is done.
    else this.#grouping.push({ length, result: this.#expect<Grouped>(`group ${seq}`) });
    this.#worker(seq).postMessage({ kind: "hash", seq, buffer, length } satisfies LineJob, [buffer]);
    const ahead = HASHED_AHEAD_PER_THREAD * this.threads;
    if (this.#test) while (this.#hashing.length >= ahead) await this.#testOldest();
    else while (this.#grouping.length >= ahead) await this.#finishOldest();
  }

  /** Runs every piece through to the end. */
  async finish(): Promise<void> {
    await this.#send();
    while (this.#hashing.length > 0) await this.#testOldest();
    while (this.#grouping.length > 0) await this.#finishOldest();
    this.#finished = true;
  }

  /**
   * Stops the workers. After a finish() they first dispose their filter: a
   * worker stopped without it keeps its batch area in a shared filter's memory,
   * and intersect's second pipeline (B's queries, over the filter of A's adds)
   * then found the areas of the first still taken (256 at most, 3 in a filter of
   * nearly 4 GiB). After a failure they are stopped as they are (a worker may be
   * waiting for a turn that never comes).
   */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#finished && !this.#failure) await Promise.all(this.#workers.filter((worker) => !this.#exited.has(worker)).map(released));
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }

  /**
   * The ordered stage: the oldest piece's hashes tested here, its answers
   * sent back for grouping with the hashes' buffer. Dedup of the 498 MB crawl
   * log allocated about 500 KB of hashes, line ends and answers per piece of
   * 1 MiB, and up to 64 MB of them waited for a collection in each thread:
   * two threads took 172-255 MB at most, against 88-99 MB in one. Lent back
   * to be filled again, they took 135-137 MB (Node 20) and 149-151 (Node 24)
   * in the same time.
   */
  async #testOldest(): Promise<void> {
    const { seq, length, result } = this.#hashing.shift()!;
    const { hashes } = await result;
    const spare = this.#spareAnswers.pop();
    const into = spare !== undefined && spare.byteLength >= hashes.length ? new Uint8Array(spare) : new Uint8Array(hashes.length);
    const answers = this.#test!(hashes, into);
    const own = answers.buffer === into.buffer || answers.byteLength === answers.buffer.byteLength ? answers : answers.slice();
    this.#grouping.push({ length, result: this.#expect<Grouped>(`group ${seq}`) });
    const back = hashes.buffer as ArrayBuffer;
    this.#worker(seq).postMessage({ kind: "group", seq, answers: own, hashes: back } satisfies LineJob, [own.buffer as ArrayBuffer, back]);
    while (this.#grouping.length >= GROUPED_AHEAD) await this.#finishOldest();
  }

  /** Counts the oldest piece done, writes its groups (unless its worker did), and keeps its buffer for the next. */
  async #finishOldest(): Promise<void> {
    const { length, result } = this.#grouping.shift()!;
    const { buffer, lines, ones, frontBytes, backBytes, answers } = await result;
    if (answers) this.#spareAnswers.push(answers);
    this.lines += lines;
    this.ones += ones;
    this.bytes += length;
    this.progress.update(this.bytes, this.lines);
    const writers = this.#writers;
    if (!writers) return this.#buffers.give(buffer);
    // Written from the piece's buffer, which is taken for another piece once every write of it has ended.
    const groups = [new Uint8Array(buffer, 0, frontBytes), new Uint8Array(buffer, frontBytes, backBytes)].slice(0, writers.length);
    let writing = groups.length;
    const release = () => {
      if (--writing === 0) this.#buffers.give(buffer);
    };
    groups.forEach((group, i) => writers[i].writeLent(group, release));
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

/** Asks an idle worker to dispose its filter; resolves once it did (or stopped, or failed: it is terminated next anyway). */
function released(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      worker.off("message", onMessage);
      worker.off("exit", done);
      worker.off("error", done);
      resolve();
    };
    const onMessage = (message: unknown) => {
      if (typeof message === "object" && message !== null && "released" in message) done();
    };
    worker.on("message", onMessage);
    worker.once("exit", done);
    worker.once("error", done);
    worker.postMessage({ kind: "release" } satisfies LineJob);
  });
}
