// Split-block Bloom filter compatible with Apache Parquet's (see
// assembly/split-block.ts): one 32-byte block per key, so one cache line per
// add or query, at the cost of a few more bits per key than a standard filter.
import { KeyHashedBlock } from "./key-hashed-block.js";
import type { Placement } from "./wasm-block.js";
import { MAX_BLOCK_BYTES, type Block } from "./memory.js";
import { HASH_XXH64, OP_ADD, OP_HAS, SBBF_HEADER } from "./constants.generated.js";
import { checkCount, checkInteger, checkOptions, checkVisit, checkPositive, checkProbability, checkCreateNumbers, describe, formatBytes, checkMadeBy, checkReadable } from "./errors.js";
import { type Chunk, type Kernel, type KeyHash, type KeySource } from "./batch.js";
import { checkKey, isBytes, SHARED_KEY_BYTES, type Key } from "./keys.js";
import { checkChunksOptions, checkDeserializeOptions, openHandle, type DeserializeChunksOptions, type DeserializeOptions, type SharedFilterHandle } from "./shared.js";
import type { Filter } from "./filter.js";
import {
  checkOneArray,
  FilterType,
  FormatError,
  ParamReader,
  ParamWriter,
  fromBase64,
  readRecordBytes,
  readRecordStream,
  TOO_LARGE_FOR_ONE_ARRAY,
  type ByteSource,
  type Loader,
  type RecordSource,
  type Region,
} from "./format.js";

/** Bytes before the first block: the block count, padded so blocks stay 32-byte aligned (assembly/split-block.ts). */
const HEADER_BYTES = SBBF_HEADER;
/** Bytes of one block: eight 32-bit words. */
export const SBBF_BLOCK_BYTES = 32;
/** The specification fixes the key hash: xxh64 with seed 0. */
const KEY_HASH: KeyHash = { id: HASH_XXH64, seed: 0 };
/** The Parquet specification's bounds on a filter's size in bytes. */
const MIN_BYTES = 32;
/** Blocks one segment holds (one wasm memory). */
const MAX_SEGMENT_BLOCKS = Math.floor((MAX_BLOCK_BYTES - HEADER_BYTES) / SBBF_BLOCK_BYTES);
/** Blocks a filter holds: block numbers are u32 in the specification's formula (128 GiB). */
const MAX_BLOCKS = 2 ** 32 - 1;
/**
 * The most blocks splitBlockBytesFor answers, either sizing, and the exact
 * sizing searches (4 PiB: far past any filter, so a larger answer means n or
 * p is a mistake; and below 2^53 so the search stays exact).
 */
const MAX_SEARCH_BLOCKS = 2 ** 47;

/** Blocks per segment for a filter of `blocks` blocks: all of them, or an equal share (the last segment takes what is left). */
function segmentBlocks(blocks: number): number {
  const segments = Math.ceil(blocks / MAX_SEGMENT_BLOCKS);
  return Math.ceil(blocks / segments);
}

/**
 * Bytes for n distinct values at rate p. With `powerOfTwo` (the default),
 * the Parquet guidance: m = −8n / ln(1 − p^(1/8)) bits rounded up to a power
 * of two, as Parquet writers size filters. That formula is the standard Bloom
 * filter's and flatters a blocked filter (sized exactly by it, the rate is
 * about twice p); the rounding usually makes up for it. Without `powerOfTwo`:
 * the fewest 32-byte blocks whose actual rate (splitBlockFalsePositiveRate)
 * is at most p.
 *
 * A number to plan with: it may be more than one filter holds (2^32 − 1
 * blocks, which create() and sizeFor() refuse past), up to 2^47 blocks
 * (4 PiB); past that it throws a RangeError naming n and p, either sizing.
 */
