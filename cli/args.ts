// A small argv parser for the CLI: long and short options, `--name=value`,
// positionals, and the number forms the calculator takes (10k, 5M, 64MB,
// 17.55KiB, 1/1000). Mistakes throw UsageError (exit code 2).
import { count } from "./words.js";

/** Wrong usage: printed on one line, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A user-facing failure (a file, a value): printed on one line, exit code 1. */
export class CliError extends Error {
  override name = "CliError";
}

export interface OptionSpec {
  /** Long name without dashes. */
  name: string;
  short?: string;
  /** A flag takes no value. */
  flag?: boolean;
  /** Shown in --help. */
  help: string;
  /** Shown in --help after the name, e.g. "N". */
  value?: string;
}

export interface Parsed {
  options: Map<string, string | true>;
  positionals: string[];
  /** Each option with a value as it was typed (-o or --output), for messages that name it. */
  typed: Map<string, string>;
}

/** How the user typed option `name` (-t or --type), or `--name` when it was not given. */
export function typedName(parsed: Pick<Parsed, "typed">, name: string): string {
  return parsed.typed.get(name) ?? `--${name}`;
}

/**
 * Parses argv against the specs; `--help`/`-h` is always known. `dashed`,
 * for a command whose arguments may start with "-" (query's keys), says
 * where such an argument goes, after an unknown option's refusal.
 */
export function parseArgs(argv: readonly string[], specs: readonly OptionSpec[], dashed?: (arg: string) => string): Parsed {
  const options = new Map<string, string | true>();
  const typed = new Map<string, string>();
  const positionals: string[] = [];
  const byLong = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "--help" || arg === "-h") {
      options.set("help", true);
      continue;
    }
    // A negative number (-1 as -42) is a value, such as a key to query, not an option: no option is a digit.
    const negativeNumber = /^-\.?[0-9]/.test(arg);
    // `-q=1` or `-xyz` is no file name but a mistyped option (a file named so is given after `--`).
    if (arg.startsWith("-") && !arg.startsWith("--") && arg.length > 2 && !negativeNumber) throw unknownOption(arg, longMeant(arg, byLong), dashed);
    if (arg.startsWith("--") || (arg.startsWith("-") && arg.length === 2 && arg !== "-" && !negativeNumber)) {
      const [rawName, inline] = arg.startsWith("--") ? splitOnce(arg.slice(2), "=") : [arg.slice(1), undefined];
      const spec = arg.startsWith("--") ? byLong.get(rawName) : byShort.get(rawName);
      if (!spec) throw unknownOption(arg, arg.startsWith("--") ? "" : longMeant(arg, byLong), dashed);
      if (spec.flag) {
        if (inline !== undefined) throw new UsageError(`--${spec.name} takes no value`);
        options.set(spec.name, true);
        continue;
      }
      const value = inline ?? argv[i + 1];
      // `-o -q`: the value was forgotten, and the next option is not a file name (`--output=-q` says it is).
      if (value === undefined || (inline === undefined && looksLikeOption(value))) throw new UsageError(`${arg} needs a value`);
      if (inline === undefined) i++;
      // A second value would silently win: `-o a.txt -o b.txt` wrote only b.txt.
      const given = typed.get(spec.name);
      if (given !== undefined) throw new UsageError(`${given} is given twice, as "${options.get(spec.name)}" and as "${value}"; give it once`);
      typed.set(spec.name, arg.startsWith("--") ? `--${rawName}` : arg);
      options.set(spec.name, value);
      continue;
    }
    positionals.push(arg);
  }
  return { options, positionals, typed };
}

/** The refusal of an unknown option: what was meant ("; did you mean --n?"), then where a key that starts with "-" goes, for a command that takes such keys. */
function unknownOption(arg: string, meant: string, dashed: ((arg: string) => string) | undefined): UsageError {
  if (!dashed) return new UsageError(`unknown option ${arg}${meant}`);
  const where = dashed(arg);
  return new UsageError(`unknown option ${arg}${meant ? `${meant} ${where[0].toUpperCase()}${where.slice(1)}` : `; ${where}`}`);
}

