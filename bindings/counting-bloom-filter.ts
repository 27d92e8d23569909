// Counting Bloom filter: counters instead of bits, so keys can be removed, and
// the spectral filter's minimum selection as a frequency estimate. Indexed
// exactly like BloomFilter (same m, k and hashing give the same positions).
import { checkChunksOptions, type ChunksOptions } from "./shared.js";
import { WasmBlock } from "./wasm-block.js";
import { defaultArena, freeMemory, MAX_BLOCK_BYTES, type Block } from "./memory.js";
import { FILTER_HEADER, OP_ADD, OP_COUNT, OP_HAS, OP_REMOVE } from "./constants.generated.js";
import { checkCount, checkInteger, checkIntsHashing, checkIntsKeys, checkOptions, checkCreateNumbers, describe, formatBytes, checkMadeBy, refuseLoaderOptions } from "./errors.js";
import { SOURCE_BYTES, sourceLength, type Chunk, type Kernel, type KeyHash, type KeySource } from "./batch.js";
import { maxKeyBytes, scratchOf, type Key } from "./keys.js";
import { segmentIndices } from "./indices.js";
import type { DeletableFilter } from "./filter.js";
import { checkReachable, checkSizable, filterSizing, MAX_HASHES, rateFor } from "./optimal.js";
import { BloomFilter } from "./bloom-filter.js";
import {
  checkOneArray,
  FilterType,
  FormatError,
  ParamReader,
  ParamWriter,
  fromBase64,
  readRecordBytes,
  readRecordStream,
  type ByteSource,
  type Loader,
  type RecordSource,
} from "./format.js";
import { HASHING_OPTION_NAMES, hashesOnce, hashOf, keyHashOf, readHashing, resolveHashing, writeHashing, writeIndexHeader, type Hashing, type HashingOptions, type HashStrategy } from "./hashing.js";
import type { HashName } from "./hash.js";

export type CounterBits = 4 | 8 | 16;

export interface CountingBloomFilterOptions extends HashingOptions {
  /** Bits per counter (default 4, enough for most uses as the Summary Cache paper that introduced counting filters shows: a counter passes 15 with probability ≈ 1.4e−15·m at the optimal k). */
  counterBits?: CounterBits;
}

const OPTION_NAMES = [...HASHING_OPTION_NAMES, "counterBits"] as const;
const HEADER_BYTES = FILTER_HEADER;

/** Bytes of a segment's block: the header, then the counters in whole u64 words (assembly/counting.ts's layout). */
function blockBytes(counters: number, width: CounterBits): number {
  return defaultArena().core.countingBlockBytes(counters, width);
}

function checkCounterBits(options: Record<string, unknown>): CounterBits {
  const bits = options.counterBits === undefined ? 4 : options.counterBits;
  if (typeof bits !== "number") throw new TypeError(`options.counterBits must be a number, got ${describe(bits)}`);
  if (bits !== 4 && bits !== 8 && bits !== 16) throw new RangeError(`options.counterBits must be 4, 8 or 16, got ${describe(bits)}`);
  return bits;
}

/** Largest number of counters of `width` bits one segment holds (one wasm memory). */
function maxSegmentCounters(width: CounterBits): number {
  return Math.floor((MAX_BLOCK_BYTES - HEADER_BYTES) / 8) * (64 / width);
}

/** Most segments a filter is held in. */
const MAX_SEGMENTS = 64;

/** Largest number of counters of `width` bits a filter holds. */
function maxCounters(width: CounterBits): number {
  return MAX_SEGMENTS * maxSegmentCounters(width);
}

/** Segments a filter of `counters` counters is held in. */
function segmentsFor(counters: number, width: CounterBits): number {
  return Math.ceil(counters / maxSegmentCounters(width));
}

/** A Bloom filter with counters: add, remove, and how often a key was added. */
export class CountingBloomFilter extends WasmBlock implements DeletableFilter {
  readonly #counters: number;
  readonly #hashes: number;
  readonly #width: CounterBits;
  readonly #hashing: Hashing;
  #size = 0;
  readonly #keyHash: KeyHash | null;
  readonly #segmentCounters: number;