export function splitBlockBytesFor(n: number, p: number, powerOfTwo = true): number {
  checkPositive("n", n);
  checkProbability("p", p);
  if (typeof powerOfTwo !== "boolean") throw new TypeError(`powerOfTwo must be a boolean, got ${describe(powerOfTwo)}`);
  return bytesFor(n, p, powerOfTwo);
}

/**
 * Blocks of create()'s filter for n keys at rate p; a RangeError naming
 * create()'s arguments when that is more than a filter holds.
 */
function blocksFor(n: number, p: number, powerOfTwo: boolean): number {
  const blocks = powerOfTwo ? parquetBytes(n, p) / SBBF_BLOCK_BYTES : fewestBlocks(n, p);
  if (blocks > MAX_BLOCKS) {
    const needs = blocks > MAX_SEARCH_BLOCKS ? `more than ${MAX_SEARCH_BLOCKS} blocks` : `${blocks} blocks (${formatBytes(blocks * SBBF_BLOCK_BYTES)})`;
    throw new RangeError(`a split-block filter for expectedItems = ${n} at falsePositiveRate = ${p} needs ${needs}; a filter holds at most ${MAX_BLOCKS} (${formatBytes(MAX_BLOCKS * SBBF_BLOCK_BYTES)})`);
  }
  return blocks;
}

/** create()'s and sizeFor()'s arguments (`call` names which, for the hint a missing number gets), checked in that order: n, p, the options (named `names`), and powerOfTwo (default true). */
function checkSizing(call: string, expectedItems: number, falsePositiveRate: number, options: unknown, names: readonly string[]) {
  const { n, p } = checkCreateNumbers(call, "expectedItems", expectedItems, falsePositiveRate);
  const checked = checkOptions("options", options, names);
  if (checked.powerOfTwo !== undefined && typeof checked.powerOfTwo !== "boolean") {
    throw new TypeError(`options.powerOfTwo must be a boolean, got ${describe(checked.powerOfTwo)}`);
  }
  return { n, p, powerOfTwo: checked.powerOfTwo !== false, checked };
}

/** splitBlockBytesFor without the argument checks. */
function bytesFor(n: number, p: number, powerOfTwo: boolean): number {
  const blocks = powerOfTwo ? parquetBytes(n, p) / SBBF_BLOCK_BYTES : fewestBlocks(n, p);
  if (blocks > MAX_SEARCH_BLOCKS) {
    throw new RangeError(`a split-block filter for n = ${n} at p = ${p} needs more than ${MAX_SEARCH_BLOCKS} blocks (${formatBytes(MAX_SEARCH_BLOCKS * SBBF_BLOCK_BYTES)})`);
  }
  return blocks * SBBF_BLOCK_BYTES;
}

/** The Parquet guidance's bytes for n keys at rate p: −8n / ln(1 − p^(1/8)) bits, rounded up to a power of two. */
const parquetBytes = (n: number, p: number) => Math.max(MIN_BYTES, 2 ** Math.ceil(Math.log2((-8 * n) / Math.log1p(-Math.pow(p, 1 / 8)) / 8)));

