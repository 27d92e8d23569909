// The standard Bloom filter: an m-bit array in wasm memory and k indices per
// key, by default from Kirsch–Mitzenmacher double hashing over one 64-bit
// xxh64 hash (see assembly/bloom.ts).
import { core, heapU8, MAX_BLOCK_BYTES } from "./wasm.js";
import { allocate, disown, own } from "./memory.js";
import { checkInteger, checkOptions, checkPositive, checkProbability, describe, formatBytes } from "./errors.js";
import { forEachChunk, forEachPackedChunk, useScratch, writeKey, type Key } from "./keys.js";
import { falsePositiveRateFor, MAX_HASHES, optimal } from "./optimal.js";
import { hashBits, hashId, isSeeded, type HashName } from "./hash.js";

/**
 * How a key's k bit indices are derived: "double" hashing g_i = h1 + i·h2
 * from one 64- or 128-bit hash, or "independent": one hash function per index.
 */
export type HashStrategy = "double" | "independent";

/** Options shared by the constructors. */
export interface BloomFilterOptions {
  /** Seed of the key hash, an unsigned 32-bit integer (default 0); only seeded hashes (murmur3_*, xxh*) accept one other than 0. */
  seed?: number;
  /** A 64- or 128-bit hash for double hashing (default "xxh64"), or a list of distinct names for the independent strategy. */
  hash?: HashName | readonly HashName[];
  /** Default "double", or "independent" when `hash` is a list. */
  strategy?: HashStrategy;
}

const OPTION_NAMES = ["seed", "hash", "strategy"] as const;
/** The default hash: fastest on URL keys in bench/HASHES.md among those that reach the theoretical FPR. */
export const DEFAULT_HASH: HashName = "xxh64";
/** The wasm core's strategy codes. */
const STRATEGY_CODE: Record<HashStrategy, number> = { double: 0, independent: 1 };
/** Most hashes the independent strategy can list (the wasm header's room). */
const MAX_INDEPENDENT = 32;
const HEADER_BYTES = core.bloomBlockBytes(0);
/** Largest m a single filter can have: its block must fit the allocator's 1 GiB − 4 byte limit. */
export const MAX_FILTER_BITS = Math.floor((MAX_BLOCK_BYTES - HEADER_BYTES) / 8) * 64;

/** The hashing a filter uses, checked. */
interface Hashing {
  strategy: HashStrategy;
  /** The double-hashing hash, or the independent list. */
  names: readonly HashName[];
  seed: number;
}