/** `-n` or `-output=x` where a long option of that name exists (`--n`, `--output`): "; did you mean --n?", else nothing. */
function longMeant(arg: string, byLong: ReadonlyMap<string, OptionSpec>): string {
  const name = splitOnce(arg.slice(1), "=")[0];
  return byLong.has(name) ? `; did you mean --${name}?` : "";
}

/** An option rather than a value: "-q", "--output", "--"; not "-" (standard input or output) nor a negative number, which its own check refuses. */
function looksLikeOption(text: string): boolean {
  return text.startsWith("-") && text !== "-" && !/^-\.?[0-9]/.test(text);
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

const SI: Record<string, number> = { "": 1, k: 1e3, K: 1e3, m: 1e6, M: 1e6, g: 1e9, G: 1e9, t: 1e12, T: 1e12 };
// kB is the SI symbol (ls -h --si and du write it); KB and kb are the spellings people type too.
const BYTE_UNITS: Record<string, number> = {
  b: 1, B: 1, kb: 1e3, kB: 1e3, KB: 1e3, mb: 1e6, MB: 1e6, gb: 1e9, GB: 1e9, tb: 1e12, TB: 1e12,
  kib: 1024, KiB: 1024, mib: 1024 ** 2, MiB: 1024 ** 2, gib: 1024 ** 3, GiB: 1024 ** 3, tib: 1024 ** 4, TiB: 1024 ** 4,
};

/** The forms parseCount accepts, for its error message. */
export const COUNT_FORMS = "a positive whole number: 10000 or 2.5e6, or with k, M, G or T for thousand, million, billion, trillion (10k, 5M)";
/** The forms parseBytes accepts, for its error message. */
export const SIZE_FORMS =
  "a size: a number of bytes with an optional unit, B, KB, MB, GB or TB (powers of 1000) or KiB, MiB, GiB or TiB (powers of 1024), as in 64MB, 17.55KiB or 1GiB";
/** The forms parseProbability accepts, for its error message. */
export const PROBABILITY_FORMS = "a probability between 0 and 1: a decimal (0.01, 1e-3), a percentage (1%) or a fraction (1/1000)";

/** A number written well but past the largest a double holds (--n 1e400): refused as too large, not as malformed. */
export class NumberTooLarge extends UsageError {
  constructor(name: string, text: string) {
    super(`--${name} must be below ${Number.MAX_VALUE.toPrecision(2).replace("e+", "e")}, the largest number there is here; got "${text}"`);
  }
}

/** A count with an optional SI suffix: 10000, 1e6 (or 1E6, as --p takes 1E-3), 10k, 5M, 1G. */
export function parseCount(name: string, text: string): number {
  const match = /^([0-9]*\.?[0-9]+(?:[eE][+-]?\d+)?)([kKmMgGtT]?)$/.exec(text.trim());
  const scaled = match ? Number(match[1]) * SI[match[2]] : NaN;
  if (scaled === Infinity) throw new NumberTooLarge(name, text);
  // 4.35T is 4349999999999.9995 in binary: a count within a rounding step of a whole number is that number.
  const value = Math.abs(scaled - Math.round(scaled)) <= scaled * Number.EPSILON ? Math.round(scaled) : scaled;
  if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--${name} must be ${COUNT_FORMS}; got "${text}"`);
  return value;
}

/** A size as parseBytes reads it: a number, then an optional unit. */
const SIZE = /^([0-9]*\.?[0-9]+(?:[eE][+-]?\d+)?)\s*([a-zA-Z]*)$/;

/** A byte size with a unit: 64MB, 17.55KiB, 1GiB (a bare number is bytes). */
export function parseBytes(name: string, text: string): number {
  const match = SIZE.exec(text.trim());
  const unit = match ? BYTE_UNITS[match[2] || "B"] : undefined;
  const value = match && unit ? Number(match[1]) * unit : NaN;
  if (value === Infinity) throw new NumberTooLarge(name, text);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--${name} must be ${SIZE_FORMS}; got "${text}"`);
  return value;
}

