// Binary fuse filter (Graf & Lemire, ACM JEA 2022; see assembly/binary-fuse.ts
// and assembly/fuse-build.ts): a static set built once from a batch of keys,
// about 9 bits per key at a 2^-8 false-positive rate (8-bit fingerprints) or
// 18 bits at 2^-16 (16-bit), three memory accesses per query. It cannot be
// added to: build a new one from the new set.
import { checkChunksOptions, type ChunksOptions } from "./shared.js";
import { WasmBlock } from "./wasm-block.js";
import { Arena } from "./arena.js";
import { defaultArena, freeMemory, MAX_BLOCK_BYTES, SCRATCH_RESERVE, type Block } from "./memory.js";
import { FUSE_HEADER, FUSE_MAX_SIZE, FUSE_RECORD_VERSION, HASH_XXH3, HASH_XXH64, SOURCE_U32 } from "./constants.generated.js";
import { checkReadable, checkOptions, describe, formatBytes, checkMadeBy, keysNotAnArray, refuseLoaderOptions } from "./errors.js";
import { forEachChunk, type Kernel, type KeyHash, type KeySource } from "./batch.js";
import { isBytes, maxKeyBytes, scratchOf, type Key } from "./keys.js";
import type { FilterQueries } from "./filter.js";
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

export interface BinaryFuseFilterOptions {
  /** Bits per fingerprint: 8 (default; false-positive rate 2^-8 ≈ 0.39%) or 16 (2^-16 ≈ 0.0015%). */
  fingerprintBits?: 8 | 16;
}

/**
 * How each record version hashes a key's bytes (seed 0). Builds write version
 * FUSE_RECORD_VERSION (2): xxh3, and integer keys as they are; version 1
 * filters (xxh64, integers through intHash) still load and answer as built.
 */
const KEY_HASHES: Record<number, KeyHash> = { 1: { id: HASH_XXH64, seed: 0 }, 2: { id: HASH_XXH3, seed: 0 } };
/**
 * Builds start their sequence of seeds here, so the same keys always give
 * the same filter; except keys crafted against this sequence, which then
 * build from a start of RANDOM_STARTS.
 */
const BUILD_SEED = 0;
/**
 * Random starts of the sequence tried after BUILD_SEED's failed. Its seeds
 * are public: two keys that share all three slots under a seed (chosen
 * through the mix, a bijection) make that seed fail, so 200 crafted keys
 * failed every build of theirs. A start no one knows beforehand cannot be
 * crafted against.
 */
const RANDOM_STARTS = 3;
/**
 * Seeds tried from BUILD_SEED's start before a random start. With distinct
 * hashes nearly every seed peels: 1.04 attempts per build on average over
 * 3,000 builds of 1 to 20 random keys (at most 4), 1.02 to 1.04 from 21 to
 * 11,000 keys and from 12,400 to 30,000 (at most 3), 1 for 10^5 and 10^6. Not so just past the step to 1,024-slot segments
 * (about 11,200 to 12,400 keys), where few seeds peel the paper's layout and
 * builds rely on the attempts that take the halved layout, one in four: of
 * 5,000 random sets there, 40–50% needed the first halved attempt and 0.6%
 * the second (a halved attempt fails about 1.2% of the time), none a third.
 * 24 attempts hold six halved ones, so random keys fail all 24 about once
 * in 10^12 builds (0.5 · 0.012^6). Keys crafted against the public sequence
 * make all 24 fail: that is what they cost, where each fixed seed they
 * defeat would otherwise cost a full attempt, 100 before (about a build's
 * time each).
 */
const FIXED_START_ATTEMPTS = 24;
/** Seeds tried from each random start: with distinct hashes, 100 failures in a row do not happen (above). */
const RANDOM_START_ATTEMPTS = 100;
/** fuseBuild's result when no seed peeled the keys. */
const NOT_PEELED = 3;
/** Room for a build's key area (4 MiB: its keys' scratch), above the temporary memory it needs. */
const BUILD_FIXED_BYTES = 4 << 20;
/**
 * The most temporary memory a build takes in the shared default memory,
 * beside the small filters, rather than in a memory of its own (about
 * 170,000 keys): a memory of its own cost 2.7–3.3 ms a build, where a
 * filter of two keys takes 0.1–0.2 ms in all. A larger build keeps its own,
 * which goes back to the system when the build ends.
 */
