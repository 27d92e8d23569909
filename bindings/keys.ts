// Moves keys into wasm memory in batches: one scratch area holds up to
// MAX_BATCH_KEYS keys' bytes, their end offsets and one result byte each, so
// one wasm call handles a whole chunk instead of one call per key.
import { core, heapU8, heapU32 } from "./wasm.js";
import { allocate } from "./memory.js";
import { describe } from "./errors.js";

/** A key: a string (hashed as its UTF-8 bytes) or raw bytes. */
export type Key = string | Uint8Array;

/** Keys per wasm call. */
export const MAX_BATCH_KEYS = 1 << 14;
/** Default room for key bytes per wasm call. */
const DEFAULT_KEY_BYTES = 1 << 20;
const encoder = new TextEncoder();

/** Pointers into the scratch block: [ends: u32 × MAX][out: 8 bytes × MAX][key bytes]; `out` fits a u64 per key. */
export interface Scratch {
  ends: number;
  out: number;
  bytes: number;
  capacity: number;
}

const scratch: Scratch = { ends: 0, out: 0, bytes: 0, capacity: 0 };

/** The scratch area with room for at least `keyBytes` bytes of keys. */
export function useScratch(keyBytes: number): Scratch {
  if (keyBytes <= scratch.capacity) return scratch;
  const capacity = Math.max(DEFAULT_KEY_BYTES, keyBytes);
  const ptr = allocate(MAX_BATCH_KEYS * 12 + capacity, `a key of ${keyBytes} bytes`);
  if (scratch.capacity) core.free(scratch.ends);
  scratch.ends = ptr;
  scratch.out = ptr + MAX_BATCH_KEYS * 4;
  scratch.bytes = ptr + MAX_BATCH_KEYS * 12;
  scratch.capacity = capacity;
  return scratch;
}

/** True for a Uint8Array from any realm (Buffer included). */
export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array || Object.prototype.toString.call(value) === "[object Uint8Array]";
}

/**
 * Upper bound on the UTF-8 size of a key; throws a TypeError for anything but
 * a key, naming it `keys[index]` (or `key` without an index). The name is
 * built only for the error: a string per key would cost more than the check.
 */
function maxKeyBytes(key: unknown, index = -1): number {
  if (typeof key === "string") return key.length * 3;
  if (isBytes(key)) return key.length;
  throw new TypeError(`${index < 0 ? "key" : `keys[${index}]`} must be a string or a Uint8Array, got ${describe(key)}`);
}

/** Node's Buffer, when present: its utf8Write encodes at an offset without a new view per key. */
interface NodeBufferView extends Uint8Array {
  utf8Write(text: string, offset: number): number;
}
const NodeBuffer = (globalThis as { Buffer?: { from(buffer: ArrayBuffer): NodeBufferView } }).Buffer;
let nodeView: NodeBufferView | undefined;

/**
 * Writes a string's UTF-8 bytes at `at`; the caller guarantees 3 bytes per
 * UTF-16 unit of room. Measured (bench/RESULTS.md): Buffer#utf8Write beats
 * encodeInto on a fresh subarray, which beats a charCodeAt loop.
 */
function writeString(key: string, mem: Uint8Array, at: number): number {
  if (NodeBuffer) {
    if (nodeView === undefined || nodeView.byteLength === 0) nodeView = NodeBuffer.from(mem.buffer as ArrayBuffer);
    return nodeView.utf8Write(key, at);
  }
  return encoder.encodeInto(key, mem.subarray(at, at + key.length * 3)).written;
}

/** Copies one key into the scratch area and returns its byte length. */
export function writeKey(key: unknown): number {
  const need = maxKeyBytes(key);
  const { bytes } = useScratch(need);
  const mem = heapU8();
  if (typeof key === "string") return writeString(key, mem, bytes);
  mem.set(key as Uint8Array, bytes);
  return (key as Uint8Array).length;
}

/**
 * Runs `call(count, first, keys, start)` once per chunk of keys copied into
 * the scratch area (key i of the chunk ends at ends[i]; see bloomAddPacked).
 * Every key is checked before the first call, so a bad key changes nothing.
 */
export type ChunkCall = (count: number, first: number, keys: number, start: number) => void;

