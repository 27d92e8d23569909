// Split-block Bloom filter compatible with Apache Parquet's (see
// assembly/split-block.ts): one 32-byte block per key, so one cache line per
// add or query, at the cost of a few more bits per key than a standard filter.
import { WasmBlock } from "./wasm-block.js";
import { MAX_BLOCK_BYTES } from "./memory.js";
import { HASH_XXH64, OP_ADD, OP_HAS } from "./constants.generated.js";
import { checkInteger, checkOptions, checkPositive, checkProbability, describe, formatBytes } from "./errors.js";
import { type Kernel, type KeyHash, type KeySource } from "./batch.js";
import { isBytes, type Key } from "./keys.js";
import type { Filter } from "./filter.js";
import { FilterType, FormatError, ParamReader, ParamWriter, checksumAt, fromBase64, readRecord, writeRecord } from "./format.js";

/** Bytes before the first block: the block count, padded so blocks stay 32-byte aligned (assembly/split-block.ts). */
const HEADER_BYTES = 32;
/** Bytes of one block: eight 32-bit words. */
export const SBBF_BLOCK_BYTES = 32;
/** The specification fixes the key hash: xxh64 with seed 0. */
const KEY_HASH: KeyHash = { id: HASH_XXH64, seed: 0 };
/** The Parquet specification's bounds on a filter's size in bytes. */
const MIN_BYTES = 32;
const MAX_BLOCKS = Math.floor((MAX_BLOCK_BYTES - HEADER_BYTES) / SBBF_BLOCK_BYTES);

/**
 * Bytes for n distinct values at rate p. With `powerOfTwo` (the default),
 * the Parquet guidance: m = −8n / ln(1 − p^(1/8)) bits rounded up to a power
 * of two, as Parquet writers size filters. That formula is the standard Bloom
 * filter's and flatters a blocked filter (sized exactly by it, the rate is
 * about twice p); the rounding usually makes up for it. Without `powerOfTwo`:
 * the fewest 32-byte blocks whose actual rate (splitBlockFalsePositiveRate)
 * is at most p.
 */
export function splitBlockBytesFor(n: number, p: number, powerOfTwo = true): number {
  if (powerOfTwo) return Math.max(MIN_BYTES, 2 ** Math.ceil(Math.log2((-8 * n) / Math.log1p(-Math.pow(p, 1 / 8)) / 8)));
  let low = 1;
  let high = Math.max(1, Math.ceil((-16 * n) / Math.log1p(-Math.pow(p, 1 / 8)) / 256)); // twice the formula: always enough
  while (splitBlockFalsePositiveRate(n, high) > p) high *= 2;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (splitBlockFalsePositiveRate(n, middle) <= p) high = middle;
    else low = middle + 1;
  }
  return low * SBBF_BLOCK_BYTES;
}

/**
 * Expected false-positive rate of n keys in `blocks` blocks, for random
 * hashes: a block holding j keys answers yes with probability (1 − (31/32)^j)^8,
 * and j is Poisson with mean n / blocks.
 */
export function splitBlockFalsePositiveRate(n: number, blocks: number): number {
  const lambda = n / blocks;
  let rate = 0;
  let term = Math.exp(-lambda); // P(j = 0)
  const limit = Math.ceil(lambda + 12 * Math.sqrt(lambda) + 20);
  for (let j = 0; j <= limit; j++) {
    if (j > 0) term *= lambda / j;
    rate += term * Math.pow(1 - Math.pow(31 / 32, j), 8);
  }
  return rate;
}

/** A Parquet-compatible split-block Bloom filter (xxh64 with seed 0, as the specification fixes). */
export class SplitBlockBloomFilter extends WasmBlock implements Filter {
  readonly #blocks: number;
  #count = 0;

  private constructor(blocks: number) {
    const bytes = HEADER_BYTES + blocks * SBBF_BLOCK_BYTES;
    super(bytes, `a split-block Bloom filter of ${blocks} blocks (${formatBytes(bytes)})`);
    this.core.sbbfInit(this.live(), blocks);
    this.#blocks = blocks;
  }

