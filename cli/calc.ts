// `bloomkit calc`: the parameter calculator of hur.st/bloomfilter, from any three of n, p, m, k.
import { optimal, type OptimalInput } from "bloomkit";
import { CliError, UsageError, hasByteUnit, parseBytes, parseCount, parseProbability, type OptionSpec, type Parsed } from "./args.js";
import { printOut } from "./io.js";
import { count, formatBytes } from "./words.js";

export const calcOptions: OptionSpec[] = [
  { name: "n", value: "N", help: "number of items (10000, 10k, 5M, 1G)" },
  { name: "p", value: "P", help: "false-positive rate (0.01, 1%, 1/1000)" },
  { name: "m", value: "M", help: "bits (958506, 1M) or a size (17.55KiB, 64MB)" },
  { name: "k", value: "K", help: "number of hash functions" },
];
export const calcUsage = "bloomkit calc [--n N] [--p P] [--m BITS|SIZE] [--k K]  (n and p, n and m, or any three)";

/** The forms --m accepts, for its error message. */
const BITS_OR_SIZE_FORMS =
  "a number of bits (958506, 1e6, or with k, M, G or T: 1M) or a size with a unit (B, KB, MB, GB, TB, KiB, MiB, GiB or TiB: 17.55KiB, 64MB)";

export async function calc({ options, positionals }: Parsed): Promise<void> {
  if (positionals.length > 0) throw new UsageError(`calc takes options, not "${positionals[0]}"`);
  const input: OptionInput = {};
  if (options.has("n")) input.n = parseCount("n", String(options.get("n")));
  if (options.has("p")) input.p = parseProbability("p", String(options.get("p")));
  if (options.has("m")) {
    const text = String(options.get("m"));
    try {
      input.m = Math.round(hasByteUnit(text) ? parseBytes("m", text) * 8 : parseCount("m", text));
    } catch {
      throw new UsageError(`--m must be ${BITS_OR_SIZE_FORMS}; got "${text}"`);
    }
  }
  if (options.has("k")) {
    const k = Number(options.get("k"));
    if (!Number.isInteger(k) || k < 1) throw new UsageError(`--k must be a whole number of hash functions, 1 or more (as in 7); got "${options.get("k")}"`);
    input.k = k;
  }
  let result;
  try {
    result = optimal(input);
  } catch (error) {
    if (error instanceof TypeError) {
      const given = Object.keys(input).map((name) => `--${name}`).join(" ") || "nothing";
      throw new UsageError(`calc needs --n and --p, --n and --m, --m and --p, or any three of --n --p --m --k; got ${given}`);
    }
    throw new CliError((error as Error).message);
  }
  const bytes = result.bytes;
  const size = formatBytes(bytes);
  printOut(
    `n = ${result.n.toLocaleString("en-US")}\n` +
      `p = ${result.p.toPrecision(6)} (1 in ${Math.round(1 / result.p).toLocaleString("en-US")})\n` +
      `m = ${result.m.toLocaleString("en-US")} bits (${size})\n` +
      `k = ${result.k}\n` +
      `bits per item = ${result.bitsPerItem.toFixed(2)}\n` +
      `size = ${count(bytes, "byte")}\n`,
  );
}

type OptionInput = { -readonly [K in keyof OptimalInput]: OptimalInput[K] };
