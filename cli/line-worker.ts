// A worker thread of the CLI's --threads. The reading thread sends it pieces of
// lines; it splits and hashes each with the key hash of the reading thread's
// filter. For a test-and-add it sends the hashes back, the reading thread tests
// them in input order (so the first occurrence of a line is the one kept,
// exactly as on one thread) and sends the answers; for a shared filter it adds
// or queries them itself. It then moves the lines answered `front` to the start
// of the piece, the others (when a second output wants them) after them, and
// writes each group to its output when the piece's turn comes; for a query it
// writes every line followed by its answer instead.
import { parentPort, workerData } from "node:worker_threads";
import { BloomFilter, SplitBlockBloomFilter } from "bloomkit";
import { AnsweredLines } from "./answered-lines.js";
import { writeAllSync } from "./write-all.js";
import type { Grouped, Hashed, LineJob, LineWorkerData, Released } from "./line-pool.js";

const { hashing, outputs, keepBack, front, endLines, turn, shared, annotate } = workerData as LineWorkerData;
/** The shared filter this worker adds to or queries itself, when it was given one. */
const target = shared === undefined ? undefined : shared.kind === "bloom" ? BloomFilter.fromShared(shared.handle as never) : SplitBlockBloomFilter.fromShared(shared.handle as never);
/** The sequence number of the piece whose lines may be written now. */
const order = new Int32Array(turn);
// Hashing for a test-and-add needs only the key hash: the smallest filter that has it.
const hasher = target ? undefined : hashing === null ? SplitBlockBloomFilter.withSize(1) : BloomFilter.withSize(64, 1, { hash: hashing.hash as "xxh64", seed: hashing.seed });
/** Pieces hashed and waiting for their answers, by sequence number. */
const held = new Map<number, { buffer: ArrayBuffer; length: number; ends: Uint32Array }>();
/** Buffers of hashes (back from the reading thread), line ends and answers of pieces done, for later pieces to be written into. */
const spareHashes: ArrayBuffer[] = [];
const spareEnds: ArrayBuffer[] = [];
let spareAnswers = new Uint8Array(0);

/** Arrays to hash a piece into (see hashLines' `into`), from the spares. */
function lent(): { hashes: BigUint64Array; ends: Uint32Array } {
  return { hashes: new BigUint64Array(spareHashes.pop() ?? new ArrayBuffer(0)), ends: new Uint32Array(spareEnds.pop() ?? new ArrayBuffer(0)) };
}

/** An array with room for `count` answers, for a shared filter's piece (done before the next, so one is enough). */
function answersFor(count: number): Uint8Array {
  if (spareAnswers.length < count) spareAnswers = new Uint8Array(count);
  return spareAnswers;
}
/** Where the back group gathers before it follows the front group. */
let back = new Uint8Array(1 << 20);
/** query's output: each line followed by the text of its answer. */
const answered = annotate ? new AnsweredLines(annotate) : undefined;

/**
 * Moves the lines answered `front` to the start of `bytes` and, with
 * `keepBack`, the others right after them, run by run; returns the bytes of
 * each group and the number of 1 answers.
 */
function group(bytes: Uint8Array, answers: Uint8Array, ends: Uint32Array): { frontBytes: number; backBytes: number; ones: number } {
  let frontBytes = 0;
  let backBytes = 0;
  let ones = 0;
  let start = 0;
  const last = answers.length - 1;
  for (let i = 0; i <= last; i++) {
    const answer = answers[i];
    ones += answer;
    if (i !== last && answers[i + 1] === answer) continue;
    const end = ends[i];
    if (answer === front) {
      if (start !== frontBytes) bytes.copyWithin(frontBytes, start, end);
      frontBytes += end - start;
    } else if (keepBack) {
      if (backBytes + end - start > back.length) {
        const larger = new Uint8Array(Math.max(back.length * 2, backBytes + end - start));
        larger.set(back.subarray(0, backBytes));
        back = larger;
      }
      back.set(bytes.subarray(start, end), backBytes);
      backBytes += end - start;
    }
    start = end;
  }
  if (backBytes > 0) bytes.set(back.subarray(0, backBytes), frontBytes);
  return { frontBytes, backBytes, ones };
}

/** Blocks this thread until piece `seq` may write. */
function waitForTurn(seq: number): void {
  for (let now = Atomics.load(order, 0); now !== seq; now = Atomics.load(order, 0)) Atomics.wait(order, 0, now);
}

