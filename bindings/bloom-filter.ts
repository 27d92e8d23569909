// The standard Bloom filter: an m-bit array in wasm memory and k indices per
// key, by default from triple hashing over one 64-bit XXH3 hash (see
// assembly/bloom.ts). A filter larger than one wasm memory
// (4 GiB) is held in segments of equal size: a key's second hash picks its
// segment, and its k bits are set in that segment alone.
import { KeyHashedBlock } from "./key-hashed-block.js";
import type { Placement } from "./wasm-block.js";
import type { Arena } from "./arena.js";
import { defaultArena, MAX_BLOCK_BYTES, placeBeside, type Block } from "./memory.js";
import { FILTER_HEADER, OP_ADD, OP_HAS } from "./constants.generated.js";
import { checkCount, checkInteger, checkIntsHashing, checkIntsKeys, checkOptions, checkVisit, checkCreateNumbers, describe, formatBytes, checkMadeBy } from "./errors.js";
import { checkKey, scratchOf, SHARED_BYTES_KEY_BYTES, SHARED_KEY_BYTES, type Key } from "./keys.js";
import { checkChunksOptions, checkDeserializeOptions, openHandle, type DeserializeChunksOptions, type DeserializeOptions, type SharedFilterHandle } from "./shared.js";
import { SOURCE_BYTES, type Chunk, type Kernel, type KeyHash, type KeySource } from "./batch.js";
import { combineInto } from "./combine.js";
import { segmentIndices } from "./indices.js";
import { checkReachable, checkSizable, filterSizing, MAX_HASHES, rateFor } from "./optimal.js";
import type { Filter } from "./filter.js";
import type { HashName } from "./hash.js";
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
import {
  HASHING_OPTION_NAMES,
  hashesOnce,
  hashOf,
  keyHashOf,
  hashingDifference,
  type ParameterDifference,
  writeIndexHeader,
  readHashing,
  resolveHashing,
  writeHashing,
  type Hashing,
  type HashingOptions,
  type HashStrategy,
} from "./hashing.js";

export { DEFAULT_HASH, DEFAULT_STRATEGY, type HashStrategy } from "./hashing.js";

/**
 * Runs `fill` on a filter just made for its result (a fold, union,
 * intersection or toBloomFilter), disposing it when `fill` throws: copying
 * between two memories needs a scratch area, which a full memory may refuse,
 * and the failed call must not keep the new filter's memory.
 */
function disposeOnError(made: { dispose(): void }, fill: () => void): void {
  try {
    fill();
  } catch (error) {
    made.dispose();
    throw error;
  }
}

/** Options shared by the constructors. */
export interface BloomFilterOptions extends HashingOptions {
  /** create() only: round m up so the filter can be folded (m a multiple of 64 · 2^f, f ≥ 1, with at most 1/16 more bits, or 127 below 2,048 bits). */
  foldable?: boolean;
  /** Hold the bits in shared memory, so that share() can hand the same filter to worker threads (see share()). */
  shared?: boolean;
}

/** What share() hands to other threads: the memories and the parameters. */
export type SharedBloomFilterHandle = SharedFilterHandle<"BloomFilter", { bits: number; hashes: number; baseBits: number; hashing: Hashing }>;

const OPTION_NAMES = [...HASHING_OPTION_NAMES, "foldable", "shared"] as const;
const HEADER_BYTES = FILTER_HEADER;

/** The header bytes writeIndexHeader gives a block of these parameters (written in this thread's scratch area, then copied). */
function indexHeaderBytes(bits: number, hashes: number, hashing: Hashing, baseBits: number): Uint8Array {
  const arena = defaultArena();
  const at = scratchOf(arena).bytes;
  arena.u8().fill(0, at, at + HEADER_BYTES);
  writeIndexHeader(arena.core, at, bits, hashes, hashing, baseBits);
  return arena.u8().slice(at, at + HEADER_BYTES);
}

/** True when two byte arrays hold the same bytes. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** Bytes of a segment's block: the header, then its bits as whole u64 words (assembly/bloom.ts's layout). */
function blockBytes(bits: number): number {
  return defaultArena().core.bloomBlockBytes(bits);
}

/** Bits one segment can hold: its block must fit one wasm memory (4 GiB less the arena's own room). */
export const MAX_SEGMENT_BITS = Math.floor((MAX_BLOCK_BYTES - HEADER_BYTES) / 8) * 64;
/** Most segments a filter is held in. */
export const MAX_SEGMENTS = 64;
/** Largest m a filter can have: 64 segments of almost 4 GiB, 256 GiB in all (the machine's memory is the real limit). */
export const MAX_FILTER_BITS = MAX_SEGMENTS * MAX_SEGMENT_BITS;
/** Most folds a foldable create() prepares for: m a multiple of 64 · 2^16 at most. */
const MAX_FOLD_LOG2 = 16;

/**
 * m rounded up to a multiple of 64 · 2^f, for the largest f (≤ 16) that adds
 * at most m/16 bits, and f at least 1: below 2,048 bits no f adds so little,
 * and a multiple of 64 alone (960 bits for 100 keys at 1%) could not fold at all.
 */
function foldableBits(m: number): number {
  let f = 1;
  while (f < MAX_FOLD_LOG2 && 64 * 2 ** (f + 1) <= m / 16) f++;
  const block = 64 * 2 ** f;
  return Math.ceil(m / block) * block;
}

/** Segments a filter of `bits` bits is held in, each of at most `limit` bits. */
function segmentsFor(bits: number, limit = MAX_SEGMENT_BITS): number {
  return Math.ceil(bits / limit);
}