function resolveHashing(options: Record<string, unknown>): Hashing {
  const seed = options.seed === undefined ? 0 : checkInteger("options.seed", options.seed, 0, 0xffffffff);
  const list = Array.isArray(options.hash);
  const strategy = options.strategy ?? (list ? "independent" : "double");
  if (strategy !== "double" && strategy !== "independent") {
    throw new RangeError(`options.strategy must be "double" or "independent", got ${describe(strategy)}`);
  }
  let names: HashName[];
  if (strategy === "double") {
    if (list) throw new TypeError(`options.hash must be one hash name for double hashing, got ${describe(options.hash)}`);
    const name = (options.hash ?? DEFAULT_HASH) as HashName;
    hashId(name, "options.hash");
    if (hashBits(name) < 64) {
      throw new RangeError(
        `options.hash ${describe(name)} gives 32 bits; double hashing needs a 64- or 128-bit hash ` +
          `(fnv1a_64, murmur3_128, xxh64), or use strategy: "independent"`,
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
    throw new RangeError(`options.seed ${seed} needs a seeded hash (murmur3_32, murmur3_128, xxh32, xxh64); ${describe(unseeded)} takes none`);
  }
  return { strategy, names: Object.freeze(names), seed };
}

/** A standard Bloom filter: no false negatives, false positives at a rate set by m, k and n. */
export class BloomFilter implements Disposable {
  #ptr: number;
  readonly #bits: number;
  readonly #hashes: number;
  readonly #hashing: Hashing;
  #count = 0;
  /** Set bits, or −1 when an add may have changed them. */
  #setBits = 0;

  private constructor(bits: number, hashes: number, hashing: Hashing) {
    const bytes = core.bloomBlockBytes(bits);
    const ptr = allocate(bytes, `a Bloom filter of ${bits} bits`);
    const { strategy, names, seed } = hashing;
    core.bloomInit(ptr, bits, hashes, hashId(names[0]), seed, STRATEGY_CODE[strategy]);
    if (strategy === "independent") names.forEach((name, i) => core.bloomSetIndependentHash(ptr, i, hashId(name)));
    own(this, ptr, bytes);
    this.#ptr = ptr;
    this.#bits = bits;
    this.#hashes = hashes;
    this.#hashing = hashing;
  }

  /**
   * A filter sized for `expectedItems` keys at `falsePositiveRate`:
   * m = ⌈−n·ln p / (ln 2)²⌉ bits and k = round(m/n · ln 2) hashes (at least
   * 1). With the independent strategy, k is the number of hashes listed and
   * m the smallest that reaches p with that k.
   */
  static create(expectedItems: number, falsePositiveRate: number, options?: BloomFilterOptions): BloomFilter {
    const n = checkPositive("expectedItems", expectedItems);
    const p = checkProbability("falsePositiveRate", falsePositiveRate);
    const hashing = resolveHashing(checkOptions("options", options, OPTION_NAMES));
    const { m, k } = hashing.strategy === "independent" ? optimal({ n, p, k: hashing.names.length }) : optimal({ n, p });
    if (m > MAX_FILTER_BITS) {
      throw new RangeError(
        `a filter for ${n} items at p = ${p} needs ${m} bits (${formatBytes(m / 8)}); ` +
          `one filter holds at most ${MAX_FILTER_BITS} bits (${formatBytes(MAX_FILTER_BITS / 8)})`,
      );
    }
    return new BloomFilter(m, k, hashing);
  }

  /** A filter of exactly `bits` bits and `hashes` hash functions (with the independent strategy, as many as listed). */
  static withSize(bits: number, hashes: number, options?: BloomFilterOptions): BloomFilter {
    checkInteger("bits", bits, 1, MAX_FILTER_BITS);
    checkInteger("hashes", hashes, 1, MAX_HASHES);
    const hashing = resolveHashing(checkOptions("options", options, OPTION_NAMES));
    if (hashing.strategy === "independent" && hashing.names.length !== hashes) {
      throw new RangeError(`hashes is ${hashes} but options.hash lists ${hashing.names.length} hashes for strategy "independent"`);
    }
    return new BloomFilter(bits, hashes, hashing);
  }

  /** m, the number of bits. */
  get bits(): number {
    return this.#bits;
  }

  /** k, the number of hash functions. */
  get hashes(): number {
    return this.#hashes;
  }

  /** The hash seed. */
  get seed(): number {
    return this.#hashing.seed;
  }

  /** The hash name (double hashing) or the list of names (independent). */
  get hash(): HashName | readonly HashName[] {
    const { strategy, names } = this.#hashing;
    return strategy === "double" ? names[0] : names;
  }

  /** How indices are derived from the key. */
  get strategy(): HashStrategy {
    return this.#hashing.strategy;
  }

  /** Keys added that set at least one new bit: distinct keys, less those the filter already took for present. */
  get count(): number {
    this.#live();
    return this.#count;
  }

  /** Fraction of bits set, X / m. */
  get fillRatio(): number {
    return this.#countSetBits() / this.#bits;
  }

  /** Estimate of the distinct keys added, −m/k · ln(1 − X/m) (Swamidass & Baldi); Infinity when every bit is set. */
  estimatedCount(): number {
    const x = this.#countSetBits();
    return (-this.#bits / this.#hashes) * Math.log1p(-x / this.#bits);
  }

  /** The false-positive rate now, from the fill: (X/m)^k. */
  falsePositiveRate(): number {
    return Math.pow(this.#countSetBits() / this.#bits, this.#hashes);
  }

  /** The rate the formula predicts for `items` distinct keys in this filter: (1 − e^(−k·n/m))^k. */
  expectedFalsePositiveRate(items: number = this.count): number {
    return falsePositiveRateFor(items, this.#bits, this.#hashes);
  }

  /** Adds a key. */
  add(key: Key): this {
    this.#insertOne(key);
    return this;
  }

  /** True when the key is probably present; false when it is definitely absent. */
  has(key: Key): boolean {
    const ptr = this.#live();
    const len = writeKey(key);
    return core.bloomHas(ptr, useScratch(0).bytes, len) === 1;
  }

  /** Adds a key and returns true when it was probably present before (a de-duplication step in one call). */
  testAndAdd(key: Key): boolean {
    return !this.#insertOne(key);
  }

  /** The key's k bit indices, in the order the hashes produce them (duplicates possible). */
  positions(key: Key): number[] {
    const ptr = this.#live();
    const len = writeKey(key);
    // The scratch result bytes hold at least MAX_BATCH_KEYS ≥ 8 × MAX_HASHES bytes.
    const { bytes, out } = useScratch(0);
    core.bloomPositions(ptr, bytes, len, out);
    return Array.from(new Float64Array(core.memory.buffer, out, this.#hashes));
  }

  /** Adds every key, in one wasm call per chunk. */
  addMany(keys: readonly Key[]): this {
    const ptr = this.#live();
    forEachChunk(keys as Key[], (count, _first, keysPtr, start) => {
      this.#added(core.bloomAddPacked(ptr, keysPtr, useScratch(0).ends, count, start, 0));
    });
    return this;
  }

  /** Queries every key: 1 = probably present, 0 = definitely absent. */
  hasMany(keys: readonly Key[]): Uint8Array {
    const ptr = this.#live();
    const result = new Uint8Array(keys.length);
    forEachChunk(keys as Key[], (count, first, keysPtr, start) => {
      const { ends, out } = useScratch(0);
      core.bloomHasPacked(ptr, keysPtr, ends, count, start, out);
      result.set(heapU8().subarray(out, out + count), first);
    });
    return result;
  }

  /** Adds every key in order; result[i] = 1 when key i was probably present before it was added. */
  testAndAddMany(keys: readonly Key[]): Uint8Array {
    const ptr = this.#live();
    const result = new Uint8Array(keys.length);
    forEachChunk(keys as Key[], (count, first, keysPtr, start) => {
      const { ends, out } = useScratch(0);
      this.#added(core.bloomAddPacked(ptr, keysPtr, ends, count, start, out));
      result.set(heapU8().subarray(out, out + count), first);
    });
    return result;
  }

  /** Adds keys packed in one buffer: key i is bytes[ends[i−1] .. ends[i]) (key 0 starts at 0). Skips string encoding. */
  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    const ptr = this.#live();
    forEachPackedChunk(bytes, ends, (count, _first, keysPtr, start) => {
      this.#added(core.bloomAddPacked(ptr, keysPtr, useScratch(0).ends, count, start, 0));
    });
    return this;
  }

  /** Queries keys packed as in addPacked: 1 = probably present, 0 = definitely absent. */
  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    const ptr = this.#live();
    const result = new Uint8Array(ends instanceof Uint32Array ? ends.length : 0);
    forEachPackedChunk(bytes, ends, (count, first, keysPtr, start) => {
      const { ends: endsPtr, out } = useScratch(0);
      core.bloomHasPacked(ptr, keysPtr, endsPtr, count, start, out);
      result.set(heapU8().subarray(out, out + count), first);
    });
    return result;
  }

  /** Releases the filter's wasm memory now; any later use throws. Calling it again does nothing. */
  dispose(): void {
    if (this.#ptr === 0) return;
    disown(this, this.#ptr);
    this.#ptr = 0;
  }

  /** For `using filter = BloomFilter.create(…)`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** True once dispose() ran. */
  get disposed(): boolean {
    return this.#ptr === 0;
  }

  #live(): number {
    if (this.#ptr === 0) throw new Error("this BloomFilter was disposed");
    return this.#ptr;
  }

  /** Inserts one key; true when it set a new bit. */
  #insertOne(key: Key): boolean {
    const ptr = this.#live();
    const len = writeKey(key);
    const fresh = core.bloomAdd(ptr, useScratch(0).bytes, len);
    this.#added(fresh);
    return fresh === 1;
  }

  #added(fresh: number): void {
    if (fresh > 0) {
      this.#count += fresh;
      this.#setBits = -1;
    }
  }

  #countSetBits(): number {
    const ptr = this.#live();
    if (this.#setBits < 0) this.#setBits = core.bloomSetBits(ptr);
    return this.#setBits;
  }
}
