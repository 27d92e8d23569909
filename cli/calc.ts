// `bloomkit calc`: the parameter calculator of hur.st/bloomfilter, from any three of n, p, m, k.
import { MAX_HASHES, optimal, type OptimalInput } from "bloomkit";
import { NumberTooLarge, UsageError, hasByteUnit, inOptionWords, parseBytes, parseCount, parseProbability, type OptionSpec, type Parsed } from "./args.js";
import { printOut } from "./io.js";
import { count, fmt, formatBytes } from "./words.js";

export const calcOptions: OptionSpec[] = [
  { name: "n", value: "N", help: "number of items (10000, 10k, 5M, 1G)" },
  { name: "p", value: "P", help: "false-positive rate (0.01, 1%, 1/1000)" },
  { name: "m", value: "M", help: "bits (958506, 1M) or a size (17.55KiB, 64MB)" },
  { name: "k", value: "K", help: "number of hash functions" },
];
export const calcUsage = "bloomkit calc [--n N] [--p P] [--m BITS|SIZE] [--k K]  (n and p, n and m, m and p, or any three)";

/** The forms --m accepts, for its error message. */
const BITS_OR_SIZE_FORMS =
  "a whole number of bits (958506, 1e6, or with k, M, G or T: 1M) or a size with a unit (B, KB, MB, GB, TB, KiB, MiB, GiB or TiB: 17.55KiB, 64MB)";

export async function calc({ options, positionals }: Parsed): Promise<void> {
  if (positionals.length > 0) throw new UsageError(`calc takes options, not "${positionals[0]}"`);
  const input: OptionInput = {};
  if (options.has("n")) input.n = parseCount("n", String(options.get("n")));
  if (options.has("p")) input.p = parseProbability("p", String(options.get("p")));
  if (options.has("m")) {
    const text = String(options.get("m"));
    let bits: number;
    try {
      bits = hasByteUnit(text) ? parseBytes("m", text) * 8 : parseCount("m", text);
    } catch (error) {
      if (error instanceof NumberTooLarge) throw error;
      throw new UsageError(`--m must be ${BITS_OR_SIZE_FORMS}; got "${text}"`);
    }
    // A size is rounded to the nearest bit (17.55KiB is 143769.6 bits), once it holds one: 0.1B (0.8 bits) holds none.
    if (bits < 1) throw new UsageError(`--m must be at least 1 bit; got "${text}"`);
    input.m = Math.round(bits);
  }
  if (options.has("k")) {
    // Digits only: Number() alone took 0x10 for 16 and 0b11 for 3.
    const text = String(options.get("k")).trim();
    const k = /^[0-9]+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(k) || k < 1) throw new UsageError(`--k must be a whole number of hash functions, 1 or more (as in 7); got "${options.get("k")}"`);
    input.k = k;
  }
  const given = Object.keys(input) as (keyof OptionInput)[];
  if (given.length === 4) throw new UsageError("calc takes at most three of --n --p --m --k: the fourth follows from them; got all four");
  let result;
  try {
    result = sized(input);
  } catch (error) {
    if (error instanceof TypeError) {
      throw new UsageError(`calc needs --n and --p, --n and --m, --m and --p, or any three of --n --p --m --k; got ${given.map((name) => `--${name}`).join(" ") || "nothing"}`);
    }
    // The values given do not go together (a p no filter reaches, an m too small for it), or one is out of the calculator's range.
    if (error instanceof RangeError) throw new UsageError(inUserWords(error.message, options, given));
    throw error;
  }
  const bytes = result.bytes;
  const size = formatBytes(bytes);
  printOut(
    `n = ${countWords(result.n)}\n` +
      `p = ${rateWords(result)}\n` +
      `m = ${countWords(result.m)} ${result.m === 1 ? "bit" : "bits"} (${size})\n` +
      `k = ${result.k}${cappedNote(input, result)}\n` +
      // An n far past m (--n 1e300 --m 1000) leaves too few bits an item for 2 decimals to show any.
      `bits per item = ${result.bitsPerItem < 0.005 ? result.bitsPerItem.toPrecision(3) : result.bitsPerItem.toFixed(2)}\n` +
      `size = ${count(bytes, "byte")}\n`,
  );
}

/**
 * optimal(), except that an n and a p whose best k is more hashes than a
 * filter takes are sized with MAX_HASHES, the m that reaches p with them:
 * optimal({ n, p }) refuses those (as a filter's create() must, since it
 * picks k itself), and calc said no p that small was possible, though
 * calc --n N --p P --k 256 gave one.
 */
function sized(input: OptionInput): ReturnType<typeof optimal> {
  try {
    return optimal(input);
  } catch (error) {
    if (input.m !== undefined || input.k !== undefined || !(error instanceof RangeError)) throw error;
    // { n, p } refuses a p whose best k is past MAX_HASHES, or an m past what the calculator takes; with
    // k = MAX_HASHES the second holds too (no k needs fewer bits than the best one), so its refusal stands.
    try {
      return optimal({ ...input, k: MAX_HASHES });
    } catch {
      throw error;
    }
  }
}