/** What BloomFilter.sizeFor() answers: the filter create() would make. */
export interface BloomFilterSize {
  /** m: bits of the filter. */
  bits: number;
  /** k: hash functions. */
  hashes: number;
  /** Equal segments the bits are held in: 1 up to MAX_SEGMENT_BITS. */
  segments: number;
  /** Bytes of the bit array (whole 64-bit words in each segment). */
  bytes: number;
}

/** create()'s and sizeFor()'s arguments, checked in that order (`call`, BloomFilter.create or BloomFilter.sizeFor, for the hint a missing number gets). */
function checkCreate(call: string, expectedItems: number, falsePositiveRate: number, options: BloomFilterOptions | undefined) {
  const { n, p } = checkCreateNumbers(call, "expectedItems", expectedItems, falsePositiveRate);
  const checked = checkOptions("options", options, OPTION_NAMES);
  const hashing = resolveHashing(checked);
  if (checked.foldable !== undefined && typeof checked.foldable !== "boolean") {
    throw new TypeError(`options.foldable must be a boolean, got ${describe(checked.foldable)}`);
  }
  if (hashesOnce(hashing)) checkReachable("expectedItems", "falsePositiveRate", n, p);
  return { n, p, hashing, checked };
}

/** A standard Bloom filter: no false negatives, false positives at a rate set by m, k and n. */
export class BloomFilter extends KeyHashedBlock implements Filter {
  readonly #bits: number;
  readonly #segmentBits: number;
  readonly #hashes: number;
  readonly #hashing: Hashing;
  readonly #baseBits: number;
  readonly #keyHash: KeyHash | null;
  /** Set bits, or −1 when an add may have changed them. */
  #setBits = 0;

  private constructor(bits: number, hashes: number, hashing: Hashing, baseBits = bits, near?: Arena | readonly (Arena | undefined)[], segments = 1, placement?: Placement) {
    checkMadeBy(typeof bits === "number" && typeof hashing === "object" && hashing !== null, "BloomFilter", "BloomFilter.create(expectedItems, falsePositiveRate), BloomFilter.withSize(bits, hashes) or deserialize(bytes)");
    const segmentBits = bits / segments;
    const bytes = blockBytes(segmentBits);
    super(segments === 1 ? bytes : Array.from({ length: segments }, () => bytes), () => `a Bloom filter of ${bits} bits (${formatBytes(segments * bytes)})`, near, placement);
    // A filter received from another thread has its header written already.
    if (!(placement && "attach" in placement)) {
      for (const block of this.segments()) writeIndexHeader(block.arena.core, block.ptr, segmentBits, hashes, hashing, baseBits / segments);
    }
    this.#keyHash = keyHashOf(hashing);
    this.#bits = bits;
    this.#segmentBits = segmentBits;
    this.#hashes = hashes;
    this.#hashing = hashing;
    this.#baseBits = baseBits;
  }

  /**
   * A filter sized for `expectedItems` keys at `falsePositiveRate`:
   * m = ⌈−n·ln p / (ln 2)²⌉ bits and k = round(m/n · ln 2) hashes (at least
   * 1). With the independent strategy, k is the number of hashes listed and
   * m the smallest that reaches p with that k. Above MAX_SEGMENT_BITS (one
   * wasm memory) m is rounded up to whole 64-bit words in each of the segments.
   */
  static create(expectedItems: number, falsePositiveRate: number, options?: BloomFilterOptions): BloomFilter {
    const { n, p, hashing, checked } = checkCreate("BloomFilter.create", expectedItems, falsePositiveRate, options);
    const { bits, hashes, segments } = BloomFilter.sizing(n, p, hashing, checked.foldable === true);
    return new BloomFilter(bits, hashes, hashing, bits, undefined, segments, sharedPlacement(checked.shared, hashing));
  }

  /**
   * The filter create() makes with the same arguments, without making it:
   * its m (`bits`), k (`hashes`), the segments it is held in (1 up to
   * MAX_SEGMENT_BITS) and the bytes of its bit array. The same errors as
   * create(), but for the free-memory check: it allocates nothing.
   */
  static sizeFor(expectedItems: number, falsePositiveRate: number, options?: BloomFilterOptions): BloomFilterSize {
    const { n, p, hashing, checked } = checkCreate("BloomFilter.sizeFor", expectedItems, falsePositiveRate, options);
    const { bits, hashes, segments } = BloomFilter.sizing(n, p, hashing, checked.foldable === true);
    return { bits, hashes, segments, bytes: Math.ceil(bits / segments / 64) * 8 * segments };
  }

  /**
   * The m, k and segments create() gives for n keys at rate p, segments of
   * at most `segmentLimit` bits (a copy kept in Redis has smaller ones); a
   * RangeError when no filter can be that large, calling n and p by `names`
   * (create()'s arguments unless a caller sizes a filter of its own). @internal
   */
  static sizing(
    n: number,
    p: number,
    hashing: Hashing,
    foldable = false,
    segmentLimit = MAX_SEGMENT_BITS,
    names: SizingNames = CREATE_NAMES,
  ): { bits: number; hashes: number; segments: number } {
    // Not optimal(): the bound on m is the filter's own, far lower, and its message names create()'s arguments.
    if (hashing.strategy === "independent") checkSizable(names.n, names.p, n, p, hashing.names.length);
    const sized = filterSizing(hashing.strategy === "independent" ? { n, p, k: hashing.names.length } : { n, p });
    const segments = segmentsFor(sized.m, segmentLimit);
    const maxBits = MAX_SEGMENTS * segmentLimit;
    const perSegment = foldable ? foldableBits(sized.m / segments) : segments > 1 ? Math.ceil(sized.m / segments / 64) * 64 : sized.m;
    const m = perSegment * segments;
    if (m > maxBits || perSegment > segmentLimit) {
      throw new RangeError(
        `a filter for ${names.n} = ${n} at ${names.p} = ${p} needs ${m} bits (${formatBytes(m / 8)}); ` +
          `a filter holds at most ${maxBits} bits (${formatBytes(maxBits / 8)})`,
      );
    }
    checkSegmentable(hashing, segments);
    return { bits: m, hashes: sized.k, segments };
  }