const SMALL_BUILD_BYTES = 4 << 20;
/**
 * The constructor's first argument from build() and deserialize(): a filter
 * is only made with its fingerprints, so `new BinaryFuseFilter(10, 8)` from
 * JavaScript, which would hold none of its keys, is refused however valid
 * its numbers look.
 */
const MADE_HERE = Symbol("BinaryFuseFilter made here");
/** fuseBuild's result codes (assembly/fuse-build.ts). */
const BUILD_ERRORS: Record<number, string> = { 1: "fingerprint bits not 8 or 16", 2: "too many keys", 3: "no seed peeled the keys" };

/** The validated fingerprint width of build options. */
function fingerprintBitsOf(options: unknown): 8 | 16 {
  const checked = checkOptions("options", options, ["fingerprintBits"]);
  const bits = checked.fingerprintBits === undefined ? 8 : checked.fingerprintBits;
  if (typeof bits !== "number") throw new TypeError(`options.fingerprintBits must be a number, got ${describe(bits)}`);
  if (bits !== 8 && bits !== 16) throw new RangeError(`options.fingerprintBits must be 8 or 16, got ${describe(bits)}`);
  return bits;
}

/** Lines in a buffer as the line splitter reads it: one per "\n", plus a last one without it. */
function countLines(buffer: Uint8Array): number {
  let lines = 0;
  for (let at = buffer.indexOf(10); at >= 0; at = buffer.indexOf(10, at + 1)) lines++;
  return buffer.length > 0 && buffer[buffer.length - 1] !== 10 ? lines + 1 : lines;
}

/** Two random u32, the start of a sequence of seeds: crypto's where there is one. */
function randomSeedStart(): [number, number] {
  const crypto = (globalThis as { crypto?: { getRandomValues(array: Uint32Array): Uint32Array } }).crypto;
  if (crypto) {
    const [low, high] = crypto.getRandomValues(new Uint32Array(2));
    return [low, high];
  }
  return [Math.floor(Math.random() * 2 ** 32), Math.floor(Math.random() * 2 ** 32)];
}

/** The layout a build gives `size` keys (segment length, segment count, fingerprints), computed in a scratch header. */
function layoutOf(size: number, bits: 8 | 16): { segmentLength: number; segmentCount: number; arrayLength: number; blockBytes: number } {
  const arena = defaultArena();
  const { room } = scratchOf(arena);
  const { core } = arena;
  core.fuseInit(room, size, bits);
  return {
    segmentLength: core.fuseSegmentLength(room),
    segmentCount: core.fuseSegmentCount(room),
    arrayLength: core.fuseArrayLength(room) >>> 0,
    blockBytes: core.fuseBlockBytes(size, bits),
  };
}

/**
 * The other layout a build may give the same slots (assembly/binary-fuse.ts,
 * halvedSegmentLength): segments half as long, 2 · count + 2 of them; none
 * when the segments are as short as they get.
 */
function halvedLayout(layout: { segmentLength: number; segmentCount: number }): { segmentLength: number; segmentCount: number } | undefined {
  const { core } = defaultArena();
  const segmentLength = core.halvedSegmentLength(layout.segmentLength) >>> 0;
  return segmentLength === 0 ? undefined : { segmentLength, segmentCount: core.halvedSegmentCount(layout.segmentCount) >>> 0 };
}

/** A static set of keys in fingerprints: no false negatives, false positives at 2^-fingerprintBits. */
export class BinaryFuseFilter extends WasmBlock implements FilterQueries {
  readonly #size: number;
  readonly #fingerprintBits: 8 | 16;
  readonly #arrayLength: number;
  /** The record version whose key mapping the fingerprints were built under: FUSE_RECORD_VERSION, or 1 when loaded from such a record. */
  readonly #version: number;

