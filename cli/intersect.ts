// `bloomkit intersect A B`: the lines two huge files share, under a memory
// limit (the classic question of two files of 10 billion queries and 1 GB of
// memory). Approximate: a Bloom filter of A, then stream B. Exact:
// hash-partition both files into buckets on disk small enough for memory,
// then intersect bucket by bucket.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getHeapStatistics } from "node:v8";
import { BloomFilter, hashMany, optimal, type OptimalInput } from "bloomkit";
import { bloomBits, checkMemory, freeMemory } from "./memory.js";
import { hashesForRate, refuseUnreachableRate, wellAbove } from "./sizing.js";
import { UsageError, parseMemory, parseCount, parseProbability, sizedByOptions, type OptionSpec, type Parsed } from "./args.js";
import { onCleanup } from "./cleanup.js";
import { checkOutputNames, closeInput, inputName, openInput, refuseOutputsThatAreInputs, streamed, type Input } from "./input.js";
import { Output, Progress, estimateLines, forEachLine, headOf, linePieces, sizedPieces, splitLines } from "./io.js";
import { cannot } from "./os-errors.js";
import { refuseNameNotUtf8 } from "./typed-arguments.js";
import { count, fmt, formatBytes } from "./words.js";
import { LinePipeline, PieceBuffers, parseThreads, threadsOption, worthThreads } from "./line-pool.js";

export const intersectOptions: OptionSpec[] = [
  { name: "output", short: "o", value: "FILE", help: "common lines go here (default: standard output)" },
  { name: "exact", flag: true, help: "exact: partition both files into buckets on disk, then intersect each bucket in memory" },
  { name: "memory", value: "SIZE", help: "memory to use (default 1GB, or half the free memory when that is less; a number without a unit is bytes, refused below 64 KiB as a forgotten unit): the filter's size, or the bucket size for --exact" },
  { name: "p", value: "P", help: "approximate: the filter's false-positive rate (default 0.001)" },
  { name: "n", value: "N", help: "approximate: the lines of A to size the filter for (default: estimated from A's size), as in 5G for five billion" },
  { name: "tmp", value: "DIR", help: "--exact: where the bucket files go (default: the system's temporary folder)" },
  threadsOption,
  { name: "quiet", short: "q", flag: true, help: "no progress line" },
];

export const intersectUsage = "bloomkit intersect A B [--exact] [--memory 1GB] [--n N] [--p P] [--tmp DIR] [--threads N] [-o out]";

export async function intersect(parsed: Parsed): Promise<void> {
  const { options, positionals } = parsed;
  if (positionals.length !== 2) throw new UsageError(`intersect takes two files, got ${positionals.length}`);
  const [a, b] = positionals;
  if (a === "-" && b === "-") throw new UsageError("only one of A and B can be standard input");
  const memoryAsked = options.has("memory") ? parseMemory(String(options.get("memory"))) : undefined;
  const p = options.has("p") ? parseProbability("p", String(options.get("p"))) : 0.001;
  const givenN = options.has("n") ? parseCount("n", String(options.get("n"))) : undefined;
  if (givenN !== undefined && options.has("exact")) throw new UsageError("--n sizes the approximate filter; --exact needs none");
  if (options.has("p") && options.has("exact")) throw new UsageError("--p is the approximate filter's false-positive rate; --exact makes no false matches");
  if (options.has("tmp") && !options.has("exact")) throw new UsageError("--tmp is where --exact puts its bucket files; the approximate intersection writes none");
  if (options.get("tmp") === "") throw new UsageError(`--tmp names no folder ("")`);
  if (options.has("tmp")) refuseNameNotUtf8(String(options.get("tmp")), "write in", "give a folder whose name is UTF-8");
  const quiet = options.has("quiet");
  const threads = parseThreads(options);
  if (options.has("threads") && options.has("exact")) throw new UsageError("--threads is for the approximate intersection; --exact runs in one thread");
  const outputPath = options.get("output") as string | undefined;
  checkOutputNames(parsed, ["output"]);
  // Wrong usage is reported first (exit 2), then what the machine or the files refuse (exit 1). A --p that no
  // filter for --n lines (or for any number) reaches is wrong usage: refused before the memory or the files are looked at.
  if (!options.has("exact")) refuseUnreachableRate(p, givenN, { n: `--n ${options.get("n")}`, p: options.has("p") ? `--p ${options.get("p")}` : undefined });
  // Default: 1 GB, or half the free memory on a machine with less than 2 GB free.
  const memory = memoryAsked === undefined ? Math.min(1e9, Math.floor(freeMemory() / 2)) : checkMemory(memoryAsked);
  // Both inputs are opened and checked before the output is created, and the output may be neither.
  const inputs = [await openInput(a), await openInput(b)];
  refuseOutputsThatAreInputs(inputs, [outputPath]);
  const scratch = options.has("exact") ? scratchFolder(String(options.get("tmp") ?? tmpdir())) : undefined;
  const out = new Output(outputPath);
  const report = scratch
    ? await exact(inputs[0], inputs[1], memory, scratch, out, quiet)
    : await approximate(inputs[0], inputs[1], { memory, p, givenN, typed: { n: options.get("n") as string | undefined, p: options.get("p") as string | undefined } }, out, quiet, threads, options.has("threads"));
  inputs.forEach(closeInput);
  await out.close();
  process.stderr.write(report + "\n");
}