/**
 * The least --memory a number without a unit may give. People who leave the
 * unit out mean megabytes or gigabytes (--memory 1, 512, 4096, as sort -S and
 * many tools read a bare number as KiB or MB), and every such amount up to
 * 64 GB written in MB is below 64 KiB; a byte count typed in full on purpose
 * (65536, 1E6, 1073741824) is not. Read as bytes, those small numbers gave the
 * smallest filter without a word, which dropped or matched almost every line.
 */
export const MIN_BARE_MEMORY_BYTES = 64 * 1024;

/**
 * --memory of dedup and intersect: parseBytes, refusing a bare number below
 * MIN_BARE_MEMORY_BYTES as a forgotten unit. With a unit, any size is taken
 * (--memory 32B is a one-block filter, on purpose).
 */
export function parseMemory(text: string): number {
  const bytes = parseBytes("memory", text);
  const typed = text.trim();
  if (SIZE.exec(typed)?.[2] === "" && bytes < MIN_BARE_MEMORY_BYTES) {
    throw new UsageError(
      `--memory ${typed} has no unit, so it reads as ${count(bytes, "byte")}, less than ${MIN_BARE_MEMORY_BYTES / 1024} KiB; give a unit, as in --memory ${typed}MB or --memory 1GB (--memory ${typed}B if bytes are meant)`,
    );
  }
  return bytes;
}

/** True when the text carries a byte unit (so --m means bytes, not bits). */
export function hasByteUnit(text: string): boolean {
  return /[0-9.]\s*(?:[kmgt]i?b|b)$/i.test(text.trim());
}

/** An unsigned decimal, as in 0.01, .5, 1e-3 or 1E-3: no sign, and not Number()'s hex, binary or octal forms. */
const UNSIGNED_DECIMAL = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/** `text` (trimmed) as an unsigned decimal, else NaN: Number() alone read "0x1" as 1 and "-1" as a sign that a fraction's other sign cancelled. */
function unsignedDecimal(text: string): number {
  const t = text.trim();
  return UNSIGNED_DECIMAL.test(t) ? Number(t) : NaN;
}

/** A probability: 0.01, 1e-3, 1%, or 1/1000. */
export function parseProbability(name: string, text: string): number {
  const t = text.trim();
  let value: number;
  const fraction = /^([^/]+)\/([^/]+)$/.exec(t);
  if (fraction) value = unsignedDecimal(fraction[1]) / unsignedDecimal(fraction[2]);
  else if (t.endsWith("%")) value = unsignedDecimal(t.slice(0, -1)) / 100;
  else value = unsignedDecimal(t);
  // A rate written above 0 that no number here holds (1e-400 reads as 0) is too small, not malformed; one written
  // as 0 is not a rate (0/1: only a fraction's numerator says whether it was written above 0).
  if (value === 0 && /[1-9]/.test((fraction ? fraction[1] : t).replace(/e.*$/i, ""))) throw new UsageError(`--${name} must be at least 5e-324, the smallest number there is here; got "${text}"`);
  if (!(value > 0 && value < 1)) throw new UsageError(`--${name} must be ${PROBABILITY_FORMS}; got "${text}"`);
  return value;
}

/**
 * A message of the library's calculator (optimal()) in the user's words: each
 * of n, p, m, k it names with a value ("p = 1e-100", "m = 100 bits") that has
 * a phrase in `phrases` becomes that phrase (the option as typed, "--p
 * 1e-100"); the values the library derived (a k it chose) stay as they are.
 */
export function inOptionWords(message: string, phrases: Partial<Record<"n" | "p" | "m" | "k", string>>): string {
  return message.replace(/\b([npmk]) = (?:[0-9.e+-]+|Infinity)(?: bits)?/g, (named, name: "n" | "p" | "m" | "k") => phrases[name] ?? named);
}