  /**
   * Sized as the Parquet specification suggests for `expectedItems` keys at
   * `falsePositiveRate`: −8n / ln(1 − p^(1/8)) bits, rounded up to a
   * power-of-two number of bytes as Parquet writers do. `powerOfTwo: false`
   * takes the fewest blocks whose actual rate is at most p (see
   * splitBlockBytesFor), still a valid split-block filter.
   */
  static create(expectedItems: number, falsePositiveRate: number, options?: { powerOfTwo?: boolean }): SplitBlockBloomFilter {
    const n = checkPositive("expectedItems", expectedItems);
    const p = checkProbability("falsePositiveRate", falsePositiveRate);
    const checked = checkOptions("options", options, ["powerOfTwo"]);
    if (checked.powerOfTwo !== undefined && typeof checked.powerOfTwo !== "boolean") {
      throw new TypeError(`options.powerOfTwo must be a boolean, got ${describe(checked.powerOfTwo)}`);
    }
    const blocks = splitBlockBytesFor(n, p, checked.powerOfTwo !== false) / SBBF_BLOCK_BYTES;
    if (blocks > MAX_BLOCKS) throw new RangeError(`a split-block filter for ${n} items at p = ${p} needs ${blocks} blocks; one filter holds at most ${MAX_BLOCKS}`);
    return new SplitBlockBloomFilter(blocks);
  }

  /** Exactly `blocks` blocks of 32 bytes. */
  static withSize(blocks: number): SplitBlockBloomFilter {
    return new SplitBlockBloomFilter(checkInteger("blocks", blocks, 1, MAX_BLOCKS));
  }

