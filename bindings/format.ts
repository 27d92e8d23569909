// The binary format shared by every filter type (docs/FORMAT.md): a framed,
// little-endian record with two xxh64 checksums, one over the header and one
// over the payload, so that any truncation or corrupted byte is caught before
// a filter is built from it.
import type { Arena } from "./arena.js";
import { defaultArena } from "./memory.js";
import { HASH_XXH64, XXH64_STATE_BYTES } from "./constants.generated.js";
import { checkInteger, checkReadable, describe, formatBytes, isUnreadable } from "./errors.js";
import { isBytes, scratchOf } from "./keys.js";
import { base64ToBytes, bytesToBase64 } from "./base64.js";

/** "BLMK". */
export const MAGIC = 0x4b4d4c42;
/** Bytes of the magic number, at the start of every record (little-endian u32). */
const MAGIC_BYTES = 4;
/** The newest version this bloomkit writes and reads: 2 for filters held in segments (larger than one wasm memory), scalable filters whose first layer was raised to the minimum size, and binary fuse filters (their key mapping), 1 for everything else. */
export const FORMAT_VERSION = 2;
/** Fixed bytes around the parameters and payload: magic … header checksum, and the payload checksum. */
const FRAME_BEFORE_PARAMS = 12;
const FRAME_AFTER_PARAMS = 16;
const FRAME_TRAILER = 8;

/** Filter type codes. */
export const FilterType = {
  bloom: 1,
  scalable: 2,
  counting: 3,
  cuckoo: 4,
  splitBlock: 5,
  binaryFuse: 6,
} as const;
export type FilterTypeCode = (typeof FilterType)[keyof typeof FilterType];
const TYPE_NAMES: Record<number, string> = { 1: "BloomFilter", 2: "ScalableBloomFilter", 3: "CountingBloomFilter", 4: "CuckooFilter", 5: "SplitBlockBloomFilter", 6: "BinaryFuseFilter" };

/** Bytes that are not a valid serialised filter: truncated, corrupted, foreign or of another type. */
export class FormatError extends Error {
  override name = "FormatError";
}

/** xxh64 (seed 0) of `len` bytes at `ptr` in `arena`'s memory. */
export function checksumAt(arena: Arena, ptr: number, len: number): bigint {
  const { out } = scratchOf(arena);
  arena.core.hashKey(HASH_XXH64, ptr, len, 0, out);
  return arena.readU64(out);
}

/** xxh64 (seed 0) of bytes held in JS, through a temporary block freed at once. */
export function checksumOf(bytes: Uint8Array): bigint {
  const arena = defaultArena();
  const ptr = arena.alloc(bytes.length);
  if (ptr === 0) throw new RangeError(`no room in wasm memory to checksum ${bytes.length} bytes`);
  try {
    arena.u8().set(bytes, ptr);
    return checksumAt(arena, ptr, bytes.length);
  } finally {
    arena.free(ptr);
  }
}

/** A run of wasm memory that holds part of a payload. */
export interface Region {
  readonly arena: Arena;
  readonly ptr: number;
  readonly bytes: number;
}

/**
 * xxh64 (seed 0) of a payload that comes in pieces, wherever each piece is:
 * in a filter's memory (hashed where it lies, no copy) or in JS bytes. The
 * state moves between memories as an 80-byte copy.
 */
export class PayloadHash {
  readonly #state = new Uint8Array(XXH64_STATE_BYTES);
  #started = false;