/**
 * A filter's refusal of the size its options ask for (a p no filter reaches,
 * more bits than a filter holds) in the user's words, as a usage error: its
 * create()'s names (falsePositiveRate = 1e-100, expectedItems = 3) become the
 * phrases for p and n (the option as typed, or where n came from; a value
 * with no phrase keeps its plain name), as do optimal()'s n and p. A filter
 * that fits no memory this machine has is not a usage error and stays as it is.
 */
export function sizedByOptions<T>(make: () => T, phrases: { n?: string; p?: string }): T {
  try {
    return make();
  } catch (error) {
    throw inOptionNames(error, phrases);
  }
}

/** sizedByOptions for a filter made asynchronously: one kept in Redis, which create() sizes as a BloomFilter is sized. */
export async function sizedByOptionsAsync<T>(make: () => Promise<T>, phrases: { n?: string; p?: string }): Promise<T> {
  try {
    return await make();
  } catch (error) {
    throw inOptionNames(error, phrases);
  }
}

/** The error sizedByOptions throws for `error`: a refusal of the size as a UsageError in the options' words, anything else as it is. */
function inOptionNames(error: unknown, phrases: { n?: string; p?: string }): unknown {
  if (!(error instanceof RangeError) || /^cannot allocate/.test(error.message)) return error;
  const scalable = scalableLayerRefusal(error.message, phrases);
  if (scalable !== undefined) return new UsageError(scalable);
  // The first n and p named are the user's; later ones are the library's own (a scalable filter's first layer, at a
  // tighter rate), and keep plain names. Replaced by functions: a file name's "$&" is text, not a pattern.
  const message = error.message
    .replace(/\b(?:falsePositiveRate|p) = [0-9.e+-]+/, (named) => phrases.p ?? named)
    .replace(/\b(?:expectedItems|initialCapacity|n) = [0-9.e+-]+/, (named) => phrases.n ?? named);
  return new UsageError(plainNames(message));
}

/** create()'s names in a message, without values to replace: falsePositiveRate is p, expectedItems (initialCapacity) n. */
const plainNames = (message: string) => message.replace(/\bfalsePositiveRate\b/g, "p").replace(/\b(?:expectedItems|initialCapacity)\b/g, "n");

/**
 * A scalable filter's refusal of one of its later layers, in the user's
 * words, or undefined for any other message. ScalableBloomFilter.create()
 * names its growth and tightening options, which the command line does not
 * take, and the n and p it names first are the layer's own, not the user's.
 */
function scalableLayerRefusal(message: string, phrases: { n?: string; p?: string }): string | undefined {
  const growth = /^options\.growth = [^:]+: the second layer, for (\d+) keys, could never be made (\(.*\))$/s.exec(message);
  if (growth) return `${phrases.n ?? "n"} at ${phrases.p ?? "p"}: the second layer of a scalable filter, for ${count(Number(growth[1]), "key")}, could never be made ${plainNames(growth[2])}`;
  const tightening = /^options\.tightening = ([0-9.e+-]+) with falsePositiveRate = ([0-9.e+-]+): layer (\d+)'s rate (p·\(1 − r\)·r\^\d+) = ([0-9.e+-]+) is below ([0-9.e+-]+), the smallest a layer of (\d+) keys can have;/.exec(message);
  if (!tightening) return undefined;
  const [, r, p, layer, formula, rate, smallest, keys] = tightening;
  return `${phrases.p ?? `p = ${p}`}: layer ${layer} of a scalable filter, for ${count(Number(keys), "key")}, would need a rate of ${rate} (${formula}, r = ${r}), below ${smallest}, the smallest it can have`;
}

/** Renders the option list for --help. */
export function optionHelp(specs: readonly OptionSpec[]): string {
  const rows = specs.map((s) => [`${s.short ? `-${s.short}, ` : "    "}--${s.name}${s.value ? ` ${s.value}` : ""}`, s.help]);
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join("\n");
}