/** Feeds an array of string or Uint8Array keys to `call` in chunks. */
export function forEachChunk(keys: ArrayLike<Key>, call: ChunkCall): void {
  if (!Array.isArray(keys)) throw new TypeError(`keys must be an array of strings or Uint8Arrays, got ${describe(keys)}`);
  const total = keys.length;
  let largest = 0;
  for (let i = 0; i < total; i++) largest = Math.max(largest, maxKeyBytes(keys[i], i));
  const { ends, bytes, capacity } = useScratch(largest);
  const mem = heapU8();
  const endsView = heapU32();
  const endsIndex = ends >>> 2;
  let first = 0;
  let count = 0;
  let used = 0;
  for (let i = 0; i < total; i++) {
    const key = keys[i];
    const isString = typeof key === "string";
    if (count === MAX_BATCH_KEYS || used + (isString ? key.length * 3 : key.length) > capacity) {
      call(count, first, bytes, 0);
      first = i;
      count = 0;
      used = 0;
    }
    if (isString) used += writeString(key, mem, bytes + used);
    else {
      mem.set(key, bytes + used);
      used += key.length;
    }
    endsView[endsIndex + count++] = used;
  }
  if (count > 0) call(count, first, bytes, 0);
}

/** Checks a packed batch: `ends` must be non-decreasing offsets within `bytes`; returns the longest key. */
function checkPacked(bytes: unknown, ends: unknown): number {
  if (!isBytes(bytes)) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
  if (!(ends instanceof Uint32Array)) throw new TypeError(`ends must be a Uint32Array, got ${describe(ends)}`);
  let previous = 0;
  let largest = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i];
    if (end < previous || end > bytes.length) {
      throw new RangeError(
        `ends[${i}] = ${end} must be ≥ ends[${i - 1}] = ${previous} and ≤ bytes.length = ${bytes.length}`,
      );
    }
    largest = Math.max(largest, end - previous);
    previous = end;
  }
  return largest;
}

/** Feeds packed keys (one buffer, u32 end offsets) to `call` in chunks, copying each chunk once. */
export function forEachPackedChunk(bytes: Uint8Array, ends: Uint32Array, call: ChunkCall): void {
  const largest = checkPacked(bytes, ends);
  const area = useScratch(largest);
  const mem = heapU8();
  const endsView = heapU32();
  const total = ends.length;
  let i = 0;
  while (i < total) {
    const start = i === 0 ? 0 : ends[i - 1];
    const limit = Math.min(total, i + MAX_BATCH_KEYS);
    let j = i;
    while (j < limit && ends[j] - start <= area.capacity) j++;
    mem.set(bytes.subarray(start, ends[j - 1]), area.bytes);
    endsView.set(ends.subarray(i, j), area.ends >>> 2);
    // Offsets stay as the caller gave them; the key base is shifted instead (wraps mod 2^32).
    call(j - i, i, (area.bytes - start) >>> 0, start);
    i = j;
  }
}

/**
 * Feeds a buffer of newline-delimited keys to `call` through the scratch
 * area, in pieces of whole lines. `call(ptr, len, final)` handles lines from
 * the start of the piece and returns the bytes it consumed; a piece that ends
 * mid-line is continued in the next. A line longer than the scratch area gets
 * a larger one.
 */
export function forEachLineChunk(buffer: Uint8Array, call: (ptr: number, len: number, final: boolean) => number): void {
  if (!isBytes(buffer)) throw new TypeError(`buffer must be a Uint8Array of newline-delimited keys, got ${describe(buffer)}`);
  let from = 0;
  while (from < buffer.length) {
    let area = useScratch(0);
    let len = Math.min(area.capacity, buffer.length - from);
    heapU8().set(buffer.subarray(from, from + len), area.bytes);
    let consumed = call(area.bytes, len, from + len === buffer.length);
    if (consumed === 0) {
      const newline = buffer.indexOf(10, from);
      len = (newline < 0 ? buffer.length : newline + 1) - from;
      area = useScratch(len);
      heapU8().set(buffer.subarray(from, from + len), area.bytes);
      consumed = call(area.bytes, len, from + len === buffer.length);
    }
    from += consumed;
  }
}
