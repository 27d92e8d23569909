// Counting Bloom filter: counters instead of bits, so keys can be removed, and
// the spectral filter's minimum selection as a frequency estimate. Indexed
// exactly like BloomFilter (same m, k and hashing give the same positions).
import { core, heapU8, MAX_BLOCK_BYTES } from "./wasm.js";
import { WasmBlock } from "./wasm-block.js";
import { checkInteger, checkIntsHashing, checkOptions, checkPositive, checkProbability, describe, formatBytes } from "./errors.js";
import { bytesOf, bytesOfPacked, intsOf, linesAsPacked, one, u32sOf, u32sOfInts, u32sOfPacked, type IntsCall, type WasmBatch } from "./batch.js";
import { useScratch, writeKey, type Key } from "./keys.js";
import { falsePositiveRateFor, MAX_HASHES, optimal } from "./optimal.js";
import { BloomFilter } from "./bloom-filter.js";
import { FilterType, FormatError, ParamReader, ParamWriter, checksumAt, fromBase64, readRecord, writeRecord } from "./format.js";
import { HASHING_OPTION_NAMES, readHashing, resolveHashing, writeHashing, writeIndexHeader, type Hashing, type HashingOptions } from "./hashing.js";
import { type HashName } from "./hash.js";

export type CounterBits = 4 | 8 | 16;

export interface CountingBloomFilterOptions extends HashingOptions {
  /** Bits per counter (default 4, which the seeds cite as enough: a counter passes 15 with probability ≈ 1.4e−15·m at the optimal k). */
  counterBits?: CounterBits;
}

const OPTION_NAMES = [...HASHING_OPTION_NAMES, "counterBits"] as const;
const HEADER_BYTES = core.bloomBlockBytes(0);
const OP = { add: 0, has: 1, remove: 2, count: 3 } as const;

function checkCounterBits(options: Record<string, unknown>): CounterBits {
  const bits = options.counterBits ?? 4;
  if (bits !== 4 && bits !== 8 && bits !== 16) throw new RangeError(`options.counterBits must be 4, 8 or 16, got ${describe(bits)}`);
  return bits;
}

/** Largest number of counters of `width` bits one block holds. */
function maxCounters(width: CounterBits): number {
  return Math.floor((MAX_BLOCK_BYTES - HEADER_BYTES) / 8) * (64 / width);
}

/** A Bloom filter with counters: add, remove, and how often a key was added. */
export class CountingBloomFilter extends WasmBlock {
  readonly #counters: number;
  readonly #hashes: number;
  readonly #width: CounterBits;
  readonly #hashing: Hashing;
  #size = 0;

  private constructor(counters: number, hashes: number, width: CounterBits, hashing: Hashing) {
    super(core.countingBlockBytes(counters, width), `a counting Bloom filter of ${counters} ${width}-bit counters`);
    writeIndexHeader(this.live(), counters, hashes, hashing);
    this.#counters = counters;
    this.#hashes = hashes;
    this.#width = width;
    this.#hashing = hashing;
  }

  /** Sized like BloomFilter.create (m counters, k hashes) for `expectedItems` keys at `falsePositiveRate`. */
  static create(expectedItems: number, falsePositiveRate: number, options?: CountingBloomFilterOptions): CountingBloomFilter {
    const n = checkPositive("expectedItems", expectedItems);
    const p = checkProbability("falsePositiveRate", falsePositiveRate);
    const checked = checkOptions("options", options, OPTION_NAMES);
    const width = checkCounterBits(checked);
    const hashing = resolveHashing(checked);
    const { m, k } = hashing.strategy === "independent" ? optimal({ n, p, k: hashing.names.length }) : optimal({ n, p });
    if (m > maxCounters(width)) {
      throw new RangeError(
        `a counting filter for ${n} items at p = ${p} needs ${m} ${width}-bit counters (${formatBytes((m * width) / 8)}); ` +
          `one filter holds at most ${maxCounters(width)} of them`,
      );
    }
    return new CountingBloomFilter(m, k, width, hashing);
  }

  /** Exactly `counters` counters and `hashes` hash functions. */
  static withSize(counters: number, hashes: number, options?: CountingBloomFilterOptions): CountingBloomFilter {
    const checked = checkOptions("options", options, OPTION_NAMES);
    const width = checkCounterBits(checked);
    checkInteger("counters", counters, 1, maxCounters(width));
    checkInteger("hashes", hashes, 1, MAX_HASHES);
    const hashing = resolveHashing(checked);
    if (hashing.strategy === "independent" && hashing.names.length !== hashes) {
      throw new RangeError(`hashes is ${hashes} but options.hash lists ${hashing.names.length} hashes for strategy "independent"`);
    }
    return new CountingBloomFilter(counters, hashes, width, hashing);
  }

  /** m, the number of counters. */
  get bits(): number {
    return this.#counters;
  }

