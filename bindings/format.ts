// The binary format shared by every filter type (docs/FORMAT.md): a framed,
// little-endian record with two xxh64 checksums, one over the header and one
// over the payload, so that any truncation or corrupted byte is caught before
// a filter is built from it.
import { core, heapU8, readU64 } from "./wasm.js";
import { allocate } from "./memory.js";
import { describe } from "./errors.js";
import { isBytes, useScratch } from "./keys.js";

/** "BLMK". */
export const MAGIC = 0x4b4d4c42;
export const FORMAT_VERSION = 1;
/** Fixed bytes around the parameters and payload: magic … header checksum, and the payload checksum. */
const FRAME_BEFORE_PARAMS = 12;
const FRAME_AFTER_PARAMS = 16;
const FRAME_TRAILER = 8;
/** The xxh64 id in the wasm core's hash table. */
const XXH64_ID = 21;

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

/** xxh64 (seed 0) of `len` bytes of wasm memory at `ptr`. */
export function checksumAt(ptr: number, len: number): bigint {
  const { out } = useScratch(0);
  core.hashKey(XXH64_ID, ptr, len, 0, out);
  return readU64(out);
}

/** xxh64 (seed 0) of bytes held in JS, through a temporary block freed at once. */
export function checksumOf(bytes: Uint8Array): bigint {
  const ptr = allocate(Math.max(bytes.length, 1), "a checksum buffer");
  try {
    heapU8().set(bytes, ptr);
    return checksumAt(ptr, bytes.length);
  } finally {
    core.free(ptr);
  }
}

/** A serialised record, written in one pass. */
export interface RecordParts {
  type: FilterTypeCode;
  params: Uint8Array;
  payloadLength: number;
  /** Copies the payload into `target` (exactly payloadLength bytes). */
  writePayload(target: Uint8Array): void;
  /** xxh64 of the payload; computed where the payload lives (wasm memory for one filter). */
  payloadChecksum: bigint;
}

/** Frames parameters and payload into one record. */
export function writeRecord(parts: RecordParts): Uint8Array {
  const h = parts.params.length;
  const out = new Uint8Array(FRAME_BEFORE_PARAMS + h + FRAME_AFTER_PARAMS + parts.payloadLength + FRAME_TRAILER);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint16(4, FORMAT_VERSION, true);
  view.setUint8(6, parts.type);
  view.setUint32(8, h, true);
  out.set(parts.params, 12);
  view.setBigUint64(12 + h, BigInt(parts.payloadLength), true);
  view.setBigUint64(20 + h, checksumOf(out.subarray(0, 20 + h)), true);
  parts.writePayload(out.subarray(28 + h, 28 + h + parts.payloadLength));
  view.setBigUint64(28 + h + parts.payloadLength, parts.payloadChecksum, true);
  return out;
}

/** A record whose frame and header checksum have been checked; the payload checksum is the reader's to check. */
export interface ParsedRecord {
  type: FilterTypeCode;
  params: DataView;
  payload: Uint8Array;
  payloadChecksum: bigint;
  /** Bytes the record occupies (records can follow one another). */
  length: number;
}

/** Checks the frame of a record at the start of `bytes` and splits it. */
export function readRecord(bytes: unknown, expected?: FilterTypeCode): ParsedRecord {
  if (!isBytes(bytes)) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (n: number, what: string) => {
    if (bytes.length < n) throw new FormatError(`truncated: ${bytes.length} bytes, the ${what} needs ${n}`);
  };
  need(FRAME_BEFORE_PARAMS, "frame");
  if (view.getUint32(0, true) !== MAGIC) throw new FormatError("not a bloomkit filter: the magic number is missing");
  const version = view.getUint16(4, true);
  if (version !== FORMAT_VERSION) throw new FormatError(`unsupported format version ${version} (this bloomkit reads version ${FORMAT_VERSION})`);
  const type = view.getUint8(6);
  if (!(type in TYPE_NAMES)) throw new FormatError(`unknown filter type ${type}`);
  if (view.getUint8(7) !== 0) throw new FormatError(`reserved byte 7 is ${view.getUint8(7)}, not 0`);
  const h = view.getUint32(8, true);
  need(FRAME_BEFORE_PARAMS + h + FRAME_AFTER_PARAMS, "header");
  const stored = view.getBigUint64(20 + h, true);
  if (checksumOf(bytes.subarray(0, 20 + h)) !== stored) throw new FormatError("corrupted: the header checksum does not match");
  const payloadLength = view.getBigUint64(12 + h, true);
  const total = BigInt(28 + h) + payloadLength + BigInt(FRAME_TRAILER);
  if (total > BigInt(bytes.length)) throw new FormatError(`truncated: ${bytes.length} bytes, the record needs ${total}`);
  const p = Number(payloadLength);
  if (expected !== undefined && type !== expected) {
    throw new FormatError(`these bytes hold a ${TYPE_NAMES[type]}, not a ${TYPE_NAMES[expected]}`);
  }
  return {
    type: type as FilterTypeCode,
    params: new DataView(bytes.buffer, bytes.byteOffset + 12, h),
    payload: bytes.subarray(28 + h, 28 + h + p),
    payloadChecksum: view.getBigUint64(28 + h + p, true),
    length: 28 + h + p + FRAME_TRAILER,
  };
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

/** The type code of serialised bytes (frame checked), for the generic deserializer. */
export function recordType(bytes: unknown): FilterTypeCode {
  return readRecord(bytes).type;
}

/** Base64 of bytes (standard alphabet, padded), in Node and in browsers. */
export function toBase64(bytes: Uint8Array): string {
  const NodeBuffer = (globalThis as { Buffer?: { from(b: ArrayBufferLike, o: number, l: number): { toString(e: string): string } } }).Buffer;
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Bytes of a base64 string; anything that is not strict base64 is a FormatError. */
export function fromBase64(text: unknown): Uint8Array {
  if (typeof text !== "string") throw new TypeError(`base64 must be a string, got ${describe(text)}`);
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new FormatError("not base64: the text has characters or a length base64 does not");
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
