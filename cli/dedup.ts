// `bloomkit dedup`: the crawler de-duplication program as a stream. Keeps the first
// occurrence of each line in input order; lines reach wasm as bytes.
import { BloomFilter, SplitBlockBloomFilter, falsePositiveRateFor, optimal } from "bloomkit";
import { FIRST_LAYER_LINES, GrowingFilter, rateAfter } from "./growing-filter.js";
import { bloomBits, checkMemory } from "./memory.js";
import { hashesForRate, refuseUnreachableRate } from "./sizing.js";
import { CliError, UsageError, parseMemory, parseCount, parseProbability, sizedByOptions, sizedByOptionsAsync, typedName, type OptionSpec, type Parsed } from "./args.js";
import { checkOutputNames, closeInput, openInput, refuseOutputsThatAreInputs } from "./input.js";
import { Output, Progress, closeTogether, estimateLines, linePieces } from "./io.js";
import { count, formatBytes, oneLine } from "./words.js";
import { onCleanup } from "./cleanup.js";
import { failureInWords } from "./os-errors.js";
import { inRedis, lineEnds, openShared, redisOptions, redisTarget, type SharedFilter } from "./redis.js";
import { LinePipeline, PieceBuffers, THREADED_INPUT_BYTES, parseThreads, threadsOption, worthThreads } from "./line-pool.js";

export const dedupOptions: OptionSpec[] = [
  { name: "output", short: "o", value: "FILE", help: "unique lines go here (default: standard output)" },
  { name: "repeats", value: "FILE", help: "repeated lines go here" },
  { name: "n", value: "N", help: "expected distinct lines (10k, 5M …); default: estimated from the file size (standard input redirected from a file too), or a filter that grows on a pipe" },
  { name: "p", value: "P", help: "false-positive rate, the share of new lines taken for repeats (default 0.001)" },
  { name: "memory", value: "SIZE", help: "use a filter of this size instead (64MB, 1GiB; a number without a unit is bytes, refused below 64 KiB as a forgotten unit): all of it for split-block; with --type bloom, k from the estimated n" },
  { name: "type", short: "t", value: "TYPE", help: "split-block (default: one cache line per line, fastest) or bloom (fewest bits for p)" },
  threadsOption,
  { name: "quiet", short: "q", flag: true, help: "no progress line" },
  ...redisOptions,
];

export const dedupUsage =
  "bloomkit dedup [input|-] [-o out] [--repeats file] [--n N --p P | --memory 64MB] [--type split-block|bloom] [--threads N]\n" +
  "       bloomkit dedup [input|-] [-o out] [--repeats file] --redis redis://host:port/db --name NAME [--n N --p P]";

/** Expected false positives while filling: ∫₀ⁿ rate(x) dx, by Simpson's rule. */
function expectedLoss(n: number, rate: (x: number) => number): number {
  if (n <= 0) return 0;
  const steps = 2000;
  const h = n / steps;
  let sum = 0;
  for (let i = 0; i <= steps; i++) {
    const weight = i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2;
    sum += weight * rate(i * h);
  }
  return (sum * h) / 3;
}

/** The growing filter for an input of unknown length; a --p its first layer cannot reach is refused in the options' words. */
function growingFilter(type: "split-block" | "bloom", p: number, pPhrase: string): GrowingFilter {
  return sizedByOptions(() => new GrowingFilter(type, p), { p: pPhrase, n: `a first layer of ${count(FIRST_LAYER_LINES, "line")} (the input's length unknown)` });
}

/** "There is 1 line", "There are 2 lines": the crawler program's summary, in good grammar. */
const thereAre = (n: number, noun: string) => `There ${n === 1 ? "is" : "are"} ${count(n, noun)}`;