  /**
   * A filter of exactly `bits` bits and `hashes` hash functions (with the
   * independent strategy, as many as listed). Above MAX_SEGMENT_BITS it is
   * held in equal segments, so `bits` must then be a multiple of 64 times
   * their number.
   */
  static withSize(bits: number, hashes: number, options?: Omit<BloomFilterOptions, "foldable">): BloomFilter {
    checkInteger("bits", bits, 1, MAX_FILTER_BITS);
    checkInteger("hashes", hashes, 1, MAX_HASHES);
    const checked = checkOptions("options", options, OPTION_NAMES);
    if (checked.foldable !== undefined) throw new TypeError("options.foldable is for create(); withSize() takes the bits you give it");
    const hashing = resolveHashing(checked);
    if (hashing.strategy === "independent" && hashing.names.length !== hashes) {
      throw new RangeError(`hashes is ${hashes} but options.hash lists ${hashing.names.length} hashes for strategy "independent"`);
    }
    const segments = segmentsFor(bits);
    if (segments > 1 && bits % (64 * segments) !== 0) {
      const next = Math.ceil(bits / (64 * segments)) * 64 * segments;
      throw new RangeError(
        `bits = ${bits} needs ${segments} segments of equal size (one wasm memory holds ${MAX_SEGMENT_BITS} bits): ` +
          `give a multiple of ${64 * segments}, such as ${next}`,
      );
    }
    checkSegmentable(hashing, segments);
    return new BloomFilter(bits, hashes, hashing, bits, undefined, segments, sharedPlacement(checked.shared, hashing));
  }

