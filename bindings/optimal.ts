// The standard Bloom filter formulas, as the hur.st calculator
// (https://hur.st/bloomfilter/) uses them, in one place for every structure:
//   p = (1 − e^(−kn/m))^k        m = −n·ln p / (ln 2)²        k = (m/n)·ln 2
import { MAX_HASHES } from "./constants.generated.js";
import { checkCount, checkInteger, checkOptions, checkPositive, checkProbability, describe } from "./errors.js";

/** Any three of n, p, m, k, or just n and p, or m with n or p. */
export interface OptimalInput {
  /** Expected number of distinct keys. */
  n?: number;
  /** Target false-positive rate, in (0, 1). */
  p?: number;
  /** Size of the bit array, in bits. */
  m?: number;
  /** Number of hash functions. */
  k?: number;
}

/**
 * A complete parameter set. `p` is always the rate these exact n, m and k
 * give, (1 − e^(−kn/m))^k, which may differ a little from a p you asked for
 * (see optimal()).
 */
export interface OptimalParameters {
  n: number;
  p: number;
  m: number;
  k: number;
  /** m / n. */
  bitsPerItem: number;
  /** Size of the bit array in bytes, ⌈m / 8⌉. */
  bytes: number;
}

const LN2 = Math.LN2;
const LN2_SQUARED = LN2 * LN2;
/** Bounds on m and k accepted by the calculator (the filters have their own, smaller m limit). */
export const MAX_CALC_BITS = Number.MAX_SAFE_INTEGER;
export { MAX_HASHES };
/** Steps of 1 that absorb a floating-point excess of the last digit in the closed forms below (one is enough in practice). */
const ULP_STEPS = 4;

/** False-positive rate of n keys in m bits with k hashes: (1 − e^(−kn/m))^k (arguments not checked). */
export function rateFor(n: number, m: number, k: number): number {
  return Math.pow(-Math.expm1((-k * n) / m), k);
}

/**
 * False-positive rate of n keys in m bits with k hashes: (1 − e^(−kn/m))^k.
 * n is a count of keys (≥ 0, fractions allowed), m a positive number of bits, k an integer from 1 to 256.
 */
export function falsePositiveRateFor(n: number, m: number, k: number): number {
  checkCount("n", n);
  checkPositive("m", m);
  checkInteger("k", k, 1, MAX_HASHES);
  return rateFor(n, m, k);
}

/** The smallest m double hashing's added rate was measured at (examples/small-filter-rates.mjs: 100 keys at 10^-4): below it, nothing is claimed. */
const EXCESS_MEASURED_FROM_BITS = 1918;
/** How far from half set a filter may be for the added rate to be claimed: the measurements were of filters at the n they were sized for. */
const EXCESS_FILL_SPREAD = 0.1;

/**
 * About what double hashing (strategy "double": BloomFilter's and
 * CountingBloomFilter's way of picking k positions from two hashes before
 * triple hashing became the default) adds to the formula's rate for n keys
 * in m bits with k hashes: 3/(k·m) (README, "How it works": measured 2 to 5
 * over k·m, for m from 1,918 to 3.8 million bits about half set).
 * undefined outside what was measured: m below 1,918 bits (the smallest measured), or a fill at n
 * farther than 0.1 from one half (8 bits, 8 hashes and 1 key measured 0.24
 * where the formula says 0.025, not the formula plus 3/(k·m)).
 */
export function doubleHashingExcess(n: number, m: number, k: number): number | undefined {
  checkCount("n", n);
  checkPositive("m", m);
  checkInteger("k", k, 1, MAX_HASHES);
  const fill = -Math.expm1((-k * n) / m);
  if (m < EXCESS_MEASURED_FROM_BITS || Math.abs(fill - 0.5) > EXCESS_FILL_SPREAD) return undefined;
  return 3 / (k * m);
}

/** The k that minimises the rate for m/n bits per key: round(m/n · ln 2), at least 1 (may exceed MAX_HASHES: see checkReachable). */
function roundedHashes(n: number, m: number): number {
  return Math.max(1, Math.round((m / n) * LN2));
}

/** The k that minimises the rate for m/n bits per key: round(m/n · ln 2), at least 1 and at most MAX_HASHES. */
export function optimalHashes(n: number, m: number): number {
  return Math.min(MAX_HASHES, roundedHashes(n, m));
}

/**
 * The smallest p the sizing m = ⌈−n·ln p / (ln 2)²⌉, k = round(m/n · ln 2)
 * can give for n keys with k ≤ MAX_HASHES (about 2^−256): below it the
 * best k is more hashes than a filter takes, and the rate asked for would
 * never be reached.
 */
export function smallestRate(n: number): number {
  const fits = (p: number) => roundedHashes(n, optimalBits(n, p)) <= MAX_HASHES;
  // The largest m whose best k still rounds to at most MAX_HASHES, and the p that sizes to it; then bisection on ln p to be exact.
  const largest = Math.max(1, Math.ceil(((MAX_HASHES + 0.5) * n) / LN2) - 1);
  let low = (-largest * LN2_SQUARED) / n - 1; // ln p, too small
  let high = Math.log1p(-Number.EPSILON); // ln p, the largest p below 1
  if (!fits(Math.exp(high))) return NaN; // n so small that one bit already needs too many hashes
  for (let i = 0; i < 200 && high - low > 1e-15 * Math.abs(high); i++) {
    const middle = (low + high) / 2;
    if (fits(Math.exp(middle))) high = middle;
    else low = middle;
  }
  return Math.exp(high);
}