/**
 * Where the best k is more hashes than a filter takes (--n with an --m of
 * hundreds of bits per item; --m or --n with a --p below 2^-256), the calculator
 * gives MAX_HASHES: said beside k, with the k that would be best.
 */
function cappedNote(input: OptionInput, { n, m, k }: { n: number; m: number; k: number }): string {
  if (input.k !== undefined || k !== MAX_HASHES) return "";
  // --n --m: the best k gives the lowest rate; --m --p: the most items at that rate.
  if (input.p === undefined) {
    const best = Math.round((m / n) * Math.LN2);
    return best > MAX_HASHES ? ` (the most a filter takes; ${fmt(best)} would give a lower rate)` : "";
  }
  // --m --p: the best k holds the most items at this p; --n --p: it reaches p in the fewest bits.
  const best = input.m === undefined || input.n === undefined ? Math.round(-Math.log2(input.p)) : 0;
  return best > MAX_HASHES ? ` (the most a filter takes; ${fmt(best)} would ${input.n === undefined ? "hold more items at this p" : "need fewer bits"})` : "";
}

/**
 * A count with thousands separators, or past 2^53 − 1 in exponent form to 6
 * digits ("1.00000e+300"), as a tiny rate is written: there a double's last
 * digits are noise, and --n 1e300 was 300 of them. m and the size never get
 * there (the calculator takes at most 2^53 − 1 bits); n, given or derived, does.
 */
function countWords(value: number): string {
  return value > Number.MAX_SAFE_INTEGER ? value.toPrecision(6) : value.toLocaleString("en-US");
}

/** Above this, "1 in N" is written 1.23457e+15: its last digits would be noise. */
const ONE_IN_DIGITS_BELOW = 1e15;
/** Below this, "1 in N" keeps 3 significant digits: a p of 0.393 is 1 in 2.54, not 1 in 3, and 0.9 is not 1 in 1. */
const ONE_IN_WHOLE_FROM = 100;

/**
 * p and "1 in 1/p". A p below the smallest double (10k keys in 64MB: about
 * 1e-590) is 0 in floating point: it is worked out in logarithms from n, m and
 * k, (1 − e^(−kn/m))^k, and written in exponent form, never 0 or "1 in ∞".
 */
function rateWords({ n, m, k, p }: { n: number; m: number; k: number; p: number }): string {
  // Below 1e-300 a double loses digits before it reaches 0.
  const log10 = p >= 1e-300 ? Math.log10(p) : k * Math.log10(-Math.expm1((-k * n) / m));
  const rate = p >= 1e-300 ? p.toPrecision(6) : exponentForm(log10);
  const oneIn = -log10 < Math.log10(ONE_IN_DIGITS_BELOW) ? oneInWords(1 / p) : exponentForm(-log10);
  return `${rate} (1 in ${oneIn})`;
}

/** N of "1 in N": whole with separators (1,000), or to 3 digits below 100 (2.54), where rounding to whole would misstate the rate. */
function oneInWords(value: number): string {
  return value < ONE_IN_WHOLE_FROM ? value.toPrecision(3) : fmt(value);
}

/** 10^log10 as JS writes a small or large number, to 6 digits: "1.23457e-590". */
function exponentForm(log10: number): string {
  let exponent = Math.floor(log10);
  let mantissa = 10 ** (log10 - exponent);
  if (Number(mantissa.toPrecision(6)) >= 10) {
    mantissa /= 10;
    exponent++;
  }
  return `${mantissa.toPrecision(6)}e${exponent < 0 ? "-" : "+"}${Math.abs(exponent)}`;
}

/** The calculator's message with the options and values as the user typed them ("--m 1M", not "m = 1000000 bits"). */
function inUserWords(message: string, options: Parsed["options"], given: readonly (keyof OptionInput)[]): string {
  const typed = (name: keyof OptionInput) => String(options.get(name));
  // "k must be an integer from 1 to 256, got 300": a value out of the range the calculator takes.
  const range = /^([npmk]) must be (.*), got .*$/.exec(message);
  if (range) return `--${range[1]} must be ${range[2]}; got "${typed(range[1] as keyof OptionInput)}"`;
  const worded = inOptionWords(message, Object.fromEntries(given.map((name) => [name, `--${name} ${typed(name)}`])));
  // An m the calculator derived (more bits than it takes) is written as the results write m, not in all its digits.
  // The advice names what to change as the command line does: "a smaller n" is "a smaller --n" here.
  return worded.replace(/\bm = ([0-9.e+]+) bits/, (_, m: string) => `m = ${countWords(Number(m))} bits`).replace(/\b(smaller|larger) ([npmk])\b/g, "$1 --$2");
}

type OptionInput = { -readonly [K in keyof OptimalInput]: OptimalInput[K] };
