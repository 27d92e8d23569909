// Split-block Bloom filter compatible with Apache Parquet's (see
// assembly/split-block.ts): one 32-byte block per key, so one cache line per
// add or query, at the cost of a few more bits per key than a standard filter.
import { core, heapU8, MAX_BLOCK_BYTES } from "./wasm.js";
import { WasmBlock } from "./wasm-block.js";
import { checkInteger, checkOptions, checkPositive, checkProbability, describe } from "./errors.js";
import { bytesOf, bytesOfPacked, intsOf, linesEach, linesOf, one, type IntsCall, type LinesCall, type WasmBatch } from "./batch.js";
import { isBytes, type Key } from "./keys.js";
import { FilterType, FormatError, ParamReader, ParamWriter, checksumAt, fromBase64, readRecord, writeRecord } from "./format.js";

const HEADER_BYTES = core.sbbfHeaderBytes();
/** Bytes of one block: eight 32-bit words. */
export const SBBF_BLOCK_BYTES = 32;
/** The Parquet specification's bounds on a filter's size in bytes. */
const MIN_BYTES = 32;
const MAX_BLOCKS = Math.floor((MAX_BLOCK_BYTES - HEADER_BYTES) / SBBF_BLOCK_BYTES);
const OP = { add: 0, has: 1 } as const;

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
export class SplitBlockBloomFilter extends WasmBlock {
  readonly #blocks: number;
  #count = 0;