/** Hands the turn to the next piece. */
function passTurn(seq: number): void {
  Atomics.store(order, 0, seq + 1);
  Atomics.notify(order, 0);
}

/** Writes the groups of piece `seq` in its turn: the front group to the first output, the back group to the second. */
function writeGroups(seq: number, bytes: Uint8Array, frontBytes: number, backBytes: number): void {
  const groups = [bytes.subarray(0, frontBytes), bytes.subarray(frontBytes, frontBytes + backBytes)];
  let output = 0;
  waitForTurn(seq);
  try {
    for (; output < outputs.length; output++) {
      if (groups[output].length > 0) writeAllSync(outputs[output].fd, groups[output]);
    }
  } catch (error) {
    throw Object.assign(error as Error, { output });
  } finally {
    passTurn(seq);
  }
}

/** Groups a piece by its answers (none: only added), writes the groups in the piece's turn, and says what it did. */
function finish(seq: number, buffer: ArrayBuffer, length: number, ends: Uint32Array, answers: Uint8Array | undefined): Grouped {
  if (answers === undefined) return { seq, buffer, lines: ends.length, frontBytes: 0, backBytes: 0, ones: 0 };
  const bytes = new Uint8Array(buffer);
  if (answered) {
    const { text, ones } = answered.of(bytes.subarray(0, length), answers, ends);
    writeGroups(seq, text, text.length, 0);
    return { seq, buffer, lines: ends.length, frontBytes: 0, backBytes: 0, ones };
  }
  const grouped = group(bytes.subarray(0, length), answers, ends);
  // Only the input's last line can lack its "\n"; the buffer has a byte of room after the piece for it.
  if (endLines && grouped.frontBytes > 0 && bytes[grouped.frontBytes - 1] !== 10) {
    bytes.copyWithin(grouped.frontBytes + 1, grouped.frontBytes, grouped.frontBytes + grouped.backBytes);
    bytes[grouped.frontBytes++] = 10;
  }
  if (outputs.length > 0) writeGroups(seq, bytes, grouped.frontBytes, grouped.backBytes);
  return { seq, buffer, lines: ends.length, ...grouped };
}

parentPort!.on("message", (job: LineJob) => {
  if (job.kind === "release") {
    // The pipeline is done: the shared filter's batch area goes back for the threads that use the filter next.
    target?.dispose();
    hasher?.dispose();
    parentPort!.postMessage({ released: true } satisfies Released);
    return;
  }
  try {
    if (job.kind === "group") {
      const piece = held.get(job.seq)!;
      held.delete(job.seq);
      spareHashes.push(job.hashes);
      const done = finish(job.seq, piece.buffer, piece.length, piece.ends, job.answers);
      spareEnds.push(piece.ends.buffer as ArrayBuffer);
      const answers = job.answers.buffer as ArrayBuffer;
      parentPort!.postMessage({ ...done, answers } satisfies Grouped, [piece.buffer, answers]);
    } else if (target) {
      // A shared filter: add or query here, then group and write in the piece's turn.
      const { hashes, ends } = target.hashLines(new Uint8Array(job.buffer, 0, job.length), lent());
      let answers: Uint8Array | undefined;
      // An add's answers go unused: they are written into the spare array, so that none are allocated.
      if (shared!.op === "add") target.testAndAddHashes(hashes, answersFor(hashes.length));
      else answers = target.hasHashes(hashes, answersFor(hashes.length));
      const done = finish(job.seq, job.buffer, job.length, ends, answers);
      spareHashes.push(hashes.buffer as ArrayBuffer);
      spareEnds.push(ends.buffer as ArrayBuffer);
      parentPort!.postMessage(done, [job.buffer]);
    } else {
      // A test-and-add: the hashes go to the reading thread, the piece waits here for its answers.
      const { hashes, ends } = hasher!.hashLines(new Uint8Array(job.buffer, 0, job.length), lent());
      held.set(job.seq, { buffer: job.buffer, length: job.length, ends });
      const reply: Hashed = { seq: job.seq, hashes };
      parentPort!.postMessage(reply, [hashes.buffer as ArrayBuffer]);
    }
  } catch (error) {
    const { message, code, output } = error as NodeJS.ErrnoException & { output?: number };
    parentPort!.postMessage({ seq: job.seq, error: message ?? String(error), code, output });
  }
});