/** Throws a RangeError when no k ≤ MAX_HASHES reaches rate p for n keys at the optimal size, naming the smallest p there is. */
export function checkReachable(nName: string, pName: string, n: number, p: number): void {
  const bits = optimalBits(n, p);
  // Past floating point (n = 1e308), the k derived from an infinite m would mean nothing.
  if (!Number.isFinite(bits)) throw new RangeError(`a filter for ${nName} = ${n} at ${pName} = ${p} needs more bits than any filter holds`);
  const k = roundedHashes(n, bits);
  if (k > MAX_HASHES) {
    const smallest = smallestRate(n);
    if (Number.isNaN(smallest)) throw new RangeError(`${nName} = ${n} is too small: even a filter of one bit would need ${k} hash functions for it (at most ${MAX_HASHES})`);
    throw new RangeError(
      `${pName} = ${p} needs k = ${k} hash functions, more than the ${MAX_HASHES} a filter takes; ` +
        `the smallest ${pName} possible for ${nName} = ${n} is ${smallest}`,
    );
  }
}

/**
 * The whole k with the lowest rate for n keys in m bits: ⌊k*⌋ or ⌈k*⌉ of
 * k* = m/n · ln 2, whichever gives less (the rate is convex in k). Rounding k*,
 * as hur.st does, can pick the worse of the two: k* = 2.49 rounds to 2, but 3
 * gives the lower rate.
 */
function bestWholeHashes(n: number, m: number): number {
  const low = Math.min(MAX_HASHES, Math.max(1, Math.floor((m / n) * LN2)));
  const high = Math.min(MAX_HASHES, low + 1);
  return rateFor(n, m, high) < rateFor(n, m, low) ? high : low;
}

/** Smallest m reaching rate p for n keys: ⌈−n·ln p / (ln 2)²⌉. */
export function optimalBits(n: number, p: number): number {
  return Math.max(1, Math.ceil((-n * Math.log(p)) / LN2_SQUARED));
}

/** ⌈−k·n / ln(1 − p^(1/k))⌉, at least 1: Infinity when p^(1/k) is so close to 0 that 1 − p^(1/k) rounds to 1, or n is so large. */
function closedBitsForHashes(n: number, p: number, k: number): number {
  return Math.max(1, Math.ceil((-k * n) / Math.log1p(-Math.exp(Math.log(p) / k))));
}

/**
 * Throws a RangeError in a filter's words (create()'s argument names) when n
 * keys at rate p with exactly k hashes (the independent strategy) need more
 * bits than floating point holds: what checkReachable says for double hashing.
 */
export function checkSizable(nName: string, pName: string, n: number, p: number, k: number): void {
  if (!Number.isFinite(closedBitsForHashes(n, p, k))) throw new RangeError(`a filter for ${nName} = ${n} at ${pName} = ${p} needs more bits than any filter holds`);
}

/** Smallest m reaching rate p for n keys with exactly k hashes: ⌈−k·n / ln(1 − p^(1/k))⌉. */
function bitsForHashes(n: number, p: number, k: number): number {
  let m = closedBitsForHashes(n, p, k);
  // p^(1/k) so close to 0 that 1 − p^(1/k) rounds to 1, or n so large: no m in floating point.
  if (!Number.isFinite(m)) throw new RangeError(`no number of bits reaches p = ${p} for n = ${n} with k = ${k}: give a larger p, a smaller n or more hashes`);
  // p^(1/k) is computed through exp and log: step past a last-ulp excess so the promise holds exactly.
  for (let step = 0; step < ULP_STEPS && falsePositiveRateFor(n, m, k) > p; step++) m++;
  return m;
}

/** Largest n that keeps m bits with k hashes at or below rate p: ⌊−m·ln(1 − p^(1/k)) / k⌋. */
function capacityFor(m: number, k: number, p: number): number {
  // hur.st rounds this up; rounding down keeps the promised rate honest.
  let n = Math.floor((-m * Math.log1p(-Math.exp(Math.log(p) / k))) / k);
  // As in bitsForHashes: no last-ulp excess.
  for (let step = 0; step < ULP_STEPS && n > 0 && falsePositiveRateFor(n, m, k) > p; step++) n--;
  return n;
}

/**
 * The m that n and p (with k, when given) call for, or a RangeError when it is
 * more bits than the calculator takes as an m (MAX_CALC_BITS): a result's m
 * must be one it would accept.
 */
function checkBits(m: number, n: number, p: number, k?: number): void {
  if (m <= MAX_CALC_BITS) return;
  const given = `n = ${n} and p = ${p}${k === undefined ? "" : ` with k = ${k}`}`;
  const needed = Number.isFinite(m) ? `m = ${m} bits, more than` : "more bits than";
  throw new RangeError(`${given} need ${needed} the ${MAX_CALC_BITS} (2^53 − 1) the calculator takes: give a smaller n or a larger p`);
}

