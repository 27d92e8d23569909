// `bloomkit build | query | info | merge`: filter files in the library's binary format.
import { constants as bufferConstants } from "node:buffer";
import { createReadStream, fstatSync, statSync } from "node:fs";
import { isatty } from "node:tty";
import {
  BinaryFuseFilter,
  BloomFilter,
  CountingBloomFilter,
  CuckooFilter,
  FormatError,
  ScalableBloomFilter,
  SplitBlockBloomFilter,
  deserializeChunks,
  type AnyFilter,
  type Key,
} from "bloomkit";
import { CliError, UsageError, parseCount, parseProbability, sizedByOptions, typedName, type OptionSpec, type Parsed } from "./args.js";
import { AtomicFile, checkWritable, isNamedPipe } from "./atomic-output.js";
import { CuckooOverflow } from "./cuckoo-overflow.js";
import { refuseUnreachableRate, wellAbove } from "./sizing.js";
import { STDIO, checkOutputNames, closeInput, inputName, openInput, refuseOutputsThatAreInputs, type Input } from "./input.js";
import { Output, Progress, countLines, countNewlines, linePieces, printOut, splitLines } from "./io.js";
import { cannot } from "./os-errors.js";
import { count, fmt, formatBytes, oneLine, oneLineBytes } from "./words.js";
import { inRedis, openShared, redisOptions, redisTarget, type RedisTarget } from "./redis.js";
import { AnsweredLines, lineEnds } from "./answered-lines.js";
import { argumentBytes } from "./typed-arguments.js";
import { LinePipeline, PieceBuffers, THREADED_INPUT_BYTES, parseThreads, threadsOption, worthThreads } from "./line-pool.js";

export const FILTER_TYPES = ["bloom", "counting", "cuckoo", "scalable", "split-block", "fuse8", "fuse16"] as const;

export const buildOptions: OptionSpec[] = [
  { name: "output", short: "o", value: "FILE", help: "the filter file to write (required; - for standard output)" },
  { name: "type", short: "t", value: "TYPE", help: "bloom (default), counting, cuckoo, scalable, split-block, fuse8 or fuse16 (static: a binary fuse filter of exactly the input's keys)" },
  { name: "n", value: "N", help: "expected keys (default: the input's line count); for scalable, its first layer's keys (default: 100,000)" },
  { name: "p", value: "P", help: "false-positive rate (default 0.01)" },
  { name: "strategy", value: "S", help: "triple (default) or double, for --type bloom, counting and scalable: how a key's k bits follow from its hash; double gives files that merge with those built before bloomkit used triple hashing" },
  { ...threadsOption, help: "threads that hash and add lines, for --type bloom (default: the number of cores); the filter's bits are the same" },
  { name: "quiet", short: "q", flag: true, help: "no progress line" },
];
export const buildUsage = "bloomkit build input|- -o f.bloom [--type bloom|counting|cuckoo|scalable|split-block|fuse8|fuse16] [--n N] [--p P] [--strategy triple|double] [--threads N]";
/** The strategies --strategy takes: the ones of one key hash (the independent strategy's lists of hashes are the library's). */
const BUILD_STRATEGIES = ["triple", "double"] as const;
/** The types --strategy applies to: those indexed like a Bloom filter. */
const STRATEGY_TYPES: readonly string[] = ["bloom", "counting", "scalable"];
export const queryOptions: OptionSpec[] = [
  ...redisOptions,
  { ...threadsOption, help: "threads that hash the lines of standard input once 4 MiB of it have come, for split-block filters and standard ones with a 64-bit key hash, as bloomkit builds them (default: the number of cores); the output is the same" },
  { name: "quiet", short: "q", flag: true, help: "no progress line while standard input is read" },
];
export const queryUsage =
  'bloomkit query f.bloom key|- … [--threads N] [--quiet]  (- in its place: the lines of standard input; a key that starts with "-" goes after --)\n       bloomkit query --redis redis://host:port/db --name NAME key|- …';
/** Where a key that starts with "-" goes, said when one is refused as an unknown option (`query f.bloom -foo`). */
export const queryDashed = (arg: string) => `a key that starts with "-" goes after --: bloomkit query f.bloom -- ${arg}`;
export const infoOptions: OptionSpec[] = [];
export const infoUsage = "bloomkit info f.bloom";
export const mergeOptions: OptionSpec[] = [{ name: "output", short: "o", value: "FILE", help: "the merged filter file (required; - for standard output)" }];
export const mergeUsage = "bloomkit merge a.bloom b.bloom -o c.bloom";

/** Pieces a filter file is read in: large enough to stream gigabytes quickly, small enough to hold. */
const READ_PIECE_BYTES = 8 << 20;