  /** Adds `bytes` bytes at `ptr` in `arena`'s memory. */
  update(arena: Arena, ptr: number, bytes: number): void {
    const { room } = scratchOf(arena);
    const u8 = arena.u8();
    if (this.#started) u8.set(this.#state, room);
    else arena.core.xxh64Start(room, 0n);
    this.#started = true;
    arena.core.xxh64Update(room, ptr, bytes);
    this.#state.set(arena.u8().subarray(room, room + XXH64_STATE_BYTES));
  }

  /** Adds bytes held in JS (through the default arena's scratch area). */
  updateBytes(bytes: Uint8Array): void {
    const arena = defaultArena();
    const scratch = scratchOf(arena);
    for (let at = 0; at < bytes.length || !this.#started; at += scratch.capacity) {
      const piece = bytes.subarray(at, at + scratch.capacity);
      arena.u8().set(piece, scratch.bytes);
      this.update(arena, scratch.bytes, piece.length);
    }
  }

  /** The checksum of everything added. */
  digest(): bigint {
    const arena = defaultArena();
    const { room, out } = scratchOf(arena);
    if (this.#started) arena.u8().set(this.#state, room);
    else arena.core.xxh64Start(room, 0n);
    arena.core.xxh64Digest(room, out);
    return arena.readU64(out);
  }
}

/** What a filter writes: its type, the format version its parameters need, the parameters, and where the payload is. */
export interface RecordSource {
  readonly type: FilterTypeCode;
  readonly version: number;
  readonly params: Uint8Array;
  /** The payload: regions of wasm memory in order, or (nested records) its length and its pieces. */
  readonly payload: readonly Region[] | { readonly length: number; chunks(chunkBytes: number): Iterable<Uint8Array> };
}

/** Bytes of the payload a source describes. */
function payloadLengthOf(source: RecordSource): number {
  const { payload } = source;
  return "length" in payload && !Array.isArray(payload) ? (payload as { length: number }).length : (payload as readonly Region[]).reduce((sum, r) => sum + r.bytes, 0);
}

/** Bytes of the record a source describes. */
export function recordLength(source: RecordSource): number {
  return FRAME_BEFORE_PARAMS + source.params.length + FRAME_AFTER_PARAMS + payloadLengthOf(source) + FRAME_TRAILER;
}

/** Default piece size of serializeChunks(): 16 MiB. */
export const CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * The record in pieces: the frame and parameters, the payload in pieces of
 * at most `chunkBytes` (copied out of wasm memory unless `views`, when each
 * piece is a view valid until the next), then the payload checksum, computed
 * as the pieces go. Nothing larger than one piece is ever held in JS.
 */
export function recordChunks(source: RecordSource, chunkBytes?: number, views = false): Generator<Uint8Array> {
  // Checked now, not when the first piece is asked for.
  return chunksOf(source, chunkBytes === undefined ? CHUNK_BYTES : checkInteger("chunkBytes", chunkBytes, 1, MAX_CHUNK_BYTES), views);
}

/** Largest piece serializeChunks() makes: 1 GiB. */
const MAX_CHUNK_BYTES = 2 ** 30;

function* chunksOf(source: RecordSource, chunkBytes: number, views: boolean): Generator<Uint8Array> {
  const h = source.params.length;
  const head = new Uint8Array(FRAME_BEFORE_PARAMS + h + FRAME_AFTER_PARAMS);
  const view = new DataView(head.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint16(4, source.version, true);
  view.setUint8(6, source.type);
  view.setUint32(8, h, true);
  head.set(source.params, 12);
  view.setBigUint64(12 + h, BigInt(payloadLengthOf(source)), true);
  view.setBigUint64(20 + h, checksumOf(head.subarray(0, 20 + h)), true);
  yield head;
  const hash = new PayloadHash();
  if (Array.isArray(source.payload)) {
    for (const region of source.payload as readonly Region[]) {
      for (let at = 0; at < region.bytes; at += chunkBytes) {
        const n = Math.min(chunkBytes, region.bytes - at);
        if (region.arena.shared) {
          // Other threads may set bits meanwhile: the copy is what is checksummed and written, so they agree.
          const piece = region.arena.u8().slice(region.ptr + at, region.ptr + at + n);
          hash.updateBytes(piece);
          yield piece;
          continue;
        }
        hash.update(region.arena, region.ptr + at, n);
        const piece = region.arena.u8().subarray(region.ptr + at, region.ptr + at + n);
        yield views ? piece : piece.slice();
      }
    }
  } else {
    for (const piece of (source.payload as { chunks(chunkBytes: number): Iterable<Uint8Array> }).chunks(chunkBytes)) {
      hash.updateBytes(piece);
      yield piece;
    }
  }
  const trailer = new Uint8Array(FRAME_TRAILER);
  new DataView(trailer.buffer).setBigUint64(0, hash.digest(), true);
  yield trailer;
}

/** The largest Uint8Array this engine makes. */
function maxBytes(): number {
  const constants = (globalThis as { process?: { getBuiltinModule?: (name: string) => { constants?: { MAX_LENGTH?: number } } | undefined } }).process?.getBuiltinModule?.("node:buffer")?.constants;
  return constants?.MAX_LENGTH ?? 2 ** 31 - 1;
}

/**
 * Throws the RangeError for `what` (its name as the user knows it) of `bytes`
 * bytes when one typed array cannot hold that many here (4 GiB under Node
 * 20), saying what to do `instead`: Node's own error named no method.
 */
export function checkOneArray(what: string, bytes: number, instead: string): void {
  if (bytes <= maxBytes()) return;
  // Bytes too: both sizes can round to the same "4.00 GiB".
  throw new RangeError(`${what} is ${formatBytes(bytes)} (${bytes} bytes), more than one Uint8Array can hold here (${maxBytes()} bytes); ${instead}`);
}

/** What to do instead of reading a filter's bits in one array that cannot hold them. */
export const TOO_LARGE_FOR_ONE_ARRAY = "write the filter in pieces with serializeChunks(), or run on Node 24, whose arrays hold more";

/** The whole record in one Uint8Array; a RangeError pointing to serializeChunks() when it is larger than one can be. */
export function recordBytes(source: RecordSource): Uint8Array {
  const length = recordLength(source);
  checkOneArray("this filter's record", length, "write it in pieces with serializeChunks()");
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of recordChunks(source, CHUNK_BYTES, true)) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** The longest string this engine makes, when it says (Node); elsewhere the engine's own RangeError stands. */
function maxStringLength(): number {
  const constants = (globalThis as { process?: { getBuiltinModule?: (name: string) => { constants?: { MAX_STRING_LENGTH?: number } } | undefined } }).process?.getBuiltinModule?.("node:buffer")?.constants;
  return constants?.MAX_STRING_LENGTH ?? Infinity;
}

/**
 * The whole record as base64; a RangeError pointing to serializeChunks() when
 * the text would be longer than a string can be, checked before the record is
 * copied out (Node's own error came after a copy of the whole record, and was
 * no RangeError).
 */
export function recordBase64(source: RecordSource): string {
  const length = recordLength(source);
  const characters = Math.ceil(length / 3) * 4;
  if (characters > maxStringLength()) {
    throw new RangeError(
      `this filter's record is ${formatBytes(length)}, and its base64 text of ${characters} characters is longer than a string can be here (${maxStringLength()}); ` +
        `write it in pieces with serializeChunks()`,
    );
  }
  return bytesToBase64(recordBytes(source));
}

/** The checked header of a record being read. */
export interface RecordHeader {
  readonly type: FilterTypeCode;
  readonly version: number;
  readonly params: DataView;
  readonly payloadLength: number;
}

/** Where a record's payload goes while it is read, and what it becomes. */
export interface Loading<F> {
  /** Regions of wasm memory the payload fills in order, or a sink for nested records. */
  readonly target: readonly Region[] | { push(bytes: Uint8Array): void; end(): void };
  /** After the checksum matched: the filter, checked against what its payload holds (a FormatError otherwise, with everything released). */
  finish(): F;
  /** Releases what was allocated, after a failure. */
  abandon(): void;
}

/** Turns a header into a Loading: checks the parameters (FormatError) and allocates the filter (RangeError when it cannot). */
export type Loader<F> = (header: RecordHeader) => Loading<F>;
/** The loaders a reader knows, by type code. */
export type Loaders<F> = Partial<Record<FilterTypeCode, Loader<F>>>;

/** Largest parameter block a reader accepts; real ones are well under 1 KiB. */
const MAX_PARAMS_BYTES = 1 << 16;

/**
 * Reads one record from bytes pushed in pieces of any size. It keeps only the
 * header in JS: the payload goes straight to where the filter keeps it, and
 * its checksum is computed there. It never reads past the record's end: push
 * returns how many bytes of a piece it took.
 */
export class RecordReader<F> {
  readonly #loaders: Loaders<F>;
  readonly #expected: FilterTypeCode | undefined;
  #head = new Uint8Array(FRAME_BEFORE_PARAMS);
  #headLength = 0;
  #header: RecordHeader | undefined;
  #loading: Loading<F> | undefined;
  #payloadRead = 0;
  #region = 0;
  #regionOffset = 0;
  readonly #hash = new PayloadHash();
  readonly #trailer = new Uint8Array(FRAME_TRAILER);
  #trailerLength = 0;
  #result: F | undefined;
  #failed = false;
  /** Bytes there are to read, when the caller knows (readRecordBytes, a stream of a file): a record longer than them is refused before its filter is allocated. */
  readonly #available: number | undefined;

  /** The record must be all of `available` (a whole stream of that size, not a part of a payload such as a scalable filter's layer): one shorter is refused too, before it is allocated. */
  readonly #alone: boolean;

  constructor(loaders: Loaders<F>, expected?: FilterTypeCode, available?: number, alone = false) {
    this.#loaders = loaders;
    this.#expected = expected;
    this.#available = available;
    this.#alone = alone;
  }

  /** True once the whole record was read and checked. */
  get done(): boolean {
    return this.#result !== undefined;
  }

  /** Bytes the record still needs, as far as the reader knows yet (the header tells the rest). */
  get missing(): number {
    if (!this.#header) return this.#head.length - this.#headLength;
    return this.#header.payloadLength - this.#payloadRead + FRAME_TRAILER - this.#trailerLength;
  }

  /** "at least " while the header, which gives the payload's length, is not all read: `missing` is then only the header's. */
  get #atLeast(): string {
    return this.#header ? "" : "at least ";
  }

  /** How a truncation message gives the bytes the record needs: `needs` of them, or at least that many while its length is unknown. */
  needs(bytes: number): string {
    return `${this.#atLeast}${bytes}`;
  }

  /** The filter, once done. */
  result(): F {
    if (this.#result === undefined) throw new FormatError(`truncated: the record needs ${this.needs(this.missing)} more bytes`);
    return this.#result;
  }

  /** Takes bytes of the record from the start of `bytes`; returns how many it took (fewer than given only at the record's end). */
  push(bytes: Uint8Array): number {
    if (this.#failed) throw new FormatError("this record already failed to load");
    try {
      return this.#push(bytes);
    } catch (error) {
      this.#failed = true;
      this.#loading?.abandon();
      throw error;
    }
  }

  /** Releases whatever a record that will not be finished holds. */
  abandon(): void {
    if (this.#result === undefined && !this.#failed) this.#loading?.abandon();
    this.#failed = true;
  }

  #push(bytes: Uint8Array): number {
    let at = 0;
    while (at < bytes.length && this.#result === undefined) {
      if (!this.#header) at += this.#takeHead(bytes.subarray(at));
      else if (this.#payloadRead < this.#header.payloadLength) at += this.#takePayload(bytes.subarray(at));
      else at += this.#takeTrailer(bytes.subarray(at));
    }
    return at;
  }

  #takeHead(bytes: Uint8Array): number {
    const n = Math.min(bytes.length, this.#head.length - this.#headLength);
    this.#head.set(bytes.subarray(0, n), this.#headLength);
    this.#headLength += n;
    // Bytes that do not begin as the magic number does are no record, however few: not a truncated one.
    if (this.#head.length === FRAME_BEFORE_PARAMS) {
      for (let i = 0; i < Math.min(this.#headLength, MAGIC_BYTES); i++) {
        if (this.#head[i] !== ((MAGIC >>> (8 * i)) & 0xff)) throw new FormatError("not a bloomkit filter: the magic number is missing");
      }
    }
    if (this.#headLength < this.#head.length) return n;
    const view = new DataView(this.#head.buffer);
    if (this.#head.length === FRAME_BEFORE_PARAMS) {
      const version = view.getUint16(4, true);
      if (version < 1 || version > FORMAT_VERSION) throw new FormatError(`unsupported format version ${version} (this bloomkit reads versions 1 to ${FORMAT_VERSION})`);
      const type = view.getUint8(6);
      if (!(type in TYPE_NAMES)) throw new FormatError(`unknown filter type ${type}`);
      if (view.getUint8(7) !== 0) throw new FormatError(`reserved byte 7 is ${view.getUint8(7)}, not 0`);
      if (this.#expected !== undefined && type !== this.#expected) {
        throw new FormatError(`these bytes hold a ${TYPE_NAMES[type]}, not a ${TYPE_NAMES[this.#expected]}`);
      }
      const h = view.getUint32(8, true);
      if (h > MAX_PARAMS_BYTES) throw new FormatError(`corrupted: ${h} bytes of parameters`);
      const grown = new Uint8Array(FRAME_BEFORE_PARAMS + h + FRAME_AFTER_PARAMS);
      grown.set(this.#head);
      this.#head = grown;
      return n;
    }
    const h = this.#head.length - FRAME_BEFORE_PARAMS - FRAME_AFTER_PARAMS;
    if (checksumOf(this.#head.subarray(0, 20 + h)) !== view.getBigUint64(20 + h, true)) throw new FormatError("corrupted: the header checksum does not match");
    const payloadLength = view.getBigUint64(12 + h, true);
    if (payloadLength > BigInt(Number.MAX_SAFE_INTEGER)) throw new FormatError(`corrupted: a payload of ${payloadLength} bytes`);
    const header: RecordHeader = {
      type: view.getUint8(6) as FilterTypeCode,
      version: view.getUint16(4, true),
      params: new DataView(this.#head.buffer, 12, h),
      payloadLength: Number(payloadLength),
    };
    const loader = this.#loaders[header.type];
    if (!loader) throw new FormatError(`a ${TYPE_NAMES[header.type]} cannot be read here`);
    const needed = this.#head.length + header.payloadLength + FRAME_TRAILER;
    if (this.#available !== undefined && needed > this.#available) throw new FormatError(`truncated: ${this.#available} bytes, the record needs ${needed}`);
    if (this.#alone && this.#available !== undefined && needed < this.#available) {
      throw new FormatError(`bytes follow the record: the source holds ${this.#available} bytes, the record ${needed}; a record is read alone`);
    }
    const loading = loader(header);
    this.#loading = loading;
    if (Array.isArray(loading.target)) {
      const room = (loading.target as readonly Region[]).reduce((sum, region) => sum + region.bytes, 0);
      if (room !== header.payloadLength) throw new FormatError(`corrupted: a payload of ${header.payloadLength} bytes where the parameters give ${room}`);
    }
    this.#header = header;
    return n;
  }

  #takePayload(bytes: Uint8Array): number {
    const header = this.#header!;
    const target = this.#loading!.target;
    const n = Math.min(bytes.length, header.payloadLength - this.#payloadRead);
    if (!Array.isArray(target)) {
      const piece = bytes.subarray(0, n);
      this.#hash.updateBytes(piece);
      (target as { push(bytes: Uint8Array): void }).push(piece);
    } else {
      let taken = 0;
      while (taken < n) {
        const region = (target as readonly Region[])[this.#region];
        const m = Math.min(n - taken, region.bytes - this.#regionOffset);
        const ptr = region.ptr + this.#regionOffset;
        region.arena.u8().set(bytes.subarray(taken, taken + m), ptr);
        this.#hash.update(region.arena, ptr, m);
        taken += m;
        this.#regionOffset += m;
        if (this.#regionOffset === region.bytes) {
          this.#region++;
          this.#regionOffset = 0;
        }
      }
    }
    this.#payloadRead += n;
    return n;
  }

  #takeTrailer(bytes: Uint8Array): number {
    const n = Math.min(bytes.length, FRAME_TRAILER - this.#trailerLength);
    this.#trailer.set(bytes.subarray(0, n), this.#trailerLength);
    this.#trailerLength += n;
    if (this.#trailerLength < FRAME_TRAILER) return n;
    if (new DataView(this.#trailer.buffer).getBigUint64(0, true) !== this.#hash.digest()) throw new FormatError("corrupted: the payload checksum does not match");
    const target = this.#loading!.target;
    if (!Array.isArray(target)) (target as { end(): void }).end();
    this.#result = this.#loading!.finish();
    return n;
  }
}

/** The public calls that read a record of the `expected` type as bytes and as text: a type's own, or the generic ones for any type. */
function readersOf(expected?: FilterTypeCode): { bytes: string; text: string } {
  if (expected === undefined) return { bytes: "deserialize", text: "deserializeBase64" };
  return { bytes: `${TYPE_NAMES[expected]}.deserialize`, text: `${TYPE_NAMES[expected]}.fromBase64` };
}

/** True for text made of base64's characters and padding, in a length base64 has; fromBase64 checks the rest. */
function isBase64Shaped(text: string): boolean {
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
}

/**
 * What to call instead when a record's bytes came in another form: the text
 * toBase64() writes, or the ArrayBuffer or DataView around the bytes. Empty
 * for anything else.
 */
function recordFormHint(value: unknown, expected?: FilterTypeCode): string {
  if (typeof value === "string" && value.length > 0 && isBase64Shaped(value)) return `; this looks like base64 text (as toBase64() writes): read it with ${readersOf(expected).text}(text)`;
  const tag = Object.prototype.toString.call(value);
  // Buffer.from() of a small record is a view into Node's shared 8 KiB pool: its .buffer holds other bytes too.
  if (tag === "[object ArrayBuffer]" || tag === "[object SharedArrayBuffer]") {
    return "; view it as bytes: new Uint8Array(buffer) (a Node Buffer is a Uint8Array already: pass the Buffer, not its .buffer, which may hold other bytes too)";
  }
  if (ArrayBuffer.isView(value)) return "; view its bytes: new Uint8Array(view.buffer, view.byteOffset, view.byteLength)";
  return "";
}

/** Reads exactly one record from `bytes`: truncated bytes, and bytes after the record, are a FormatError. */
export function readRecordBytes<F>(bytes: unknown, loaders: Loaders<F>, expected?: FilterTypeCode): F {
  if (!isBytes(bytes)) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}${recordFormHint(bytes, expected)}`);
  // A record whose buffer was transferred (posted to a worker) reads as 0 bytes: say so, not that it is truncated.
  checkReadable("bytes", bytes);
  const reader = new RecordReader(loaders, expected, bytes.length);
  const taken = reader.push(bytes);
  if (!reader.done) {
    reader.abandon();
    throw new FormatError(`truncated: ${bytes.length} bytes, the record needs ${reader.needs(bytes.length + reader.missing)}`);
  }
  if (taken < bytes.length) {
    const filter = reader.result() as { dispose?: () => void };
    filter.dispose?.();
    throw new FormatError(`${bytes.length - taken} bytes follow the record; a record is read alone`);
  }
  return reader.result();
}

/** A source of bytes in pieces: a Node stream, a web ReadableStream, an array of chunks, any (async) iterable of Uint8Arrays. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array> | ReadableStream<Uint8Array>;

/** The pieces of a ByteSource, as an async iterable. */
function piecesOf(source: ByteSource, expected?: FilterTypeCode): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  const iterable = (value: unknown, symbol: symbol) => typeof (value as Record<symbol, unknown>)[symbol] === "function";
  if (source === null || typeof source !== "object" || !(iterable(source, Symbol.asyncIterator) || iterable(source, Symbol.iterator) || typeof (source as ReadableStream).getReader === "function")) {
    throw new TypeError(`source must be a stream or an iterable of Uint8Arrays, got ${describe(source)}${recordFormHint(source, expected)}`);
  }
  // Bytes are an iterable too, of numbers: a whole record passed here was refused for its first byte.
  if (ArrayBuffer.isView(source)) throw new TypeError(`source must be a stream or an iterable of Uint8Arrays, got ${describe(source)} (one piece: [bytes], or deserialize(bytes))`);
  if (typeof (source as ReadableStream).getReader === "function" && !(Symbol.asyncIterator in (source as object))) {
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    return {
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            yield value;
          }
        } finally {
          reader.releaseLock();
        }
      },
    };
  }
  return source as AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

/**
 * Reads exactly one record from a stream of pieces: the payload goes straight
 * into the filter's memory piece by piece, so a filter larger than any one
 * Uint8Array loads too. A stream that ends early, or goes on after the
 * record (for example an endless device), is a FormatError; reading stops
 * at the first byte past the record. With `available`, the bytes the stream
 * holds (a file's size), a header that declares a longer record is
 * truncated before its filter is allocated.
 */
export async function readRecordStream<F>(source: ByteSource, loaders: Loaders<F>, expected?: FilterTypeCode, available?: number): Promise<F> {
  const reader = new RecordReader(loaders, expected, available, true);
  let read = 0;
  try {
    for await (const piece of piecesOf(source, expected)) {
      if (!isBytes(piece)) throw new TypeError(`source must yield Uint8Arrays, got ${describe(piece)}`);
      // Such a piece reads as empty: taken as one, the record was called truncated, or the rest of it misread.
      if (piece.length === 0 && isUnreadable(piece)) throw new TypeError(`source must yield readable Uint8Arrays, got ${describe(piece)}`);
      if (reader.done) {
        if (piece.length > 0) throw new FormatError("bytes follow the record; a record is read alone");
        continue;
      }
      const taken = reader.push(piece);
      read += taken;
      if (taken < piece.length) throw new FormatError(`bytes follow the record after byte ${read}; a record is read alone`);
    }
  } catch (error) {
    if (reader.done) (reader.result() as { dispose?: () => void }).dispose?.();
    else reader.abandon();
    throw error;
  }
  if (!reader.done) {
    reader.abandon();
    throw new FormatError(`truncated: the stream ended after ${read} bytes, the record needs ${reader.needs(reader.missing)} more`);
  }
  return reader.result();
}

/** Reads parameters in order, failing with a FormatError when they run out. */
export class ParamReader {
  #at = 0;
  constructor(private readonly view: DataView) {}
  #take(n: number): number {
    if (this.#at + n > this.view.byteLength) throw new FormatError(`corrupted: the parameters end after ${this.view.byteLength} bytes`);
    const at = this.#at;
    this.#at += n;
    return at;
  }
  u8(): number {
    return this.view.getUint8(this.#take(1));
  }
  u32(): number {
    return this.view.getUint32(this.#take(4), true);
  }
  f64(): number {
    return this.view.getFloat64(this.#take(8), true);
  }
  /** A u64 that must fit a JS number exactly. */
  u64(name: string): number {
    const value = this.view.getBigUint64(this.#take(8), true);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new FormatError(`corrupted: ${name} = ${value} is out of range`);
    return Number(value);
  }
  /** Fails unless every parameter byte was read. */
  end(): void {
    if (this.#at !== this.view.byteLength) throw new FormatError(`corrupted: ${this.view.byteLength - this.#at} unexpected parameter bytes`);
  }
}

/** Writes parameters in order. */
export class ParamWriter {
  #bytes: number[] = [];
  #view = new DataView(new ArrayBuffer(8));
  #push(n: number): void {
    for (let i = 0; i < n; i++) this.#bytes.push(this.#view.getUint8(i));
  }
  u8(value: number): this {
    this.#bytes.push(value & 0xff);
    return this;
  }
  u32(value: number): this {
    this.#view.setUint32(0, value, true);
    this.#push(4);
    return this;
  }
  f64(value: number): this {
    this.#view.setFloat64(0, value, true);
    this.#push(8);
    return this;
  }
  u64(value: number): this {
    this.#view.setBigUint64(0, BigInt(value), true);
    this.#push(8);
    return this;
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }
}


/** Base64 of bytes (standard alphabet, padded), in Node and in browsers. */
export { bytesToBase64 as toBase64 } from "./base64.js";

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Bytes of a base64 string; anything that is not strict base64 is a
 * FormatError. `expected`, the type the caller reads, names its deserialize
 * in the hint given for bytes passed here.
 */
export function fromBase64(text: unknown, expected?: FilterTypeCode): Uint8Array {
  if (typeof text !== "string") {
    const hint = isBytes(text) ? `; for bytes (as serialize() writes), call ${readersOf(expected).bytes}(bytes)` : "";
    throw new TypeError(`text must be a base64 string, got ${describe(text)}${hint}`);
  }
  if (!isBase64Shaped(text)) throw new FormatError("not base64: the text has characters or a length base64 does not");
  // The last character before "=" or "==" carries 2 or 4 bits past the bytes, always 0 in what toBase64 writes;
  // Buffer and atob both drop them, so a changed last character loaded as the original filter.
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  if (pad > 0 && (BASE64_ALPHABET.indexOf(text[text.length - pad - 1]) & (pad === 2 ? 15 : 3)) !== 0) {
    throw new FormatError(`not base64 as toBase64 writes it: the bits after the last byte are not 0 (text ends "${text.slice(-4)}")`);
  }
  return base64ToBytes(text);
}