  private constructor(made: typeof MADE_HERE, size: number, fingerprintBits: 8 | 16, version = FUSE_RECORD_VERSION) {
    checkMadeBy(made === MADE_HERE, "BinaryFuseFilter", "BinaryFuseFilter.build(keys) (or buildPacked, buildLines, buildInts) or deserialize(bytes)");
    if (size > FUSE_MAX_SIZE) throw new RangeError(`a binary fuse filter holds at most ${FUSE_MAX_SIZE} distinct keys, got ${size}`);
    const layout = layoutOf(size, fingerprintBits);
    super(layout.blockBytes, () => `a binary fuse filter of ${size} keys (${formatBytes(layout.blockBytes)})`);
    this.core.fuseInit(this.live(), size, fingerprintBits);
    // fuseInit writes FUSE_RECORD_VERSION: only a loaded record of another version sets its own.
    if (version !== FUSE_RECORD_VERSION) this.core.fuseSetVersion(this.live(), version);
    this.#version = version;
    this.#size = size;
    this.#fingerprintBits = fingerprintBits;
    this.#arrayLength = layout.arrayLength;
  }

  /** A filter of string or Uint8Array keys (hashed as UTF-8 bytes by xxh3); duplicates count once. */
  static build(keys: readonly Key[], options?: BinaryFuseFilterOptions): BinaryFuseFilter {
    const bits = fingerprintBitsOf(options);
    if (!Array.isArray(keys)) throw keysNotAnArray(keys);
    for (let i = 0; i < keys.length; i++) maxKeyBytes(keys[i], i);
    return BinaryFuseFilter.#build({ kind: "keys", keys }, keys.length, bits);
  }

  /** A filter of packed keys: key i is bytes[ends[i − 1] … ends[i]) (ends[−1] = 0). */
  static buildPacked(bytes: Uint8Array, ends: Uint32Array, options?: BinaryFuseFilterOptions): BinaryFuseFilter {
    const bits = fingerprintBitsOf(options);
    if (!isBytes(bytes)) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
    if (!(ends instanceof Uint32Array)) throw new TypeError(`ends must be a Uint32Array, got ${describe(ends)}`);
    return BinaryFuseFilter.#build({ kind: "packed", bytes, ends }, ends.length, bits);
  }

  /** A filter of newline-delimited keys ("\n", one trailing "\r" dropped; as the filters' addLines split them). */
  static buildLines(buffer: Uint8Array, options?: BinaryFuseFilterOptions): BinaryFuseFilter {
    const bits = fingerprintBitsOf(options);
    if (!isBytes(buffer)) throw new TypeError(`buffer must be a Uint8Array of newline-delimited keys, got ${describe(buffer)}`);
    checkReadable("buffer", buffer);
    return BinaryFuseFilter.#build({ kind: "lines", buffer }, countLines(buffer), bits);
  }

  /** A filter of integer keys (a Uint32Array or BigUint64Array; the same number in either is the same key); duplicates count once. */
  static buildInts(keys: Uint32Array | BigUint64Array, options?: BinaryFuseFilterOptions): BinaryFuseFilter {
    const bits = fingerprintBitsOf(options);
    if (!(keys instanceof Uint32Array || keys instanceof BigUint64Array)) {
      throw new TypeError(`keys must be a Uint32Array or a BigUint64Array, got ${describe(keys)}`);
    }
    return BinaryFuseFilter.#build({ kind: "ints", keys }, keys.length, bits);
  }