/** More than this share of the lines written are expected to be false matches: the output is swamped, so say so. */
const SWAMPED_SHARE = 0.25;

/** What sizes the approximate filter: --memory, --p and --n, and the last two as the user typed them (undefined when not given). */
interface Sizing {
  memory: number;
  p: number;
  givenN: number | undefined;
  typed: { n?: string; p?: string };
}

/** What set the size of A's filter, for the warning when it is too small: --memory, --n, or the lines estimated in A. */
type Limit = { by: "memory" } | { by: "n" | "estimate"; lines: number };

/**
 * A's filter, for n lines (undefined: a stream of unknown length): sized for
 * n at p when that fits the memory, else all the memory with no more hashes
 * than p needs; and what set its size. A --p no filter reaches is a usage
 * error in the user's words.
 */
function filterForA(a: Input, n: number | undefined, { memory, p, givenN, typed }: Sizing, placement: { shared: boolean }): { filter: BloomFilter; limit: Limit } {
  const phrases = {
    p: typed.p === undefined ? undefined : `--p ${typed.p}`,
    n: givenN !== undefined ? `--n ${typed.n}` : n !== undefined ? `the ${count(n, "line")} estimated in ${inputName(a)}` : `${inputName(a)} (its length unknown)`,
  };
  const sized = (input: OptimalInput) => sizedByOptions(() => optimal(input), phrases);
  const budget = bloomBits(memory * 8);
  const byMemory = (k: number) => ({ filter: BloomFilter.withSize(budget, k, placement), limit: { by: "memory" } as const });
  if (n === undefined) return byMemory(hashesForRate(p));
  // n lines at p that need more than twice the memory (n = 1e15 needs more bits than optimal() gives an m for): the
  // memory's filter, whose best k is then at most the k p asks for.
  if ((-n * Math.log(p)) / (Math.LN2 * Math.LN2) > 2 * budget) {
    return byMemory(sized({ n, m: budget }).k);
  }
  const wanted = sized({ n, p });
  if (wanted.m > budget) return byMemory(Math.min(sized({ n, m: budget }).k, wanted.k));
  return { filter: BloomFilter.create(n, p, placement), limit: { by: givenN === undefined ? "estimate" : "n", lines: n } };
}

