// `bloomkit build | query | info | merge`: filter files in the library's binary format.
import { readFileSync, writeFileSync } from "node:fs";
import {
  BinaryFuseFilter,
  BloomFilter,
  CountingBloomFilter,
  CuckooFilter,
  FormatError,
  ScalableBloomFilter,
  SplitBlockBloomFilter,
  deserialize,
  type AnyFilter,
} from "bloomkit";
import { CliError, UsageError, parseCount, parseProbability, type OptionSpec, type Parsed } from "./args.js";
import { Output, Progress, countNewlines, fmt, inputSize, linePieces, splitLines } from "./io.js";

export const FILTER_TYPES = ["bloom", "counting", "cuckoo", "scalable", "split-block", "fuse8", "fuse16"] as const;

export const buildOptions: OptionSpec[] = [
  { name: "output", short: "o", value: "FILE", help: "the filter file to write (required)" },
  { name: "type", short: "t", value: "TYPE", help: "bloom (default), counting, cuckoo, scalable, split-block, fuse8 or fuse16 (static: a binary fuse filter of exactly the input's keys)" },
  { name: "n", value: "N", help: "expected keys (default: the input's line count; scalable: its initial capacity)" },
  { name: "p", value: "P", help: "false-positive rate (default 0.01)" },
  { name: "quiet", short: "q", flag: true, help: "no progress line" },
];
export const buildUsage = "bloomkit build input|- -o f.bloom [--type bloom|counting|cuckoo|scalable|split-block|fuse8|fuse16] [--n N] [--p P]";
export const queryOptions: OptionSpec[] = [];
export const queryUsage = "bloomkit query f.bloom [key …|-]";
export const infoOptions: OptionSpec[] = [];
export const infoUsage = "bloomkit info f.bloom";
export const mergeOptions: OptionSpec[] = [{ name: "output", short: "o", value: "FILE", help: "the merged filter file (required)" }];
export const mergeUsage = "bloomkit merge a.bloom b.bloom -o c.bloom";

/** Reads a filter file; a file that is not one is a one-line error naming it. */
function load(path: string): AnyFilter {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return deserialize(bytes);
  } catch (error) {
    if (error instanceof FormatError) throw new CliError(`${path} is not a bloomkit filter: ${error.message}`);
    throw error;
  }
}