  /**
   * Hashes `count` keys into a memory of its own for the build, removes
   * duplicates, builds, then copies the finished filter out: the build's
   * temporary memory (about 23 bytes per key at its peak, the filter aside) is released whole
   * when it is done, instead of staying in a memory that cannot shrink.
   */
  static #build(source: KeySource, count: number, bits: 8 | 16): BinaryFuseFilter {
    if (count > FUSE_MAX_SIZE) throw new RangeError(`a binary fuse filter holds at most ${FUSE_MAX_SIZE} distinct keys, got ${count}`);
    // Peak: 8 bytes a key for the hashes, then the sort's temp, or the build's (about 14.7 a key) and the filter.
    const worst = layoutOf(count, bits);
    const arena0 = defaultArena();
    const sortBytes = arena0.core.fuseSortTempBytes(count);
    const buildBytes = arena0.core.fuseSlotHashBytes(count) + arena0.core.fuseTempBytes(count) + worst.blockBytes;
    const fixedBytes = BUILD_FIXED_BYTES;
    const peak = 8 * count + Math.max(sortBytes, buildBytes) + fixedBytes;
    // Not when small filters fill that memory: the build failed there ('more than one wasm memory (4 GiB) holds'), where one of its own had room.
    if (peak - fixedBytes <= SMALL_BUILD_BYTES && arena0.canFit(peak - fixedBytes + SCRATCH_RESERVE)) return BinaryFuseFilter.#buildIn(arena0, true, source, count, bits);
    // Refused before any key is hashed: the whole build lives in one wasm memory.
    if (peak > MAX_BLOCK_BYTES) {
      const most = Math.floor((MAX_BLOCK_BYTES - fixedBytes) / ((peak - fixedBytes) / count) / 1e6);
      throw new RangeError(
        `building a binary fuse filter of ${count} keys needs ${formatBytes(peak)} while it builds, more than one wasm memory holds (${formatBytes(MAX_BLOCK_BYTES)}): ` +
          `one build of ${bits}-bit fingerprints takes at most about ${most} million keys`,
      );
    }
    const free = freeMemory();
    if (peak > free) throw new RangeError(`building a binary fuse filter of ${count} keys needs ${formatBytes(peak)}; only ${formatBytes(free)} of memory is free`);
    let arena: Arena;
    try {
      arena = new Arena(peak);
    } catch {
      throw new RangeError(`building a binary fuse filter of ${count} keys needs ${formatBytes(peak)} in one wasm memory, which the engine refused`);
    }
    return BinaryFuseFilter.#buildIn(arena, false, source, count, bits);
  }

  /**
   * The build in `arena`: its own memory, dropped after, or (`shared`) the
   * default memory, whose blocks the build frees, even when it fails.
   */
  static #buildIn(arena: Arena, shared: boolean, source: KeySource, count: number, bits: 8 | 16): BinaryFuseFilter {
    const held = new Set<number>();
    const hold = (bytes: number) => {
      const ptr = arena.alloc(bytes);
      if (ptr === 0) throw new RangeError(`building a binary fuse filter of ${count} keys needs more than one wasm memory (4 GiB) holds`);
      if (shared) held.add(ptr);
      return ptr;
    };
    const release = (ptr: number) => {
      arena.free(ptr);
      held.delete(ptr);
    };
    try {
      return BinaryFuseFilter.#peel(arena, hold, release, source, count, bits);
    } finally {
      for (const ptr of held) arena.free(ptr);
    }
  }

  /** The build's steps: the keys hashed, sorted without repeats, peeled, and the filter copied out. */
  static #peel(arena: Arena, hold: (bytes: number) => number, release: (ptr: number) => void, source: KeySource, count: number, bits: 8 | 16): BinaryFuseFilter {
    const { core } = arena;
    const hashes = hold(Math.max(8, count * 8));
    let written = 0;
    // Only a keys array can change while it is read (a getter or Proxy that pushes to it or cuts it): then more or
    // fewer keys come than were counted, and the room for their hashes was sized by the count.
    const changedLength = (read: string) =>
      new TypeError(`keys changed length while the build read them (${count} when counted, ${read} when hashed): a getter or Proxy changed the array; nothing was built: pass an array of fixed keys`);
    forEachChunk(arena, KEY_HASHES[FUSE_RECORD_VERSION], source, (chunk) => {
      if (chunk.first + chunk.count > count) throw changedLength("more");
      const at = hashes + chunk.first * 8;
      // Hashes of bytes and u64 keys are the build's 64-bit keys already; u32 keys are widened.
      if (chunk.source === SOURCE_U32) core.fuseWidenInts(chunk.src, chunk.count, at);
      else arena.u8().copyWithin(at, chunk.src, chunk.src + chunk.count * 8);
      written = chunk.first + chunk.count;
    });
    if (written !== count) throw changedLength(String(written));
    const sortTemp = hold(core.fuseSortTempBytes(count));
    const size = core.fuseSortUnique(hashes, count, sortTemp) >>> 0;
    release(sortTemp);
    const layout = layoutOf(size, bits);
    const block = hold(layout.blockBytes);
    const slotHashes = hold(core.fuseSlotHashBytes(size));
    const temp = hold(core.fuseTempBytes(size));
    // fuseBuild writes the header (fuseInit) itself.
    let result = core.fuseBuild(block, hashes, size, bits, slotHashes, temp, BUILD_SEED, 0, FIXED_START_ATTEMPTS);
    for (let start = 0; result === NOT_PEELED && start < RANDOM_STARTS; start++) {
      const [low, high] = randomSeedStart();
      result = core.fuseBuild(block, hashes, size, bits, slotHashes, temp, low, high, RANDOM_START_ATTEMPTS);
    }
    if (result !== 0) throw new Error(`internal error: the binary fuse filter build failed (${BUILD_ERRORS[result] ?? result})`);
    const filter = new BinaryFuseFilter(MADE_HERE, size, bits);
    filter.arena.u8().set(arena.u8().subarray(block, block + layout.blockBytes), filter.live());
    return filter;
  }

  /** Distinct keys the filter was built from. */
  get size(): number {
    this.live();
    return this.#size;
  }

  /** Bits of fingerprints in all. */
  get bits(): number {
    this.live();
    return this.#arrayLength * this.#fingerprintBits;
  }

  get fingerprintBits(): 8 | 16 {
    this.live();
    return this.#fingerprintBits;
  }

  /** Bits of fingerprints per distinct key (0 when empty): about 9.04 (8-bit) or 18.1 (16-bit) for a million keys. */
  get bitsPerItem(): number {
    this.live();
    return this.#size === 0 ? 0 : this.bits / this.#size;
  }

  /** The rate of a key not in the set: 2^-fingerprintBits (0 when empty: an empty filter answers no). */
  falsePositiveRate(): number {
    this.live();
    return this.#size === 0 ? 0 : 2 ** -this.#fingerprintBits;
  }

  /** True when the key is probably in the set; false when it certainly is not. */
  has(key: Key): boolean {
    const { id, seed } = this.keyHash;
    const one = this.oneString(key);
    if (one) return one.core.fuseHasKey(one.filter, id, seed, one.room.scratch.bytes, one.room.text.utf8Write(key as string, 0)) === 1;
    const { ptr, length } = this.oneKey(key);
    return this.core.fuseHasKey(this.live(), id, seed, ptr, length) === 1;
  }

  /** The query kernel (its one operation) over a chunk of hashes or integer keys. */
  protected blockKernel(_op: number, block: Block): Kernel {
    const { core } = block.arena;
    const ptr = block.ptr;
    return (chunk) => core.fuseRun(ptr, chunk.source, chunk.src, chunk.count, chunk.scratch.out);
  }

  protected get keyHash(): KeyHash {
    return KEY_HASHES[this.#version];
  }

  protected describeParameters(): Record<string, unknown> {
    return { size: this.#size, fingerprintBits: this.#fingerprintBits, bitsPerItem: Number(this.bitsPerItem.toFixed(3)) };
  }

  /** What serialize() writes: parameters and where the payload lies. @internal */
  recordSource(): RecordSource {
    const ptr = this.live();
    const { core } = this;
    const params = new ParamWriter()
      .u32(core.fuseSeedLow(ptr) >>> 0)
      .u32(core.fuseSeedHigh(ptr) >>> 0)
      .u64(this.#size)
      .u8(this.#fingerprintBits)
      .u8(0)
      .u8(0)
      .u8(0)
      .u32(core.fuseSegmentLength(ptr))
      .u32(core.fuseSegmentCount(ptr))
      .u64(this.#arrayLength)
      .bytes();
    const bytes = this.#arrayLength * (this.#fingerprintBits / 8);
    return { type: FilterType.binaryFuse, version: this.#version, params, payload: [{ arena: this.arena, ptr: ptr + FUSE_HEADER, bytes }] };
  }

  /** A filter from serialize()'s bytes; anything else, damaged or inconsistent, is a FormatError. */
  static deserialize(bytes: Uint8Array): BinaryFuseFilter {
    refuseLoaderOptions("BinaryFuseFilter.deserialize", arguments[1]);
    return readRecordBytes(bytes, { [FilterType.binaryFuse]: BinaryFuseFilter.loader }, FilterType.binaryFuse);
  }

  /** A filter from a stream of serializeChunks()'s pieces. */
  static deserializeChunks(source: ByteSource, options?: ChunksOptions): Promise<BinaryFuseFilter> {
    const { available } = checkChunksOptions(options, false);
    return readRecordStream(source, { [FilterType.binaryFuse]: BinaryFuseFilter.loader }, FilterType.binaryFuse, available);
  }

  /** Checks a record's parameters against the layout a build gives its size, and allocates the filter. @internal */
  static loader: Loader<BinaryFuseFilter> = (header) => {
    const r = new ParamReader(header.params);
    const seedLow = r.u32();
    const seedHigh = r.u32();
    const size = r.u64("size");
    const bits = r.u8();
    const reserved = [r.u8(), r.u8(), r.u8()];
    const segmentLength = r.u32();
    const segmentCount = r.u32();
    const arrayLength = r.u64("array length");
    r.end();
    if (KEY_HASHES[header.version] === undefined) throw new FormatError(`corrupted: a binary fuse record of version ${header.version}`);
    if (bits !== 8 && bits !== 16) throw new FormatError(`corrupted: fingerprint bits = ${bits}, not 8 or 16`);
    if (reserved.some((byte) => byte !== 0)) throw new FormatError("corrupted: reserved parameter bytes are not 0");
    if (size > FUSE_MAX_SIZE) throw new FormatError(`corrupted: size = ${size} is out of range`);
    const expected = layoutOf(size, bits);
    const halved = halvedLayout(expected);
    const isLayout = (layout: { segmentLength: number; segmentCount: number } | undefined) =>
      layout !== undefined && segmentLength === layout.segmentLength && segmentCount === layout.segmentCount;
    if (!(isLayout(expected) || isLayout(halved)) || arrayLength !== expected.arrayLength) {
      const other = halved === undefined ? "" : ` or (${halved.segmentLength}, ${halved.segmentCount}, ${expected.arrayLength})`;
      throw new FormatError(
        `corrupted: segment length ${segmentLength}, segment count ${segmentCount} and array length ${arrayLength} ` +
          `are not a layout of ${size} keys (${expected.segmentLength}, ${expected.segmentCount}, ${expected.arrayLength})${other}`,
      );
    }
    if (header.payloadLength !== arrayLength * (bits / 8)) {
      throw new FormatError(`corrupted: payload of ${header.payloadLength} bytes for ${arrayLength} ${bits}-bit fingerprints`);
    }
    // A build of this many keys would have failed for want of memory: no bloomkit wrote this record.
    if (expected.blockBytes > MAX_BLOCK_BYTES) {
      throw new FormatError(`corrupted: ${size} keys of ${bits}-bit fingerprints need ${formatBytes(expected.blockBytes)}, more than a filter holds (${formatBytes(MAX_BLOCK_BYTES)})`);
    }
    const filter = new BinaryFuseFilter(MADE_HERE, size, bits, header.version);
    const ptr = filter.live();
    filter.core.fuseSetSeed(ptr, seedLow, seedHigh);
    // The constructor laid the filter out as the paper does; a build that peeled in the halved layout says so.
    if (!isLayout(expected)) filter.core.fuseSetLayout(ptr, segmentLength, segmentCount);
    const bytes = arrayLength * (bits / 8);
    return {
      target: [{ arena: filter.arena, ptr: ptr + FUSE_HEADER, bytes }],
      finish: () => {
        // A build sets one fingerprint slot per key and leaves the others 0 (an empty filter: all of them).
        const set = filter.core.fuseNonZeroSlots(ptr);
        if (set > size) {
          filter.dispose();
          throw new FormatError(`corrupted: ${set} fingerprints are set in a filter of size = ${size} keys, which sets at most one per key`);
        }
        return filter;
      },
      abandon: () => filter.dispose(),
    };
  };

  static fromBase64(text: string): BinaryFuseFilter {
    refuseLoaderOptions("BinaryFuseFilter.fromBase64", arguments[1]);
    return BinaryFuseFilter.deserialize(fromBase64(text, FilterType.binaryFuse));
  }
}