  /**
   * A handle to this filter for other threads (it must have been created
   * with { shared: true }): post it to a worker (postMessage copies no bits)
   * and call BloomFilter.fromShared(handle) there. Adds from any thread are
   * atomic ORs, so none is lost; has() is safe while others add. Drop the
   * handle once used: it keeps the memory alive.
   */
  share(): SharedBloomFilterHandle {
    const memories = this.sharedMemories();
    const { strategy, names, seed } = this.#hashing;
    return { type: "BloomFilter", memories, params: { bits: this.#bits, hashes: this.#hashes, baseBits: this.#baseBits, hashing: { strategy, names: [...names], seed } } };
  }

  /** This thread's filter over the same bits as the shared filter whose share() gave `handle`: every method works on it, live. */
  static fromShared(handle: SharedBloomFilterHandle): BloomFilter {
    const { blocks, params } = openHandle(handle, "BloomFilter", MAX_SEGMENTS);
    const { bits, hashes, baseBits } = params;
    const given = params.hashing as Partial<Hashing> | undefined;
    // Triple and double hashing record one name: a list of more is not a handle share() made (only its first was read).
    const namesRecorded = (names: unknown[]) => (given!.strategy === "independent" ? names.length > 0 : names.length === 1);
    if (typeof given !== "object" || given === null) throw new TypeError(`handle.params.hashing must be the hashing share() recorded, got ${describe(given)}`);
    // The part that is missing or wrong is named, with its value: "got an object" said neither.
    for (const part of ["seed", "strategy"] as const) {
      if (given[part] === undefined) throw new TypeError(`handle.params.hashing.${part} must be the ${part} share() recorded, got undefined`);
    }
    if (!Array.isArray(given.names) || !namesRecorded(given.names)) {
      throw new TypeError(
        `handle.params.hashing.names must be the hash names share() recorded (one name for triple or double hashing, k names for independent), got ${describe(given.names)}`,
      );
    }
    let hashing: Hashing;
    try {
      hashing = resolveHashing({ seed: given.seed, strategy: given.strategy, hash: given.strategy === "independent" ? given.names : given.names[0] });
    } catch (error) {
      throw new RangeError(`handle.params.hashing is not a hashing share() records: ${(error as Error).message}`);
    }
    checkInteger("handle.params.bits", bits, 1, MAX_FILTER_BITS);
    checkInteger("handle.params.hashes", hashes, 1, MAX_HASHES);
    checkInteger("handle.params.baseBits", baseBits, 1, MAX_FILTER_BITS);
    const segments = blocks.length;
    // Each memory's header records m, k, the hashing and the base m: the handle must give the same, or this
    // thread would set and test other bits than the others (false negatives there). A filter can be held in
    // more segments than its bits need, as deserialize keeps them (a RedisBloomFilter's copy, a folded filter
    // in segments): any number the loader accepts, with one key hash when there are several.
    const header = segmentable(bits as number, segments) && (segments === 1 || hashesOnce(hashing)) ? indexHeaderBytes((bits as number) / segments, hashes as number, hashing, (baseBits as number) / segments) : undefined;
    const fits = header !== undefined && blocks.every(({ arena, ptr, bytes }) => bytes === blockBytes((bits as number) / segments) && sameBytes(arena.u8().subarray(ptr, ptr + HEADER_BYTES), header));
    if (!fits) {
      throw new RangeError(
        `handle.params (${bits} bits, base ${baseBits}, k = ${hashes}, ${hashing.strategy} hashing with ${hashing.names.join(", ")}, seed ${hashing.seed}) ` +
          `do not match the filter in the ${segments} shared ${segments === 1 ? "memory" : "memories"} it holds`,
      );
    }
    return new BloomFilter(bits as number, hashes as number, hashing, baseBits as number, undefined, segments, { attach: blocks });
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

  /** The hash name (triple or double hashing) or the list of names (independent). */
  get hash(): HashName | readonly HashName[] {
    return hashOf(this.#hashing);
  }

  /** How indices are derived from the key. */
  get strategy(): HashStrategy {
    return this.#hashing.strategy;
  }

  /** The key count of `size`, shared by every thread for a shared filter. */
  get #count(): number {
    return this.keyCount;
  }

  set #count(n: number) {
    this.setKeyCount(n);
  }

  /** Keys added that set at least one new bit: distinct keys, less those the filter already took for present (by any thread, for a shared filter). */
  get size(): number {
    return this.#count;
  }

  /** @deprecated Use `size`; `count` is kept for one release. */
  get count(): number {
    return this.size;
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

  /** The rate the formula predicts for `items` distinct keys in this filter (default: size): (1 − e^(−k·n/m))^k. */
  expectedFalsePositiveRate(items?: number): number {
    const n = items === undefined ? this.size : checkCount("items", items);
    return rateFor(n, this.#bits, this.#hashes);
  }

  /** Adds a key. */
  add(key: Key): this {
    this.testAndAdd(key);
    return this;
  }

  /** True when the key is probably present; false when it is definitely absent. */
  has(key: Key): boolean {
    const one = this.oneString(key);
    if (one) return one.core.bloomHas(one.filter, one.room.scratch.bytes, one.room.text.utf8Write(key as string, 0)) === 1;
    if (this.viaBatch) return this.runOp(OP_HAS, { kind: "keys", keys: [checkKey(key)] }).answers[0] === 1;
    const { ptr, length } = this.oneKey(key);
    return this.core.bloomHas(this.live(), ptr, length) === 1;
  }

  /** Adds a key and returns true when it was probably present before (a de-duplication step in one call). */
  testAndAdd(key: Key): boolean {
    const one = this.oneString(key);
    let fresh: number;
    if (one) fresh = one.core.bloomAdd(one.filter, one.room.scratch.bytes, one.room.text.utf8Write(key as string, 0));
    else if (this.viaBatch) return this.#add({ kind: "keys", keys: [checkKey(key)] })[0] === 1;
    else {
      const { ptr, length } = this.oneKey(key);
      fresh = this.core.bloomAdd(this.live(), ptr, length);
    }
    this.#added(fresh);
    return fresh === 0;
  }

  /** The key's k bit indices, in the order the hashes produce them (duplicates possible). */
  positions(key: Key): number[] {
    // A shared filter of the independent strategy takes the one-key path in its batch area, which holds key bytes.
    if (this.segmentCount > 1 || (this.shared && hashesOnce(this.#hashing))) return Array.from(this.indices({ kind: "keys", keys: [checkKey(key)] }));
    // A key longer than the batch area is refused as add() and has() refuse it, naming `key`.
    if (this.shared) this.checkShared({ kind: "keys", keys: [checkKey(key)] });
    const { ptr, length, out } = this.oneKey(key);
    // The scratch answer room holds 8 bytes per batch key, far more than 8 × MAX_HASHES.
    this.core.bloomPositions(this.live(), ptr, length, out);
    return Array.from(this.arena.f64().subarray(out / 8, out / 8 + this.#hashes));
  }

  /**
   * The k bit indices of every key of a batch, key i's at [k·i, k·(i+1)):
   * where a copy of this filter kept elsewhere (Redis) sets and tests bits.
   * Triple or double hashing only. @internal
   */
  indices(source: KeySource): Float64Array {
    checkIntsHashing(this.#hashing.strategy);
    this.live();
    const segments = this.segmentCount;
    return segmentIndices({ segmentBits: this.#segmentBits, baseBits: this.#baseBits / segments, segments, hashes: this.#hashes, strategy: this.#hashing.strategy, keyHash: this.#keyHash! }, source);
  }

  /**
   * Adds integer keys (a Uint32Array or a BigUint64Array): no encoding, one
   * wasm call per chunk of keys. Integers are their own key space, hashed by
   * a 64-bit mix, not as bytes: add(bytes) and addInts of the same number are
   * different keys; a 32-bit key equals the 64-bit key of the same value.
   */
  addInts(keys: Uint32Array | BigUint64Array): this {
    this.testAndAddInts(keys);
    return this;
  }


  /** Adds integer keys in order; 1 where a key was probably present before. */
  testAndAddInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    checkIntsKeys(keys);
    checkIntsHashing(this.#hashing.strategy);
    return this.#add({ kind: "ints", keys });
  }

  protected addSource(source: KeySource, into?: Uint8Array): Uint8Array {
    return this.#add(source, into);
  }

  /** A copy of the bit array: bit i is bit (i & 7) of byte (i >> 3), ⌈m/8⌉ bytes. */
  bitArray(): Uint8Array {
    checkOneArray("bitArray() of this filter", Math.ceil(this.#bits / 8), TOO_LARGE_FOR_ONE_ARRAY);
    const out = new Uint8Array(Math.ceil(this.#bits / 8));
    let at = 0;
    for (const { arena, ptr } of this.segments()) {
      const bytes = Math.ceil(this.#segmentBits / 8);
      out.set(arena.u8().subarray(ptr + HEADER_BYTES, ptr + HEADER_BYTES + bytes), at);
      at += bytes;
    }
    return out;
  }

  /** Adds every key, in one wasm call per chunk. */
  addMany(keys: readonly Key[]): this {
    this.#add({ kind: "keys", keys });
    return this;
  }


  /** Adds every key in order; result[i] = 1 when key i was probably present before it was added. */
  testAndAddMany(keys: readonly Key[]): Uint8Array {
    return this.#add({ kind: "keys", keys });
  }

  /** Adds keys packed in one buffer: key i is bytes[ends[i−1] .. ends[i]) (key 0 starts at 0). Skips string encoding. */
  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    this.#add({ kind: "packed", bytes, ends });
    return this;
  }


  /** Adds packed keys in order; 1 where a key was probably present before. */
  testAndAddPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.#add({ kind: "packed", bytes, ends });
  }

  /**
   * A new filter holding the keys of both (bitwise OR): it answers exactly
   * like a filter built from both key sets. Both operands stay unchanged.
   * Its size is the fill-based estimate (at least the larger operand's size,
   * at most the two added), since keys added to both cannot be told apart.
   */
  union(other: BloomFilter): BloomFilter {
    return this.#combine(other, "union");
  }

  /**
   * A new filter of the keys probably in both (bitwise AND). It has no false
   * negatives for keys added to both, but its false-positive rate is higher
   * than that of a filter built from the intersection alone: a bit set by one
   * key in each operand survives the AND. Both operands stay unchanged.
   * Its size is the fill-based estimate, which counts those bits as keys too:
   * for the keys in common, estimatedCount() of each operand less that of
   * their union estimates better.
   */
  intersect(other: BloomFilter): BloomFilter {
    return this.#combine(other, "intersect");
  }

  /**
   * A new filter with m / factor bits, the halves of the array OR-ed together
   * `log2(factor)` times (the compressed filter of the classic articles).
   * Every key added stays present; the false-positive rate becomes that of
   * m / factor bits. `factor` is a power of two and m / factor a multiple of
   * 64: see maxFoldFactor, and create(n, p, { foldable: true }). A filter in
   * segments folds each segment.
   */
  fold(factor: number): BloomFilter {
    this.live();
    if (typeof factor !== "number") throw new TypeError(`factor must be a number, got ${describe(factor)}`);
    // Every factor refused gets the range fold() takes: 1, 2.5 or NaN were told "an integer from 2 to 2^53 − 1".
    if (!(factor >= 2 && Number.isInteger(Math.log2(factor)) && factor <= this.maxFoldFactor)) {
      // What to do differs: a filter that folds takes another factor; one folded to its end can go no further; any other
      // filter should have been made foldable (that advice, to a filter folded as far as it goes, was wrong).
      const advice =
        this.maxFoldFactor >= 2 ? "" : this.#bits < this.#baseBits ? `; it is folded as far as it goes (from ${this.#baseBits} bits)` : "; create with { foldable: true } to allow folding";
      throw new RangeError(
        `cannot fold ${this.#bits} bits by ${factor}: the factor must be a power of two from 2 up to maxFoldFactor = ${this.maxFoldFactor} ` +
          `(m / factor a whole number of 64-bit words${this.segmentCount > 1 ? " in each segment" : ""})${advice}`,
      );
    }
    const blocks = this.segments();
    // The count is read before the bits are copied: other threads may add to a shared filter meanwhile, and a thread
    // counts a key after setting its bits, so a count read first counts only keys whose bits the copy holds. Read
    // after, it could count keys whose bits came too late for the copy: more keys than its clear bits allow, which
    // serialize() would write and deserialize() refuse as corrupted.
    const count = this.#count;
    const folded = new BloomFilter(this.#bits / factor, this.#hashes, this.#hashing, this.#baseBits, blocks.map((block) => placeBeside(block.arena)), blocks.length);
    const partBytes = this.#segmentBits / factor / 8;
    disposeOnError(folded, () =>
      folded.segments().forEach((target, s) => {
        const source = blocks[s];
        for (let t = 0; t < factor; t++) combineInto(target.arena, target.ptr + HEADER_BYTES, source.arena, source.ptr + HEADER_BYTES + t * partBytes, partBytes, false);
      }),
    );
    folded.#count = count;
    folded.#setBits = -1;
    return folded;
  }

  /** The largest factor fold() accepts now (1 when m is not a multiple of 128). */
  get maxFoldFactor(): number {
    this.live();
    const m = this.#segmentBits;
    let factor = 1;
    while ((m / (factor * 2)) % 64 === 0 && m / (factor * 2) >= 64) factor *= 2;
    return factor;
  }

  /** What serialize() writes: parameters and where the payload lies. @internal */
  recordSource(): RecordSource {
    this.live();
    const segments = this.segmentCount;
    const w = new ParamWriter().u64(this.#bits).u64(this.#baseBits).u32(this.#hashes).u64(this.#count);
    writeHashing(w, this.#hashing);
    if (segments > 1) w.u32(segments);
    const bytes = blockBytes(this.#segmentBits) - HEADER_BYTES;
    const payload: Region[] = this.segments().map(({ arena, ptr }) => ({ arena, ptr: ptr + HEADER_BYTES, bytes }));
    return { type: FilterType.bloom, version: segments > 1 ? 2 : 1, params: w.bytes(), payload };
  }

  /** A filter from serialize()'s bytes; truncated, corrupted or foreign bytes throw a FormatError. */
  static deserialize(bytes: Uint8Array, options?: DeserializeOptions): BloomFilter {
    return readRecordBytes(bytes, { [FilterType.bloom]: BloomFilter.#loaderFor(checkDeserializeOptions(options)) }, FilterType.bloom);
  }

  /** A filter from a stream of serializeChunks()'s pieces (a file stream, say), read piece by piece into wasm memory. */
  static deserializeChunks(source: ByteSource, options?: DeserializeChunksOptions): Promise<BloomFilter> {
    const { available, shared } = checkChunksOptions(options, true);
    return readRecordStream(source, { [FilterType.bloom]: BloomFilter.#loaderFor(shared) }, FilterType.bloom, available);
  }

  /** Checks a record's parameters and allocates the filter its payload fills, in private memory. @internal */
  static loader: Loader<BloomFilter> = (header) => BloomFilter.#loaderFor(false)(header);

  /** loader, into shared memory: what deserialize(bytes, { shared: true }), the reader of any type, uses for this type. @internal */
  static sharedLoader: Loader<BloomFilter> = (header) => BloomFilter.#loaderFor(true)(header);

  /** The loader that reads a record into private memory or, with `shared`, into shared memories. */
  static #loaderFor = (shared: boolean): Loader<BloomFilter> => (header) => {
    const r = new ParamReader(header.params);
    const bits = r.u64("bits");
    const baseBits = r.u64("base bits");
    const hashes = r.u32();
    const count = r.u64("count");
    const hashing = readHashing(r);
    const segments = header.version >= 2 ? r.u32() : 1;
    r.end();
    if (bits < 1 || bits > MAX_FILTER_BITS) throw new FormatError(`corrupted: bits = ${bits} is out of range`);
    if (hashes < 1 || hashes > MAX_HASHES) throw new FormatError(`corrupted: hashes = ${hashes} is out of range`);
    if (segments < 1 || segments > MAX_SEGMENTS || (header.version >= 2 && segments === 1)) throw new FormatError(`corrupted: ${segments} segments`);
    if (!segmentable(bits, segments)) {
      throw new FormatError(`corrupted: ${bits} bits cannot be held in ${segments} segment${segments === 1 ? "" : "s"}`);
    }
    const factor = baseBits / bits;
    if (!Number.isInteger(factor) || factor < 1 || !Number.isInteger(Math.log2(factor)) || (factor > 1 && (bits / segments) % 64 !== 0)) {
      throw new FormatError(`corrupted: base bits ${baseBits} is not a power-of-two multiple of bits ${bits}`);
    }
    // base m is the m of the filter this one was folded from, held in the same segments: 2^52 base bits (with a count
    // of 2^51 keys in a 64-bit filter), or more in one segment than a segment holds, were no filter's.
    if (!segmentable(baseBits, segments)) {
      throw new FormatError(`corrupted: base bits ${baseBits} cannot be held in ${segments} segment${segments === 1 ? "" : "s"}, as the filter folded into this one was`);
    }
    if (hashing.strategy === "independent" && hashing.names.length !== hashes) {
      throw new FormatError(`corrupted: ${hashing.names.length} hashes listed for k = ${hashes}`);
    }
    // A key is counted only when it sets a bit (folding keeps the count of the bits before), so count ≤ base bits.
    if (count > baseBits) throw new FormatError(`corrupted: count = ${count} keys in a filter of ${baseBits} bits`);
    if (segments > 1 && !hashesOnce(hashing)) throw new FormatError("corrupted: a filter in segments uses one key hash (triple or double hashing)");
    const expected = segments * (blockBytes(bits / segments) - HEADER_BYTES);
    if (header.payloadLength !== expected) throw new FormatError(`corrupted: payload of ${header.payloadLength} bytes for ${bits} bits`);
    const filter = new BloomFilter(bits, hashes, hashing, baseBits, undefined, segments, sharedPlacement(shared, hashing));
    const bytes = expected / segments;
    return {
      target: filter.segments().map(({ arena, ptr }) => ({ arena, ptr: ptr + HEADER_BYTES, bytes })),
      finish: () => {
        // A filter never sets the bits of its last word past m.
        if (bits % 64 !== 0) {
          const { arena, ptr } = filter.segments()[0];
          const last = arena.readU64(ptr + HEADER_BYTES + bytes - 8);
          if (last >> BigInt(bits % 64) !== 0n) {
            filter.dispose();
            throw new FormatError("corrupted: bits past m are set");
          }
        }
        filter.#setBits = -1; // the bits just read
        const clear = bits - filter.#countSetBits();
        if (count + clear > baseBits) {
          filter.dispose();
          throw new FormatError(`corrupted: count = ${count} keys, but ${clear} of ${bits} bits are clear (a key is counted when it sets a clear bit)`);
        }
        filter.#count = count;
        filter.#setBits = -1;
        return filter;
      },
      abandon: () => filter.dispose(),
    };
  };

  /**
   * @internal A filter with these parameters, segment s of it beside
   * `near[s]` when that is a pool (placeBeside), whose bits `fill(block, s)`
   * writes; disposed again when `fill` throws.
   */
  static fromFill(bits: number, hashes: number, hashing: Hashing, count: number, near: readonly Arena[], fill: (block: Block, segment: number) => void): BloomFilter {
    const filter = new BloomFilter(bits, hashes, hashing, bits, near.map(placeBeside), near.length);
    disposeOnError(filter, () => filter.segments().forEach(fill));
    filter.#setBits = -1;
    // A counting filter's size counts repeats (1,000 keys added 5 times: 5,000); a Bloom filter counts keys
    // that set a bit: the fill-based estimate, as a union's, and never more than the count given.
    const estimate = filter.estimatedCount();
    filter.#count = Math.min(count, filter.#countBound(), Number.isFinite(estimate) ? Math.round(estimate) : Infinity);
    filter.#setBits = -1;
    return filter;
  }

  /**
   * @internal An empty filter of `bits` bits in `segments` segments: at
   * least as many as it needs, more when it mirrors a copy kept in Redis,
   * whose strings hold fewer bits. Its bits are then written through
   * segmentBytes(), and bitsWritten() called.
   */
  static inSegments(bits: number, hashes: number, hashing: Hashing, segments: number): BloomFilter {
    if (!segmentable(bits, segments)) throw new RangeError(`${bits} bits cannot be held in ${segments} segments of equal size`);
    checkSegmentable(hashing, segments);
    return new BloomFilter(bits, hashes, hashing, bits, undefined, segments);
  }

  /**
   * @internal After bits were written through segmentBytes(): the keys were never counted here, so size becomes
   * the fill-based estimate, bounded as a union's is: with k = 1 the estimate is always more than the set bits,
   * and a copy that counted it would serialize to a record no reader accepts.
   */
  bitsWritten(): void {
    this.live();
    this.#setBits = -1;
    const estimate = this.estimatedCount();
    const bound = this.#countBound();
    this.#count = Number.isFinite(estimate) ? Math.min(bound, Math.round(estimate)) : bound;
  }

  /** @internal Segment s's bits as whole u64 words, a view of wasm memory valid until the next allocation in its arena. */
  segmentBytes(s: number): Uint8Array {
    const { arena, ptr } = this.segments()[s];
    return arena.u8().subarray(ptr + HEADER_BYTES, ptr + blockBytes(this.#segmentBits));
  }

  /** @internal m before any fold (equal to bits unless the filter was folded). */
  get baseBits(): number {
    this.live();
    return this.#baseBits;
  }

  /** @internal The checked hashing choice. */
  get hashing(): Hashing {
    return this.#hashing;
  }

  /** A filter from toBase64()'s text. */
  static fromBase64(text: string, options?: DeserializeOptions): BloomFilter {
    const shared = checkDeserializeOptions(options);
    return BloomFilter.deserialize(fromBase64(text, FilterType.bloom), { shared });
  }

  /**
   * Adds keys given as newline-delimited bytes (a file's contents, say),
   * split inside wasm: no JS string per key. A key is a line without its
   * "\n" and one trailing "\r"; a last line without "\n" counts, a final "\n"
   * adds no empty key.
   */
  addLines(buffer: Uint8Array): this {
    this.#add({ kind: "lines", buffer });
    return this;
  }


  /** Adds newline-delimited keys in order; 1 where a line was probably present before (a de-dup pass over a buffer). */
  testAndAddLines(buffer: Uint8Array): Uint8Array {
    return this.#add({ kind: "lines", buffer });
  }

  /**
   * testAndAddLines without copies: `visit(answers, ends, offset)` gets each
   * piece's answers and line ends as views of wasm memory, valid only during
   * the call and until it calls a bloomkit method; line i of the piece ends
   * at offset + ends[i] in `buffer`.
   */
  testAndAddLinesEach(buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
    checkVisit(visit);
    this.runLinesEach(OP_ADD, buffer, visit, (fresh) => this.#added(fresh));
  }

  /**
   * The crawler program's step: adds the lines of `buffer` in order (split as
   * addLines splits them) and hands `visit` the lines that were new, probably
   * absent before (counting the lines before them in `buffer`), in input order
   * and exactly as they were, line endings included. `visit(newLines,
   * newCount, lineCount)` is called once per piece of the buffer; newLines is
   * a view of wasm memory, valid only during the call and until it calls a
   * bloomkit method: write it out or copy it. The same answers as
   * testAndAddLines, without a pass over the lines in JS to pick the new ones out.
   */
  dedupLines(buffer: Uint8Array, visit: (newLines: Uint8Array, newCount: number, lineCount: number) => void): void {
    checkVisit(visit);
    this.runDedupLines(buffer, visit, (fresh) => this.#added(fresh));
  }

  /** hasLines without copies: `visit(answers, ends, offset)` as in testAndAddLinesEach, for readers that copy the lines found out. */
  hasLinesEach(buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
    checkVisit(visit);
    this.runLinesEach(OP_HAS, buffer, visit);
  }

  /** testAndAddLines plus each line's end offset in `buffer` (after its "\n"), for writers that copy lines out. */
  testAndAddLinesWithEnds(buffer: Uint8Array): { answers: Uint8Array; ends: Uint32Array } {
    const { answers, total, ends } = this.runOp(OP_ADD, { kind: "lines", buffer }, Uint8Array, true);
    this.#added(total);
    return { answers, ends: ends! };
  }

  /**
   * Runs OP_ADD or OP_HAS over a chunk already in this filter's batch arena
   * and counts the keys an add made new; the answers are a view of wasm
   * memory, valid until the next batch. @internal
   */
  runChunk(op: number, chunk: Chunk): Uint8Array {
    const total = this.kernel(op)(chunk);
    if (op === OP_ADD) this.#added(total);
    const arena = chunk.scratch.arena;
    return arena.u8().subarray(chunk.scratch.out, chunk.scratch.out + chunk.count);
  }

  /** The address of a filter held in one block, for kernels that read several filters at once (a scalable filter's layers). @internal */
  get blockAddress(): number {
    if (this.segmentCount !== 1) throw new Error("a filter in segments has no single address");
    return this.live();
  }

  /** Counts keys a kernel that reads several filters added to this one. @internal */
  countAdded(fresh: number): void {
    this.#added(fresh);
  }

  /** The kernel for OP_ADD / OP_HAS over a chunk in one segment's arena: over hashes or integers, or over key bytes for the independent strategy. */
  protected blockKernel(op: number, block: Block): Kernel {
    const { core } = block.arena;
    const ptr = block.ptr;
    return (chunk) => {
      const { scratch, count } = chunk;
      if (chunk.source === SOURCE_BYTES) return core.bloomBytes(ptr, op, chunk.src, scratch.ends, count, chunk.start, scratch.out);
      return core.bloomRun(ptr, op, chunk.source, chunk.src, chunk.hashes2, count, scratch.out, scratch.room);
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
    const segments = this.segmentCount;
    return {
      bits: this.#bits,
      hashes: this.#hashes,
      size: this.#count,
      hash: this.hash,
      seed: this.seed,
      strategy: this.strategy,
      ...(segments > 1 ? { segments } : {}),
      ...(this.shared ? { shared: true } : {}),
    };
  }

  /** Adds a batch; answers 1 where a key was probably present before. */
  #add(source: KeySource, into?: Uint8Array): Uint8Array {
    const { answers, total } = this.runOp(OP_ADD, source, Uint8Array, false, into);
    this.#added(total);
    return answers;
  }

  #combine(other: BloomFilter, op: "union" | "intersect"): BloomFilter {
    this.live();
    if (!(other instanceof BloomFilter)) throw new TypeError(`other, the filter given to ${op}(), must be a BloomFilter, got ${describe(other)}`);
    if (other.disposed) throw new TypeError(`other, the BloomFilter given to ${op}(), was disposed`);
    const differs: ParameterDifference | undefined =
      this.#bits !== other.#bits ? { name: "bits (m)", mine: this.#bits, theirs: other.#bits }
      : this.#hashes !== other.#hashes ? { name: "hashes (k)", mine: this.#hashes, theirs: other.#hashes }
      : this.#baseBits !== other.#baseBits ? { name: "folding (base bits)", mine: this.#baseBits, theirs: other.#baseBits }
      : this.segmentCount !== other.segmentCount ? { name: "segments", mine: this.segmentCount, theirs: other.segmentCount }
      : hashingDifference(this.#hashing, other.#hashing);
    // Named as the API names the argument (other), with both values: "vs" alone did not say which filter was which.
    if (differs) throw new RangeError(`cannot ${op} filters with different ${differs.name}: this filter's is ${differs.mine}, other's is ${differs.theirs}`);
    const mine = this.segments();
    const theirs = other.segments();
    const result = new BloomFilter(this.#bits, this.#hashes, this.#hashing, this.#baseBits, mine.map((block) => placeBeside(block.arena)), mine.length);
    const bytes = blockBytes(this.#segmentBits) - HEADER_BYTES;
    disposeOnError(result, () =>
      result.segments().forEach((target, s) => {
        const data = target.ptr + HEADER_BYTES;
        combineInto(target.arena, data, mine[s].arena, mine[s].ptr + HEADER_BYTES, bytes, false);
        combineInto(target.arena, data, theirs[s].arena, theirs[s].ptr + HEADER_BYTES, bytes, op === "intersect");
      }),
    );
    result.#setBits = -1;
    // Shared keys cannot be told apart: the fill estimate, bounded by what the operands hold. A union holds every key
    // either counted, so it counts at least the larger operand's (the estimate alone gave a union with an empty filter
    // fewer keys than the filter); that is within the bits' bound, as each operand's count is within its own.
    const bound = Math.min(result.#countBound(), op === "union" ? this.#count + other.#count : Math.min(this.#count, other.#count));
    const least = op === "union" ? Math.min(bound, Math.max(this.#count, other.#count)) : 0;
    const estimate = result.estimatedCount();
    result.#count = Number.isFinite(estimate) ? Math.max(least, Math.min(bound, Math.round(estimate))) : bound;
    return result;
  }

  /**
   * The most keys this filter can have counted: each key counted set a clear
   * bit, and a fold leaves at most one clear bit for each clear bit before, so
   * count + clear bits ≤ base bits (the loader checks it).
   */
  #countBound(): number {
    return this.#baseBits - (this.#bits - this.#countSetBits());
  }

  #added(fresh: number): void {
    if (fresh > 0) {
      this.addKeyCount(fresh);
      this.#setBits = -1;
    }
  }

  #countSetBits(): number {
    // Other threads change a shared filter's bits: count them every time.
    if (this.#setBits < 0 || this.shared) this.#setBits = this.segments().reduce((sum, { arena, ptr }) => sum + arena.core.bloomSetBits(ptr), 0);
    else this.live();
    return this.#setBits;
  }
}

/** Where a new filter's blocks go: undefined (private memory) or shared memories, after `options.shared` is checked. */
function sharedPlacement(shared: unknown, hashing: Hashing): Placement | undefined {
  if (shared === undefined || shared === false) return undefined;
  if (shared !== true) throw new TypeError(`options.shared must be a boolean, got ${describe(shared)}`);
  // The independent strategy's kernel reads key bytes; triple and double hashing's take hashes or integers only.
  return { sharedKeyBytes: hashing.strategy === "independent" ? SHARED_BYTES_KEY_BYTES : SHARED_KEY_BYTES };
}

/** What a sizing refusal calls n and p. */
interface SizingNames {
  readonly n: string;
  readonly p: string;
}

/** create()'s names for n and p. */
const CREATE_NAMES: SizingNames = { n: "expectedItems", p: "falsePositiveRate" };

/** A filter in segments routes keys by their second hash; the independent strategy has no second hash to route by. */
function checkSegmentable(hashing: Hashing, segments: number): void {
  if (segments > 1 && !hashesOnce(hashing)) {
    throw new RangeError(`a filter above ${MAX_SEGMENT_BITS} bits is held in segments, which needs triple or double hashing; the independent strategy is limited to one segment`);
  }
}

/** True when `bits` can be held in `segments` equal segments: at least as many as it needs, each a whole number of u64 words when there are several. */
function segmentable(bits: number, segments: number): boolean {
  return Number.isInteger(segments) && segments >= segmentsFor(bits) && segments <= MAX_SEGMENTS && (segments === 1 || bits % (64 * segments) === 0);
}