/**
 * Reads a filter file piece by piece straight into the filter's memory, so a
 * filter larger than one Uint8Array (6 GiB, say) loads too. Reading stops at
 * the size the file's header declares: a longer file, or an endless one such
 * as /dev/zero, is an error, not a read that never ends. A regular file's
 * size is passed on, so a header that declares more than the file holds (a
 * damaged 65-byte file declaring 4 GiB) is truncated before anything is
 * allocated. A file that is not a filter is a one-line error naming it.
 */
async function load(path: string): Promise<AnyFilter> {
  const input = await openInput(path);
  const name = nameOf(path, "standard input");
  // A file's stream closes the file once no read is running on it; standard input stays open.
  const stream = input.fd === 0 ? process.stdin : createReadStream("", { fd: input.fd, highWaterMark: READ_PIECE_BYTES });
  try {
    return await deserializeChunks(stream, { size: input.size });
  } catch (error) {
    // A file without the magic number is not a filter at all (the library's message says so once); one
    // with it is a filter that is damaged (truncated, corrupted) or of a format this bloomkit does not read.
    if (error instanceof FormatError) {
      const notOurs = /^not a bloomkit filter: /;
      if (notOurs.test(error.message)) throw new CliError(`${name} is not a bloomkit filter: ${error.message.replace(notOurs, "")}`);
      if (/^truncated: the stream ended after 0 bytes/.test(error.message)) throw new CliError(`${name} is empty: not a bloomkit filter`);
      throw new CliError(`${name} cannot be read as a bloomkit filter: ${error.message}`);
    }
    if (error instanceof RangeError) throw new CliError(`cannot load ${name}: ${error.message}`);
    if ((error as NodeJS.ErrnoException)?.code !== undefined) throw cannot("read", name, error);
    throw error;
  } finally {
    if (stream !== process.stdin) stream.destroy();
  }
}

/** How a file is named in messages: as the user gave it, escaped to one line (a name may hold a newline or a terminal control), or "standard input" or "standard output" for -. */
const nameOf = (path: string, stdio: string) => (path === STDIO ? stdio : oneLine(path));

/** Writes a filter file in pieces (no copy of a large filter in JS), to a temporary file renamed into place, or to standard output for -. */
async function save(path: string, filter: AnyFilter): Promise<void> {
  if (path === STDIO || isNamedPipe(path)) {
    // Where standard output goes, the shell has made or emptied it, and a named pipe is read as written: there is nothing to put in place.
    const out = new Output(path);
    for (const piece of filter.serializeChunks()) {
      out.writeThrough(piece);
      await out.drain();
    }
    await out.close();
    return;
  }
  const file = new AtomicFile(path);
  for (const piece of filter.serializeChunks()) file.write(piece);
  file.commit();
}

/** Fails now, in words, if a filter file could not be written at the end of a long read (standard output always can). */
function checkOutput(path: string): void {
  if (path !== STDIO) checkWritable(path);
}