function result(n: number, m: number, k: number): OptimalParameters {
  return { n, p: rateFor(n, m, k), m, k, bitsPerItem: m / n, bytes: Math.ceil(m / 8) };
}

/**
 * The calculator: given n and p, or n and m, or any three of n, p, m and k,
 * returns all four (and bits per item).
 *
 * `p` in the result is the rate of the returned n, m and k by the formula,
 * (1 − e^(−kn/m))^k: the rate that filter has once it holds n keys. How it
 * relates to a p you asked for:
 * - { n, p } gives hur.st's m and k: m = ⌈−n·ln p / (ln 2)²⌉, the size at which
 *   the best real-valued k reaches p exactly, and k = m/n · ln 2 rounded to the
 *   nearest whole number. Rounding k moves the rate off that optimum, so the
 *   result's p can be a little above the p asked: at most 0.75 % above it for
 *   p ≤ 1 %, 1.3 % for p ≤ 5 %, 12 % at worst (p near 0.85, k = 1). For example
 *   optimal({ n: 1e6, p: 0.01 }) is m = 9,585,059, k = 7, p = 0.0100392. Ask
 *   { n, p, k } for the smallest m that stays at or below p with that k.
 * - { n, p, k }, { n, m, p }, { m, k, p } and { m, p } never exceed the p asked.
 * - { n, m } and { n, m, k } ask for no p.
 *
 *   optimal({ n, p })     → the smallest m and the best k for it
 *   optimal({ n, p, k })  → the smallest m for that k
 *   optimal({ n, m })     → the best whole k and its rate
 *   optimal({ n, m, k })  → the rate
 *   optimal({ m, k, p })  → the capacity n
 *   optimal({ m, p })     → the best k (−log₂ p) and its capacity n
 *   optimal({ n, m, p })  → the fewest hashes that reach p
 *
 * A k worked out here is at most MAX_HASHES, the most a filter takes.
 */
export function optimal(input: OptimalInput): OptimalParameters {
  return solve(input, true);
}

/**
 * optimal() for a filter's create(), which bounds m itself, far below
 * MAX_CALC_BITS, and says so in its own arguments' names. @internal
 */
export function filterSizing(input: OptimalInput): OptimalParameters {
  return solve(input, false);
}

/** optimal(); with `bounded`, an m it computes must be one it takes as an m (at most MAX_CALC_BITS). */
function solve(input: OptimalInput, bounded: boolean): OptimalParameters {
  if (input === null || typeof input !== "object") {
    throw new TypeError(`input must be an object such as { n, p }, got ${describe(input)}`);
  }
  // A misspelt name ({ n, fpr }) is refused, not taken as missing.
  checkOptions("input", input, ["n", "p", "m", "k"]);
  const given = (["n", "p", "m", "k"] as const).filter((name) => input[name] !== undefined);
  const has = (name: "n" | "p" | "m" | "k") => given.includes(name);
  const n = has("n") ? checkPositive("n", input.n) : NaN;
  const p = has("p") ? checkProbability("p", input.p) : NaN;
  const m = has("m") ? checkInteger("m", input.m, 1, MAX_CALC_BITS) : NaN;
  const k = has("k") ? checkInteger("k", input.k, 1, MAX_HASHES) : NaN;
  const key = given.join(",");
  switch (key) {
    case "n,p": {
      // Bits first: past them (n = 1e308 overflows m), the k checkReachable derives from m means nothing.
      const bits = optimalBits(n, p);
      if (bounded) checkBits(bits, n, p);
      checkReachable("n", "p", n, p);
      return result(n, bits, optimalHashes(n, bits));
    }
    case "n,p,k": {
      const bits = bitsForHashes(n, p, k);
      if (bounded) checkBits(bits, n, p, k);
      return result(n, bits, k);
    }
    case "n,m":
      return result(n, m, bestWholeHashes(n, m));
    case "n,m,k":
      return result(n, m, k);
    case "n,p,m": {
      const best = bestWholeHashes(n, m);
      if (rateFor(n, m, best) > p) {
        throw new RangeError(
          `m = ${m} bits cannot reach p = ${p} for n = ${n}: the best is ${rateFor(n, m, best)} with k = ${best}`,
        );
      }
      let fewest = 1;
      while (rateFor(n, m, fewest) > p) fewest++;
      return result(n, m, fewest);
    }
    case "p,m,k":
    case "p,m": {
      const hashes = key === "p,m" ? Math.min(MAX_HASHES, Math.max(1, Math.round(-Math.log2(p)))) : k;
      const capacity = capacityFor(m, hashes, p);
      if (capacity < 1) {
        throw new RangeError(`m = ${m} bits with k = ${hashes} cannot hold even one item at p = ${p}`);
      }
      return result(capacity, m, hashes);
    }
    default:
      throw new TypeError(
        `input must hold { n, p }, { n, m }, { m, p } or three of n, p, m, k; got ${given.length ? `{ ${given.join(", ")} }` : "none of them"}`,
      );
  }
}