async function approximate(a: Input, b: Input, sizing: Sizing, out: Output, quiet: boolean, threads: number, threadsAsked: boolean): Promise<string> {
  const { p, givenN } = sizing;
  // A short standard input is read ahead to learn its size, so its filter is sized for it rather than for all the memory allowed.
  /** Whether the two inputs are worth threads, A being `sizeA` bytes (undefined: a stream). */
  const threadedFor = (sizeA: number | undefined) => worthThreads(threads, sizeA === undefined || b.size === undefined ? undefined : sizeA + b.size);
  // With threads, a file is read straight into the buffers the workers get (its size is known before it is read).
  const buffersA = !streamed(a) && threadedFor(a.size) ? new PieceBuffers() : undefined;
  const { size: sizeA, pieces: piecesA } = await sizedPieces(a, buffersA?.take);
  let filter: BloomFilter | undefined;
  let limit: Limit = { by: "memory" };
  let linesA = 0;
  const progressA = new Progress(`reading ${inputName(a)}`, sizeA, quiet);
  let bytes = 0;
  // Threads share the filter: they add A's lines to it and query B's themselves.
  const threaded = threadedFor(sizeA);
  const placement = { shared: threaded };
  let poolA: LinePipeline | undefined;
  try {
    for await (const piece of piecesA) {
      if (!filter) {
        // Size from A's size when known; on stdin, from the memory allowed.
        ({ filter, limit } = filterForA(a, givenN ?? estimateLines(a, sizeA, piece), sizing, placement));
      }
      if (threaded) {
        // Worker threads hash the lines and add them to the shared filter.
        poolA ??= new LinePipeline({ filter, op: "add", threadsAsked }, threads, progressA, buffersA);
        await poolA.push(piece);
        continue;
      }
      linesA += filter.testAndAddLines(piece).length;
      bytes += piece.length;
      progressA.update(bytes, linesA);
    }
    if (poolA) {
      await poolA.finish();
      linesA += poolA.lines;
    }
  } finally {
    await poolA?.close();
  }
  progressA.done();
  filter ??= BloomFilter.withSize(64, 1, placement); // A is empty: nothing can match
  const progressB = new Progress(`probing with ${inputName(b)}`, b.size, quiet);
  let linesB = 0;
  let common = 0;
  bytes = 0;
  let poolB: LinePipeline | undefined;
  // With threads, B is read straight into the buffers the workers get.
  const buffersB = threaded ? new PieceBuffers() : undefined;
  try {
    for await (const piece of linePieces(b, buffersB?.take)) {
      if (threaded) {
        // Worker threads hash the lines, query the shared filter and write the lines found, in input order.
        poolB ??= new LinePipeline({ filter, op: "has", front: 1, endLines: true, outputs: [await out.handOver()], threadsAsked }, threads, progressB, buffersB);
        await poolB.push(piece);
        out.flushAheadOf(poolB.bytes);
        continue;
      }
      // Lines split in wasm: answers and line ends come as views, and matching lines are copied out as byte ranges.
      filter.hasLinesEach(piece, (answers, ends, offset) => {
        let start = offset;
        for (let i = 0; i < answers.length; i++) {
          const end = offset + ends[i];
          if (answers[i]) {
            out.write(piece.subarray(start, end));
            if (end === piece.length && piece[piece.length - 1] !== 10) out.write("\n");
            common++;
          }
          start = end;
        }
        linesB += answers.length;
      });
      bytes += piece.length;
      progressB.update(bytes, linesB);
      await out.drain();
    }
    if (poolB) {
      await poolB.finish();
      linesB += poolB.lines;
      common += poolB.ones;
    }
  } finally {
    await poolB?.close();
  }
  progressB.done();
  const rate = filter.falsePositiveRate();
  const filterBytes = filter.bits / 8;
  filter.dispose();
  // Of the lines of B not in A (x of them), rate·x pass: common = shared + rate·x and linesB = shared + x.
  const estimate = rate < 1 ? Math.min(common, ((linesB - common) * rate) / (1 - rate)) : 0;
  // Every line of B passed: the estimate then says none is false, yet a full filter passes lines not in A as well
  // (5 lines not in A all pass one at 0.958 four times in five). Up to as many as all pass with a chance of 5%.
  const couldAllPass = common !== linesB || !(rate > 0) ? 0 : rate >= 1 ? common : Math.min(common, Math.floor(Math.log(0.05) / Math.log(rate)));
  const upTo = couldAllPass > estimate;
  const falseMatches = upTo ? couldAllPass : estimate;
  const summary =
    `${count(common, "line")} of ${inputName(b)} (of ${fmt(linesB)}) ${common === 1 ? "is" : "are"} probably in ${inputName(a)} (${count(linesA, "line")}); ` +
    `each line of ${inputName(b)} not in ${inputName(a)} passes with probability ${rate.toPrecision(3)}, ${upTo ? "up to" : "about"} ${fmt(falseMatches)} of them`;
  if (common === 0 || falseMatches <= Math.max(1, SWAMPED_SHARE * common)) return summary;
  // A filter held to --memory, or sized for fewer lines than A has, answers well above p; one that reached p needs a smaller p for B's many other lines.
  const cause =
    wellAbove(rate, p)
      ? tooSmall(limit, formatBytes(filterBytes), count(linesA, "line"), inputName(a), sizing.typed.n)
      : `${inputName(b)} has many lines not in ${inputName(a)} for --p ${p}; give a smaller --p or use --exact`;
  // The share is of the whole number shown: of 1.59 expected in 3 lines, "about 2 of the 3 lines written (50.1%)" read wrong.
  const shown = Math.round(falseMatches);
  return (
    `${summary}\nbloomkit: warning: ${upTo ? "up to" : "about"} ${fmt(shown)} of the ${count(common, "line")} written ` +
    `(${((100 * shown) / common).toPrecision(3)}%) ${upTo ? "may be" : "are expected to be"} false matches, lines not in ${inputName(a)}: ${cause}`
  );
}