  private constructor(counters: number, hashes: number, width: CounterBits, hashing: Hashing, segments = 1) {
    checkMadeBy(typeof counters === "number" && typeof hashing === "object" && hashing !== null, "CountingBloomFilter", "CountingBloomFilter.create(expectedItems, falsePositiveRate), CountingBloomFilter.withSize(counters, hashes) or deserialize(bytes)");
    const perSegment = counters / segments;
    const bytes = blockBytes(perSegment, width);
    super(Array.from({ length: segments }, () => bytes), () => `a counting Bloom filter of ${counters} ${width}-bit counters (${formatBytes(segments * bytes)})`);
    for (const block of this.segments()) writeIndexHeader(block.arena.core, block.ptr, perSegment, hashes, hashing);
    this.#segmentCounters = perSegment;
    this.#keyHash = keyHashOf(hashing);
    this.#counters = counters;
    this.#hashes = hashes;
    this.#width = width;
    this.#hashing = hashing;
  }

  /** Sized like BloomFilter.create (m counters, k hashes) for `expectedItems` keys at `falsePositiveRate`. */
  static create(expectedItems: number, falsePositiveRate: number, options?: CountingBloomFilterOptions): CountingBloomFilter {
    const { n, p } = checkCreateNumbers("CountingBloomFilter.create", "expectedItems", expectedItems, falsePositiveRate);
    const checked = checkOptions("options", options, OPTION_NAMES);
    const width = checkCounterBits(checked);
    const hashing = resolveHashing(checked);
    if (hashesOnce(hashing)) checkReachable("expectedItems", "falsePositiveRate", n, p);
    else checkSizable("expectedItems", "falsePositiveRate", n, p, hashing.names.length);
    // Not optimal(): the bound on m is the filter's own, far lower, and its message names create()'s arguments.
    const sized = filterSizing(hashing.strategy === "independent" ? { n, p, k: hashing.names.length } : { n, p });
    const segments = segmentsFor(sized.m, width);
    const m = segments > 1 ? Math.ceil(sized.m / segments / 64) * 64 * segments : sized.m;
    if (m > maxCounters(width)) {
      throw new RangeError(
        `a counting filter for expectedItems = ${n} at falsePositiveRate = ${p} needs ${m} ${width}-bit counters (${formatBytes((m * width) / 8)}); ` +
          `a filter holds at most ${maxCounters(width)} of them`,
      );
    }
    checkSegmentable(hashing, segments);
    return new CountingBloomFilter(m, sized.k, width, hashing, segments);
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
    const segments = segmentsFor(counters, width);
    if (segments > 1 && counters % (64 * segments) !== 0) {
      throw new RangeError(
        `counters = ${counters} needs ${segments} segments of equal size: give a multiple of ${64 * segments}, such as ${Math.ceil(counters / (64 * segments)) * 64 * segments}`,
      );
    }
    checkSegmentable(hashing, segments);
    return new CountingBloomFilter(counters, hashes, width, hashing, segments);
  }

  /** m, the number of counters (the m of a BloomFilter that indexes keys the same way). */
  get counters(): number {
    return this.#counters;
  }