  private constructor(blocks: number) {
    super(core.sbbfBlockBytes(blocks), `a split-block Bloom filter of ${blocks} blocks`);
    core.sbbfInit(this.live(), blocks);
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
    heapU8().set(bitset, filter.live() + HEADER_BYTES);
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
  get count(): number {
    this.live();
    return this.#count;
  }

  get fillRatio(): number {
    return core.sbbfSetBits(this.live()) / this.bits;
  }

  /** The rate given the bits set now: the mean over blocks of Π (set bits of word i / 32). */
  falsePositiveRate(): number {
    return core.sbbfFalsePositiveRate(this.live());
  }

  /** The rate for `items` random keys: Σ_j Poisson(j; n/blocks) · (1 − (31/32)^j)^8. */
  expectedFalsePositiveRate(items: number = this.count): number {
    return splitBlockFalsePositiveRate(items, this.#blocks);
  }

  /** Distinct keys the fill implies (each key sets ≤ 8 bits in one block): inverts the expected fill per word. */
  estimatedCount(): number {
    const fill = this.fillRatio;
    return fill >= 1 ? Infinity : (this.#blocks * Math.log1p(-fill)) / Math.log(31 / 32);
  }

  add(key: Key): this {
    this.#added(one(key, this.#op(OP.add)) ^ 1);
    return this;
  }

  has(key: Key): boolean {
    return one(key, this.#op(OP.has)) === 1;
  }

  testAndAdd(key: Key): boolean {
    const seen = one(key, this.#op(OP.add));
    this.#added(seen ^ 1);
    return seen === 1;
  }

  addMany(keys: readonly Key[]): this {
    this.testAndAddMany(keys);
    return this;
  }

  hasMany(keys: readonly Key[]): Uint8Array {
    return bytesOf(keys, this.#op(OP.has));
  }

  testAndAddMany(keys: readonly Key[]): Uint8Array {
    return this.#seen(bytesOf(keys, this.#op(OP.add)));
  }

  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    this.#seen(bytesOfPacked(bytes, ends, this.#op(OP.add)));
    return this;
  }

  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return bytesOfPacked(bytes, ends, this.#op(OP.has));
  }

  /**
   * Adds integer keys (a Uint32Array or a BigUint64Array): no encoding, one
   * wasm call per 131,072 keys (as BloomFilter.addInts). Integers are their own key space, hashed by
   * a 64-bit mix, not as bytes: add(bytes) and addInts of the same number are
   * different keys; a 32-bit key equals the 64-bit key of the same value.
   */
  addInts(keys: Uint32Array | BigUint64Array): this {
    this.testAndAddInts(keys);
    return this;
  }

  /** Queries integer keys (as addInts): 1 = probably present, 0 = definitely absent. */
  hasInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return intsOf(keys, this.#intsCall(1));
  }

  /** Adds integer keys in order; 1 where a key was probably present before. */
  testAndAddInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    const answers = intsOf(keys, this.#intsCall(0));
    this.#seen(answers);
    return answers;
  }

  /** Newline-delimited keys, split inside wasm (as BloomFilter.addLines). */
  addLines(buffer: Uint8Array): this {
    this.#lines(OP.add, buffer, false);
    return this;
  }

  hasLines(buffer: Uint8Array): Uint8Array {
    return this.#lines(OP.has, buffer, false).answers;
  }

  testAndAddLines(buffer: Uint8Array): Uint8Array {
    return this.#lines(OP.add, buffer, false).answers;
  }

  /** As BloomFilter.testAndAddLinesEach: answers and line ends as views of wasm memory, no copies. */
  testAndAddLinesEach(buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
    linesEach(buffer, this.#linesCall(OP.add), (answers, ends, offset) => {
      this.#seen(answers);
      visit(answers, ends, offset);
    });
  }

  testAndAddLinesWithEnds(buffer: Uint8Array): { answers: Uint8Array; ends: Uint32Array } {
    return this.#lines(OP.add, buffer, true);
  }

  /** A copy of the bitset exactly as Parquet stores it: blocks of eight little-endian u32 words. */
  toParquetBitset(): Uint8Array {
    const data = this.live() + HEADER_BYTES;
    return heapU8().slice(data, data + this.#blocks * SBBF_BLOCK_BYTES);
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md, type 5). */
  serialize(): Uint8Array {
    const ptr = this.live();
    const data = ptr + HEADER_BYTES;
    const length = this.#blocks * SBBF_BLOCK_BYTES;
    return writeRecord({
      type: FilterType.splitBlock,
      params: new ParamWriter().u32(this.#blocks).u64(this.#count).bytes(),
      payloadLength: length,
      writePayload: (target) => target.set(heapU8().subarray(data, data + length)),
      payloadChecksum: checksumAt(data, length),
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
    heapU8().set(record.payload, data);
    if (checksumAt(data, record.payload.length) !== record.payloadChecksum) {
      filter.dispose();
      throw new FormatError("corrupted: the payload checksum does not match");
    }
    filter.#count = count;
    return filter;
  }

  static fromBase64(text: string): SplitBlockBloomFilter {
    return SplitBlockBloomFilter.deserialize(fromBase64(text));
  }

  #intsCall(op: number): IntsCall {
    const ptr = this.live();
    return (keys, count, wide, out) => core.sbbfInts(ptr, op, keys, count, wide, out);
  }

  #op(op: number): WasmBatch {
    const ptr = this.live();
    return (keys, ends, count, start, out) => core.sbbfPacked(ptr, op, keys, ends, count, start, out);
  }

  #added(fresh: number): void {
    this.#count += fresh;
  }

  /** Counts the keys that were new (answer 0) in add answers. */
  #seen(answers: Uint8Array): Uint8Array {
    let fresh = 0;
    for (const seen of answers) fresh += seen ^ 1;
    this.#added(fresh);
    return answers;
  }

  /** The wasm lines loop for `op`, as batch.ts's runners take it. */
  #linesCall(op: number): LinesCall {
    const ptr = this.live();
    return {
      run: (keys, len, final, maxLines, out, lineEnds) => core.sbbfLines(ptr, op, keys, len, final ? 1 : 0, maxLines, out, lineEnds),
      consumed: () => core.sbbfLinesConsumed(),
    };
  }

  #lines(op: number, buffer: Uint8Array, wantEnds: boolean): { answers: Uint8Array; ends: Uint32Array } {
    const call = this.#linesCall(op);
    return linesOf(buffer, call, wantEnds, op === OP.add ? (answers) => this.#seen(answers) : undefined);
  }
}