export async function dedup(parsed: Parsed): Promise<void> {
  const { options, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`dedup takes one input, got ${positionals.length}`);
  const input = positionals[0] ?? "-";
  const p = options.has("p") ? parseProbability("p", String(options.get("p"))) : 0.001;
  const givenN = options.has("n") ? parseCount("n", String(options.get("n"))) : undefined;
  const memoryAsked = options.has("memory") ? parseMemory(String(options.get("memory"))) : undefined;
  if (givenN !== undefined && memoryAsked !== undefined) throw new UsageError("give --n and --p, or --memory, not both");
  const type = String(options.get("type") ?? "split-block");
  if (type !== "split-block" && type !== "bloom") throw new UsageError(`${typedName(parsed, "type")} must be split-block or bloom, got "${type}"`);
  // A split-block filter of --memory takes all of it and sets 8 bits a line: a --p would change nothing, so it is not taken silently.
  if (memoryAsked !== undefined && type === "split-block" && options.has("p")) {
    throw new UsageError("--p does not size a split-block filter given --memory, which takes all of that memory: give --n and --p instead, or add --type bloom (whose k --p caps)");
  }
  const target = redisTarget(options);
  if (target) {
    for (const name of ["memory", "type", "threads"]) {
      if (options.has(name)) throw new UsageError(`--${name} is for a filter in this process; the filter kept in Redis is a Bloom filter sized by --n and --p`);
    }
    if (options.has("p") && givenN === undefined) throw new UsageError("--p sizes a new Redis filter together with --n: give both, or neither to open an existing one");
  }
  const threads = parseThreads(options);
  const outputPath = options.get("output") as string | undefined;
  const repeatsPath = options.has("repeats") ? String(options.get("repeats")) : undefined;
  const outputs = repeatsPath === undefined ? [outputPath] : [outputPath, repeatsPath];
  checkOutputNames(parsed, repeatsPath === undefined ? ["output"] : ["output", "repeats"]);
  // How a refusal of the filter's size names p: the user typed it, or it is the default.
  const pPhrase = options.has("p") ? `--p ${options.get("p")}` : `p = ${p} (the default --p)`;
  // Wrong usage is reported first (exit 2), then what the machine or the files refuse (exit 1). A size no filter has
  // is wrong usage: with --n the filter is made now; else a --p no number of lines reaches is refused now.
  let filter: BloomFilter | SplitBlockBloomFilter | GrowingFilter | undefined;
  if (!target && givenN !== undefined) {
    filter = sizedByOptions(() => (type === "split-block" ? SplitBlockBloomFilter.create(givenN, p, { powerOfTwo: false }) : BloomFilter.create(givenN, p)), { p: pPhrase, n: `--n ${options.get("n")}` });
  } else if (!target && (memoryAsked === undefined || type === "bloom")) {
    if (type === "split-block") sizedByOptions(() => SplitBlockBloomFilter.sizeFor(1, p, { powerOfTwo: false }), { p: pPhrase, n: "a single line" });
    else refuseUnreachableRate(p, undefined, { p: pPhrase });
  }
  const memory = memoryAsked === undefined ? undefined : checkMemory(memoryAsked);
  // The input is opened and checked before any output is created, and no output may be the input.
  const source = await openInput(input);
  const size = source.size;
  // Standard input of unknown length (opening it cannot fail) gets a growing filter, made before anything is read.
  if (!target && filter === undefined && memory === undefined && size === undefined) filter = growingFilter(type, p, pPhrase);
  refuseOutputsThatAreInputs([source], outputs);
  // A filter kept in Redis is reached before any output is created: a wrong URL or name leaves no file behind.
  // Its create() sizes it as a BloomFilter, and refuses a size in the same words, which name the options here too.
  const shared: SharedFilter | undefined =
    target === undefined ? undefined
    : givenN === undefined ? await openShared(target, undefined, true)
    : await sizedByOptionsAsync(() => openShared(target, { n: givenN, p }, true), { n: `--n ${options.get("n")}`, p: pPhrase });
  const before = shared ? await inRedis(target!, () => shared.filter.size()) : 0;
  const out = new Output(outputPath);
  const repeats = repeatsPath === undefined ? undefined : new Output(repeatsPath);
  /** After each piece: what either output holds for a pipe (--repeats - is one too) is written before the next. */
  const drainOutputs = async () => {
    await out.drain();
    await repeats?.drain();
  };
  const progress = new Progress("dedup", size, options.has("quiet"));
  // A stream of unknown length (a pipe) is worth threads once THREADED_INPUT_BYTES of it have come: before, this thread does it.
  const threaded = !shared && worthThreads(threads, size);
  const streamed = size === undefined;
  let pool: LinePipeline | undefined;
  /** Lines this thread had done when the pipeline started (its own count goes on from them). */
  let linesBeforePool = 0;
  // With threads, a file is read straight into the buffers the workers get.
  const buffers = threaded ? new PieceBuffers() : undefined;

  let lines = 0;
  let kept = 0;
  let bytes = 0;
  /** Writes runs of unique and repeated lines of `piece` as byte ranges: line i ends at offset + ends[i]. */
  const writeRuns = (piece: Buffer) => (answers: Uint8Array, ends: Uint32Array, offset: number) => {
    let runStart = offset;
    const last = answers.length - 1;
    for (let i = 0; i <= last; i++) {
      const repeated = answers[i];
      kept += repeated ^ 1;
      if (i === last || answers[i + 1] !== repeated) {
        const end = offset + ends[i];
        if (repeated === 0) out.writeRange(piece, runStart, end);
        else repeats?.writeRange(piece, runStart, end);
        runStart = end;
      }
    }
    lines += answers.length;
  };
  /** Lines sent to the filter kept in Redis whose answers have not come back. */
  let inFlight = 0;
  /** Lines the filter kept in Redis answered (it holds them), and how many of them are written to an output written as it goes (standard output). */
  let answered = 0;
  let writtenOut = 0;
  /**
   * What the filter kept in Redis holds that the output lacks if the run stops now (undefined: nothing): the lines
   * it answered, unless they were written out already, and perhaps some of those in flight. Said as the run ends,
   * since a run again would take them all for repeats.
   */
  const heldByShared = (): string | undefined => {
    const atClose = out.writtenAtClose;
    const written = atClose ? 0 : writtenOut;
    const held = answered - written;
    if (!shared || held + inFlight === 0) return undefined;
    const holds: string[] = [];
    if (written > 0) holds.push(`holds the first ${count(written, "line")}, written out,`);
    if (held > 0) holds.push(`${written > 0 ? "the next" : "holds the first"} ${count(held, "line")}`);
    if (inFlight > 0) holds.push(`may hold some of the ${answered > 0 ? "next" : "first"} ${count(inFlight, "line")}`);
    // (Lines being written when the run stopped may be partly out.)
    const lacks = atClose ? "which the output, left as it was, lacks" : held > 0 ? `not all of which were${written > 0 ? "" : " written out"}` : written > 0 ? "which were not" : "which were not written out";
    return `the filter "${target!.name}" ${holds.join(" and ")}, ${lacks}: a run again would take ${atClose ? "them" : "those"} for repeats`;
  };
  // Stopped by a signal (Ctrl-C): said as the command ends. A failure says it in its own line (below).
  const stopNote = onCleanup(() => {
    const note = heldByShared();
    if (note !== undefined) process.stderr.write(`bloomkit: stopped: ${oneLine(note)}\n`);
  });
  try {
    try {
      for await (const piece of linePieces(source, buffers?.take)) {
        if (!filter && !shared) {
          const n = estimateLines(source, size, piece);
          // The filter's refusals of the size asked for, in the options' words.
          const phrases = { p: pPhrase, n: n === undefined ? undefined : `the ${count(n, "line")} estimated in ${input}` };
          if (memory !== undefined && type === "split-block") {
            filter = SplitBlockBloomFilter.withSize(Math.max(1, Math.min(2 ** 32 - 1, Math.floor(memory / 32))));
          } else if (memory !== undefined) {
            // More memory than n needs lowers the rate; more hashes than p needs would only cost time.
            const m = bloomBits(memory * 8);
            filter = sizedByOptions(() => BloomFilter.withSize(m, n ? Math.min(optimal({ n, m }).k, optimal({ n, p }).k) : hashesForRate(p)), phrases);
          } else if (n !== undefined) {
            // Not exchanged with Parquet: no need to round the size up to a power of two.
            filter = sizedByOptions(() => (type === "split-block" ? SplitBlockBloomFilter.create(n, p, { powerOfTwo: false }) : BloomFilter.create(n, p)), phrases);
          } else {
            filter = growingFilter(type, p, pPhrase); // a file whose size tells nothing (files of /proc report 0)
          }
        }
        if (threaded && (pool !== undefined || !streamed || bytes >= THREADED_INPUT_BYTES)) {
          // Worker threads hash and group the pieces; this thread tests them in input order and writes the groups.
          const tested = filter!;
          // Every layer of a growing filter hashes a line as its first does.
          const hashing = tested instanceof GrowingFilter ? tested.first : tested;
          // New lines go to the output, repeats (with --repeats) to the second; this thread writes them.
          if (pool === undefined) {
            pool = new LinePipeline({ filter: hashing, op: (hashes, into) => tested.testAndAddHashes(hashes, into), front: 0, writers: [out, ...(repeats ? [repeats] : [])] }, threads, progress, buffers);
            // Its progress goes on from what this thread has done.
            pool.bytes = bytes;
            pool.lines = linesBeforePool = lines;
          }
          await pool.push(piece);
          await drainOutputs();
          continue;
        }
        // Lines are split in wasm for every filter type (answers and line ends come as views); a filter kept in Redis answers a whole piece.
        if (shared) {
          const ends = lineEnds(piece);
          inFlight = ends.length;
          const answers = await inRedis(target!, () => shared.filter.testAndAddLines(piece));
          inFlight = 0;
          answered += answers.length;
          writeRuns(piece)(answers, ends, 0);
          if (!out.writtenAtClose) {
            // Written out before the next piece goes to Redis: left in a buffer, they were lost to a Ctrl-C or a
            // failure while the filter kept them, and the note said they were written out, or nothing.
            out.flushSync();
            await out.drain(0);
            writtenOut = answered;
          }
        }
        else if (repeats === undefined && !(filter instanceof GrowingFilter)) {
          // Only new lines are written: wasm gathers them, and they are written from its memory as they are.
          filter!.dedupLines(piece, (fresh, newCount, lineCount) => {
            out.writeThrough(fresh);
            kept += newCount;
            lines += lineCount;
          });
        } else filter!.testAndAddLinesEach(piece, writeRuns(piece)); // with --repeats, or a growing filter's layers
        bytes += piece.length;
        progress.update(bytes, lines);
        await drainOutputs();
      }
      if (pool) {
        await pool.finish();
        const poolLines = pool.lines - linesBeforePool;
        lines += poolLines;
        kept += poolLines - pool.ones;
      }
    } finally {
      await pool?.close();
    }
    closeInput(source);
    // Both outputs are on disk before either replaces its file: a failure leaves both as they were.
    await closeTogether([out, repeats]);
  } catch (error) {
    stopNote();
    const note = heldByShared();
    throw note === undefined ? error : new CliError(`${failureInWords(error)}; ${note}`);
  }
  stopNote();
  progress.done();

  const repeated = lines - kept;
  let loss = 0;
  let saturated = false;
  let described = "no input";
  if (shared) {
    const { bits, hashes, name } = shared.filter;
    // Every bit set when this run began (size() is Infinity): each line was taken for a repeat, and how many were not cannot be told.
    saturated = !Number.isFinite(before);
    // Other processes' lines fill the filter too: count from the keys it held when this run began.
    loss = saturated ? repeated : expectedLoss(before + kept, (x) => falsePositiveRateFor(x, bits, hashes)) - expectedLoss(before, (x) => falsePositiveRateFor(x, bits, hashes));
    const held = saturated ? "every bit set" : `holding about ${count(before, "line")}`;
    described = `the Bloom filter "${name}" in Redis, ${count(bits, "bit")} (${formatBytes(bits / 8)}), k = ${hashes}, ${held} when this run began`;
    await shared.close();
  } else if (lines === 0) {
    // No input: "no input", whether the filter was made before reading (--n, standard input of unknown length) or not.
  } else if (filter instanceof BloomFilter || filter instanceof SplitBlockBloomFilter) {
    // A line taken for a repeat sets no bit, so the filter ends as the distinct lines alone leave it:
    // its fill tells how many there were, and those not kept were lost. Every bit set tells nothing.
    const distinct = filter.estimatedCount();
    saturated = !Number.isFinite(distinct);
    const { bits } = filter;
    const rate = rateAfter(filter);
    // The n-th distinct line is lost with the rate of n − 1 random keys: Σ over the distinct lines, as an integral.
    loss = saturated ? repeated : expectedLoss(Math.max(distinct, kept), rate);
    described =
      filter instanceof BloomFilter
        ? `a Bloom filter of ${count(bits, "bit")} (${formatBytes(bits / 8)}), k = ${filter.hashes}`
        : `a split-block Bloom filter of ${count(bits, "bit")} (${formatBytes(bits / 8)})`;
  } else if (filter) {
    // Layers fill in turn, each from the distinct lines that the full layers before it let through. As for
    // one filter, a layer's fill counts the distinct lines that reached it (those it dropped set no bit),
    // not the lines it kept: counted from these, the loss came out 8-12% low at --p 0.3.
    /** The share of distinct lines that the full layers so far let through to the next. */
    let passing = 1;
    for (const layer of filter.layers) {
      const rate = rateAfter(layer.filter);
      const fill = layer.filter.estimatedCount();
      const reached = Number.isFinite(fill) ? Math.max(fill, layer.held) : layer.held;
      // Its own false positives while it filled, and the lines the full layers dropped meanwhile.
      loss += expectedLoss(reached, rate) + reached * (1 / passing - 1);
      passing *= 1 - rate(reached);
    }
    const kind = filter.type === "split-block" ? "split-block Bloom filter" : "Bloom filter";
    described = `a growing ${kind} of ${count(filter.layers.length, "layer")}, ${count(filter.bits, "bit")} (${formatBytes(filter.bits / 8)})`;
  }
  filter?.dispose();
  process.stderr.write(
    `${thereAre(lines, "line")}.\n` +
      `${thereAre(kept, "not repeated line")}.\n` +
      `${thereAre(repeated, "repeated line")}.\n` +
      (saturated
        ? `Expected distinct lines wrongly dropped as repeats (false positives): at most ${count(loss, "line")}: the filter is saturated, every bit set, so it cannot tell how many (${described}); ${shared ? "make a larger filter under another --name" : memory !== undefined ? "give it more --memory" : "give --n, the number of distinct lines it holds"}\n`
        : `Expected distinct lines wrongly dropped as repeats (false positives): ${loss.toFixed(1)} (${described})\n`),
  );
}