/** Why A's filter is too small for its lines, naming what set its size: --memory, --n (as typed), or the lines estimated in A. */
function tooSmall(limit: Limit, size: string, lines: string, a: string, typedN: string | undefined): string {
  if (limit.by === "memory") return `a filter of ${size} is too small for ${lines}; give a larger --memory or use --exact`;
  if (limit.by === "n") return `the filter is sized for --n ${typedN} lines, and ${a} has ${lines}; give a larger --n or use --exact`;
  return `the filter is sized for the ${count(limit.lines, "line")} estimated in ${a}, which has ${lines}; give --n or use --exact`;
}

/** Most bucket files open at once (each side), well under the usual limit of 1,024 open files. */
const MAX_BUCKETS = 512;

/** What one bucket of A may hold so that its Set, and the process while it builds it, stay within the memory. */
export interface BucketBudget {
  /** At most memory/4 bytes of A. */
  readonly bytes: number;
  /** Memory for the Set: the memory less what the process takes before any Set (at least half of it). */
  readonly forSets: number;
}

/** The budget of one bucket under `asked` bytes of --memory; the Sets live in the JavaScript heap, which holds no more than its limit (about 4 GB here) whatever --memory says. */
export function bucketBudget(asked: number): BucketBudget {
  const memory = Math.min(asked, getHeapStatistics().heap_size_limit);
  return { bytes: memory / 4, forSets: Math.max(memory / 2, memory - PROCESS_BYTES) };
}

/** Lines of A of `lineBytes` bytes each (on average) that one bucket holds: each costs its bytes and SET_BYTES_PER_LINE, times HEAP_PEAK_FACTOR, and at most BUCKET_LINES. */
export function linesFitting(budget: BucketBudget, lineBytes: number): number {
  return Math.min(BUCKET_LINES, budget.forSets / (HEAP_PEAK_FACTOR * (lineBytes + SET_BYTES_PER_LINE)));
}

/** Buckets that `bytes` bytes and `lines` lines of A need, by the budget (1 when they fit one). */
function bucketsNeeded(budget: BucketBudget, bytes: number, lines: number): number {
  return Math.max(1, Math.ceil(bytes / budget.bytes), Math.ceil(lines / linesFitting(budget, bytes / Math.max(1, lines))));
}

/**
 * Buckets so that one bucket of A fits the budget, from A's size and the
 * lines estimated in it, at most MAX_BUCKETS. A from a pipe, whose size is
 * unknown, gets the most: taken for memory's size, it got 4 buckets, and a
 * pipe of 100 GB put 25 GB of it in one Set whatever --memory said. A bucket
 * that still turns out too large is split again (splitBucket).
 */
function bucketCount(a: Input, budget: BucketBudget): number {
  if (a.size === undefined) return MAX_BUCKETS;
  const lines = estimateLines(a, a.size, headOf(a, a.size)) ?? 0;
  return Math.min(MAX_BUCKETS, bucketsNeeded(budget, a.size, lines));
}

/** What the process takes before any Set: Node itself (an idle Node holds about 40 MB) and the bucket files' buffers. */
const PROCESS_BYTES = 64e6;

/** Bytes a line of A takes in a bucket's Set beyond its own: a string's header and the Set's entry (37-43 measured under Node 20 and 24), and its share of the Set's table. */
const SET_BYTES_PER_LINE = 64;

/**
 * The process's peak memory over its Set's while a bucket's Set is built
 * and B's lines are tested against it: the garbage collector lets the heap
 * grow to several times what is live. Measured, 17 million numbers (142 MB)
 * in 3 buckets: a Set of about 370 MB, the process 1.2-1.5 GB; with 4, the
 * default 1GB gave peaks of 880 MB (Node 20) and 821 MB (Node 24) in 7.
 */
const HEAP_PEAK_FACTOR = 4;

/**
 * Lines of A a bucket is sized for: a JavaScript Set holds at most 2^24
 * (16,777,216) keys, and 17 million numbers (a 142 MB file) in one bucket
 * failed with "Set maximum size exceeded"; half that leaves room for an
 * estimate that is short.
 */
