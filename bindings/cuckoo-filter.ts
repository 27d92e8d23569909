// Cuckoo filter (Fan et al., CoNEXT 2014; seed 003): fingerprints in buckets
// of four, deletable, with a false-positive rate set by the fingerprint size.
import { core, heapU8, MAX_BLOCK_BYTES } from "./wasm.js";
import { WasmBlock } from "./wasm-block.js";
import { checkInteger, checkOptions, checkPositive, checkProbability, describe } from "./errors.js";
import { bytesOf, bytesOfPacked, intsOf, linesAsPacked, one, u32sOf, u32sOfInts, u32sOfPacked, type IntsCall, type WasmBatch } from "./batch.js";
import { useScratch, writeKey, type Key } from "./keys.js";
import { heapU32 } from "./wasm.js";
import { FilterType, FormatError, ParamReader, ParamWriter, checksumAt, fromBase64, readRecord, writeRecord } from "./format.js";
import { readHashing, resolveHashing, writeHashing, type Hashing } from "./hashing.js";
import { hashId, type HashName } from "./hash.js";

export interface CuckooFilterOptions {
  /** A 64- or 128-bit hash (default "xxh64"): the fingerprint comes from its high 32 bits, the bucket from its low ones. */
  hash?: HashName;
  /** Hash seed, u32, default 0 (seeded hashes only). */
  seed?: number;
}

/** Entries per bucket (b). */
export const BUCKET_SIZE = 4;
/** Relocations an insert tries before it reports the filter full. */
export const MAX_KICKS = 500;
/** The load the bucket count is sized for: b = 4 reaches ≈ 95% before the first failure (Fan et al.). */
const TARGET_LOAD = 0.95;
const OPTION_NAMES = ["hash", "seed"] as const;
const HEADER_BYTES = core.cuckooHeaderBytes();
const OP = { add: 0, has: 1, remove: 2, count: 3 } as const;
/** Largest bucket count: slot indices (bucket · 4 + j) must stay below 2^32. */
const MAX_BUCKETS = 2 ** 29;

/** Fingerprint bits for rate p: f ≥ log2(2b / p), rounded up to a size the table stores (8, 16 or 32). */
export function fingerprintBitsFor(p: number): 8 | 16 | 32 {
  const need = Math.ceil(Math.log2((2 * BUCKET_SIZE) / p));
  if (need <= 8) return 8;
  if (need <= 16) return 16;
  if (need <= 32) return 32;
  throw new RangeError(`falsePositiveRate ${p} needs ${need}-bit fingerprints; the largest is 32 bits (p ≥ ${(2 * BUCKET_SIZE) / 2 ** 32})`);
}

/** A deletable filter of fingerprints. Adding the same key more than 2b = 8 times fails: its two buckets hold 8 entries. */
export class CuckooFilter extends WasmBlock {
  readonly #buckets: number;
  readonly #fingerprintBits: 8 | 16 | 32;
  readonly #hashing: Hashing;

  private constructor(buckets: number, fingerprintBits: 8 | 16 | 32, hashing: Hashing) {
    const bytes = core.cuckooBlockBytes(buckets, fingerprintBits);
    if (bytes > MAX_BLOCK_BYTES || buckets > MAX_BUCKETS) {
      throw new RangeError(`a cuckoo filter of ${buckets} buckets of ${fingerprintBits}-bit fingerprints needs ${bytes} bytes; one filter holds at most ${MAX_BLOCK_BYTES}`);
    }
    super(bytes, `a cuckoo filter of ${buckets} buckets`);
    core.cuckooInit(this.live(), buckets, fingerprintBits, hashId(hashing.names[0]), hashing.seed);
    this.#buckets = buckets;
    this.#fingerprintBits = fingerprintBits;
    this.#hashing = hashing;
  }

  /**
   * A filter for at least `expectedItems` keys at `falsePositiveRate`:
   * fingerprints of f ≥ log2(8/p) bits (8, 16 or 32), and a power-of-two
   * bucket count with room for n keys at 95% load.
   */
  static create(expectedItems: number, falsePositiveRate: number, options?: CuckooFilterOptions): CuckooFilter {
    const n = checkPositive("expectedItems", expectedItems);
    const p = checkProbability("falsePositiveRate", falsePositiveRate);
    const checked = checkOptions("options", options, OPTION_NAMES);
    if (Array.isArray(checked.hash)) throw new TypeError(`options.hash must be one hash name, got ${describe(checked.hash)}`);
    const hashing = resolveHashing({ ...checked, strategy: "double" });
    const fingerprintBits = fingerprintBitsFor(p);
    const buckets = 2 ** Math.max(0, Math.ceil(Math.log2(Math.ceil(n / (BUCKET_SIZE * TARGET_LOAD)))));
    return new CuckooFilter(buckets, fingerprintBits, hashing);
  }