export async function build(parsed: Parsed): Promise<void> {
  const { options, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`build takes one input, got ${positionals.length}`);
  const input = positionals[0];
  const output = options.get("output");
  if (typeof output !== "string") throw new UsageError("build needs -o FILE");
  checkOutputNames(parsed, ["output"]);
  const type = String(options.get("type") ?? "bloom");
  if (!(FILTER_TYPES as readonly string[]).includes(type)) throw new UsageError(`${typedName(parsed, "type")} must be one of ${FILTER_TYPES.join(", ")}, got "${type}"`);
  // Every option is checked before the input is read: a malformed --threads is a usage error, not one found after the count.
  const threads = parseThreads(options);
  const strategy = parseStrategy(parsed, type);
  if (type === "fuse8" || type === "fuse16") return buildFuse(input, output, type, options);
  const p = options.has("p") ? parseProbability("p", String(options.get("p"))) : 0.01;
  const givenN = options.has("n") ? parseCount("n", String(options.get("n"))) : undefined;
  const pPhrase = options.has("p") ? `--p ${options.get("p")}` : "p = 0.01 (the default --p)";
  /** The filter for n lines (a scalable filter's first layer), its refusals of the size in the words of `nPhrase`. */
  const make = (n: number, nPhrase: string, shared: boolean) =>
    sizedByOptions(
      () =>
        type === "bloom" ? BloomFilter.create(n, p, { shared, strategy })
        : type === "counting" ? CountingBloomFilter.create(n, p, { strategy })
        : type === "cuckoo" ? CuckooFilter.create(n, p)
        : type === "split-block" ? SplitBlockBloomFilter.create(n, p, { powerOfTwo: false }) // sized to meet --p; Parquet's power-of-two rounding is for its writers
        : ScalableBloomFilter.create(n, p, { strategy }),
      { p: pPhrase, n: nPhrase },
    );
  // A size no filter has is wrong usage, refused before the input is opened: with --n (or a scalable filter's first
  // layer) the filter is made now; with the lines still to count, a --p no number of lines reaches is refused (for a
  // split-block or cuckoo filter, which only grow with n: not even one).
  // A Bloom filter is shared when threads may add to it (an input of less than THREADED_INPUT_BYTES is then done here,
  // in a shared filter: a few milliseconds more). A split-block filter stays in this thread: measured on 10^7 URL lines,
  // 0.84–0.89 s in one thread, 0.84–1.08 s with two (hashing in the workers and adding here, or adding to a shared
  // filter, where new keys cost about 4× in atomic ORs).
  const nPhrase = givenN !== undefined ? `--n ${options.get("n")}` : "a first layer of 100,000 keys (the default --n)";
  let filter: ReturnType<typeof make> | undefined = givenN !== undefined || type === "scalable" ? make(givenN ?? 100_000, nPhrase, type === "bloom" && threads > 1) : undefined;
  if (filter === undefined && (type === "bloom" || type === "counting")) refuseUnreachableRate(p, undefined, { p: pPhrase });
  else if (filter === undefined) sizedByOptions(() => (type === "cuckoo" ? CuckooFilter.sizeFor(1, p) : SplitBlockBloomFilter.sizeFor(1, p, { powerOfTwo: false })), { p: pPhrase, n: "a single line" });
  // The input is opened and checked first, and the filter file may not be the input.
  const source = await openInput(input);
  // Counting the lines reads the input once more: a pipe or device read to its end has nothing left for the build.
  // Standard input redirected from a file (its size known) is counted by position, as a file is.
  if (filter === undefined && source.size === undefined) {
    closeInput(source);
    if (input === STDIO) throw new UsageError("reading standard input from a pipe or a device, build needs --n (or --type scalable): its lines cannot be counted first without reading it to its end");
    throw new UsageError(`reading ${input}, which is not a regular file, build needs --n (or --type scalable)`);
  }
  refuseOutputsThatAreInputs([source], [output]);
  checkOutput(output); // the filter file is written at the end: a folder it cannot go to should not cost the whole read
  let n = givenN;
  let sizedFor = nPhrase;
  if (filter === undefined) {
    n = Math.max(1, await countLines(source));
    sizedFor = `the ${count(n, "line")} of ${inputName(source)}`;
    filter = make(n, sizedFor, type === "bloom" && worthThreads(threads, source.size));
  }
  // Worker threads hash the lines of a Bloom filter and add them themselves (k cache misses a line, which threads overlap).
  const threaded = filter instanceof BloomFilter && filter.shared && worthThreads(threads, source.size);
  const progress = new Progress("build", source.size, options.has("quiet"));
  const overflow = filter instanceof CuckooFilter ? new CuckooOverflow(filter) : undefined;
  let lines = 0;
  let bytes = 0;
  let pool: LinePipeline | undefined;
  // With threads, a file is read straight into the buffers the workers get.
  const buffers = threaded ? new PieceBuffers() : undefined;
  try {
    for await (const piece of linePieces(source, buffers?.take)) {
      if (threaded) {
        pool ??= new LinePipeline({ filter: filter as BloomFilter, op: "add", threadsAsked: options.has("threads") }, threads, progress, buffers);
        await pool.push(piece);
        continue;
      }
      if (overflow) {
        // A cuckoo filter can be full: it stores what fits, and the keys that did not fit explain why.
        const { keys } = splitLines(piece);
        overflow.note(keys, (filter as CuckooFilter).tryAddMany(keys));
        lines += keys.length;
      } else lines += filter.testAndAddLines(piece).length; // every other type: lines split in wasm

      bytes += piece.length;
      progress.update(bytes, lines);
    }
    if (pool) {
      await pool.finish();
      lines += pool.lines;
    }
  } finally {
    await pool?.close();
  }
  progress.done();
  closeInput(source);
  const failed = overflow?.error(lines, givenN === undefined ? sizedFor : undefined);
  if (failed) throw failed;
  await save(output, filter);
  process.stderr.write(`${nameOf(output, "standard output")}: ${describeFilter(filter).split("\n")[0]}, ${count(lines, "line")} read\n`);
  if (type !== "scalable") warnIfOverfilled(output, filter, lines, n!, p, sizedFor);
  filter.dispose();
}