  /** Bits of memory the counters take: m · counterBits. */
  get bits(): number {
    return this.#counters * this.#width;
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
    return hashOf(this.#hashing);
  }

  get strategy(): HashStrategy {
    return this.#hashing.strategy;
  }

  /** Keys held: adds less successful removes. */
  get size(): number {
    this.live();
    return this.#size;
  }

  /** Counters stuck at their maximum (2^counterBits − 1). */
  get saturatedCounters(): number {
    return this.segments().reduce((sum, { arena, ptr }) => sum + arena.core.countingSaturated(ptr, this.#width), 0);
  }

  /** Fraction of counters above 0. */
  get fillRatio(): number {
    return this.segments().reduce((sum, { arena, ptr }) => sum + arena.core.countingNonZero(ptr, this.#width), 0) / this.#counters;
  }

  /**
   * Estimate of the distinct keys held, from the fill: −m/k · ln(1 − nonzero/m)
   * (Swamidass & Baldi, as BloomFilter's); Infinity when no counter is zero.
   * `size` counts every add, repeats included.
   */
  estimatedCount(): number {
    return (-this.#counters / this.#hashes) * Math.log1p(-this.fillRatio);
  }

  /** The rate now, from the fill: (nonzero / m)^k. */
  falsePositiveRate(): number {
    return Math.pow(this.fillRatio, this.#hashes);
  }

  /** The formula's rate for `items` distinct keys (default: size, which counts repeated adds: with repeats give the distinct keys): (1 − e^(−kn/m))^k. */
  expectedFalsePositiveRate(items?: number): number {
    const n = items === undefined ? this.size : checkCount("items", items);
    return rateFor(n, this.#counters, this.#hashes);
  }

  /** Adds one occurrence of the key. */
  add(key: Key): this {
    this.testAndAdd(key);
    return this;
  }

  /** Adds one occurrence of the key; true when it was probably present before (every counter above 0). */
  testAndAdd(key: Key): boolean {
    this.#checkRoom(1);
    const seen = this.#one(OP_ADD, key) === 1;
    this.#size++;
    return seen;
  }

  has(key: Key): boolean {
    return this.#one(OP_HAS, key) === 1;
  }

  /** Removes one occurrence; false, changing nothing, when the key is definitely absent (a counter is 0). */
  remove(key: Key): boolean {
    const removed = this.#one(OP_REMOVE, key) === 1;
    if (removed) this.#size = Math.max(0, this.#size - 1);
    return removed;
  }

  /**
   * How often the key was added (less removed): the minimum of its counters,
   * an upper bound, exact unless another key shares all its counters. A
   * result of 2^counterBits − 1 means "at least that many": counters saturate.
   */
  count(key: Key): number {
    return this.#one(OP_COUNT, key);
  }

  addMany(keys: readonly Key[]): this {
    this.#add({ kind: "keys", keys });
    return this;
  }

  testAndAddMany(keys: readonly Key[]): Uint8Array {
    return this.#add({ kind: "keys", keys });
  }


  /** Removes each key once; result[i] = 1 where key i was removed, 0 where it was definitely absent. */
  removeMany(keys: readonly Key[]): Uint8Array {
    return this.#remove({ kind: "keys", keys });
  }

  countMany(keys: readonly Key[]): Uint32Array {
    return this.runOp(OP_COUNT, { kind: "keys", keys }, Uint32Array).answers;
  }

  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    this.#add({ kind: "packed", bytes, ends });
    return this;
  }

  testAndAddPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.#add({ kind: "packed", bytes, ends });
  }


  removePacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.#remove({ kind: "packed", bytes, ends });
  }

  countPacked(bytes: Uint8Array, ends: Uint32Array): Uint32Array {
    return this.runOp(OP_COUNT, { kind: "packed", bytes, ends }, Uint32Array).answers;
  }

  /** Adds newline-delimited keys (a line without its "\n" and one trailing "\r"), split inside wasm. */
  addLines(buffer: Uint8Array): this {
    this.#add({ kind: "lines", buffer });
    return this;
  }

  testAndAddLines(buffer: Uint8Array): Uint8Array {
    return this.#add({ kind: "lines", buffer });
  }


  removeLines(buffer: Uint8Array): Uint8Array {
    return this.#remove({ kind: "lines", buffer });
  }

  countLines(buffer: Uint8Array): Uint32Array {
    return this.runOp(OP_COUNT, { kind: "lines", buffer }, Uint32Array).answers;
  }

  /**
   * Adds integer keys (a Uint32Array or a BigUint64Array) with no encoding,
   * at the positions BloomFilter.addInts gives them with the same m, k and
   * seed. Integers are their own key space (a 64-bit mix of the value, not
   * its bytes); a 32-bit key equals the 64-bit key of the same value. Triple
   * or double hashing only.
   */
  addInts(keys: Uint32Array | BigUint64Array): this {
    this.testAndAddInts(keys);
    return this;
  }

  testAndAddInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    checkIntsKeys(keys);
    checkIntsHashing(this.#hashing.strategy);
    return this.#add({ kind: "ints", keys });
  }


  removeInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    checkIntsKeys(keys);
    checkIntsHashing(this.#hashing.strategy);
    return this.#remove({ kind: "ints", keys });
  }

  countInts(keys: Uint32Array | BigUint64Array): Uint32Array {
    checkIntsKeys(keys);
    checkIntsHashing(this.#hashing.strategy);
    return this.runOp(OP_COUNT, { kind: "ints", keys }, Uint32Array).answers;
  }

  /** The key's k counter indices (the positions a BloomFilter with the same m, k and hashing would use). */
  positions(key: Key): number[] {
    if (this.segmentCount > 1) {
      maxKeyBytes(key);
      return Array.from(
        segmentIndices(
          { segmentBits: this.#segmentCounters, segments: this.segmentCount, hashes: this.#hashes, strategy: this.#hashing.strategy as "triple" | "double", keyHash: this.#keyHash! },
          { kind: "keys", keys: [key] },
        ),
      );
    }
    const { ptr, length, out } = this.oneKey(key);
    this.core.bloomPositions(this.live(), ptr, length, out); // same header and indexing as BloomFilter
    return Array.from(this.arena.f64().subarray(out / 8, out / 8 + this.#hashes));
  }

  /** Every counter's value, in one copy (for display): Uint8Array for 4- and 8-bit counters, Uint16Array for 16-bit. */
  counterValues(): Uint8Array | Uint16Array {
    checkOneArray("counterValues() of this filter", this.#counters * (this.#width === 16 ? 2 : 1), "read counters one at a time with counter(i), or run on Node 24, whose arrays hold more");
    const perSegment = Math.ceil((this.#segmentCounters * this.#width) / 8);
    const raw = new Uint8Array(perSegment * this.segmentCount);
    this.segments().forEach(({ arena, ptr }, s) => raw.set(arena.u8().subarray(ptr + HEADER_BYTES, ptr + HEADER_BYTES + perSegment), s * perSegment));
    if (this.#width === 8) return raw.slice(0, this.#counters);
    if (this.#width === 16) return new Uint16Array(raw.buffer, 0, this.#counters);
    const values = new Uint8Array(this.#counters);
    // i / 2, not i >> 1: past counter 2^31 a shift goes negative, and every counter there read 0.
    for (let i = 0; i < this.#counters; i++) values[i] = (raw[Math.floor(i / 2)] >> ((i & 1) << 2)) & 0xf;
    return values;
  }

  /** Counter i, for display and inspection. */
  counter(index: number): number {
    checkInteger("index", index, 0, this.#counters - 1);
    const segment = Math.floor(index / this.#segmentCounters);
    const { arena, ptr } = this.segments()[segment];
    return arena.core.countingCounter(ptr, this.#width, index - segment * this.#segmentCounters);
  }

  /** The standard BloomFilter with the same m, k and hashing: bit i is set where counter i > 0. */
  toBloomFilter(): BloomFilter {
    const blocks = this.segments();
    const words = Math.ceil(this.#segmentCounters / 64);
    return BloomFilter.fromFill(this.#counters, this.#hashes, this.#hashing, this.#size, blocks.map((block) => block.arena), (target, s) => {
      const { arena, ptr } = blocks[s];
      if (target.arena === arena) {
        arena.core.countingToBloomWords(ptr, this.#width, 0, words, target.ptr + HEADER_BYTES);
        return;
      }
      // Elsewhere (a counting filter with a memory of its own, which the standard one would keep alive, or too
      // full to take it: above about 3.2 GiB of 4-bit counters it was refused): a piece at a time through the
      // scratch area of the counting filter's memory.
      const scratch = scratchOf(arena);
      const perPiece = Math.floor(scratch.capacity / 8);
      for (let from = 0; from < words; from += perPiece) {
        const count = Math.min(perPiece, words - from);
        arena.core.countingToBloomWords(ptr, this.#width, from, count, scratch.bytes);
        target.arena.u8().set(arena.u8().subarray(scratch.bytes, scratch.bytes + count * 8), target.ptr + HEADER_BYTES + from * 8);
      }
    });
  }

  /** What serialize() writes: parameters and where the payload lies. @internal */
  recordSource(): RecordSource {
    const segments = this.segmentCount;
    const w = new ParamWriter().u64(this.#counters).u32(this.#hashes).u8(this.#width).u8(0).u8(0).u8(0).u64(this.#size);
    writeHashing(w, this.#hashing);
    if (segments > 1) w.u32(segments);
    const bytes = blockBytes(this.#segmentCounters, this.#width) - HEADER_BYTES;
    return { type: FilterType.counting, version: segments > 1 ? 2 : 1, params: w.bytes(), payload: this.segments().map(({ arena, ptr }) => ({ arena, ptr: ptr + HEADER_BYTES, bytes })) };
  }

  /** A filter from serialize()'s bytes; truncated, corrupted or foreign bytes throw a FormatError. */
  static deserialize(bytes: Uint8Array): CountingBloomFilter {
    refuseLoaderOptions("CountingBloomFilter.deserialize", arguments[1]);
    return readRecordBytes(bytes, { [FilterType.counting]: CountingBloomFilter.loader }, FilterType.counting);
  }

  /** A filter from a stream of serializeChunks()'s pieces, read piece by piece into wasm memory. */
  static deserializeChunks(source: ByteSource, options?: ChunksOptions): Promise<CountingBloomFilter> {
    const { available } = checkChunksOptions(options, false);
    return readRecordStream(source, { [FilterType.counting]: CountingBloomFilter.loader }, FilterType.counting, available);
  }

  /** Checks a record's parameters and allocates the filter its payload fills. @internal */
  static loader: Loader<CountingBloomFilter> = (header) => {
    const r = new ParamReader(header.params);
    const counters = r.u64("counters");
    const hashes = r.u32();
    const width = r.u8();
    if (r.u8() !== 0 || r.u8() !== 0 || r.u8() !== 0) throw new FormatError("corrupted: reserved bytes are not 0");
    const size = r.u64("size");
    const hashing = readHashing(r);
    const segments = header.version >= 2 ? r.u32() : 1;
    r.end();
    if (width !== 4 && width !== 8 && width !== 16) throw new FormatError(`corrupted: counter bits = ${width}`);
    if (counters < 1 || counters > maxCounters(width)) throw new FormatError(`corrupted: counters = ${counters} is out of range`);
    if (hashes < 1 || hashes > MAX_HASHES) throw new FormatError(`corrupted: hashes = ${hashes} is out of range`);
    if (segments !== segmentsFor(counters, width) || (header.version >= 2 && segments === 1) || (segments > 1 && counters % (64 * segments) !== 0)) {
      throw new FormatError(`corrupted: ${counters} counters cannot be held in ${segments} segment${segments === 1 ? "" : "s"}`);
    }
    if (hashing.strategy === "independent" && (hashing.names.length !== hashes || segments > 1)) {
      throw new FormatError(`corrupted: ${hashing.names.length} hashes listed for k = ${hashes}`);
    }
    const bytes = blockBytes(counters / segments, width) - HEADER_BYTES;
    if (header.payloadLength !== bytes * segments) throw new FormatError(`corrupted: payload of ${header.payloadLength} bytes for ${counters} counters`);
    if (bytes * segments > freeMemory()) throw new RangeError(`a counting filter of ${formatBytes(bytes * segments)} is more than the free memory`);
    const filter = new CountingBloomFilter(counters, hashes, width, hashing, segments);
    return {
      target: filter.segments().map(({ arena, ptr }) => ({ arena, ptr: ptr + HEADER_BYTES, bytes })),
      finish: () => {
        // A filter never sets the counters past m, nor the padding after them.
        const usedBits = (counters / segments) * width;
        const { arena, ptr } = filter.segments()[0];
        const payload = arena.u8().subarray(ptr + HEADER_BYTES, ptr + HEADER_BYTES + bytes);
        const lastByte = Math.floor(usedBits / 8);
        const padding = (usedBits % 8 !== 0 && payload[lastByte] >> (usedBits % 8) !== 0) || payload.subarray(Math.ceil(usedBits / 8)).some((b) => b !== 0);
        if (padding) {
          filter.dispose();
          throw new FormatError("corrupted: counters past m are set");
        }
        filter.#size = size;
        return filter;
      },
      abandon: () => filter.dispose(),
    };
  };

  static fromBase64(text: string): CountingBloomFilter {
    refuseLoaderOptions("CountingBloomFilter.fromBase64", arguments[1]);
    return CountingBloomFilter.deserialize(fromBase64(text, FilterType.counting));
  }

  /** The kernel for OP_ADD, OP_HAS, OP_REMOVE or OP_COUNT over a chunk: hashes or integers, or key bytes for the independent strategy. */
  protected blockKernel(op: number, block: Block): Kernel {
    const { core } = block.arena;
    const ptr = block.ptr;
    const width = this.#width;
    return (chunk) => {
      const { scratch, count } = chunk;
      if (chunk.source === SOURCE_BYTES) return core.countingBytes(ptr, width, op, chunk.src, scratch.ends, count, chunk.start, scratch.out);
      return core.countingRun(ptr, width, op, chunk.source, chunk.src, chunk.hashes2, count, scratch.out);
    };
  }

  protected routeChunk(chunk: Chunk): void {
    chunk.scratch.arena.core.bloomRoute(chunk.source, chunk.src, chunk.hashes2, chunk.count, this.#hashing.seed, this.segmentCount, chunk.scratch.ends);
  }

  protected checkIntKeys(keys: unknown): void {
    checkIntsKeys(keys);
    checkIntsHashing(this.#hashing.strategy);
  }

  protected get keyHash(): KeyHash | null {
    return this.#keyHash;
  }

  protected describeParameters(): Record<string, unknown> {
    return { counters: this.#counters, counterBits: this.#width, hashes: this.#hashes, size: this.#size, hash: this.hash, seed: this.seed, strategy: this.strategy };
  }

  /** `op` for one key; its answer (0/1, or the count). */
  #one(op: number, key: Key): number {
    const one = this.oneString(key);
    if (one) return one.core.countingKey(one.filter, this.#width, op, one.room.scratch.bytes, one.room.text.utf8Write(key as string, 0), one.room.scratch.out);
    if (this.segmentCount > 1) {
      maxKeyBytes(key);
      // Only a count is a u32; add, has and remove answer one byte, and the bytes after it are another call's.
      const source: KeySource = { kind: "keys", keys: [key] };
      return op === OP_COUNT ? this.runOp(op, source, Uint32Array).answers[0] : this.runOp(op, source).answers[0];
    }
    const { ptr, length, out } = this.oneKey(key);
    return this.core.countingKey(this.live(), this.#width, op, ptr, length, out);
  }

  /** Adds a batch (every key counts once more); answers 1 where a key was probably present before. */
  #add(source: KeySource): Uint8Array {
    this.#checkRoom(Math.max(0, sourceLength(source)));
    const { answers } = this.runOp(OP_ADD, source);
    this.#size += answers.length;
    return answers;
  }

  /** A RangeError, before anything is added, when `adds` more would take the size past 2^53 − 1 (a number a record holds exactly). */
  #checkRoom(adds: number): void {
    if (this.#size + adds > Number.MAX_SAFE_INTEGER) throw new RangeError(`the counting filter's size ${this.#size} cannot grow by ${adds} past 2^53 − 1; nothing was added`);
  }

  /** Removes a batch; answers 1 where a key was removed. */
  #remove(source: KeySource): Uint8Array {
    const { answers, total } = this.runOp(OP_REMOVE, source);
    // A saturated counter never reaches 0, so it answers every remove: the size stops at 0.
    this.#size = Math.max(0, this.#size - total);
    return answers;
  }
}

/** A filter in segments routes keys by their second hash; the independent strategy has no second hash to route by. */
function checkSegmentable(hashing: Hashing, segments: number): void {
  if (segments > 1 && !hashesOnce(hashing)) {
    throw new RangeError("a counting filter larger than one wasm memory is held in segments, which needs triple or double hashing; the independent strategy is limited to one segment");
  }
}
