// The standard Bloom filter: an m-bit array in wasm memory and k indices per
// key from Kirsch–Mitzenmacher double hashing over one 64-bit xxh64 hash.
import { core, heapU8, MAX_BLOCK_BYTES } from "./wasm.js";
import { allocate, disown, own } from "./memory.js";
import { checkInteger, checkOptions, checkPositive, checkProbability, formatBytes } from "./errors.js";
import { forEachChunk, forEachPackedChunk, useScratch, writeKey, type Key } from "./keys.js";
import { falsePositiveRateFor, MAX_HASHES, optimal } from "./optimal.js";

/** Options shared by the constructors. */
export interface BloomFilterOptions {
  /** Seed of the key hash, an unsigned 32-bit integer (default 0). Filters with different seeds are incompatible. */
  seed?: number;
}

const OPTION_NAMES = ["seed"] as const;
const HEADER_BYTES = core.bloomBlockBytes(0);
/** Largest m a single filter can have: its block must fit the allocator's 1 GiB − 4 byte limit. */
export const MAX_FILTER_BITS = Math.floor((MAX_BLOCK_BYTES - HEADER_BYTES) / 8) * 64;

function checkSeed(options: Record<string, unknown>): number {
  return options.seed === undefined ? 0 : checkInteger("options.seed", options.seed, 0, 0xffffffff);
}

/** A standard Bloom filter: no false negatives, false positives at a rate set by m, k and n. */
export class BloomFilter implements Disposable {
  #ptr: number;
  readonly #bits: number;
  readonly #hashes: number;
  readonly #seed: number;
  #count = 0;
  /** Set bits, or −1 when an add may have changed them. */
  #setBits = 0;

  private constructor(bits: number, hashes: number, seed: number) {
    const bytes = core.bloomBlockBytes(bits);
    this.#ptr = allocate(bytes, `a Bloom filter of ${bits} bits`);
    core.bloomInit(this.#ptr, bits, hashes, seed);
    own(this, this.#ptr, bytes);
    this.#bits = bits;
    this.#hashes = hashes;
    this.#seed = seed;
  }

  /**
   * A filter sized for `expectedItems` keys at `falsePositiveRate`:
   * m = ⌈−n·ln p / (ln 2)²⌉ bits and k = round(m/n · ln 2) hashes (at least 1).
   */
  static create(expectedItems: number, falsePositiveRate: number, options?: BloomFilterOptions): BloomFilter {
    const n = checkPositive("expectedItems", expectedItems);
    const p = checkProbability("falsePositiveRate", falsePositiveRate);
    const { m, k } = optimal({ n, p });
    if (m > MAX_FILTER_BITS) {
      throw new RangeError(
        `a filter for ${n} items at p = ${p} needs ${m} bits (${formatBytes(m / 8)}); ` +
          `one filter holds at most ${MAX_FILTER_BITS} bits (${formatBytes(MAX_FILTER_BITS / 8)})`,
      );
    }
    return BloomFilter.withSize(m, k, options);
  }

  /** A filter of exactly `bits` bits and `hashes` hash functions. */
  static withSize(bits: number, hashes: number, options?: BloomFilterOptions): BloomFilter {
    checkInteger("bits", bits, 1, MAX_FILTER_BITS);
    checkInteger("hashes", hashes, 1, MAX_HASHES);
    const seed = checkSeed(checkOptions("options", options, OPTION_NAMES));
    return new BloomFilter(bits, hashes, seed);
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
    return this.#seed;
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