/** --strategy, checked against the type before anything is read: undefined for the library's default. */
function parseStrategy(parsed: Parsed, type: string): (typeof BUILD_STRATEGIES)[number] | undefined {
  if (!parsed.options.has("strategy")) return undefined;
  const given = String(parsed.options.get("strategy"));
  if (!STRATEGY_TYPES.includes(type)) throw new UsageError(`${typedName(parsed, "strategy")} does not apply to --type ${type}: it applies to ${STRATEGY_TYPES.join(", ")}`);
  const strategy = BUILD_STRATEGIES.find((s) => s === given);
  if (strategy === undefined) throw new UsageError(`${typedName(parsed, "strategy")} must be ${BUILD_STRATEGIES.join(" or ")}, got "${given}"`);
  return strategy;
}

/**
 * Warns when a filter was given more lines than it was sized for and so
 * answers "probably present" far more often than p (a --n of 10 for 10,000
 * lines gives a filter whose every bit is set): the file is written as asked,
 * but a user should know. Twice p (wellAbove) leaves room for a filter only a little full.
 */
function warnIfOverfilled(output: string, filter: AnyFilter, lines: number, n: number, p: number, sizedFor: string): void {
  if (!(filter instanceof BloomFilter || filter instanceof SplitBlockBloomFilter || filter instanceof CountingBloomFilter)) return;
  const rate = filter.falsePositiveRate();
  if (lines <= n || !wellAbove(rate, p)) return;
  process.stderr.write(
    `bloomkit: warning: ${nameOf(output, "standard output")} is sized for ${sizedFor} and was given ${count(lines, "line")}: ` +
      `it answers "probably present" for about ${pct(rate)} of the keys it does not hold, not p = ${pct(p)}; build it with --n ${fmt(lines)} (or the number of distinct lines)\n`,
  );
}

/** A binary fuse filter holds exactly the input's distinct keys: it reads them all, then builds once. */
async function buildFuse(input: string, output: string, type: "fuse8" | "fuse16", options: Parsed["options"]): Promise<void> {
  const bits = type === "fuse8" ? 8 : 16;
  for (const name of ["n", "p"]) {
    if (options.has(name)) throw new UsageError(`--${name} does not apply to --type ${type}: it holds exactly the input's keys, at a false-positive rate of 2^-${bits}`);
  }
  const source = await openInput(input);
  refuseOutputsThatAreInputs([source], [output]);
  checkOutput(output);
  if (source.size !== undefined) checkFuseInput(source, source.size, true);
  const progress = new Progress("build", source.size, options.has("quiet"));
  const pieces: Buffer[] = [];
  let bytes = 0;
  let lines = 0;
  for await (const piece of linePieces(source)) {
    pieces.push(Buffer.from(piece)); // linePieces reuses its buffer
    bytes += piece.length;
    checkFuseInput(source, bytes, false); // a pipe's size is learnt as it comes: refused once past, not once read whole
    lines += countNewlines(piece);
    progress.update(bytes, lines);
  }
  progress.done();
  closeInput(source);
  const text = Buffer.concat(pieces);
  // The pieces are garbage once joined: a fuse8 build of 4 million crawl-log lines (198 MB) peaked at 535 MB while they stayed, 447 MB without.
  pieces.length = 0;
  if (text.length > 0 && text[text.length - 1] !== 10) lines++;
  const filter = BinaryFuseFilter.buildLines(text, { fingerprintBits: bits });
  await save(output, filter);
  process.stderr.write(`${nameOf(output, "standard output")}: ${describeFilter(filter).split("\n")[0]}, ${count(lines, "line")} read\n`);
  filter.dispose();
}

/**
 * A fuse build joins its whole input into one buffer for BinaryFuseFilter.buildLines;
 * Node 20 holds at most 4 GiB in one, and refused more in its own words.
 * `whole`: `bytes` is the input's size, not what has come of it so far.
 */
function checkFuseInput(source: Input, bytes: number, whole: boolean): void {
  if (bytes > bufferConstants.MAX_LENGTH) {
    throw new CliError(
      `${inputName(source)} ${whole ? "is" : "has more than"} ${formatBytes(whole ? bytes : bufferConstants.MAX_LENGTH)}; a fuse build holds its whole input in one buffer, and this Node (${process.version}) holds at most ${formatBytes(bufferConstants.MAX_LENGTH)} in one (Node 22 and later hold more)`,
    );
  }
}