  /** A filter over a Parquet bitset (a whole number of 32-byte blocks), as read from a Parquet file. */
  static fromParquetBitset(bitset: Uint8Array): SplitBlockBloomFilter {
    if (!isBytes(bitset)) throw new TypeError(`bitset must be a Uint8Array, got ${describe(bitset)}`);
    if (bitset.length === 0 || bitset.length % SBBF_BLOCK_BYTES !== 0) {
      throw new RangeError(`a Parquet bitset is a whole number of 32-byte blocks; got ${bitset.length} bytes`);
    }
    const filter = SplitBlockBloomFilter.withSize(bitset.length / SBBF_BLOCK_BYTES);
    filter.arena.u8().set(bitset, filter.live() + HEADER_BYTES);
    filter.#count = Math.round(filter.estimatedCount());
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

  /** Keys added that set at least one new bit. */
  get size(): number {
    this.live();
    return this.#count;
  }

  /** @deprecated Use `size`; `count` is kept for one release. */
  get count(): number {
    return this.size;
  }

  get fillRatio(): number {
    return this.core.sbbfSetBits(this.live()) / this.bits;
  }

  /** The rate given the bits set now: the mean over blocks of Π (set bits of word i / 32). */
  falsePositiveRate(): number {
    return this.core.sbbfFalsePositiveRate(this.live());
  }

  /** The rate for `items` random keys: Σ_j Poisson(j; n/blocks) · (1 − (31/32)^j)^8. */
  expectedFalsePositiveRate(items: number = this.size): number {
    return splitBlockFalsePositiveRate(items, this.#blocks);
  }

  /** Distinct keys the fill implies (each key sets ≤ 8 bits in one block): inverts the expected fill per word. */
  estimatedCount(): number {
    const fill = this.fillRatio;
    return fill >= 1 ? Infinity : (this.#blocks * Math.log1p(-fill)) / Math.log(31 / 32);
  }

  add(key: Key): this {
    this.testAndAdd(key);
    return this;
  }

  has(key: Key): boolean {
    const { ptr, length } = this.oneKey(key);
    return this.core.sbbfKey(this.live(), OP_HAS, ptr, length) === 1;
  }

  testAndAdd(key: Key): boolean {
    const { ptr, length } = this.oneKey(key);
    const seen = this.core.sbbfKey(this.live(), OP_ADD, ptr, length);
    this.#count += seen ^ 1;
    return seen === 1;
  }

  addMany(keys: readonly Key[]): this {
    this.#add({ kind: "keys", keys });
    return this;
  }

  hasMany(keys: readonly Key[]): Uint8Array {
    return this.runOp(OP_HAS, { kind: "keys", keys }).answers;
  }

  testAndAddMany(keys: readonly Key[]): Uint8Array {
    return this.#add({ kind: "keys", keys });
  }

  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    this.#add({ kind: "packed", bytes, ends });
    return this;
  }

  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.runOp(OP_HAS, { kind: "packed", bytes, ends }).answers;
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

  /** Queries integer keys (as addInts): 1 = probably present, 0 = definitely absent. */
  hasInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return this.runOp(OP_HAS, { kind: "ints", keys }).answers;
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

  hasLines(buffer: Uint8Array): Uint8Array {
    return this.runOp(OP_HAS, { kind: "lines", buffer }).answers;
  }

  testAndAddLines(buffer: Uint8Array): Uint8Array {
    return this.#add({ kind: "lines", buffer });
  }

  /** As BloomFilter.testAndAddLinesEach: answers and line ends as views of wasm memory, no copies. */
  testAndAddLinesEach(buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
    this.#count += this.runLinesEach(OP_ADD, buffer, visit);
  }

  testAndAddLinesWithEnds(buffer: Uint8Array): { answers: Uint8Array; ends: Uint32Array } {
    const { answers, total, ends } = this.runOp(OP_ADD, { kind: "lines", buffer }, Uint8Array, true);
    this.#count += total;
    return { answers, ends: ends! };
  }

  /** A copy of the bitset exactly as Parquet stores it: blocks of eight little-endian u32 words. */
  toParquetBitset(): Uint8Array {
    const data = this.live() + HEADER_BYTES;
    return this.arena.u8().slice(data, data + this.#blocks * SBBF_BLOCK_BYTES);
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md, type 5). */
  serialize(): Uint8Array {
    const ptr = this.live();
    const data = ptr + HEADER_BYTES;
    const length = this.#blocks * SBBF_BLOCK_BYTES;
    const arena = this.arena;
    return writeRecord({
      type: FilterType.splitBlock,
      params: new ParamWriter().u32(this.#blocks).u64(this.#count).bytes(),
      payloadLength: length,
      writePayload: (target) => target.set(arena.u8().subarray(data, data + length)),
      payloadChecksum: checksumAt(arena, data, length),
    });
  }

  static deserialize(bytes: Uint8Array): SplitBlockBloomFilter {
    const record = readRecord(bytes, FilterType.splitBlock);
    const r = new ParamReader(record.params);
    const blocks = r.u32();
    const count = r.u64("count");
    r.end();
    if (blocks < 1 || blocks > MAX_BLOCKS) throw new FormatError(`corrupted: blocks = ${blocks} is out of range`);
    if (record.payload.length !== blocks * SBBF_BLOCK_BYTES) throw new FormatError(`corrupted: payload of ${record.payload.length} bytes for ${blocks} blocks`);
    const filter = new SplitBlockBloomFilter(blocks);
    const data = filter.live() + HEADER_BYTES;
    filter.arena.u8().set(record.payload, data);
    if (checksumAt(filter.arena, data, record.payload.length) !== record.payloadChecksum) {
      filter.dispose();
      throw new FormatError("corrupted: the payload checksum does not match");
    }
    filter.#count = count;
    return filter;
  }

  static fromBase64(text: string): SplitBlockBloomFilter {
    return SplitBlockBloomFilter.deserialize(fromBase64(text));
  }

  /** The kernel for OP_ADD / OP_HAS over a chunk of hashes or integer keys. */
  protected kernel(op: number): Kernel {
    const ptr = this.live();
    const core = this.core;
    return (chunk) => core.sbbfRun(ptr, op, chunk.source, chunk.src, chunk.count, chunk.scratch.out, chunk.scratch.room);
  }

  protected get keyHash(): KeyHash {
    return KEY_HASH;
  }

  protected describeParameters(): Record<string, unknown> {
    return { blocks: this.#blocks, bits: this.bits, size: this.#count };
  }

  /** Adds a batch; answers 1 where a key was probably present before. */
  #add(source: KeySource): Uint8Array {
    const { answers, total } = this.runOp(OP_ADD, source);
    this.#count += total;
    return answers;
  }
}