  get hashes(): number {
    return this.#hashes;
  }

  get counterBits(): CounterBits {
    return this.#width;
  }

  get seed(): number {
    return this.#hashing.seed;
  }

  get hash(): HashName | readonly HashName[] {
    return this.#hashing.strategy === "double" ? this.#hashing.names[0] : this.#hashing.names;
  }

  get strategy(): "double" | "independent" {
    return this.#hashing.strategy;
  }

  /** Keys held: adds less successful removes. */
  get size(): number {
    this.live();
    return this.#size;
  }

  /** Counters stuck at their maximum (2^counterBits − 1). */
  get saturatedCounters(): number {
    return core.countingSaturated(this.live(), this.#width);
  }

  /** Fraction of counters above 0. */
  get fillRatio(): number {
    return core.countingNonZero(this.live(), this.#width) / this.#counters;
  }

  /** The rate now, from the fill: (nonzero / m)^k. */
  falsePositiveRate(): number {
    return Math.pow(this.fillRatio, this.#hashes);
  }

  /** The formula's rate for `items` keys: (1 − e^(−kn/m))^k. */
  expectedFalsePositiveRate(items: number = this.size): number {
    return falsePositiveRateFor(items, this.#counters, this.#hashes);
  }

  /** Adds one occurrence of the key. */
  add(key: Key): this {
    one(key, this.#op(OP.add));
    this.#size++;
    return this;
  }

  has(key: Key): boolean {
    return one(key, this.#op(OP.has)) === 1;
  }

  /** Removes one occurrence; false, changing nothing, when the key is definitely absent (a counter is 0). */
  remove(key: Key): boolean {
    const removed = one(key, this.#op(OP.remove)) === 1;
    if (removed) this.#size--;
    return removed;
  }

  /**
   * How often the key was added (less removed): the minimum of its counters,
   * an upper bound, exact unless another key shares all its counters. A
   * result of 2^counterBits − 1 means "at least that many": counters saturate.
   */
  count(key: Key): number {
    return one(key, this.#op(OP.count), true);
  }

  addMany(keys: readonly Key[]): this {
    this.#size += bytesOf(keys, this.#op(OP.add)).length;
    return this;
  }

  hasMany(keys: readonly Key[]): Uint8Array {
    return bytesOf(keys, this.#op(OP.has));
  }

  /** Removes each key once; result[i] = 1 where key i was removed, 0 where it was definitely absent. */
  removeMany(keys: readonly Key[]): Uint8Array {
    return this.#removed(bytesOf(keys, this.#op(OP.remove)));
  }

  countMany(keys: readonly Key[]): Uint32Array {
    return u32sOf(keys, this.#op(OP.count));
  }

  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    this.#size += bytesOfPacked(bytes, ends, this.#op(OP.add)).length;
    return this;
  }

  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return bytesOfPacked(bytes, ends, this.#op(OP.has));
  }

  removePacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.#removed(bytesOfPacked(bytes, ends, this.#op(OP.remove)));
  }

  countPacked(bytes: Uint8Array, ends: Uint32Array): Uint32Array {
    return u32sOfPacked(bytes, ends, this.#op(OP.count));
  }

  /** Adds newline-delimited keys (a line without its "\n" and one trailing "\r"), split inside wasm. */
  addLines(buffer: Uint8Array): this {
    this.#size += linesAsPacked(buffer, this.#op(OP.add)).length;
    return this;
  }

  hasLines(buffer: Uint8Array): Uint8Array {
    return linesAsPacked(buffer, this.#op(OP.has));
  }

  removeLines(buffer: Uint8Array): Uint8Array {
    return this.#removed(linesAsPacked(buffer, this.#op(OP.remove)));
  }

  /**
   * Adds integer keys (a Uint32Array or a BigUint64Array) with no encoding,
   * at the positions BloomFilter.addInts gives them with the same m, k and
   * seed. Integers are their own key space (a 64-bit mix of the value, not
   * its bytes); a 32-bit key equals the 64-bit key of the same value. Double
   * hashing only.
   */
  addInts(keys: Uint32Array | BigUint64Array): this {
    this.#size += intsOf(keys, this.#intsCall(OP.add)).length;
    return this;
  }

  hasInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return intsOf(keys, this.#intsCall(OP.has));
  }

  removeInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return this.#removed(intsOf(keys, this.#intsCall(OP.remove)));
  }

  countInts(keys: Uint32Array | BigUint64Array): Uint32Array {
    return u32sOfInts(keys, this.#intsCall(OP.count));
  }

  /** The key's k counter indices (the positions a BloomFilter with the same m, k and hashing would use). */
  positions(key: Key): number[] {
    const ptr = this.live();
    const len = writeKey(key);
    const { bytes, out } = useScratch(0);
    core.bloomPositions(ptr, bytes, len, out); // same header and indexing as BloomFilter
    return Array.from(new Float64Array(core.memory.buffer, out, this.#hashes));
  }

  /** Every counter's value, in one copy (for display): Uint8Array for 4- and 8-bit counters, Uint16Array for 16-bit. */
  counters(): Uint8Array | Uint16Array {
    const data = this.live() + HEADER_BYTES;
    const raw = heapU8().slice(data, data + Math.ceil((this.#counters * this.#width) / 8));
    if (this.#width === 8) return raw.slice(0, this.#counters);
    if (this.#width === 16) return new Uint16Array(raw.buffer, 0, this.#counters);
    const values = new Uint8Array(this.#counters);
    for (let i = 0; i < this.#counters; i++) values[i] = (raw[i >> 1] >> ((i & 1) << 2)) & 0xf;
    return values;
  }

  /** Counter i, for display and inspection. */
  counter(index: number): number {
    const ptr = this.live();
    checkInteger("index", index, 0, this.#counters - 1);
    return core.countingCounter(ptr, this.#width, index);
  }

  /** The standard BloomFilter with the same m, k and hashing: bit i is set where counter i > 0. */
  toBloomFilter(): BloomFilter {
    const ptr = this.live();
    return BloomFilter.fromFill(this.#counters, this.#hashes, this.#hashing, this.#size, (dst) => core.countingToBloom(ptr, this.#width, dst));
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md, type 3). */
  serialize(): Uint8Array {
    const ptr = this.live();
    const w = new ParamWriter().u64(this.#counters).u32(this.#hashes).u8(this.#width).u8(0).u8(0).u8(0).u64(this.#size);
    writeHashing(w, this.#hashing);
    const data = ptr + HEADER_BYTES;
    const length = core.countingBlockBytes(this.#counters, this.#width) - HEADER_BYTES;
    return writeRecord({
      type: FilterType.counting,
      params: w.bytes(),
      payloadLength: length,
      writePayload: (target) => target.set(heapU8().subarray(data, data + length)),
      payloadChecksum: checksumAt(data, length),
    });
  }

  /** A filter from serialize()'s bytes; truncated, corrupted or foreign bytes throw a FormatError. */
  static deserialize(bytes: Uint8Array): CountingBloomFilter {
    const record = readRecord(bytes, FilterType.counting);
    const r = new ParamReader(record.params);
    const counters = r.u64("counters");
    const hashes = r.u32();
    const width = r.u8();
    if (r.u8() !== 0 || r.u8() !== 0 || r.u8() !== 0) throw new FormatError("corrupted: reserved bytes are not 0");
    const size = r.u64("size");
    const hashing = readHashing(r);
    r.end();
    if (width !== 4 && width !== 8 && width !== 16) throw new FormatError(`corrupted: counter bits = ${width}`);
    if (counters < 1 || counters > maxCounters(width)) throw new FormatError(`corrupted: counters = ${counters} is out of range`);
    if (hashes < 1 || hashes > MAX_HASHES) throw new FormatError(`corrupted: hashes = ${hashes} is out of range`);
    if (hashing.strategy === "independent" && hashing.names.length !== hashes) {
      throw new FormatError(`corrupted: ${hashing.names.length} hashes listed for k = ${hashes}`);
    }
    const length = core.countingBlockBytes(counters, width) - HEADER_BYTES;
    if (record.payload.length !== length) throw new FormatError(`corrupted: payload of ${record.payload.length} bytes for ${counters} counters`);
    const usedBits = counters * width;
    const lastByte = Math.floor(usedBits / 8);
    const padding = (usedBits % 8 !== 0 && record.payload[lastByte] >> (usedBits % 8) !== 0) || record.payload.subarray(Math.ceil(usedBits / 8)).some((b) => b !== 0);
    const filter = new CountingBloomFilter(counters, hashes, width, hashing);
    const data = filter.live() + HEADER_BYTES;
    heapU8().set(record.payload, data);
    if (padding || checksumAt(data, length) !== record.payloadChecksum) {
      filter.dispose();
      throw new FormatError(padding ? "corrupted: counters past m are set" : "corrupted: the payload checksum does not match");
    }
    filter.#size = size;
    return filter;
  }

  static fromBase64(text: string): CountingBloomFilter {
    return CountingBloomFilter.deserialize(fromBase64(text));
  }

  #op(op: number): WasmBatch {
    const ptr = this.live();
    return (keys, ends, count, start, out) => core.countingPacked(ptr, this.#width, op, keys, ends, count, start, out);
  }

  #intsCall(op: number): IntsCall {
    const ptr = this.live();
    checkIntsHashing(this.#hashing.strategy);
    const width = this.#width;
    return (keys, count, wide, out) => core.countingInts(ptr, width, op, keys, count, wide, out);
  }

  #removed(flags: Uint8Array): Uint8Array {
    for (const flag of flags) this.#size -= flag;
    return flags;
  }
}