  /** A filter of exactly `buckets` buckets (a power of two) and `fingerprintBits`-bit fingerprints. */
  static withSize(buckets: number, fingerprintBits: 8 | 16 | 32, options?: CuckooFilterOptions): CuckooFilter {
    checkInteger("buckets", buckets, 1, MAX_BUCKETS);
    if ((buckets & (buckets - 1)) !== 0) throw new RangeError(`buckets must be a power of two, got ${buckets}`);
    if (fingerprintBits !== 8 && fingerprintBits !== 16 && fingerprintBits !== 32) {
      throw new RangeError(`fingerprintBits must be 8, 16 or 32, got ${describe(fingerprintBits)}`);
    }
    const checked = checkOptions("options", options, OPTION_NAMES);
    if (Array.isArray(checked.hash)) throw new TypeError(`options.hash must be one hash name, got ${describe(checked.hash)}`);
    return new CuckooFilter(buckets, fingerprintBits, resolveHashing({ ...checked, strategy: "double" }));
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
    return core.cuckooSize(this.live());
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

  /** The rate at 95% load, the most the filter is sized for. */
  expectedFalsePositiveRate(): number {
    return this.#rateAt(TARGET_LOAD);
  }

  /** Stores the key's fingerprint; false when the filter is full, and then nothing stored before is lost. */
  add(key: Key): boolean {
    return one(key, this.#op(OP.add)) === 1;
  }

  has(key: Key): boolean {
    return one(key, this.#op(OP.has)) === 1;
  }

  /** Removes one copy of the key's fingerprint; false when there is none. Removing a key never added can remove another key's equal fingerprint. */
  remove(key: Key): boolean {
    return one(key, this.#op(OP.remove)) === 1;
  }

  /** Copies of the key's fingerprint in its two buckets: how often it was added (less removed), unless fingerprints collide. */
  count(key: Key): number {
    return one(key, this.#op(OP.count), true);
  }

  /** Adds each key; result[i] = 1 where key i was stored, 0 where the filter was full. */
  addMany(keys: readonly Key[]): Uint8Array {
    return bytesOf(keys, this.#op(OP.add));
  }

  hasMany(keys: readonly Key[]): Uint8Array {
    return bytesOf(keys, this.#op(OP.has));
  }

  removeMany(keys: readonly Key[]): Uint8Array {
    return bytesOf(keys, this.#op(OP.remove));
  }

  countMany(keys: readonly Key[]): Uint32Array {
    return u32sOf(keys, this.#op(OP.count));
  }

  addPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return bytesOfPacked(bytes, ends, this.#op(OP.add));
  }

  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return bytesOfPacked(bytes, ends, this.#op(OP.has));
  }

  removePacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return bytesOfPacked(bytes, ends, this.#op(OP.remove));
  }

  countPacked(bytes: Uint8Array, ends: Uint32Array): Uint32Array {
    return u32sOfPacked(bytes, ends, this.#op(OP.count));
  }

  /** Adds newline-delimited keys (a line without its "\n" and one trailing "\r"); 1 where a line was stored, 0 where the filter was full. */
  addLines(buffer: Uint8Array): Uint8Array {
    return linesAsPacked(buffer, this.#op(OP.add));
  }

  hasLines(buffer: Uint8Array): Uint8Array {
    return linesAsPacked(buffer, this.#op(OP.has));
  }

  removeLines(buffer: Uint8Array): Uint8Array {
    return linesAsPacked(buffer, this.#op(OP.remove));
  }

  /**
   * Adds integer keys (a Uint32Array or a BigUint64Array) with no encoding;
   * 1 where key i was stored, 0 where the filter was full. Integers are
   * their own key space, hashed by a 64-bit mix of the value (as
   * BloomFilter.addInts), not as bytes; a 32-bit key equals the 64-bit key
   * of the same value.
   */
  addInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return intsOf(keys, this.#intsCall(OP.add));
  }

  hasInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return intsOf(keys, this.#intsCall(OP.has));
  }

  removeInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return intsOf(keys, this.#intsCall(OP.remove));
  }

  countInts(keys: Uint32Array | BigUint64Array): Uint32Array {
    return u32sOfInts(keys, this.#intsCall(OP.count));
  }

  /** Where a key lives: its fingerprint and its two candidate buckets (they can coincide). */
  locate(key: Key): { fingerprint: number; buckets: [number, number] } {
    const ptr = this.live();
    const len = writeKey(key);
    const { bytes, out } = useScratch(0);
    core.cuckooLocate(ptr, bytes, len, out);
    const words = heapU32();
    const at = out >>> 2;
    return { fingerprint: words[at], buckets: [words[at + 1], words[at + 2]] };
  }

  /** A copy of the table, one fingerprint per slot (0 = empty), bucket i in slots 4i … 4i + 3. */
  entries(): Uint8Array | Uint16Array | Uint32Array {
    const data = this.live() + HEADER_BYTES;
    const bytes = heapU8().slice(data, data + this.capacity * (this.#fingerprintBits / 8));
    return this.#fingerprintBits === 8 ? bytes : this.#fingerprintBits === 16 ? new Uint16Array(bytes.buffer) : new Uint32Array(bytes.buffer);
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md, type 4). */
  serialize(): Uint8Array {
    const ptr = this.live();
    const w = new ParamWriter().u32(this.#buckets).u8(this.#fingerprintBits).u8(0).u8(0).u8(0).u64(this.size);
    writeHashing(w, this.#hashing);
    const data = ptr + HEADER_BYTES;
    const length = core.cuckooBlockBytes(this.#buckets, this.#fingerprintBits) - HEADER_BYTES;
    return writeRecord({
      type: FilterType.cuckoo,
      params: w.bytes(),
      payloadLength: length,
      writePayload: (target) => target.set(heapU8().subarray(data, data + length)),
      payloadChecksum: checksumAt(data, length),
    });
  }

  /** A filter from serialize()'s bytes; truncated, corrupted or foreign bytes throw a FormatError. */
  static deserialize(bytes: Uint8Array): CuckooFilter {
    const record = readRecord(bytes, FilterType.cuckoo);
    const r = new ParamReader(record.params);
    const buckets = r.u32();
    const fingerprintBits = r.u8();
    if (r.u8() !== 0 || r.u8() !== 0 || r.u8() !== 0) throw new FormatError("corrupted: reserved bytes are not 0");
    const size = r.u64("size");
    const hashing = readHashing(r);
    r.end();
    if (buckets < 1 || buckets > MAX_BUCKETS || (buckets & (buckets - 1)) !== 0) throw new FormatError(`corrupted: buckets = ${buckets}`);
    if (fingerprintBits !== 8 && fingerprintBits !== 16 && fingerprintBits !== 32) throw new FormatError(`corrupted: fingerprint bits = ${fingerprintBits}`);
    const length = core.cuckooBlockBytes(buckets, fingerprintBits) - HEADER_BYTES;
    if (record.payload.length !== length) throw new FormatError(`corrupted: payload of ${record.payload.length} bytes for ${buckets} buckets`);
    const filter = new CuckooFilter(buckets, fingerprintBits, hashing);
    const data = filter.live() + HEADER_BYTES;
    heapU8().set(record.payload, data);
    let stored = 0;
    for (const fp of filter.entries()) stored += fp === 0 ? 0 : 1;
    if (checksumAt(data, length) !== record.payloadChecksum || stored !== size) {
      filter.dispose();
      throw new FormatError(stored !== size ? `corrupted: ${stored} fingerprints stored, the header says ${size}` : "corrupted: the payload checksum does not match");
    }
    core.cuckooSetSize(filter.live(), size);
    return filter;
  }

  static fromBase64(text: string): CuckooFilter {
    return CuckooFilter.deserialize(fromBase64(text));
  }

  #rateAt(load: number): number {
    return 1 - Math.pow(1 - 1 / (2 ** this.#fingerprintBits - 1), 2 * BUCKET_SIZE * load);
  }

  #op(op: number): WasmBatch {
    const ptr = this.live();
    return (keys, ends, count, start, out) => core.cuckooPacked(ptr, op, keys, ends, count, start, out);
  }

  #intsCall(op: number): IntsCall {
    const ptr = this.live();
    return (keys, count, wide, out) => core.cuckooInts(ptr, op, keys, count, wide, out);
  }
}