export async function query({ options, positionals }: Parsed): Promise<void> {
  const target = redisTarget(options);
  if (target && options.has("threads")) throw new UsageError("--threads is for a filter file; query --redis runs in one thread");
  if (target) return queryShared(target, positionals);
  if (positionals.length < 1) throw new UsageError("query needs a filter file");
  const threads = parseThreads(options);
  const [file, ...keys] = positionals;
  if (file === STDIO && keys.includes(STDIO)) throw new UsageError("the filter and the keys cannot both come from standard input");
  checkKeys(keys);
  refuseOutputOnInputs(keys.includes(STDIO) ? [file, STDIO] : [file], undefined);
  const filter = await load(file);
  const out = new Output(undefined);
  await inOrder(
    asTyped(keys),
    (some) => writeAnswers(out, some, filter.hasMany(some)),
    () => queryLines(filter, threads, out, options.has("quiet")),
  );
  await out.close();
  filter.dispose();
}

/** The keys' usage errors: none at all, or - given twice (standard input is read once). */
function checkKeys(keys: readonly string[]): void {
  if (keys.length === 0) throw new UsageError("query needs keys, or - to read them from standard input");
  if (keys.indexOf(STDIO) !== keys.lastIndexOf(STDIO)) throw new UsageError("- is given twice: standard input is read once");
}

/**
 * Answers the keys in the order given: those before a -, then the lines of
 * standard input in its place, then those after (`query f.bloom key -`).
 */
async function inOrder(keys: readonly Key[], answerKeys: (keys: Key[]) => unknown, answerLines: () => Promise<void>): Promise<void> {
  const at = keys.indexOf(STDIO);
  if (at < 0) {
    await answerKeys([...keys]);
    return;
  }
  if (at > 0) await answerKeys(keys.slice(0, at));
  await answerLines();
  if (at + 1 < keys.length) await answerKeys(keys.slice(at + 1));
}

/**
 * The answers to keys given as arguments, each on a line of its own: an
 * argument can hold a newline, which would start a line that reads as
 * another key's answer, or an escape that rewrites the terminal, so the key
 * is printed as messages print names (oneLine). A line of standard input
 * holds no newline and is printed as read.
 */
function writeAnswers(out: Output, keys: readonly Key[], answers: ArrayLike<number>): void {
  keys.forEach((key, i) => {
    out.write(typeof key === "string" ? oneLine(key) : oneLineBytes(key));
    out.write(`\t${answer(answers[i])}\n`);
  });
}

/**
 * The keys given as arguments, each as the bytes it was typed in. Node reads
 * the command line as UTF-8: a key in another encoding (Latin-1 "caf\xe9")
 * became "caf\uFFFD", answered "definitely absent" though the filter held
 * it. Linux keeps the bytes in /proc/self/cmdline; elsewhere, or when they
 * cannot be matched to the arguments, the keys stay as Node read them.
 */
function asTyped(keys: readonly string[]): Key[] {
  const raw = argumentBytes();
  return keys.map((key) => raw.get(key)?.shift() ?? key);
}

/** The lines of standard input with their answers, in worker threads once enough of it has come. */
async function queryLines(filter: AnyFilter, threads: number, out: Output, quiet: boolean): Promise<void> {
  // Standard input is a stream of unknown length: threads start once enough of it has come.
  const hashed = threads > 1 ? hashedApart(filter) : undefined;
  // Standard input redirected from a file (`- < keys.txt`) has a size: the progress line shows how far through it is.
  const input = await openInput(STDIO);
  // Answers go to standard output: when that is the terminal too, a progress line would overwrite them.
  const progress = new Progress("query", input.size, quiet || isatty(1));
  const answered = new AnsweredLines(ANSWER_SUFFIXES);
  let pool: LinePipeline | undefined;
  let bytes = 0;
  let lines = 0;
  try {
    for await (const piece of linePieces(input)) {
      if (pool) {
        await pool.push(piece);
        continue;
      }
      // The lines are asked in one call, split in wasm, and written with their answers as bytes: no string per line.
      const answers = filter.hasLines(piece);
      out.write(answered.of(piece, answers, lineEnds(piece)).text);
      bytes += piece.length;
      lines += answers.length;
      progress.update(bytes, lines);
      if (hashed && worthThreads(threads, undefined) && bytes >= THREADED_INPUT_BYTES) {
        // Workers hash the lines and write them with their answers; this thread queries the hashes in input order.
        pool = new LinePipeline({ filter: hashed, op: (hashes, into) => hashed.hasHashes(hashes, into), outputs: [await out.handOver()], annotate: ANSWER_SUFFIXES }, threads, progress);
        // Its progress goes on from what this thread has done.
        pool.bytes = bytes;
        pool.lines = lines;
      }
      await out.drain();
    }
    // The workers have written every line once this ends: keys after - are written after them.
    await pool?.finish();
  } finally {
    await pool?.close();
  }
  progress.done();
}

const answer = (present: number) => (present ? "probably present" : "definitely absent");
/** What follows a key in query's output, by its answer (0, 1). */
const ANSWER_SUFFIXES = [`\t${answer(0)}\n`, `\t${answer(1)}\n`] as const;