const BUCKET_LINES = 8_000_000;

/**
 * Calls `each` with every line's key of `piece` (whole lines, the last maybe
 * without "\n"; one "\r" before "\n" dropped) as a string that keeps every
 * byte (latin1), for the Set, and where the key lies in `piece`. No view is
 * made of each line: a bucket of 5.7 million short lines built its Set to
 * 1.1 GB of memory through splitLines's views, for a Set of about 260 MB.
 */
function forEachKey(piece: Buffer, each: (key: string, start: number, end: number) => void): void {
  forEachLine(piece, (start, keyEnd) => each(piece.toString("latin1", start, keyEnd), start, keyEnd));
}

/** A folder for the bucket files; remove() deletes it, and so does an error, a signal or the exit. */
function scratchFolder(tmpRoot: string): { dir: string; remove(): void } {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpRoot, "bloomkit-intersect-"));
  } catch (error) {
    throw cannot("create a temporary folder in", tmpRoot, error);
  }
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const unregister = onCleanup(remove);
  return {
    dir,
    remove() {
      unregister();
      remove();
    },
  };
}

/** A bucket: its two files, and what the partition wrote to A's (bytes with line ends, lines). */
interface Bucket {
  readonly a: string;
  readonly b: string;
  readonly bytes: number;
  readonly lines: number;
  /** Times its lines were partitioned: the hash seed of a further split. */
  readonly depth: number;
}

/** Deepest split: each takes up to MAX_BUCKETS parts, so a bucket that still does not fit after this many holds repeats of few lines, which a Set holds once. */
const MAX_SPLIT_DEPTH = 4;

/** A bucket --exact reads into a Set: the bytes (with line ends) and lines of A in it, and the splits that made it. */
export interface BucketRead {
  readonly bytes: number;
  readonly lines: number;
  readonly depth: number;
}

/**
 * Writes the lines of B that A holds, each once, to `out`, through buckets of
 * A that fit `memory` (and B's matching buckets) in `scratch`; returns the
 * summary. `onRead` sees each bucket as it is read: the tests check them
 * against the budget.
 */
export async function exact(a: Input, b: Input, memory: number, scratch: { dir: string; remove(): void }, out: Output, quiet: boolean, onRead?: (bucket: BucketRead) => void): Promise<string> {
  const { dir } = scratch;
  try {
    const budget = bucketBudget(memory);
    const buckets = bucketCount(a, budget);
    const partsA = await partition(a, join(dir, "a"), buckets, 0, quiet);
    const partsB = await partition(b, join(dir, "b"), buckets, 0, quiet);
    const linesA = partsA.reduce((sum, part) => sum + part.lines, 0);
    const linesB = partsB.reduce((sum, part) => sum + part.lines, 0);
    const pending: Bucket[] = partsA.map((part, i) => ({ a: part.path, b: partsB[i].path, bytes: part.bytes, lines: part.lines, depth: 0 })).reverse();
    let common = 0;
    let split = 0;
    for (let bucket = pending.pop(); bucket !== undefined; bucket = pending.pop()) {
      // A bucket of A larger than the budget (A's estimate was short, or A has more than MAX_BUCKETS buckets' worth)
      // is partitioned again, with another seed, rather than read into a Set larger than --memory.
      const tooLarge = bucketsNeeded(budget, bucket.bytes / SPLIT_TOLERANCE, bucket.lines / SPLIT_TOLERANCE) > 1;
      if (tooLarge && bucket.depth < MAX_SPLIT_DEPTH) {
        const parts = await splitBucket(bucket, Math.min(MAX_BUCKETS, Math.ceil(bucketsNeeded(budget, bucket.bytes, bucket.lines) * SPLIT_MARGIN)));
        split++;
        // Lines all in one part again are repeats of one key (or of keys with one hash): splitting more would not help.
        const stuck = parts.some((part) => part.lines === bucket.lines);
        for (const part of parts.reverse()) pending.push({ ...part, depth: stuck ? MAX_SPLIT_DEPTH : bucket.depth + 1 });
        continue;
      }
      onRead?.({ bytes: bucket.bytes, lines: bucket.lines, depth: bucket.depth });
      common += bucket.lines === 0 ? 0 : await intersectBucket(bucket, out);
      rmSync(bucket.a, { force: true });
      rmSync(bucket.b, { force: true });
    }
    const splitNote = split === 0 ? "" : `, and ${count(split, "split")} of a bucket too large for the memory`;
    return (
      `${count(common, "distinct line")} ${common === 1 ? "is" : "are"} in both ${inputName(a)} (${count(linesA, "line")}) ` +
      `and ${inputName(b)} (${count(linesB, "line")}), exactly; ${count(buckets, "bucket")}${splitNote}`
    );
  } finally {
    scratch.remove();
  }
}

