// A filter's hashing choice (strategy, hash names, seed): checked from user
// options, compared between filters, and written to / read from the format.
import { checkInteger, describe } from "./errors.js";
import { FormatError, type ParamReader, type ParamWriter } from "./format.js";
import { hashBits, hashId, hashNames, isSeeded, type HashName } from "./hash.js";
import type { Core } from "./core.generated.js";
import type { KeyHash } from "./batch.js";
import { MAX_INDEPENDENT as CORE_MAX_INDEPENDENT, STRATEGY_DOUBLE, STRATEGY_INDEPENDENT, STRATEGY_TRIPLE } from "./constants.generated.js";

/**
 * How a key's k bit indices are derived: "triple" hashing g_i = h1 + i·h2 +
 * i(i−1)/2·h3 from one 64- or 128-bit hash, "double" hashing g_i = h1 + i·h2
 * from the same hash (the default before triple; it adds about 3/(k·m) to the
 * rate), or "independent": one hash function per index.
 */
export type HashStrategy = "triple" | "double" | "independent";

/** The hashing options every filter type takes. */
export interface HashingOptions {
  /** Seed of the key hash, an unsigned 32-bit integer (default 0); only seeded hashes (murmur3_*, xxh*) accept one other than 0. */
  seed?: number;
  /** A 64- or 128-bit hash for triple or double hashing (default "xxh3"), or a list of distinct names for the independent strategy. */
  hash?: HashName | readonly HashName[];
  /** Default "triple", or "independent" when `hash` is a list. */
  strategy?: HashStrategy;
}

export const HASHING_OPTION_NAMES = ["seed", "hash", "strategy"] as const;
/**
 * The default hash: fastest on URL keys in bench/HASHES.md among those that
 * reach the theoretical FPR (XXH3-64: 16.7–25.3 ns/key against xxh64's
 * 28.7–38.3 in two runs, the same avalanche and χ² figures). Filters
 * written with xxh64, the earlier default, record it and keep it when loaded.
 */
export const DEFAULT_HASH: HashName = "xxh3";
/**
 * The strategy of filters made with one hash and no strategy named. Triple,
 * since double hashing's added rate about 3/(k·m) was measured far above the
 * target of small filters at a low p (examples/small-filter-rates.mjs).
 * Filters written with double hashing record it and keep it when loaded.
 */
export const DEFAULT_STRATEGY: HashStrategy = "triple";
/** The wasm core's strategy codes (the format's too). */
export const STRATEGY_CODE: Record<HashStrategy, number> = { double: STRATEGY_DOUBLE, independent: STRATEGY_INDEPENDENT, triple: STRATEGY_TRIPLE };
/** The strategies in the order of their codes. */
const STRATEGIES: readonly HashStrategy[] = (Object.keys(STRATEGY_CODE) as HashStrategy[]).sort((a, b) => STRATEGY_CODE[a] - STRATEGY_CODE[b]);
/** Most hashes the independent strategy can list (the wasm header's room). */
export const MAX_INDEPENDENT = CORE_MAX_INDEPENDENT;

/** A checked hashing choice. */
export interface Hashing {
  strategy: HashStrategy;
  /** The one hash of triple or double hashing, or the independent list. */
  names: readonly HashName[];
  seed: number;
}

/** True for the strategies that take one 64- or 128-bit hash per key (triple and double), which integer keys, key hashes and segments need. */
export function hashesOnce(hashing: { readonly strategy: HashStrategy }): boolean {
  return hashing.strategy !== "independent";
}

/** The 64- and 128-bit hashes triple and double hashing take, as a message offers them. */
const KEY_HASHES: readonly HashName[] = ["fnv1a_64", "murmur3_128", "xxh64", "xxh3"];

/**
 * Checks the hashing options (RangeError/TypeError naming the bad value);
 * `oneHashOnly` for callers that offer no independent strategy, `offered` the
 * hashes a 32-bit hash's message suggests (a cuckoo filter takes no fnv1a_64),
 * `user` what a 32-bit hash's message says needs a wide one (by default the
 * strategy: "triple hashing").
 */