/** The filter when worker threads can hash its keys apart from it (a standard filter with a 64-bit key hash, or a split-block one), else undefined. */
function hashedApart(filter: AnyFilter): BloomFilter | SplitBlockBloomFilter | undefined {
  if (filter instanceof SplitBlockBloomFilter) return filter;
  if (!(filter instanceof BloomFilter)) return undefined;
  try {
    filter.hashLines(new Uint8Array(0));
    return filter;
  } catch {
    return undefined; // the independent strategy, or a 128-bit hash
  }
}

/** query --redis: the same output, from a filter kept in Redis. */
async function queryShared(target: RedisTarget, keys: string[]): Promise<void> {
  checkKeys(keys);
  const { filter, close } = await openShared(target);
  const out = new Output(undefined);
  await inOrder(
    asTyped(keys),
    async (some) => writeAnswers(out, some, await inRedis(target, () => filter.hasMany(some))),
    async () => {
      for await (const piece of linePieces(STDIO)) {
        const split = splitLines(piece);
        const answers = await inRedis(target, () => filter.hasMany(split.keys));
        split.keys.forEach((key, i) => {
          out.write(key);
          out.write(`\t${answer(answers[i])}\n`);
        });
        await out.drain();
      }
    },
  );
  await out.close();
  await close();
}

const pct = (x: number) => `${(x * 100).toPrecision(3)}%`;

/**
 * What `info` says of each type, after its name: one table, keyed by the
 * type's name, rather than a chain of instanceof tests. Every type answers
 * the Filter interface's `size` and `bits`; these add what is particular to it.
 */
const DESCRIPTIONS: Record<string, (filter: never) => string[]> = {
  BloomFilter: (filter: BloomFilter) => [
    `n ${count(filter.size, "key")} added (that set a new bit; after a merge, union or intersection, or in a copy of a filter kept in Redis, an estimate from the fill)`,
    `m ${count(filter.bits, "bit")} (${count(Math.ceil(filter.bits / 8), "byte")})${filter.segmentCount > 1 ? ` in ${count(filter.segmentCount, "segment")}` : ""}${foldedFrom(filter)}`,
    `k ${filter.hashes} (${filter.strategy} hashing, ${[filter.hash].flat().join(", ")}, seed ${filter.seed})`,
    `fill ${filter.fillRatio.toFixed(4)}`,
    `estimated count ${fmt(filter.estimatedCount())}`,
    `current FPR ${pct(filter.falsePositiveRate())}`,
  ],
  CountingBloomFilter: (filter: CountingBloomFilter) => [
    // size counts every add less removes, repeats included: a file of lines each written twice said "20,000 keys held" of 10,000.
    `n ${count(filter.size, "add")} held (less removes; a key added twice counts twice)`,
    `estimated count ${fmt(filter.estimatedCount())} (distinct keys, from the fill)`,
    `m ${count(filter.counters, "counter")} of ${count(filter.counterBits, "bit")}`,
    `k ${filter.hashes} (${filter.strategy} hashing, ${[filter.hash].flat().join(", ")}, seed ${filter.seed})`,
    `fill ${filter.fillRatio.toFixed(4)}`,
    `saturated counters ${fmt(filter.saturatedCounters)}`,
    `current FPR ${pct(filter.falsePositiveRate())}`,
  ],
  SplitBlockBloomFilter: (filter: SplitBlockBloomFilter) => [
    `n ${count(filter.size, "key")} added (that set a new bit; for a filter made from a Parquet bitset, an estimate from the fill)`,
    `m ${count(filter.bits, "bit")} in ${count(filter.blocks, "block")} of 256 (Parquet layout, xxh64 seed 0)`,
    `k 8 (one bit in each word of one block)`,
    `fill ${filter.fillRatio.toFixed(4)}`,
    `estimated count ${fmt(filter.estimatedCount())}`,
    `current FPR ${pct(filter.falsePositiveRate())}`,
  ],
  CuckooFilter: (filter: CuckooFilter) => [
    `n ${count(filter.size, "fingerprint")} stored`,
    `m ${count(filter.capacity, "slot")} (${count(filter.buckets, "bucket")} of ${filter.bucketSize}), ${filter.fingerprintBits}-bit fingerprints`,
    `hash ${filter.hash}, seed ${filter.seed}`,
    `load ${filter.loadFactor.toFixed(4)}`,
    `current FPR ${pct(filter.falsePositiveRate())}`,
  ],
  BinaryFuseFilter: (filter: BinaryFuseFilter) =>
    filter.size === 0
      ? [
          "n 0 distinct keys (static: built once, cannot be added to)",
          // The smallest layout's fingerprints are in the file all the same (filter.bits counts them), all 0.
          `m ${count(filter.bits, "bit")}, ${filter.fingerprintBits}-bit fingerprints, all 0`,
          "FPR 0 (empty: every key is absent)",
        ]
      : [
          `n ${count(filter.size, "distinct key")} (static: built once, cannot be added to)`,
          `m ${filter.bitsPerItem.toFixed(2)} bits per key, ${filter.fingerprintBits}-bit fingerprints`,
          `FPR ${pct(filter.falsePositiveRate())} (2^-${filter.fingerprintBits})`,
        ],
  ScalableBloomFilter: (filter: ScalableBloomFilter) => [
    // A key an older layer takes for present is not added: n is less than the distinct keys given, as a Bloom filter's is.
    `n ${count(filter.size, "key")} added (not already probably present)`,
    `m ${count(filter.bits, "bit")} in ${count(filter.layers, "layer")}`,
    `capacity ${count(filter.capacity, "key")} before the next layer`,
    // Every layer hashes as the first: a file written before triple hashing keeps double hashing in each.
    `every layer: ${filter.strategy} hashing, ${[filter.hash].flat().join(", ")}, seed ${filter.seed}`,
    `current FPR ${pct(filter.falsePositiveRate())} (target ${pct(filter.targetFalsePositiveRate)})`,
  ],
};