/** The fewest blocks whose rate for n keys is at most p; Infinity when that is more than MAX_SEARCH_BLOCKS. */
function fewestBlocks(n: number, p: number): number {
  let low = 1;
  let high = Math.max(1, Math.ceil((-16 * n) / Math.log1p(-Math.pow(p, 1 / 8)) / 256)); // twice the formula: always enough
  while (high <= MAX_SEARCH_BLOCKS && blockRate(n, high) > p) high *= 2;
  if (high > MAX_SEARCH_BLOCKS) return Infinity;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (blockRate(n, middle) <= p) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** A word's chance that one key leaves a given bit clear: 31/32. */
const WORD_MISS = 31 / 32;
/** Below this many keys per block the rate is summed over the keys a block holds; above it, the closed form loses nothing to cancellation. */
const SUM_BELOW_KEYS_PER_BLOCK = 64;
/** C(8, i). */
const CHOOSE_8 = [1, 8, 28, 56, 70, 56, 28, 8, 1];

/**
 * Expected false-positive rate of n random keys in `blocks` blocks: a probe's
 * block holds J keys, J binomial(n, 1/blocks), and answers yes with
 * probability (1 − (31/32)^J)^8 (one bit in each of its 8 words). Exact for
 * random hashes at every fill, from 0 (empty) to 1 (saturated): the closed
 * form Σ_i C(8,i)·(−1)^i·(1 − (1 − (31/32)^i)/blocks)^n, or, at low fill
 * where its terms would cancel, the sum over J (at most a few hundred terms).
 */
export function splitBlockFalsePositiveRate(n: number, blocks: number): number {
  checkCount("n", n);
  checkInteger("blocks", blocks, 1, Number.MAX_SAFE_INTEGER);
  return blockRate(n, blocks);
}

/** splitBlockFalsePositiveRate without the argument checks. */
function blockRate(n: number, blocks: number): number {
  if (n === 0) return 0;
  if (blocks === 1) return Math.pow(-Math.expm1(n * Math.log(WORD_MISS)), 8);
  if (n / blocks > SUM_BELOW_KEYS_PER_BLOCK) {
    let rate = 0;
    for (let i = 0; i <= 8; i++) rate += CHOOSE_8[i] * (i % 2 === 0 ? 1 : -1) * Math.exp(n * Math.log1p(-(1 - WORD_MISS ** i) / blocks));
    return Math.min(1, Math.max(0, rate));
  }
  const whole = Math.floor(n);
  const part = n - whole;
  const low = binomialRate(whole, blocks);
  return part === 0 ? low : low + part * (binomialRate(whole + 1, blocks) - low);
}

/** The last J the sum over J reaches: where the binomial tail is below 1e-30. */
const lastBlockFill = (n: number, mean: number) => Math.min(n, Math.ceil(mean + 12 * Math.sqrt(mean) + 30));

/**
 * (1 − (31/32)^j)^8, a probe's chance in a block of j keys, for every j the sum
 * reaches, worked out once: dedup's summary sums 4,000 times, and the
 * transcendental calls took 15 ms of its run.
 */
let blockFillRates: Float64Array | undefined;
function fillRates(): Float64Array {
  if (blockFillRates) return blockFillRates;
  // The sum is taken at n/blocks ≤ SUM_BELOW_KEYS_PER_BLOCK, and its interpolation at one key more.
  const rates = new Float64Array(lastBlockFill(Infinity, SUM_BELOW_KEYS_PER_BLOCK + 1) + 1);
  for (let j = 1; j < rates.length; j++) rates[j] = Math.pow(-Math.expm1(j * Math.log(WORD_MISS)), 8);
  return (blockFillRates = rates);
}

/** Σ_j P(J = j)·(1 − (31/32)^j)^8 for J binomial(n, 1/blocks), n an integer, n/blocks at most SUM_BELOW_KEYS_PER_BLOCK. */
function binomialRate(n: number, blocks: number): number {
  const last = lastBlockFill(n, n / blocks);
  const rates = fillRates();
  const ratio = 1 / (blocks - 1);
  let term = Math.exp(n * Math.log1p(-1 / blocks)); // P(J = 0)
  let rate = 0;
  for (let j = 1; j <= last; j++) {
    term *= ((n - j + 1) / j) * ratio;
    rate += term * rates[j];
  }
  return rate;
}

/** What share() hands to other threads: the memories and the block count. */
export type SharedSplitBlockBloomFilterHandle = SharedFilterHandle<"SplitBlockBloomFilter", { blocks: number }>;

/** The options of create() and withSize(). */
export interface SplitBlockBloomFilterOptions {
  /** create() only: size as Parquet writers do, a power of two of bytes (default true). */
  powerOfTwo?: boolean;
  /** Hold the blocks in shared memory, so that share() can hand the same filter to worker threads. */
  shared?: boolean;
}

/** The size of the filter SplitBlockBloomFilter.create() makes, as sizeFor() gives it. */
export interface SplitBlockBloomFilterSize {
  /** Blocks of 32 bytes (the filter's `blocks`). */
  blocks: number;
  /** Bits of the bitset, blocks · 256 (the filter's `bits`). */
  bits: number;
  /** Bytes of the bitset, blocks · 32 (the length of its toParquetBitset()). */
  bytes: number;
}

/** A Parquet-compatible split-block Bloom filter (xxh64 with seed 0, as the specification fixes). */
export class SplitBlockBloomFilter extends KeyHashedBlock implements Filter {
  readonly #blocks: number;
  readonly #perSegment: number;

  private constructor(blocks: number, placement?: Placement) {
    checkMadeBy(Number.isInteger(blocks) && blocks >= 1 && blocks <= MAX_BLOCKS && (placement === undefined || typeof placement === "object"), "SplitBlockBloomFilter", "SplitBlockBloomFilter.create(expectedItems, falsePositiveRate), SplitBlockBloomFilter.withSize(blocks) or deserialize(bytes)");
    const perSegment = segmentBlocks(blocks);
    const sizes: number[] = [];
    for (let first = 0; first < blocks; first += perSegment) sizes.push(HEADER_BYTES + Math.min(perSegment, blocks - first) * SBBF_BLOCK_BYTES);
    super(sizes, () => `a split-block Bloom filter of ${blocks} blocks (${formatBytes(HEADER_BYTES * sizes.length + blocks * SBBF_BLOCK_BYTES)})`, undefined, placement);
    // A filter received from another thread has its headers written already.
    if (!(placement && "attach" in placement)) {
      this.segments().forEach(({ arena, ptr }, s) => arena.core.sbbfInit(ptr, Math.min(perSegment, blocks - s * perSegment), blocks, s * perSegment));
    }
    this.#blocks = blocks;
    this.#perSegment = perSegment;
  }

  /** The key count of `size`, shared by every thread for a shared filter. */
  get #count(): number {
    return this.keyCount;
  }

  set #count(n: number) {
    this.setKeyCount(n);
  }

  /** Where the blocks are: one region of wasm memory per segment, in order (together, the Parquet bitset). */
  #regions(): Region[] {
    return this.segments().map(({ arena, ptr }, s) => ({ arena, ptr: ptr + HEADER_BYTES, bytes: Math.min(this.#perSegment, this.#blocks - s * this.#perSegment) * SBBF_BLOCK_BYTES }));
  }

  /**
   * Sized as the Parquet specification suggests for `expectedItems` keys at
   * `falsePositiveRate`: −8n / ln(1 − p^(1/8)) bits, rounded up to a
   * power-of-two number of bytes as Parquet writers do. `powerOfTwo: false`
   * takes the fewest blocks whose actual rate is at most p (see
   * splitBlockBytesFor), still a valid split-block filter.
   */
  static create(expectedItems: number, falsePositiveRate: number, options?: SplitBlockBloomFilterOptions): SplitBlockBloomFilter {
    const { n, p, powerOfTwo, checked } = checkSizing("SplitBlockBloomFilter.create", expectedItems, falsePositiveRate, options, ["powerOfTwo", "shared"]);
    const placement = sharedPlacement(checked.shared);
    return new SplitBlockBloomFilter(blocksFor(n, p, powerOfTwo), placement);
  }

  /**
   * The filter create(expectedItems, falsePositiveRate, options) makes,
   * without making it: its `blocks`, `bits` and `bytes` (the bitset, as
   * toParquetBitset() gives it). Throws what create() throws for these
   * arguments, a filter larger than one filter holds included, but for the
   * free-memory check: it allocates nothing.
   */
  static sizeFor(expectedItems: number, falsePositiveRate: number, options?: Pick<SplitBlockBloomFilterOptions, "powerOfTwo">): SplitBlockBloomFilterSize {
    const { n, p, powerOfTwo } = checkSizing("SplitBlockBloomFilter.sizeFor", expectedItems, falsePositiveRate, options, ["powerOfTwo"]);
    const blocks = blocksFor(n, p, powerOfTwo);
    return { blocks, bits: blocks * SBBF_BLOCK_BYTES * 8, bytes: blocks * SBBF_BLOCK_BYTES };
  }

  /** Exactly `blocks` blocks of 32 bytes; `options.shared` as in create(). */
  static withSize(blocks: number, options?: Pick<SplitBlockBloomFilterOptions, "shared">): SplitBlockBloomFilter {
    const checked = checkOptions("options", options, ["shared"]);
    return new SplitBlockBloomFilter(checkInteger("blocks", blocks, 1, MAX_BLOCKS), sharedPlacement(checked.shared));
  }

  /**
   * A handle to this filter for other threads (it must have been created
   * with { shared: true }): post it to a worker and call
   * SplitBlockBloomFilter.fromShared(handle) there (see BloomFilter.share()).
   */
  share(): SharedSplitBlockBloomFilterHandle {
    return { type: "SplitBlockBloomFilter", memories: this.sharedMemories(), params: { blocks: this.#blocks } };
  }

  /** This thread's filter over the same blocks as the shared filter whose share() gave `handle`, live. */
  static fromShared(handle: SharedSplitBlockBloomFilterHandle): SplitBlockBloomFilter {
    const { blocks: attached, params } = openHandle(handle, "SplitBlockBloomFilter", Math.ceil(MAX_BLOCKS / MAX_SEGMENT_BLOCKS));
    const blocks = checkInteger("handle.params.blocks", params.blocks, 1, MAX_BLOCKS);
    const perSegment = segmentBlocks(blocks);
    const fits =
      attached.length === Math.ceil(blocks / perSegment) &&
      attached.every(({ arena, ptr, bytes }, s) => {
        const words = arena.u32();
        const held = Math.min(perSegment, blocks - s * perSegment);
        return bytes === HEADER_BYTES + held * SBBF_BLOCK_BYTES && words[ptr >>> 2] === held && words[(ptr >>> 2) + 1] === blocks && words[(ptr >>> 2) + 2] === s * perSegment;
      });
    if (!fits) {
      // Every segment's header records the blocks it holds, the filter's blocks in all and its first block: the first
      // memory's tells the filter's size, unless it holds no split-block filter (a BloomFilter's memory read as one said "of 0 blocks").
      const { arena, ptr, bytes } = attached[0];
      const [first, held, start] = arena.u32().subarray(ptr >>> 2, (ptr >>> 2) + 3);
      const splitBlock = held >= 1 && held <= MAX_BLOCKS && start === 0 && first === segmentBlocks(held) && bytes === HEADER_BYTES + first * SBBF_BLOCK_BYTES;
      const memories = attached.length === 1 ? "1 shared memory" : `${attached.length} shared memories`;
      if (!splitBlock) throw new RangeError(`handle.params.blocks = ${blocks} does not match: no split-block filter is in the ${memories} the handle holds (another type of filter's?)`);
      throw new RangeError(`handle.params.blocks = ${blocks} does not match the filter in the ${memories} it holds, of ${held} blocks`);
    }
    return new SplitBlockBloomFilter(blocks, { attach: attached });
  }

  /** A filter over a Parquet bitset (a whole number of 32-byte blocks), as read from a Parquet file. */
  static fromParquetBitset(bitset: Uint8Array): SplitBlockBloomFilter {
    if (!isBytes(bitset)) throw new TypeError(`bitset must be a Uint8Array, got ${describe(bitset)}`);
    checkReadable("bitset", bitset);
    if (bitset.length === 0 || bitset.length % SBBF_BLOCK_BYTES !== 0) {
      throw new RangeError(`bitset.length must be a whole number of 32-byte blocks, at least one (a Parquet bitset's), got ${bitset.length}`);
    }
    const filter = SplitBlockBloomFilter.withSize(bitset.length / SBBF_BLOCK_BYTES);
    let at = 0;
    for (const { arena, ptr, bytes } of filter.#regions()) {
      arena.u8().set(bitset.subarray(at, at + bytes), ptr);
      at += bytes;
    }
    // Each key counted set a bit of its own, so the set bits bound the estimate (which is Infinity when all are set).
    filter.#count = Math.min(filter.#setBits(), Math.round(filter.estimatedCount()));
    return filter;
  }

  get blocks(): number {
    return this.#blocks;
  }

  /** m: blocks · 256. */
  get bits(): number {
    return this.#blocks * 256;
  }

  /** Eight: one bit in each word of the key's block. */
  get hashes(): number {
    return 8;
  }

  /** Keys added that set at least one new bit (by any thread, for a shared filter). */
  get size(): number {
    return this.#count;
  }

  /** @deprecated Use `size`; `count` is kept for one release. */
  get count(): number {
    return this.size;
  }

  get fillRatio(): number {
    return this.#setBits() / this.bits;
  }

  #setBits(): number {
    return this.segments().reduce((sum, { arena, ptr }) => sum + arena.core.sbbfSetBits(ptr), 0);
  }

  /** The rate given the bits set now: the mean over blocks of Π (set bits of word i / 32). */
  falsePositiveRate(): number {
    // Each segment gives the mean over its blocks: weigh it by its blocks.
    return this.#regions().reduce((sum, region, s) => sum + this.segments()[s].arena.core.sbbfFalsePositiveRate(this.segments()[s].ptr) * region.bytes, 0) / (this.#blocks * SBBF_BLOCK_BYTES);
  }

  /** The rate for `items` random keys (default: size): see splitBlockFalsePositiveRate. */
  expectedFalsePositiveRate(items?: number): number {
    const n = items === undefined ? this.size : checkCount("items", items);
    return blockRate(n, this.#blocks);
  }

  /**
   * Distinct keys the fill implies: a bit stays clear after n random keys with
   * probability (1 − 1/(32·blocks))^n, so n = ln(1 − fill) / ln(1 − 1/(32·blocks)); Infinity when every bit is set.
   */
  estimatedCount(): number {
    const fill = this.fillRatio;
    return fill >= 1 ? Infinity : Math.log1p(-fill) / Math.log1p(-1 / (32 * this.#blocks));
  }

  add(key: Key): this {
    this.testAndAdd(key);
    return this;
  }

  has(key: Key): boolean {
    const one = this.oneString(key);
    if (one) return one.core.sbbfKey(one.filter, OP_HAS, one.room.scratch.bytes, one.room.text.utf8Write(key as string, 0)) === 1;
    // A bad key is named `key`, as on the one-key path, not keys[0] of the batch it goes in.
    if (this.viaBatch) return this.runOp(OP_HAS, { kind: "keys", keys: [checkKey(key)] }).answers[0] === 1;
    const { ptr, length } = this.oneKey(key);
    return this.core.sbbfKey(this.live(), OP_HAS, ptr, length) === 1;
  }

  testAndAdd(key: Key): boolean {
    const one = this.oneString(key);
    let seen: number;
    if (one) seen = one.core.sbbfKey(one.filter, OP_ADD, one.room.scratch.bytes, one.room.text.utf8Write(key as string, 0));
    else if (this.viaBatch) return this.#add({ kind: "keys", keys: [checkKey(key)] })[0] === 1;
    else {
      const { ptr, length } = this.oneKey(key);
      seen = this.core.sbbfKey(this.live(), OP_ADD, ptr, length);
    }
    this.addKeyCount(seen ^ 1);
    return seen === 1;
  }

  addMany(keys: readonly Key[]): this {
    this.#add({ kind: "keys", keys });
    return this;
  }


  testAndAddMany(keys: readonly Key[]): Uint8Array {
    return this.#add({ kind: "keys", keys });
  }

  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    this.#add({ kind: "packed", bytes, ends });
    return this;
  }


  testAndAddPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.#add({ kind: "packed", bytes, ends });
  }

  /**
   * Adds integer keys (a Uint32Array or a BigUint64Array): no encoding, one
   * wasm call per chunk (as BloomFilter.addInts). Integers are their own key space, hashed by
   * a 64-bit mix, not as bytes: add(bytes) and addInts of the same number are
   * different keys; a 32-bit key equals the 64-bit key of the same value.
   */
  addInts(keys: Uint32Array | BigUint64Array): this {
    this.#add({ kind: "ints", keys });
    return this;
  }


  /** Adds integer keys in order; 1 where a key was probably present before. */
  testAndAddInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return this.#add({ kind: "ints", keys });
  }

  /** Newline-delimited keys, split inside wasm (as BloomFilter.addLines). */
  addLines(buffer: Uint8Array): this {
    this.#add({ kind: "lines", buffer });
    return this;
  }


  testAndAddLines(buffer: Uint8Array): Uint8Array {
    return this.#add({ kind: "lines", buffer });
  }

  /** As BloomFilter.testAndAddLinesEach: answers and line ends as views of wasm memory, no copies. */
  testAndAddLinesEach(buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
    checkVisit(visit);
    this.runLinesEach(OP_ADD, buffer, visit, (fresh) => this.addKeyCount(fresh));
  }

  /** As BloomFilter.dedupLines: the lines that were new, as views of wasm memory, piece by piece. */
  dedupLines(buffer: Uint8Array, visit: (newLines: Uint8Array, newCount: number, lineCount: number) => void): void {
    checkVisit(visit);
    this.runDedupLines(buffer, visit, (fresh) => this.addKeyCount(fresh));
  }

  /** As BloomFilter.hasLinesEach. */
  hasLinesEach(buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
    checkVisit(visit);
    this.runLinesEach(OP_HAS, buffer, visit);
  }

  testAndAddLinesWithEnds(buffer: Uint8Array): { answers: Uint8Array; ends: Uint32Array } {
    const { answers, total, ends } = this.runOp(OP_ADD, { kind: "lines", buffer }, Uint8Array, true);
    this.addKeyCount(total);
    return { answers, ends: ends! };
  }

  protected addSource(source: KeySource, into?: Uint8Array): Uint8Array {
    return this.#add(source, into);
  }

  /** A copy of the bitset exactly as Parquet stores it: blocks of eight little-endian u32 words. */
  toParquetBitset(): Uint8Array {
    checkOneArray("toParquetBitset() of this filter", this.#blocks * SBBF_BLOCK_BYTES, TOO_LARGE_FOR_ONE_ARRAY);
    const out = new Uint8Array(this.#blocks * SBBF_BLOCK_BYTES);
    let at = 0;
    for (const { arena, ptr, bytes } of this.#regions()) {
      out.set(arena.u8().subarray(ptr, ptr + bytes), at);
      at += bytes;
    }
    return out;
  }

  /** What serialize() writes: parameters and where the payload lies. @internal */
  recordSource(): RecordSource {
    this.live();
    return { type: FilterType.splitBlock, version: 1, params: new ParamWriter().u32(this.#blocks).u64(this.#count).bytes(), payload: this.#regions() };
  }

  static deserialize(bytes: Uint8Array, options?: DeserializeOptions): SplitBlockBloomFilter {
    return readRecordBytes(bytes, { [FilterType.splitBlock]: SplitBlockBloomFilter.#loaderFor(checkDeserializeOptions(options)) }, FilterType.splitBlock);
  }

  /** A filter from a stream of serializeChunks()'s pieces, read piece by piece into wasm memory. */
  static deserializeChunks(source: ByteSource, options?: DeserializeChunksOptions): Promise<SplitBlockBloomFilter> {
    const { available, shared } = checkChunksOptions(options, true);
    return readRecordStream(source, { [FilterType.splitBlock]: SplitBlockBloomFilter.#loaderFor(shared) }, FilterType.splitBlock, available);
  }

  /** Checks a record's parameters and allocates the filter its payload fills, in private memory. @internal */
  static loader: Loader<SplitBlockBloomFilter> = (header) => SplitBlockBloomFilter.#loaderFor(false)(header);

  /** loader, into shared memory: what deserialize(bytes, { shared: true }), the reader of any type, uses for this type. @internal */
  static sharedLoader: Loader<SplitBlockBloomFilter> = (header) => SplitBlockBloomFilter.#loaderFor(true)(header);

  /** The loader that reads a record into private memory or, with `shared`, into a shared memory. */
  static #loaderFor = (shared: boolean): Loader<SplitBlockBloomFilter> => (header) => {
    const r = new ParamReader(header.params);
    const blocks = r.u32();
    const count = r.u64("count");
    r.end();
    if (header.version !== 1) throw new FormatError(`corrupted: a split-block record of version ${header.version}`);
    if (blocks < 1 || blocks > MAX_BLOCKS) throw new FormatError(`corrupted: blocks = ${blocks} is out of range`);
    if (header.payloadLength !== blocks * SBBF_BLOCK_BYTES) throw new FormatError(`corrupted: payload of ${header.payloadLength} bytes for ${blocks} blocks`);
    const filter = new SplitBlockBloomFilter(blocks, sharedPlacement(shared));
    return {
      target: filter.#regions(),
      finish: () => {
        // A key is counted only when it sets a bit, so no filter counts more keys than it has bits set.
        const set = filter.#setBits();
        if (count > set) {
          filter.dispose();
          throw new FormatError(`corrupted: count = ${count} keys, but only ${set} bits are set`);
        }
        filter.#count = count;
        return filter;
      },
      abandon: () => filter.dispose(),
    };
  };

  static fromBase64(text: string, options?: DeserializeOptions): SplitBlockBloomFilter {
    const shared = checkDeserializeOptions(options);
    return SplitBlockBloomFilter.deserialize(fromBase64(text, FilterType.splitBlock), { shared });
  }

  /** The kernel for OP_ADD / OP_HAS over a chunk of hashes or integer keys. */
  protected blockKernel(op: number, block: Block): Kernel {
    const { core } = block.arena;
    const ptr = block.ptr;
    return (chunk) => core.sbbfRun(ptr, op, chunk.source, chunk.src, chunk.count, chunk.scratch.out, chunk.scratch.room);
  }

  protected routeChunk(chunk: Chunk): void {
    chunk.scratch.arena.core.sbbfRoute(chunk.source, chunk.src, chunk.count, this.#blocks, this.#perSegment, chunk.scratch.ends);
  }

  protected get keyHash(): KeyHash {
    return KEY_HASH;
  }

  protected describeParameters(): Record<string, unknown> {
    return { blocks: this.#blocks, bits: this.bits, size: this.#count, ...(this.shared ? { shared: true } : {}) };
  }

  /** Adds a batch; answers 1 where a key was probably present before. */
  #add(source: KeySource, into?: Uint8Array): Uint8Array {
    const { answers, total } = this.runOp(OP_ADD, source, Uint8Array, false, into);
    this.addKeyCount(total);
    return answers;
  }
}

/** Where a new filter's blocks go: undefined (private memory) or shared memories, after `options.shared` is checked. */
function sharedPlacement(shared: unknown): Placement | undefined {
  if (shared === undefined || shared === false) return undefined;
  if (shared !== true) throw new TypeError(`options.shared must be a boolean, got ${describe(shared)}`);
  return { sharedKeyBytes: SHARED_KEY_BYTES };
}