/**
 * How far past its budget a bucket may be before it is split: buckets sized
 * to just fit it on average hold a little more or less by chance, and the
 * budget keeps margins of its own (memory/4, HEAP_PEAK_FACTOR).
 */
export const SPLIT_TOLERANCE = 1.25;

/** Parts a too-large bucket is split into, beyond what the budget needs: the hash spreads lines unevenly. */
const SPLIT_MARGIN = 1.5;

/** Partitions both files of `bucket` into `parts` buckets with the next seed, and removes them; returns the new buckets. */
async function splitBucket(bucket: Bucket, parts: number): Promise<Omit<Bucket, "depth">[]> {
  const seed = bucket.depth + 1;
  const partsA = await partition(bucket.a, `${bucket.a}.${seed}`, parts, seed, true);
  const partsB = await partition(bucket.b, `${bucket.b}.${seed}`, parts, seed, true);
  rmSync(bucket.a, { force: true });
  rmSync(bucket.b, { force: true });
  return partsA.map((part, i) => ({ a: part.path, b: partsB[i].path, bytes: part.bytes, lines: part.lines }));
}

/** Writes the lines of the bucket's B that its A holds, each once; returns how many. */
async function intersectBucket(bucket: Bucket, out: Output): Promise<number> {
  const seen = new Set<string>();
  for await (const piece of linePieces(bucket.a)) forEachKey(piece, (key) => seen.add(key));
  let common = 0;
  for await (const piece of linePieces(bucket.b)) {
    forEachKey(piece, (key, start, end) => {
      if (seen.delete(key)) {
        const line = piece.subarray(start, end);
        out.write(line);
        out.write(lineEnd(line));
        common++;
      }
    });
    await out.drain();
  }
  return common;
}

/**
 * The end that makes `key` read back as itself: a key that ends in "\r" (a
 * line "x\r\r\n") gets "\r\n", since reading strips one "\r"; with "\n" its
 * bucket line read as "x", matched B's "x", and the output said "x".
 */
function lineEnd(key: Uint8Array): Buffer {
  return key.length > 0 && key[key.length - 1] === 13 ? CRLF : LF;
}
const LF = Buffer.from("\n");
const CRLF = Buffer.from("\r\n");

/** One bucket file a partition wrote: its path, its bytes (with line ends) and its lines. */
interface Part {
  readonly path: string;
  bytes: number;
  lines: number;
}

/**
 * Writes each line of `input` (its key, without one "\r") to bucket
 * xxh64(key, seed) mod buckets, in files `prefix`.0, `prefix`.1, …; returns
 * what each holds. Seed 0 for the inputs, the depth of the split for a bucket
 * split again.
 */
async function partition(input: Input | string, prefix: string, buckets: number, seed: number, quiet: boolean): Promise<Part[]> {
  // Scratch files in the command's own temporary folder: written in place.
  const parts: Part[] = Array.from({ length: buckets }, (_, i) => ({ path: `${prefix}.${i}`, bytes: 0, lines: 0 }));
  const outputs = parts.map((part) => new Output(part.path, 64 << 10, "direct"));
  const progress = new Progress(`partitioning ${typeof input === "string" ? "a bucket" : inputName(input)}`, typeof input === "string" ? undefined : input.size, quiet);
  let lines = 0;
  let bytes = 0;
  for await (const piece of linePieces(input)) {
    const { keys } = splitLines(piece);
    const hashes = hashMany("xxh64", keys, seed);
    for (let i = 0; i < keys.length; i++) {
      const at = Number(hashes[i] % BigInt(buckets));
      const end = lineEnd(keys[i]);
      outputs[at].write(keys[i]);
      outputs[at].write(end);
      parts[at].bytes += keys[i].length + end.length;
      parts[at].lines++;
    }
    lines += keys.length;
    bytes += piece.length;
    progress.update(bytes, lines);
  }
  for (const output of outputs) await output.close();
  progress.done();
  return parts;
}