/**
 * A Bloom filter's m before any fold (its m when never folded), which the
 * file records. The library keeps it off its public types; the CLI is shipped
 * with the library, so it reads it.
 */
const baseBits = (filter: BloomFilter) => (filter as BloomFilter & { readonly baseBits: number }).baseBits;

/** ", folded by 2 from 9,728 bits" for a folded filter (fold() in the library), else nothing. */
function foldedFrom(filter: BloomFilter): string {
  const base = baseBits(filter);
  return base === filter.bits ? "" : `, folded by ${fmt(base / filter.bits)} from ${count(base, "bit")}`;
}

/** How a merge's refusal names a file's folding: "a.bloom is folded by 2 from 9,728 bits", "b.bloom is not folded". */
const folding = (filter: BloomFilter, name: string) => `${name} is ${foldedFrom(filter).slice(2) || "not folded"}`;

/** Whether `bloomkit build` makes a filter that hashes as this one does: triple or double hashing with xxh3, seed 0. */
const hashesAsBuilt = (filter: BloomFilter) => filter.strategy !== "independent" && [filter.hash].flat().join() === "xxh3" && filter.seed === 0;

/** Whether two filters hash keys differently (strategy, hash or seed). */
const hashingDiffers = (a: BloomFilter, b: BloomFilter) => a.strategy !== b.strategy || [a.hash].flat().join() !== [b.hash].flat().join() || a.seed !== b.seed;

/** "old.bloom (double hashing, xxh64, seed 0)": a file and how it hashes, as info says it. */
const hashingOf = (filter: BloomFilter, name: string) => `${name} (${filter.strategy} hashing, ${[filter.hash].flat().join(", ")}, seed ${filter.seed})`;

/** The --type word each filter class is built with, so messages name types as the user does ("split-block", not SplitBlockBloomFilter). */
const TYPE_WORDS: Record<string, (filter: never) => string> = {
  BloomFilter: () => "bloom",
  CountingBloomFilter: () => "counting",
  CuckooFilter: () => "cuckoo",
  ScalableBloomFilter: () => "scalable",
  SplitBlockBloomFilter: () => "split-block",
  BinaryFuseFilter: (filter: BinaryFuseFilter) => `fuse${filter.fingerprintBits}`,
};

/** The --type word of a filter read from a file (its class name for a type build does not make). */
function typeWord(filter: AnyFilter): string {
  const word = TYPE_WORDS[filter.constructor.name] as ((filter: AnyFilter) => string) | undefined;
  return word ? word(filter) : filter.constructor.name;
}

/** The info lines for any filter type. */
function describeFilter(filter: AnyFilter): string {
  const name = filter.constructor.name;
  const particular = DESCRIPTIONS[name] as ((filter: AnyFilter) => string[]) | undefined;
  return [`type ${name}`, ...(particular ? particular(filter) : [`n ${fmt(filter.size)} keys`, `m ${count(filter.bits, "bit")}`])].join("\n");
}

/**
 * Refuses an output that is one of the input filter files (`query f.bloom 5
 * >> f.bloom`, `merge a b -o a`), which writing would damage. The inputs are
 * only looked at, not opened: opening a FIFO here would take its writer from load().
 */
