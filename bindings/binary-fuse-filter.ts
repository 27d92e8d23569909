// Binary fuse filter (Graf & Lemire, ACM JEA 2022; see assembly/binary-fuse.ts
// and assembly/fuse-build.ts): a static set built once from a batch of keys,
// about 9 bits per key at a 2^-8 false-positive rate (8-bit fingerprints) or
// 18 bits at 2^-16 (16-bit), three memory accesses per query. It cannot be
// added to: build a new one from the new set.
import { core, heapU8 } from "./wasm.js";
import { WasmBlock } from "./wasm-block.js";
import { allocate } from "./memory.js";
import { checkOptions, describe } from "./errors.js";
import { bytesOf, bytesOfPacked, intsOf, linesAsPacked, one, type WasmBatch } from "./batch.js";
import { forEachChunk, forEachLineChunk, forEachPackedChunk, isBytes, MAX_BATCH_KEYS, useScratch, type Key } from "./keys.js";
import { hashId } from "./hash.js";
import { FilterType, FormatError, ParamReader, ParamWriter, checksumAt, fromBase64, readRecord, writeRecord } from "./format.js";

export interface BinaryFuseFilterOptions {
  /** Bits per fingerprint: 8 (default; false-positive rate 2^-8 ≈ 0.39%) or 16 (2^-16 ≈ 0.0015%). */
  fingerprintBits?: 8 | 16;
}

const HEADER_BYTES = core.fuseHeaderBytes();
/** Most distinct keys one filter holds (the kernel's limit; wasm memory usually ends sooner). */
const MAX_KEYS = core.fuseMaxSize() >>> 0;
const XXH64 = hashId("xxh64");
/** Builds start their sequence of seeds here, so the same keys always give the same filter. */
const BUILD_SEED = 0;
/** fuseBuild's result codes (assembly/fuse-build.ts). */
const BUILD_ERRORS: Record<number, string> = { 1: "fingerprint bits not 8 or 16", 2: "too many keys", 3: "no seed peeled the keys" };

/** The validated fingerprint width of build options. */
function fingerprintBitsOf(options: unknown): 8 | 16 {
  const checked = checkOptions("options", options, ["fingerprintBits"]);
  const bits = checked.fingerprintBits ?? 8;
  if (typeof bits !== "number") throw new TypeError(`options.fingerprintBits must be a number, got ${describe(bits)}`);
  if (bits !== 8 && bits !== 16) throw new RangeError(`options.fingerprintBits must be 8 or 16, got ${describe(bits)}`);
  return bits;
}

/** Lines in a buffer as compactLines splits it: one per "\n", plus a last one without it. */
function countLines(buffer: Uint8Array): number {
  let lines = 0;
  for (let at = buffer.indexOf(10); at >= 0; at = buffer.indexOf(10, at + 1)) lines++;
  return buffer.length > 0 && buffer[buffer.length - 1] !== 10 ? lines + 1 : lines;
}

/** A static set of keys in fingerprints: no false negatives, false positives at 2^-fingerprintBits. */
export class BinaryFuseFilter extends WasmBlock {
  readonly #size: number;
  readonly #fingerprintBits: 8 | 16;

  private constructor(size: number, fingerprintBits: 8 | 16) {
    if (size > MAX_KEYS) throw new RangeError(`a binary fuse filter holds at most ${MAX_KEYS} distinct keys, got ${size}`);
    super(core.fuseBlockBytes(size, fingerprintBits), `a binary fuse filter of ${size} keys`);
    core.fuseInit(this.live(), size, fingerprintBits);
    this.#size = size;
    this.#fingerprintBits = fingerprintBits;
  }

