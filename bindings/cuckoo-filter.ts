// Cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014): fingerprints in buckets
// of four, deletable, with a false-positive rate set by the fingerprint size.
import { checkChunksOptions, type ChunksOptions } from "./shared.js";
import { WasmBlock } from "./wasm-block.js";
import { defaultArena, MAX_BLOCK_BYTES, type Block } from "./memory.js";
import {
  CUCKOO_HEADER,
  CUCKOO_JOURNAL_ENTRIES_PER_KEY as JOURNAL_ENTRIES_PER_KEY,
  CUCKOO_JOURNAL_HEADER as JOURNAL_HEADER,
  BUCKET_SIZE as CORE_BUCKET_SIZE,
  MAX_KICKS as CORE_MAX_KICKS,
  OP_ADD,
  OP_COUNT,
  OP_HAS,
  OP_REMOVE,
  OP_TEST_AND_ADD,
  SOURCE_U32,
} from "./constants.generated.js";
import { checkInteger, checkOptions, checkProbability, checkCreateNumbers, describe, formatBytes, checkMadeBy, refuseLoaderOptions } from "./errors.js";
import { sourceLength, type Chunk, type Kernel, type KeyHash, type KeySource } from "./batch.js";
import { isBytes, MAX_BATCH_KEYS, type Key } from "./keys.js";
import type { Arena } from "./arena.js";
import type { Core } from "./core.generated.js";
import type { DeletableFilter } from "./filter.js";
import {
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
import { readHashing, resolveHashing, writeHashing, type Hashing } from "./hashing.js";
import { hashId, type HashName } from "./hash.js";

export interface CuckooFilterOptions {
  /** A 64- or 128-bit hash (default "xxh3"): the fingerprint comes from its high 32 bits, the bucket from its low ones. */
  hash?: HashName;
  /** Hash seed, u32, default 0 (seeded hashes only). */
  seed?: number;
}

/** The table CuckooFilter.sizeFor(n, p) gives: what create(n, p) makes. */
export interface CuckooFilterSize {
  /** Buckets, a power of two (the filter's `buckets`). */
  buckets: number;
  /** Bits of a fingerprint: 8, 16 or 32 (the filter's `fingerprintBits`). */
  fingerprintBits: 8 | 16 | 32;
  /** Slots in all, buckets · 4 (the filter's `capacity`). */
  capacity: number;
  /** Bits of the table, capacity · fingerprintBits (the filter's `bits`). */
  bits: number;
  /** Bytes of wasm memory the filter takes: the table in whole 64-bit words, and a header. */
  bytes: number;
}

/** Entries per bucket (b). */
export const BUCKET_SIZE = CORE_BUCKET_SIZE;
/** Relocations an insert tries before it reports the filter full. */
export const MAX_KICKS = CORE_MAX_KICKS;
/** The load the bucket count is sized for: b = 4 reaches ≈ 95% before the first failure (Fan et al.). */
const TARGET_LOAD = 0.95;
/**
 * Distinct keys a table of 2^i buckets holds (i = 0 … 8): the most that
 * fitted before the first failed insert in all but 1 of 10,000 random key
 * sets (200,000 sets up to 64 buckets, 100,000 at 128, 50,000 at 256). A
 * small table falls short of 95% load far more often than a large one: a
 * few keys whose two buckets are one, or the same two, fill them. At 95%,
 * create(15, p) (4 buckets) failed for 7.2% of key sets, create(30, p) (8)
 * for 6.9%, create(243, p) (64) for 2.4%, create(972, p) (256) for 0.11%;
 * from 512 buckets on, 95% failed in at most 1 of 10,000 (1,945 keys in 512 buckets: 2 of 20,000).
 */
const SMALL_TABLE_KEYS = [4, 4, 7, 19, 50, 111, 232, 477, 965] as const;
const OPTION_NAMES = ["hash", "seed"] as const;

/**
 * The hashing of a new filter from its checked options: one 64- or 128-bit
 * hash. Not fnv1a_64: the bucket is the hash's low bits, and FNV-1a's low
 * bits depend only on the low bits of the key's bytes, so short keys that
 * differ in a few characters crowd a few buckets (keys "user-0", "user-1",
 * … filled a table of 256 buckets, sized for 900, to 69% before the first
 * failed insert, where xxh3 reached 97%). Records made with it before still load.
 */
function cuckooHashing(checked: CuckooFilterOptions): Hashing {
  if (Array.isArray(checked.hash)) throw new TypeError(`options.hash must be one hash name, got ${describe(checked.hash)}`);
  if (checked.hash === "fnv1a_64") {
    throw new RangeError('options.hash "fnv1a_64" does not spread a cuckoo filter\'s keys over its buckets (its low bits follow the low bits of the key\'s bytes: keys "user-0", "user-1", … filled the 256 buckets sized for 900 of them to 69%, xxh3 to 97%); use "xxh3" (the default), "xxh64" or "murmur3_128"');
  }
  // One hash gives the fingerprint and both buckets: "double" is how the format records a single hash.
  return resolveHashing({ ...checked, strategy: "double" }, true, ["murmur3_128", "xxh64", "xxh3"], "a cuckoo filter");
}
/** Bytes before the slots (assembly/cuckoo.ts's header). */
const HEADER_BYTES = CUCKOO_HEADER;

/** Bytes of a filter's block: the header, then the slots in whole u64 words (assembly/cuckoo.ts's layout). */
function blockBytes(buckets: number, fingerprintBits: number): number {
  return defaultArena().core.cuckooBlockBytes(buckets, fingerprintBits);
}
/** The refusal of a change called while an adding batch runs on the same filter (see #refuseMidBatch). */
const MID_BATCH =
  "the cuckoo filter was asked to add or remove while a batch that adds to it was running (from a key's getter or a Proxy), which it refuses: " +
  "that batch may yet be put back; nothing was changed by this call";

/** Tables up to this many bytes are copied before every batch that adds (see #atomically). */
const SNAPSHOT_ALWAYS_BYTES = 64 << 10;
/** Larger tables are copied before a batch of at least one key per this many bytes of table; smaller batches keep a journal. */
const SNAPSHOT_BYTES_PER_KEY = 16;
/** Bytes of a journal entry: the slot written and the fingerprint it held, u32 each (assembly/cuckoo.ts's journal). */
const JOURNAL_ENTRY_BYTES = 8;
/** Largest bucket count: slot indices (bucket · 4 + j) must stay below 2^32. */
const MAX_BUCKETS = 2 ** 29;

/** The fewest buckets, a power of two, that hold n keys: SMALL_TABLE_KEYS for a small table, else room for n at 95% load. */
function bucketsFor(n: number): number {
  const small = SMALL_TABLE_KEYS.findIndex((keys) => n <= keys);
  if (small >= 0) return 2 ** small;
  return 2 ** Math.max(SMALL_TABLE_KEYS.length, Math.ceil(Math.log2(Math.ceil(n / (BUCKET_SIZE * TARGET_LOAD)))));
}

/**
 * The largest table of `fingerprintBits`-bit fingerprints, for a refusal: in buckets, as the table is asked for.
 * The limit in bytes alone (4 GiB less 2 MiB) read "needs 4.00 GiB; one filter holds at most 4.00 GiB" for the
 * first table past it (4 GiB and a header), where the most a filter holds is half that.
 */
function mostBuckets(fingerprintBits: number): string {
  let buckets = MAX_BUCKETS;
  while (blockBytes(buckets, fingerprintBits) > MAX_BLOCK_BYTES) buckets /= 2;
  return `${buckets} buckets of ${fingerprintBits}-bit fingerprints (${formatBytes(blockBytes(buckets, fingerprintBits))})`;
}

/** A table's size for a message: past floating point (n = 1e308), in words. */
function sizeInWords(bytes: number): string {
  return Number.isFinite(bytes) ? formatBytes(bytes) : "more bytes than a number holds";
}

/** Fingerprint bits for rate p: f ≥ log2(2b / p), rounded up to a size the table stores (8, 16 or 32). */
export function fingerprintBitsFor(p: number): 8 | 16 | 32 {
  return bitsFor(checkProbability("p", p), "p");
}

/** fingerprintBitsFor for a rate already checked, its argument called `name` in errors. */
function bitsFor(p: number, name: string): 8 | 16 | 32 {
  // 2b/p overflows to Infinity for p below about 4e-308: then log2(2b) − log2(p), so the message counts the bits.
  const ratio = (2 * BUCKET_SIZE) / p;
  const need = Math.ceil(Number.isFinite(ratio) ? Math.log2(ratio) : Math.log2(2 * BUCKET_SIZE) - Math.log2(p));
  if (need <= 8) return 8;
  if (need <= 16) return 16;
  if (need <= 32) return 32;
  throw new RangeError(`${name} = ${p} needs ${need}-bit fingerprints; the largest is 32 bits (p ≥ ${(2 * BUCKET_SIZE) / 2 ** 32})`);
}

/** A deletable filter of fingerprints. Adding the same key more than 2b = 8 times fails: its two buckets hold 8 entries. */
export class CuckooFilter extends WasmBlock implements DeletableFilter {
  readonly #buckets: number;
  readonly #fingerprintBits: 8 | 16 | 32;
  readonly #hashing: Hashing;
  readonly #keyHash: KeyHash;
  /** The journal of the adding batch running, if any (see #atomically). */
  #journal: Journal | undefined;
  /**
   * Calls that stored or removed a fingerprint: an insert moves other keys' fingerprints (see FilterBase.changes).
   * A call that changed nothing (a key refused or not found, a batch put back) leaves it, so pieces go on.
   */
  #changes = 0;
  /**
   * An adding batch is running (see #atomically): until it is kept or put back, the table is neither old nor new.
   * One at most: #refuseMidBatch refuses another started from a key's getter.
   */
  #batchRunning = false;

  private constructor(buckets: number, fingerprintBits: 8 | 16 | 32, hashing: Hashing) {
    checkMadeBy(typeof buckets === "number" && typeof hashing === "object" && hashing !== null, "CuckooFilter", "CuckooFilter.create(expectedItems, falsePositiveRate), CuckooFilter.withSize(buckets, fingerprintBits) or deserialize(bytes)");
    const bytes = blockBytes(buckets, fingerprintBits);
    if (bytes > MAX_BLOCK_BYTES || buckets > MAX_BUCKETS) {
      throw new RangeError(`a cuckoo filter of ${buckets} buckets of ${fingerprintBits}-bit fingerprints needs ${formatBytes(bytes)}; one filter holds at most ${mostBuckets(fingerprintBits)}`);
    }
    super(bytes, () => `a cuckoo filter of ${buckets} buckets (${formatBytes(bytes)})`);
    this.core.cuckooInit(this.live(), buckets, fingerprintBits, hashId(hashing.names[0]), hashing.seed);
    this.#keyHash = { id: hashId(hashing.names[0]), seed: hashing.seed };
    this.#buckets = buckets;
    this.#fingerprintBits = fingerprintBits;
    this.#hashing = hashing;
  }

  /**
   * A filter for at least `expectedItems` keys at `falsePositiveRate`:
   * fingerprints of f ≥ log2(8/p) bits (8, 16 or 32), and a power-of-two
   * bucket count with room for n keys at 95% load, less in a table of
   * fewer than 512 buckets (see sizeFor).
   */
  static create(expectedItems: number, falsePositiveRate: number, options?: CuckooFilterOptions): CuckooFilter {
    const { n, p } = checkCreateNumbers("CuckooFilter.create", "expectedItems", expectedItems, falsePositiveRate);
    const checked = checkOptions("options", options, OPTION_NAMES);
    const hashing = cuckooHashing(checked);
    const { buckets, fingerprintBits } = CuckooFilter.sizeFor(n, p);
    return new CuckooFilter(buckets, fingerprintBits, hashing);
  }

  /**
   * The table create(expectedItems, falsePositiveRate) makes, without making
   * it: a power-of-two bucket count with room for n keys at 95% load (in a
   * table of fewer than 512 buckets, at the load n random keys reach in all
   * but 1 of 10,000 sets: SMALL_TABLE_KEYS), and
   * f ≥ log2(8/p) bits of fingerprint rounded up to 8, 16 or 32. The hash
   * options do not change the size. Throws what create() throws for these
   * arguments, a table too large for one filter included, but for the
   * free-memory check: it allocates nothing.
   */
  static sizeFor(expectedItems: number, falsePositiveRate: number): CuckooFilterSize {
    const { n, p } = checkCreateNumbers("CuckooFilter.sizeFor", "expectedItems", expectedItems, falsePositiveRate);
    const fingerprintBits = bitsFor(p, "falsePositiveRate");
    const buckets = bucketsFor(n);
    if (buckets > MAX_BUCKETS || blockBytes(buckets, fingerprintBits) > MAX_BLOCK_BYTES) {
      throw new RangeError(
        `a cuckoo filter for expectedItems = ${n} at falsePositiveRate = ${p} needs ${buckets} buckets of ${fingerprintBits}-bit fingerprints ` +
          `(${sizeInWords(HEADER_BYTES + buckets * BUCKET_SIZE * (fingerprintBits / 8))}); one filter holds at most ${mostBuckets(fingerprintBits)}`,
      );
    }
    const capacity = buckets * BUCKET_SIZE;
    return { buckets, fingerprintBits, capacity, bits: capacity * fingerprintBits, bytes: blockBytes(buckets, fingerprintBits) };
  }

  /** A filter of exactly `buckets` buckets (a power of two) and `fingerprintBits`-bit fingerprints. */
  static withSize(buckets: number, fingerprintBits: 8 | 16 | 32, options?: CuckooFilterOptions): CuckooFilter {
    checkInteger("buckets", buckets, 1, MAX_BUCKETS);
    if ((buckets & (buckets - 1)) !== 0) throw new RangeError(`buckets must be a power of two, got ${buckets}`);
    if (typeof fingerprintBits !== "number") throw new TypeError(`fingerprintBits must be a number, got ${describe(fingerprintBits)}`);
    if (fingerprintBits !== 8 && fingerprintBits !== 16 && fingerprintBits !== 32) {
      throw new RangeError(`fingerprintBits must be 8, 16 or 32, got ${describe(fingerprintBits)}`);
    }
    return new CuckooFilter(buckets, fingerprintBits, cuckooHashing(checkOptions("options", options, OPTION_NAMES)));
  }

  get buckets(): number {
    return this.#buckets;
  }

  get bucketSize(): number {
    return BUCKET_SIZE;
  }

  get fingerprintBits(): number {
    return this.#fingerprintBits;
  }

  get hash(): HashName {
    return this.#hashing.names[0];
  }

  get seed(): number {
    return this.#hashing.seed;
  }

  /** Slots in all: buckets · 4. */
  get capacity(): number {
    return this.#buckets * BUCKET_SIZE;
  }

  /** Fingerprints stored. */
  get size(): number {
    return this.core.cuckooSize(this.live());
  }

  /** Bits of memory the table takes: capacity · fingerprintBits. */
  get bits(): number {
    return this.capacity * this.#fingerprintBits;
  }

  /** size / capacity. */
  get loadFactor(): number {
    return this.size / this.capacity;
  }

  /** Bits of table per stored key. */
  get bitsPerItem(): number {
    return (this.capacity * this.#fingerprintBits) / Math.max(1, this.size);
  }

  /** The rate now: a query meets up to 2b entries, each filled with probability load and matching with 1/(2^f − 1). */
  falsePositiveRate(): number {
    return this.#rateAt(this.loadFactor);
  }

  /** The rate with `items` keys stored (at most capacity; default: 95% of it, the most the filter is sized for). */
  expectedFalsePositiveRate(items?: number): number {
    if (items === undefined) return this.#rateAt(TARGET_LOAD);
    const n = checkInteger("items", items, 0, this.capacity);
    return this.#rateAt(n / this.capacity);
  }

  /** Stores the key's fingerprint; a RangeError when the filter is full, and then nothing changes. */
  add(key: Key): this {
    if (!this.tryAdd(key)) throw this.#full(1);
    return this;
  }

  /** Stores the key's fingerprint; false when the filter is full, and then nothing stored before is lost. */
  tryAdd(key: Key): boolean {
    return this.#one(OP_ADD, key) === 1;
  }

  /**
   * The de-duplication step: true when the key is probably present (nothing
   * is stored then); otherwise stores it and answers false. A RangeError when
   * it must be stored and the filter is full.
   */
  testAndAdd(key: Key): boolean {
    const answer = this.#one(OP_TEST_AND_ADD, key);
    if (answer === 2) throw this.#full(1);
    return answer === 1;
  }

  has(key: Key): boolean {
    return this.#one(OP_HAS, key) === 1;
  }

  /** Removes one copy of the key's fingerprint; false when there is none. Removing a key never added can remove another key's equal fingerprint. */
  remove(key: Key): boolean {
    return this.#one(OP_REMOVE, key) === 1;
  }

  /** Copies of the key's fingerprint in its two buckets: how often it was added (less removed), unless fingerprints collide. */
  count(key: Key): number {
    return this.#one(OP_COUNT, key);
  }

  /** Stores every key; a RangeError when one does not fit, and then none of this call's keys stays stored. */
  addMany(keys: readonly Key[]): this {
    this.#addAll({ kind: "keys", keys });
    return this;
  }

  /** Stores each key; result[i] = 1 where key i was stored, 0 where the filter was full. */
  tryAddMany(keys: readonly Key[]): Uint8Array {
    return this.#each(OP_ADD, { kind: "keys", keys });
  }

  /** testAndAdd for each key in order: 1 where a key was probably present (and not stored again). */
  testAndAddMany(keys: readonly Key[]): Uint8Array {
    return this.#testAndAdd({ kind: "keys", keys });
  }


  removeMany(keys: readonly Key[]): Uint8Array {
    return this.#each(OP_REMOVE, { kind: "keys", keys });
  }

  countMany(keys: readonly Key[]): Uint32Array {
    return this.runOp(OP_COUNT, { kind: "keys", keys }, Uint32Array).answers;
  }

  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    this.#addAll({ kind: "packed", bytes, ends });
    return this;
  }

  tryAddPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.#each(OP_ADD, { kind: "packed", bytes, ends });
  }

  testAndAddPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.#testAndAdd({ kind: "packed", bytes, ends });
  }


  removePacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.#each(OP_REMOVE, { kind: "packed", bytes, ends });
  }

  countPacked(bytes: Uint8Array, ends: Uint32Array): Uint32Array {
    return this.runOp(OP_COUNT, { kind: "packed", bytes, ends }, Uint32Array).answers;
  }

  /** Stores newline-delimited keys (a line without its "\n" and one trailing "\r"); all or, with a RangeError, none. */
  addLines(buffer: Uint8Array): this {
    this.#addAll({ kind: "lines", buffer });
    return this;
  }

  /** 1 where a line was stored, 0 where the filter was full. */
  tryAddLines(buffer: Uint8Array): Uint8Array {
    return this.#each(OP_ADD, { kind: "lines", buffer });
  }

  testAndAddLines(buffer: Uint8Array): Uint8Array {
    return this.#testAndAdd({ kind: "lines", buffer });
  }


  removeLines(buffer: Uint8Array): Uint8Array {
    return this.#each(OP_REMOVE, { kind: "lines", buffer });
  }

  countLines(buffer: Uint8Array): Uint32Array {
    return this.runOp(OP_COUNT, { kind: "lines", buffer }, Uint32Array).answers;
  }

  /**
   * Stores integer keys (a Uint32Array or a BigUint64Array) with no
   * encoding; all or, with a RangeError, none. Integers are their own key
   * space, hashed by a 64-bit mix of the value (as BloomFilter.addInts), not
   * as bytes; a 32-bit key equals the 64-bit key of the same value.
   */
  addInts(keys: Uint32Array | BigUint64Array): this {
    this.#addAll({ kind: "ints", keys });
    return this;
  }

  /** 1 where key i was stored, 0 where the filter was full. */
  tryAddInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return this.#each(OP_ADD, { kind: "ints", keys });
  }

  testAndAddInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return this.#testAndAdd({ kind: "ints", keys });
  }


  removeInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return this.#each(OP_REMOVE, { kind: "ints", keys });
  }

  countInts(keys: Uint32Array | BigUint64Array): Uint32Array {
    return this.runOp(OP_COUNT, { kind: "ints", keys }, Uint32Array).answers;
  }

  /** Where a key lives: its fingerprint and its two candidate buckets (they can coincide). */
  locate(key: Key): { fingerprint: number; buckets: [number, number] } {
    const { ptr, length, out } = this.oneKey(key);
    this.core.cuckooLocate(this.live(), ptr, length, out);
    const words = this.arena.u32();
    const at = out >>> 2;
    return { fingerprint: words[at], buckets: [words[at + 1], words[at + 2]] };
  }

  /** A copy of the table, one fingerprint per slot (0 = empty), bucket i in slots 4i … 4i + 3. */
  entries(): Uint8Array | Uint16Array | Uint32Array {
    const data = this.live() + HEADER_BYTES;
    const bytes = this.arena.u8().slice(data, data + this.capacity * (this.#fingerprintBits / 8));
    return this.#fingerprintBits === 8 ? bytes : this.#fingerprintBits === 16 ? new Uint16Array(bytes.buffer) : new Uint32Array(bytes.buffer);
  }

  /** What serialize() writes: parameters and where the payload lies. @internal */
  recordSource(): RecordSource {
    const ptr = this.live();
    const w = new ParamWriter().u32(this.#buckets).u8(this.#fingerprintBits).u8(0).u8(0).u8(0).u64(this.size);
    writeHashing(w, this.#hashing);
    const bytes = blockBytes(this.#buckets, this.#fingerprintBits) - HEADER_BYTES;
    return { type: FilterType.cuckoo, version: 1, params: w.bytes(), payload: [{ arena: this.arena, ptr: ptr + HEADER_BYTES, bytes }] };
  }

  /** A filter from serialize()'s bytes; truncated, corrupted or foreign bytes throw a FormatError. */
  static deserialize(bytes: Uint8Array): CuckooFilter {
    refuseLoaderOptions("CuckooFilter.deserialize", arguments[1]);
    return readRecordBytes(bytes, { [FilterType.cuckoo]: CuckooFilter.loader }, FilterType.cuckoo);
  }

  /** A filter from a stream of serializeChunks()'s pieces. */
  static deserializeChunks(source: ByteSource, options?: ChunksOptions): Promise<CuckooFilter> {
    const { available } = checkChunksOptions(options, false);
    return readRecordStream(source, { [FilterType.cuckoo]: CuckooFilter.loader }, FilterType.cuckoo, available);
  }

  /** Checks a record's parameters and allocates the filter its payload fills. @internal */
  static loader: Loader<CuckooFilter> = (header) => {
    const r = new ParamReader(header.params);
    const buckets = r.u32();
    const fingerprintBits = r.u8();
    if (r.u8() !== 0 || r.u8() !== 0 || r.u8() !== 0) throw new FormatError("corrupted: reserved bytes are not 0");
    const size = r.u64("size");
    const hashing = readHashing(r);
    r.end();
    if (header.version !== 1) throw new FormatError(`corrupted: a cuckoo record of version ${header.version}`);
    // Fingerprint and buckets come from one 64- or 128-bit hash: readHashing has refused 32-bit ones for double hashing.
    if (hashing.strategy !== "double") {
      throw new FormatError(`corrupted: a cuckoo filter uses one hash (strategy double), not ${hashing.strategy === "independent" ? "independent hashes" : `${hashing.strategy} hashing`}`);
    }
    if (buckets < 1 || buckets > MAX_BUCKETS || (buckets & (buckets - 1)) !== 0) throw new FormatError(`corrupted: buckets = ${buckets}`);
    if (fingerprintBits !== 8 && fingerprintBits !== 16 && fingerprintBits !== 32) throw new FormatError(`corrupted: fingerprint bits = ${fingerprintBits}`);
    const length = blockBytes(buckets, fingerprintBits) - HEADER_BYTES;
    if (header.payloadLength !== length) throw new FormatError(`corrupted: payload of ${header.payloadLength} bytes for ${buckets} buckets`);
    // create and withSize refuse a filter this large: no bloomkit wrote this record.
    if (length + HEADER_BYTES > MAX_BLOCK_BYTES) {
      throw new FormatError(`corrupted: ${buckets} buckets of ${fingerprintBits}-bit fingerprints need ${formatBytes(length + HEADER_BYTES)}, more than a filter holds (at most ${mostBuckets(fingerprintBits)})`);
    }
    const filter = new CuckooFilter(buckets, fingerprintBits, hashing);
    return {
      target: [{ arena: filter.arena, ptr: filter.live() + HEADER_BYTES, bytes: length }],
      finish: () => {
        let stored = 0;
        for (const fp of filter.entries()) stored += fp === 0 ? 0 : 1;
        if (stored !== size) {
          filter.dispose();
          throw new FormatError(`corrupted: ${stored} fingerprints stored, the header says ${size}`);
        }
        // A filter never writes the padding after its slots (one bucket of 8-bit fingerprints fills half a word).
        const slotBytes = filter.capacity * (fingerprintBits / 8);
        const padding = filter.arena.u8().subarray(filter.live() + HEADER_BYTES + slotBytes, filter.live() + HEADER_BYTES + length);
        if (padding.some((byte) => byte !== 0)) {
          filter.dispose();
          throw new FormatError("corrupted: the padding after the last slot is not 0");
        }
        filter.core.cuckooSetSize(filter.live(), size);
        return filter;
      },
      abandon: () => filter.dispose(),
    };
  };

  static fromBase64(text: string): CuckooFilter {
    refuseLoaderOptions("CuckooFilter.fromBase64", arguments[1]);
    return CuckooFilter.deserialize(fromBase64(text, FilterType.cuckoo));
  }

  /**
   * The rate at this load: a query meets the b slots of each of its buckets,
   * each holding a fingerprint with probability load, each matching with
   * 1/(2^f − 1). A key has one bucket, not two, when its fingerprint is a
   * multiple of the bucket count (the other bucket is i ⊕ fp·odd): every key
   * in a one-bucket table, whose rate counting two read twice the measured.
   */
  #rateAt(load: number): number {
    const values = 2 ** this.#fingerprintBits - 1;
    const miss = 1 - 1 / values;
    const oneBucket = Math.floor(values / this.#buckets) / values;
    const hit = (slots: number) => 1 - Math.pow(miss, slots * load);
    return oneBucket * hit(BUCKET_SIZE) + (1 - oneBucket) * hit(2 * BUCKET_SIZE);
  }

  /** The kernel for OP_ADD, OP_HAS, OP_REMOVE or OP_COUNT over a chunk of hashes or integer keys. */
  protected blockKernel(op: number, block: Block): Kernel {
    const { core } = block.arena;
    const ptr = block.ptr;
    // An add's or remove's total is the keys it stored or removed; an adding batch counts itself (#atomically).
    const counts = op === OP_ADD || op === OP_REMOVE;
    return (chunk) => {
      const journal = op === OP_ADD || op === OP_TEST_AND_ADD ? this.#journal : undefined;
      const total =
        journal === undefined ? core.cuckooRun(ptr, op, chunk.source, chunk.src, chunk.count, chunk.scratch.out, 0, 0) : this.#runJournaled(core, block.arena, ptr, op, chunk, journal);
      if (counts && total > 0 && !this.#batchRunning) this.#changes++;
      return total;
    };
  }

  protected get keyHash(): KeyHash {
    return this.#keyHash;
  }

  /**
   * Calls so far that moved fingerprints (FilterBase.changes); NaN, equal to nothing, while an adding batch runs:
   * a piece read then (a key's getter can run mid-batch) is of neither the table before nor the one after. @internal
   */
  protected override get changes(): number {
    return this.#batchRunning ? NaN : this.#changes;
  }

  protected describeParameters(): Record<string, unknown> {
    return { buckets: this.#buckets, fingerprintBits: this.#fingerprintBits, size: this.size, capacity: this.capacity, hash: this.hash, seed: this.seed };
  }

  /** `op` for one key; its answer (0/1, or the count). */
  #one(op: number, key: Key): number {
    if (op !== OP_HAS && op !== OP_COUNT) this.#refuseMidBatch();
    const one = this.oneString(key);
    let answer: number;
    if (one) answer = one.core.cuckooKey(one.filter, op, one.room.scratch.bytes, one.room.text.utf8Write(key as string, 0), one.room.scratch.out);
    else {
      const { ptr, length, out } = this.oneKey(key);
      answer = this.core.cuckooKey(this.live(), op, ptr, length, out);
    }
    // Stored (add 1, testAndAdd 0) or removed (1); a refused insert has put back every fingerprint it moved.
    if (op === OP_ADD || op === OP_REMOVE ? answer === 1 : op === OP_TEST_AND_ADD && answer === 0) this.#changes++;
    return answer;
  }

  /** tryAdd or remove over a batch, each key on its own: 1 where it was stored or removed. */
  #each(op: number, source: KeySource): Uint8Array {
    this.#refuseMidBatch();
    return this.runOp(op, source).answers;
  }

  /**
   * Refuses a change to the table while an adding batch runs on it (called
   * from a key's getter or a Proxy between the batch's chunks): the batch
   * may yet be put back to the table it began with, which would drop what
   * such a call stored (though it answered that it did), or play its journal
   * back over slots the call had moved; and a batch started then took the
   * journal of the one running.
   */
  #refuseMidBatch(): void {
    if (this.#batchRunning) throw new TypeError(MID_BATCH);
  }

  /**
   * The refusal of `keys` keys, made after a batch was taken out again, so it gives the size the filter has. A
   * batch is refused whole: "the filter is full" beside that size (1 of 16 slots) read as a contradiction, when the
   * batch simply did not fit, so a batch's message says that.
   */
  #full(keys: number): RangeError {
    const copies = `a key added more than ${2 * BUCKET_SIZE} times also fills its two buckets`;
    if (keys === 1) return new RangeError(`the cuckoo filter is full (${this.size} of ${this.capacity} slots): the key was not stored; ${copies}`);
    return new RangeError(`the batch of ${keys} keys does not fit the cuckoo filter (it holds ${this.size} of ${this.capacity} slots): nothing of the batch was stored; ${copies}`);
  }

  /** Stores a whole batch, or none of it: when one key does not fit, the table is put back as it was. */
  #addAll(source: KeySource): void {
    this.#atomically(OP_ADD, source, 0);
  }

  /** testAndAdd over a batch, in order: 1 where a key was probably present; the absent ones stored, all or none. */
  #testAndAdd(source: KeySource): Uint8Array {
    return this.#atomically(OP_TEST_AND_ADD, source, 2);
  }

  /**
   * Runs an adding batch so that, when a key's answer is `failed` or the run
   * throws, the table goes back to the very bytes it had: the filter then
   * goes on as if the call never ran. A table of up to 64 KiB, or one small
   * beside the batch, is copied first. A small batch on a larger table
   * keeps a journal of the slots it writes instead (the keys it stores, and
   * the fingerprints their inserts move to other buckets), played back last
   * write first. Measured in one
   * process (Node 20), addInts of 10^6 keys into a 2 MiB table in batches of
   * b keys, the copy against the journal, median ns/key: b = 10^6 (2 bytes
   * of table a key) 13.5 against 18.5; b = 10^5 (21 bytes) 20.7 against
   * 19.2; b = 10^4 47.9 against 22.0; b = 10^3 319 against 23.1.
   */
  #atomically(op: number, source: KeySource, failed: number): Uint8Array {
    this.#refuseMidBatch();
    const filter = this.live();
    const { arena } = this;
    const bytes = blockBytes(this.#buckets, this.#fingerprintBits);
    let undo: () => void;
    let journal: Journal | undefined;
    if (bytes - HEADER_BYTES <= Math.max(SNAPSHOT_ALWAYS_BYTES, SNAPSHOT_BYTES_PER_KEY * batchKeys(source))) {
      const saved = arena.u8().slice(filter, filter + bytes);
      undo = () => this.arena.u8().set(saved, this.live());
    } else {
      const capacity = journalCapacity(source);
      const ptr = arena.alloc(JOURNAL_HEADER + capacity * JOURNAL_ENTRY_BYTES);
      if (ptr === 0) {
        // A lines batch has no key count before it is split (sourceLength's -1 read "a batch of -1 keys").
        const keys = sourceLength(source);
        throw new RangeError(`no room in wasm memory for the journal of a batch of ${keys >= 0 ? `${keys} keys` : "lines"}; nothing was added`);
      }
      const header = arena.u8().slice(filter, filter + HEADER_BYTES);
      const running: Journal = { ptr, capacity, pieces: [] };
      journal = running;
      undo = () => this.#playBack(running, header);
    }
    this.#journal = journal;
    this.#batchRunning = true;
    let answers: Uint8Array;
    try {
      const run = this.runOp(op, source);
      answers = run.answers;
      if (answers.includes(failed)) undo();
      // Kept: every key stored (add) or present or stored (testAndAdd, total = the present ones).
      else if (answers.length > (op === OP_ADD ? 0 : run.total)) this.#changes++;
    } catch (error) {
      undo();
      throw error;
    } finally {
      this.#batchRunning = false;
      this.#journal = undefined;
      if (journal) arena.free(journal.ptr);
    }
    // After the undo, so the message gives the size the filter has.
    if (answers.includes(failed)) throw this.#full(answers.length);
    return answers;
  }

  /** Puts back every write a journal holds (those of a run that threw first), last first, then the header as it was. */
  #playBack(journal: Journal, header: Uint8Array): void {
    const filter = this.live();
    const entries = journal.ptr + JOURNAL_HEADER;
    this.core.cuckooUndo(filter, entries, this.arena.u32()[journal.ptr >>> 2]);
    this.arena.u32()[journal.ptr >>> 2] = 0;
    for (let i = journal.pieces.length - 1; i >= 0; i--) {
      const piece = journal.pieces[i];
      this.arena.u8().set(piece, entries);
      this.core.cuckooUndo(filter, entries, piece.length / JOURNAL_ENTRY_BYTES);
    }
    this.arena.u8().set(header, filter);
  }

  /** cuckooRun over a chunk, its writes kept in the running batch's journal: in several runs when the journal fills. */
  #runJournaled(core: Core, arena: Arena, filter: number, op: number, chunk: Chunk, journal: Journal): number {
    const stride = chunk.source === SOURCE_U32 ? 4 : 8;
    let total = 0;
    for (let done = 0; done < chunk.count; ) {
      total += core.cuckooRun(filter, op, chunk.source, chunk.src + done * stride, chunk.count - done, chunk.scratch.out + done, journal.ptr, journal.capacity);
      const [entries, keys] = arena.u32().subarray(journal.ptr >>> 2, (journal.ptr >>> 2) + 2);
      if (entries > 0) journal.pieces.push(arena.u8().slice(journal.ptr + JOURNAL_HEADER, journal.ptr + JOURNAL_HEADER + entries * JOURNAL_ENTRY_BYTES));
      arena.u32()[journal.ptr >>> 2] = 0;
      done += keys;
    }
    return total;
  }
}

/** The journal of the batch running: its place in wasm memory, its room in entries, and the entries of its earlier runs. */
interface Journal {
  readonly ptr: number;
  readonly capacity: number;
  readonly pieces: Uint8Array[];
}

/** Keys a batch holds at least, to weigh a copy of the table against them: for lines, one per 64 bytes. */
function batchKeys(source: KeySource): number {
  if (source.kind === "lines") return isBytes(source.buffer) ? Math.floor(source.buffer.length / 64) : 0;
  return Math.max(0, sourceLength(source));
}

/** Journal entries for a batch: one a key stored, and room for one insert's relocations, up to a whole chunk's. */
function journalCapacity(source: KeySource): number {
  const keys = source.kind === "lines" ? (isBytes(source.buffer) ? source.buffer.length + 1 : 0) : Math.max(0, sourceLength(source));
  return Math.min(keys, MAX_BATCH_KEYS) + JOURNAL_ENTRIES_PER_KEY;
}