function refuseOutputOnInputs(paths: readonly string[], output: string | undefined): void {
  const inputs: Input[] = [];
  for (const path of paths) {
    let identity;
    try {
      identity = path === STDIO ? fstatSync(0, { bigint: true }) : statSync(path, { bigint: true });
    } catch {
      continue; // load() says why it cannot be read
    }
    inputs.push({ path, fd: -1, size: undefined, regular: identity.isFile(), identity });
  }
  // The filters are loaded whole before anything is written: a named pipe may be read, then written.
  refuseOutputsThatAreInputs(inputs, [output], false);
}

export async function info({ positionals }: Parsed): Promise<void> {
  if (positionals.length !== 1) throw new UsageError(`info takes one filter file, got ${positionals.length}`);
  refuseOutputOnInputs(positionals, undefined);
  const filter = await load(positionals[0]);
  printOut(describeFilter(filter) + "\n");
  filter.dispose();
}

export async function merge(parsed: Parsed): Promise<void> {
  const { options, positionals } = parsed;
  if (positionals.length !== 2) throw new UsageError(`merge takes two filter files, got ${positionals.length}`);
  const output = options.get("output");
  if (typeof output !== "string") throw new UsageError("merge needs -o FILE");
  checkOutputNames(parsed, ["output"]);
  if (positionals.every((path) => path === STDIO)) throw new UsageError("only one of the two filters can come from standard input");
  // Write the union to a new file: neither filter file is replaced by it.
  refuseOutputOnInputs(positionals, output);
  checkOutput(output); // before the loads, which may read gigabytes or wait for a named pipe's writer
  const a = await load(positionals[0]);
  const b = await load(positionals[1]);
  if (!(a instanceof BloomFilter) || !(b instanceof BloomFilter)) {
    const [nameA, nameB] = positionals.map((path) => nameOf(path, "standard input"));
    throw new CliError(`merge takes two filter files of --type bloom; got ${typeWord(a)} (${nameA}) and ${typeWord(b)} (${nameB})`);
  }
  let merged: BloomFilter;
  try {
    merged = a.union(b);
  } catch (error) {
    const [nameA, nameB] = positionals.map((path) => nameOf(path, "standard input"));
    // Files built before triple hashing use double hashing: say how to build one that merges with them. Built again
    // with --strategy double, a file hashes with xxh3 and seed 0: that merges only with a double file that does too
    // (one built before xxh3 became the default hashes with xxh64, and was refused again, for the hash).
    const strategy = a.strategy !== b.strategy && a.strategy !== "independent" && b.strategy !== "independent" && hashesAsBuilt(a.strategy === "double" ? a : b);
    const again = a.strategy === "triple" ? "first" : "second";
    // Hashing that no build gives (another hash or seed, independent hashing): only the library makes a filter that merges with it.
    const foreign = !strategy && hashingDiffers(a, b) ? [a, b].findIndex((filter) => !hashesAsBuilt(filter)) : -1;
    const sizes = a.bits !== b.bits || a.hashes !== b.hashes;
    // A folded file (fold() in the library) merges only with one folded alike: building again with --n and --p cannot give that.
    const folded = baseBits(a) !== a.bits || baseBits(b) !== b.bits;
    // Two files built without --n are each sized for their own line count, so their m (or k) differ. When the
    // strategy differs too, both are said: a file built again with --strategy double alone was refused again, for m.
    const hint =
      folded && (a.bits !== b.bits || baseBits(a) !== baseBits(b)) ? `; ${folding(a, nameA)}, ${folding(b, nameB)}: a folded filter merges only with one folded from the same m to the same m: merge the filters before folding them`
      : foreign >= 0 ? `; bloomkit build hashes with xxh3 and seed 0 only: a filter that merges with ${hashingOf([a, b][foreign], [nameA, nameB][foreign])} is made with the library's BloomFilter.create, with that hashing${sizes ? " and the same n and p" : ""}`
      : sizes ? `; build both with the same --n and --p (without --n, build sizes each for its own line count)${strategy ? `, and the ${again} with --strategy double` : ""}`
      : strategy ? ` (build the ${again} again with --strategy double)`
      : "";
    // The library names the two filters "this filter" and "other" (union()'s argument); here they are the files.
    const why = (error as Error).message.replace(
      /^cannot union filters with (different .*): this filter's is (.*), other's is (.*)$/s,
      (_, what: string, mine: string, theirs: string) => `${what}: ${nameA}'s is ${mine}, ${nameB}'s is ${theirs}`,
    );
    throw new CliError(`cannot merge ${nameA} and ${nameB}: ${why}${hint}`);
  }
  await save(output, merged);
  process.stderr.write(`${nameOf(output, "standard output")}: ${describeFilter(merged).split("\n").slice(0, 2).join(", ")}\n`);
}