  /** A filter of string or Uint8Array keys (hashed as UTF-8 bytes by xxh64); duplicates count once. */
  static build(keys: readonly Key[], options?: BinaryFuseFilterOptions): BinaryFuseFilter {
    const bits = fingerprintBitsOf(options);
    if (!Array.isArray(keys)) throw new TypeError(`keys must be an array of strings or Uint8Arrays, got ${describe(keys)}`);
    return BinaryFuseFilter.#fromHashes(keys.length, bits, (hashes) => {
      forEachChunk(keys as Key[], (count, first, keysPtr, start) => {
        core.hashPacked(XXH64, keysPtr, useScratch(0).ends, count, start, 0, hashes + first * 8);
      });
    });
  }

  /** A filter of packed keys: key i is bytes[ends[i − 1] … ends[i]) (ends[−1] = 0). */
  static buildPacked(bytes: Uint8Array, ends: Uint32Array, options?: BinaryFuseFilterOptions): BinaryFuseFilter {
    const bits = fingerprintBitsOf(options);
    if (!(ends instanceof Uint32Array)) throw new TypeError(`ends must be a Uint32Array, got ${describe(ends)}`);
    if (!isBytes(bytes)) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
    return BinaryFuseFilter.#fromHashes(ends.length, bits, (hashes) => {
      forEachPackedChunk(bytes, ends, (count, first, keysPtr, start) => {
        core.hashPacked(XXH64, keysPtr, useScratch(0).ends, count, start, 0, hashes + first * 8);
      });
    });
  }

  /** A filter of newline-delimited keys ("\n", one trailing "\r" dropped; as the filters' addLines split them). */
  static buildLines(buffer: Uint8Array, options?: BinaryFuseFilterOptions): BinaryFuseFilter {
    const bits = fingerprintBitsOf(options);
    if (!isBytes(buffer)) throw new TypeError(`buffer must be a Uint8Array of newline-delimited keys, got ${describe(buffer)}`);
    const lines = countLines(buffer);
    return BinaryFuseFilter.#fromHashes(lines, bits, (hashes) => {
      let written = 0;
      forEachLineChunk(buffer, (keys, len, final) => {
        let at = 0;
        while (at < len) {
          const { ends } = useScratch(0);
          const count = core.compactLines(keys + at, len - at, final ? 1 : 0, MAX_BATCH_KEYS, ends);
          if (count === 0) break;
          const consumed = core.compactLinesConsumed();
          core.hashPacked(XXH64, keys + at, ends, count, 0, 0, hashes + written * 8);
          written += count;
          at += consumed;
        }
        return at;
      });
      if (written !== lines) throw new Error(`internal error: ${written} lines hashed, ${lines} counted`);
    });
  }

  /** A filter of integer keys (a Uint32Array or BigUint64Array), hashed as the other filters' addInts hash them. */
  static buildInts(keys: Uint32Array | BigUint64Array, options?: BinaryFuseFilterOptions): BinaryFuseFilter {
    const bits = fingerprintBitsOf(options);
    if (!(keys instanceof Uint32Array || keys instanceof BigUint64Array)) {
      throw new TypeError(`keys must be a Uint32Array or a BigUint64Array, got ${describe(keys)}`);
    }
    const wide = keys instanceof BigUint64Array;
    return BinaryFuseFilter.#fromHashes(keys.length, bits, (hashes) => {
      // Hashed in place: u64 keys where their hashes go, u32 keys in the upper half (see fuseHashInts).
      const at = wide ? hashes : hashes + keys.length * 4;
      heapU8().set(new Uint8Array(keys.buffer, keys.byteOffset, keys.byteLength), at);
      core.fuseHashInts(at, keys.length, wide ? 1 : 0, hashes);
    });
  }

  /**
   * Hashes `count` keys into a block of u64 (`hash` fills it), removes
   * duplicates, and builds. Every temporary block is freed, also on failure.
   */
  static #fromHashes(count: number, bits: 8 | 16, hash: (hashes: number) => void): BinaryFuseFilter {
    // Peak memory: 8 bytes per key for the hashes, then 8 more to sort them,
    // freed before the filter and the build's 13 bytes per slot (about 14.7 per key).
    const temps: number[] = [];
    const hold = (bytes: number, what: string) => {
      const ptr = allocate(bytes, what);
      temps.push(ptr);
      return ptr;
    };
    const release = (ptr: number) => {
      core.free(ptr);
      temps.splice(temps.indexOf(ptr), 1);
    };
    try {
      const hashes = hold(Math.max(8, count * 8), `the hashes of ${count} keys`);
      hash(hashes);
      const sortTemp = hold(core.fuseSortTempBytes(count), `sorting the hashes of ${count} keys`);
      const size = core.fuseSortUnique(hashes, count, sortTemp) >>> 0;
      release(sortTemp);
      const filter = new BinaryFuseFilter(size, bits);
      try {
        const slotHashes = hold(core.fuseSlotHashBytes(size), `building a binary fuse filter of ${size} keys`);
        const temp = hold(core.fuseTempBytes(size), `building a binary fuse filter of ${size} keys`);
        const result = core.fuseBuild(filter.live(), hashes, size, bits, slotHashes, temp, BUILD_SEED, 0);
        if (result !== 0) throw new Error(`internal error: the binary fuse filter build failed (${BUILD_ERRORS[result] ?? result})`);
      } catch (error) {
        filter.dispose();
        throw error;
      }
      return filter;
    } finally {
      for (const ptr of temps) core.free(ptr);
    }
  }

  /** Distinct keys the filter was built from. */
  get size(): number {
    this.live();
    return this.#size;
  }

  get fingerprintBits(): 8 | 16 {
    return this.#fingerprintBits;
  }

  /** Bits of fingerprints per distinct key (0 when empty): about 9.04 (8-bit) or 18.1 (16-bit) for a million keys. */
  get bitsPerItem(): number {
    return this.#size === 0 ? 0 : ((core.fuseArrayLength(this.live()) >>> 0) * this.#fingerprintBits) / this.#size;
  }

  /** The rate of a key not in the set: 2^-fingerprintBits (0 when empty: an empty filter answers no). */
  falsePositiveRate(): number {
    return this.#size === 0 ? 0 : 2 ** -this.#fingerprintBits;
  }

  /** True when the key is probably in the set; false when it certainly is not. */
  has(key: Key): boolean {
    return one(key, this.#packed()) === 1;
  }

  hasMany(keys: readonly Key[]): Uint8Array {
    return bytesOf(keys, this.#packed());
  }

  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return bytesOfPacked(bytes, ends, this.#packed());
  }

  hasLines(buffer: Uint8Array): Uint8Array {
    return linesAsPacked(buffer, this.#packed());
  }

  hasInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    const ptr = this.live();
    return intsOf(keys, (keysPtr, count, wide, out) => core.fuseHasInts(ptr, keysPtr, count, wide, out));
  }

  #packed(): WasmBatch {
    const ptr = this.live();
    return (keys, ends, count, start, out) => core.fuseHasPacked(ptr, keys, ends, count, start, out);
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md, type 6). */
  serialize(): Uint8Array {
    const ptr = this.live();
    const data = ptr + HEADER_BYTES;
    const slots = core.fuseArrayLength(ptr) >>> 0;
    const length = slots * (this.#fingerprintBits / 8);
    return writeRecord({
      type: FilterType.binaryFuse,
      params: new ParamWriter()
        .u32(core.fuseSeedLow(ptr) >>> 0)
        .u32(core.fuseSeedHigh(ptr) >>> 0)
        .u64(this.#size)
        .u8(this.#fingerprintBits)
        .u8(0)
        .u8(0)
        .u8(0)
        .u32(core.fuseSegmentLength(ptr))
        .u32(core.fuseSegmentCount(ptr))
        .u64(slots)
        .bytes(),
      payloadLength: length,
      writePayload: (target) => target.set(heapU8().subarray(data, data + length)),
      payloadChecksum: checksumAt(data, length),
    });
  }

  /** A filter from serialize()'s bytes; anything else, damaged or inconsistent, is a FormatError. */
  static deserialize(bytes: Uint8Array): BinaryFuseFilter {
    const record = readRecord(bytes, FilterType.binaryFuse);
    const r = new ParamReader(record.params);
    const seedLow = r.u32();
    const seedHigh = r.u32();
    const size = r.u64("size");
    const bits = r.u8();
    const reserved = [r.u8(), r.u8(), r.u8()];
    const segmentLength = r.u32();
    const segmentCount = r.u32();
    const arrayLength = r.u64("array length");
    r.end();
    if (bits !== 8 && bits !== 16) throw new FormatError(`corrupted: fingerprint bits = ${bits}, not 8 or 16`);
    if (reserved.some((byte) => byte !== 0)) throw new FormatError("corrupted: reserved parameter bytes are not 0");
    if (size > MAX_KEYS) throw new FormatError(`corrupted: size = ${size} is out of range`);
    // The layout a build gives `size` keys, computed in a scratch header (nothing allocated yet).
    const layout = useScratch(0).out;
    core.fuseInit(layout, size, bits);
    const expected = [core.fuseSegmentLength(layout), core.fuseSegmentCount(layout), core.fuseArrayLength(layout) >>> 0];
    if (segmentLength !== expected[0] || segmentCount !== expected[1] || arrayLength !== expected[2]) {
      throw new FormatError(
        `corrupted: segment length ${segmentLength}, segment count ${segmentCount} and array length ${arrayLength} ` +
          `are not the layout of ${size} keys (${expected.join(", ")})`,
      );
    }
    if (record.payload.length !== arrayLength * (bits / 8)) {
      throw new FormatError(`corrupted: payload of ${record.payload.length} bytes for ${arrayLength} ${bits}-bit fingerprints`);
    }
    if (size === 0 && record.payload.some((byte) => byte !== 0)) throw new FormatError("corrupted: an empty filter has fingerprints set");
    const filter = new BinaryFuseFilter(size, bits);
    const ptr = filter.live();
    core.fuseSetSeed(ptr, seedLow, seedHigh);
    heapU8().set(record.payload, ptr + HEADER_BYTES);
    if (checksumAt(ptr + HEADER_BYTES, record.payload.length) !== record.payloadChecksum) {
      filter.dispose();
      throw new FormatError("corrupted: the payload checksum does not match");
    }
    return filter;
  }

  static fromBase64(text: string): BinaryFuseFilter {
    return BinaryFuseFilter.deserialize(fromBase64(text));
  }
}