function save(path: string, bytes: Uint8Array): void {
  try {
    writeFileSync(path, bytes);
  } catch (error) {
    throw new CliError(`cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Counts the lines of a file (for sizing), without decoding them. */
async function countLines(path: string): Promise<number> {
  let lines = 0;
  for await (const piece of linePieces(path)) {
    lines += countNewlines(piece);
    if (piece.length > 0 && piece[piece.length - 1] !== 10) lines++;
  }
  return lines;
}

export async function build({ options, positionals }: Parsed): Promise<void> {
  if (positionals.length !== 1) throw new UsageError(`build takes one input, got ${positionals.length}`);
  const input = positionals[0];
  const output = options.get("output");
  if (typeof output !== "string") throw new UsageError("build needs -o FILE");
  const type = String(options.get("type") ?? "bloom");
  if (!(FILTER_TYPES as readonly string[]).includes(type)) throw new UsageError(`--type must be one of ${FILTER_TYPES.join(", ")}, got "${type}"`);
  if (type === "fuse8" || type === "fuse16") return buildFuse(input, output, type, options);
  const p = options.has("p") ? parseProbability("p", String(options.get("p"))) : 0.01;
  let n = options.has("n") ? parseCount("n", String(options.get("n"))) : undefined;
  if (n === undefined && type !== "scalable") {
    if (input === "-") throw new UsageError(`reading standard input, build needs --n (or --type scalable)`);
    n = Math.max(1, await countLines(input));
  }
  const filter =
    type === "bloom" ? BloomFilter.create(n!, p)
    : type === "counting" ? CountingBloomFilter.create(n!, p)
    : type === "cuckoo" ? CuckooFilter.create(n!, p)
    : type === "split-block" ? SplitBlockBloomFilter.create(n!, p)
    : ScalableBloomFilter.create(n ?? 100_000, p);
  const progress = new Progress("build", inputSize(input), options.has("quiet"));
  let lines = 0;
  let bytes = 0;
  let full = 0;
  for await (const piece of linePieces(input)) {
    if (filter instanceof BloomFilter || filter instanceof SplitBlockBloomFilter) lines += filter.testAndAddLines(piece).length;
    else {
      const { keys } = splitLines(piece);
      if (filter instanceof CuckooFilter) for (const stored of filter.addMany(keys)) full += stored ^ 1;
      else filter.addMany(keys);
      lines += keys.length;
    }
    bytes += piece.length;
    progress.update(bytes, lines);
  }
  progress.done();
  if (full > 0) throw new CliError(`the cuckoo filter is full: ${fmt(full)} of ${fmt(lines)} keys did not fit; build with a larger --n`);
  save(output, filter.serialize());
  process.stderr.write(`${output}: ${describeFilter(filter).split("\n")[0]}, ${fmt(lines)} lines read\n`);
  filter.dispose();
}

/** A binary fuse filter holds exactly the input's distinct keys: it reads them all, then builds once. */
async function buildFuse(input: string, output: string, type: "fuse8" | "fuse16", options: Parsed["options"]): Promise<void> {
  const bits = type === "fuse8" ? 8 : 16;
  for (const name of ["n", "p"]) {
    if (options.has(name)) throw new UsageError(`--${name} does not apply to --type ${type}: it holds exactly the input's keys, at a false-positive rate of 2^-${bits}`);
  }
  const progress = new Progress("build", inputSize(input), options.has("quiet"));
  const pieces: Buffer[] = [];
  let bytes = 0;
  let lines = 0;
  for await (const piece of linePieces(input)) {
    pieces.push(Buffer.from(piece)); // linePieces reuses its buffer
    bytes += piece.length;
    lines += countNewlines(piece);
    progress.update(bytes, lines);
  }
  progress.done();
  const text = Buffer.concat(pieces);
  if (text.length > 0 && text[text.length - 1] !== 10) lines++;
  const filter = BinaryFuseFilter.buildLines(text, { fingerprintBits: bits });
  save(output, filter.serialize());
  process.stderr.write(`${output}: ${describeFilter(filter).split("\n")[0]}, ${fmt(lines)} lines read\n`);
  filter.dispose();
}

export async function query({ positionals }: Parsed): Promise<void> {
  if (positionals.length < 1) throw new UsageError("query needs a filter file");
  const [file, ...keys] = positionals;
  const filter = load(file);
  const out = new Output(undefined);
  const answer = (present: number) => (present ? "probably present" : "definitely absent");
  if (keys.length === 1 && keys[0] === "-") {
    for await (const piece of linePieces("-")) {
      const split = splitLines(piece);
      const answers = filter.hasMany(split.keys);
      split.keys.forEach((key, i) => {
        out.write(key);
        out.write(`\t${answer(answers[i])}\n`);
      });
    }
  } else {
    if (keys.length === 0) throw new UsageError("query needs keys, or - to read them from standard input");
    const answers = filter.hasMany(keys);
    keys.forEach((key, i) => out.write(`${key}\t${answer(answers[i])}\n`));
  }
  out.close();
  filter.dispose();
}

/** The info lines for any filter type. */
function describeFilter(filter: AnyFilter): string {
  const pct = (x: number) => `${(x * 100).toPrecision(3)}%`;
  if (filter instanceof BloomFilter) {
    return [
      `type BloomFilter`,
      `n ${fmt(filter.count)} keys added (that set a new bit)`,
      `m ${fmt(filter.bits)} bits (${fmt(Math.ceil(filter.bits / 8))} bytes)`,
      `k ${filter.hashes} (${filter.strategy} hashing, ${[filter.hash].flat().join(", ")}, seed ${filter.seed})`,
      `fill ${filter.fillRatio.toFixed(4)}`,
      `estimated count ${fmt(filter.estimatedCount())}`,
      `current FPR ${pct(filter.falsePositiveRate())}`,
    ].join("\n");
  }
  if (filter instanceof CountingBloomFilter) {
    return [
      `type CountingBloomFilter`,
      `n ${fmt(filter.size)} keys held`,
      `m ${fmt(filter.bits)} counters of ${filter.counterBits} bits`,
      `k ${filter.hashes} (${filter.strategy} hashing, ${[filter.hash].flat().join(", ")}, seed ${filter.seed})`,
      `fill ${filter.fillRatio.toFixed(4)}`,
      `saturated counters ${fmt(filter.saturatedCounters)}`,
      `current FPR ${pct(filter.falsePositiveRate())}`,
    ].join("\n");
  }
  if (filter instanceof SplitBlockBloomFilter) {
    return [
      `type SplitBlockBloomFilter`,
      `n ${fmt(filter.count)} keys added (that set a new bit)`,
      `m ${fmt(filter.bits)} bits in ${fmt(filter.blocks)} blocks of 256 (Parquet layout, xxh64 seed 0)`,
      `k 8 (one bit in each word of one block)`,
      `fill ${filter.fillRatio.toFixed(4)}`,
      `estimated count ${fmt(filter.estimatedCount())}`,
      `current FPR ${pct(filter.falsePositiveRate())}`,
    ].join("\n");
  }
  if (filter instanceof CuckooFilter) {
    return [
      `type CuckooFilter`,
      `n ${fmt(filter.size)} fingerprints stored`,
      `m ${fmt(filter.capacity)} slots (${fmt(filter.buckets)} buckets of ${filter.bucketSize}), ${filter.fingerprintBits}-bit fingerprints`,
      `load ${filter.loadFactor.toFixed(4)}`,
      `current FPR ${pct(filter.falsePositiveRate())}`,
    ].join("\n");
  }
  if (filter instanceof BinaryFuseFilter) {
    return [
      `type BinaryFuseFilter`,
      `n ${fmt(filter.size)} distinct keys (static: built once, cannot be added to)`,
      `m ${filter.bitsPerItem.toFixed(2)} bits per key, ${filter.fingerprintBits}-bit fingerprints`,
      `FPR ${pct(filter.falsePositiveRate())} (2^-${filter.fingerprintBits})`,
    ].join("\n");
  }
  return [
    `type ScalableBloomFilter`,
    `n ${fmt(filter.count)} keys added`,
    `m ${fmt(filter.bits)} bits in ${filter.layers} layers`,
    `capacity ${fmt(filter.capacity)} keys before the next layer`,
    `current FPR ${pct(filter.falsePositiveRate())} (target ${filter.targetFalsePositiveRate})`,
  ].join("\n");
}

export async function info({ positionals }: Parsed): Promise<void> {
  if (positionals.length !== 1) throw new UsageError(`info takes one filter file, got ${positionals.length}`);
  const filter = load(positionals[0]);
  process.stdout.write(describeFilter(filter) + "\n");
  filter.dispose();
}

export async function merge({ options, positionals }: Parsed): Promise<void> {
  if (positionals.length !== 2) throw new UsageError(`merge takes two filter files, got ${positionals.length}`);
  const output = options.get("output");
  if (typeof output !== "string") throw new UsageError("merge needs -o FILE");
  const [a, b] = positionals.map(load);
  if (!(a instanceof BloomFilter) || !(b instanceof BloomFilter)) {
    throw new CliError(`merge takes two BloomFilter files; got ${a.constructor.name} and ${b.constructor.name}`);
  }
  let merged: BloomFilter;
  try {
    merged = a.union(b);
  } catch (error) {
    throw new CliError(`cannot merge ${positionals[0]} and ${positionals[1]}: ${(error as Error).message}`);
  }
  save(output, merged.serialize());
  process.stderr.write(`${output}: ${describeFilter(merged).split("\n").slice(0, 2).join(", ")}\n`);
}