export function resolveHashing(options: Record<string, unknown>, oneHashOnly = false, offered: readonly HashName[] = KEY_HASHES, user?: string): Hashing {
  const seed = options.seed === undefined ? 0 : checkInteger("options.seed", options.seed, 0, 0xffffffff);
  const list = Array.isArray(options.hash);
  const strategy = (options.strategy === undefined ? (list ? "independent" : DEFAULT_STRATEGY) : options.strategy) as HashStrategy;
  if (!STRATEGIES.includes(strategy)) {
    throw new RangeError(`options.strategy must be "triple", "double" or "independent", got ${describe(strategy)}`);
  }
  let names: HashName[];
  if (strategy !== "independent") {
    if (list) throw new TypeError(`options.hash must be one hash name for ${strategy} hashing, got ${describe(options.hash)}`);
    const name = (options.hash === undefined ? DEFAULT_HASH : options.hash) as HashName;
    hashId(name, "options.hash");
    if (hashBits(name) < 64) {
      throw new RangeError(
        `options.hash ${describe(name)} gives 32 bits; ${user ?? `${strategy} hashing`} needs a 64- or 128-bit hash ` +
          `(${offered.join(", ")})${oneHashOnly ? "" : `, or use strategy: "independent"`}`,
      );
    }
    names = [name];
  } else {
    if (!list) throw new TypeError(`options.hash must be a list of hash names for strategy "independent", got ${describe(options.hash)}`);
    names = [...(options.hash as HashName[])];
    if (names.length < 1 || names.length > MAX_INDEPENDENT) {
      throw new RangeError(`options.hash must list 1 to ${MAX_INDEPENDENT} hashes, got ${names.length}`);
    }
    names.forEach((name, i) => hashId(name, `options.hash[${i}]`));
    const repeated = names.find((name, i) => names.indexOf(name) !== i);
    if (repeated) throw new RangeError(`options.hash lists ${describe(repeated)} twice; the same hash gives the same index`);
  }
  const unseeded = names.find((name) => !isSeeded(name));
  if (seed !== 0 && unseeded) {
    throw new RangeError(`options.seed ${seed} needs a seeded hash (murmur3_32, murmur3_128, xxh32, xxh64, xxh3); ${describe(unseeded)} takes none`);
  }
  return { strategy, names: Object.freeze(names), seed };
}

/** The first way two hashing choices differ, or undefined when they are the same. */
export function hashingDifference(a: Hashing, b: Hashing): ParameterDifference | undefined {
  if (a.strategy !== b.strategy) return { name: "strategy", mine: a.strategy, theirs: b.strategy };
  if (a.names.join() !== b.names.join()) return { name: "hash", mine: a.names.join(", "), theirs: b.names.join(", ") };
  if (a.seed !== b.seed) return { name: "seed", mine: a.seed, theirs: b.seed };
  return undefined;
}

/** A parameter two filters do not share: its name, and its value in each (this filter's, then the argument's). */
export interface ParameterDifference {
  readonly name: string;
  readonly mine: string | number;
  readonly theirs: string | number;
}

/** Format: u8 strategy, u8 count c, u16 reserved 0, u32 seed, c × u8 hash id. */
export function writeHashing(w: ParamWriter, hashing: Hashing): void {
  w.u8(STRATEGY_CODE[hashing.strategy]).u8(hashing.names.length).u8(0).u8(0).u32(hashing.seed);
  for (const name of hashing.names) w.u8(hashId(name));
}

/** Reads and re-checks a hashing choice; anything invalid is a FormatError. */
export function readHashing(r: ParamReader): Hashing {
  const strategy = r.u8();
  const count = r.u8();
  if (r.u8() !== 0 || r.u8() !== 0) throw new FormatError("corrupted: reserved hashing bytes are not 0");
  const seed = r.u32();
  const names = Array.from({ length: count }, () => {
    const id = r.u8();
    if (id >= hashNames.length) throw new FormatError(`corrupted: hash id ${id} is unknown`);
    return hashNames[id];
  });
  if (strategy >= STRATEGIES.length) throw new FormatError(`corrupted: strategy code ${strategy} is unknown`);
  const name = STRATEGIES[strategy];
  try {
    return name === "independent"
      ? resolveHashing({ strategy: name, hash: names, seed })
      : resolveHashing({ strategy: name, hash: count === 1 ? names[0] : names, seed });
  } catch (error) {
    throw new FormatError(`corrupted: ${(error as Error).message}`);
  }
}

/** Writes the header the Bloom-style filters share (assembly/indices.ts) into a fresh block. */
export function writeIndexHeader(core: Core, ptr: number, bits: number, hashes: number, hashing: Hashing, baseBits = bits): void {
  const { strategy, names, seed } = hashing;
  core.bloomInit(ptr, bits, hashes, hashId(names[0]), seed, STRATEGY_CODE[strategy]);
  core.bloomSetBaseBits(ptr, baseBits);
  if (strategy === "independent") names.forEach((name, i) => core.bloomSetIndependentHash(ptr, i, hashId(name)));
}

/** The one key hash of triple or double hashing as the batch layer takes it (id and seed); null for independent hashes, whose kernels read the key's bytes. */
export function keyHashOf(hashing: Hashing): KeyHash | null {
  return hashesOnce(hashing) ? { id: hashId(hashing.names[0]), seed: hashing.seed } : null;
}

/** The hash as a filter's `hash` reports it and `options.hash` takes it: one name for triple or double hashing, the list for independent. */
export function hashOf(hashing: Hashing): HashName | readonly HashName[] {
  return hashesOnce(hashing) ? hashing.names[0] : hashing.names;
}

/** The options that recreate a hashing choice. */
export function hashingOptions(hashing: Hashing): HashingOptions {
  return { strategy: hashing.strategy, hash: hashOf(hashing), seed: hashing.seed };
}
