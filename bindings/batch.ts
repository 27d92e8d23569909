// Batch plumbing shared by the filters: run a wasm loop over keys (an array or
// packed bytes) chunk by chunk and collect one result per key.
import { core, heapU32, heapU8 } from "./wasm.js";
import { describe } from "./errors.js";
import { forEachChunk, forEachLineChunk, forEachPackedChunk, MAX_BATCH_KEYS, useScratch, writeKey, type Key } from "./keys.js";

/** One wasm call over `count` keys of a chunk (layout as in bloomAddPacked); results go to `out`. */
export type WasmBatch = (keys: number, ends: number, count: number, start: number, out: number) => number;

/** Runs `call` over an array of keys; one byte per key. */
export function bytesOf(keys: readonly Key[], call: WasmBatch): Uint8Array {
  const result = new Uint8Array(Array.isArray(keys) ? keys.length : 0);
  forEachChunk(keys as Key[], (count, first, keysPtr, start) => {
    const { ends, out } = useScratch(0);
    call(keysPtr, ends, count, start, out);
    result.set(heapU8().subarray(out, out + count), first);
  });
  return result;
}

/** Runs `call` over an array of keys; one u32 per key. */
export function u32sOf(keys: readonly Key[], call: WasmBatch): Uint32Array {
  const result = new Uint32Array(Array.isArray(keys) ? keys.length : 0);
  forEachChunk(keys as Key[], (count, first, keysPtr, start) => {
    const { ends, out } = useScratch(0);
    call(keysPtr, ends, count, start, out);
    result.set(heapU32().subarray(out >>> 2, (out >>> 2) + count), first);
  });
  return result;
}

/** Runs `call` over packed keys; one byte per key. */
export function bytesOfPacked(bytes: Uint8Array, ends: Uint32Array, call: WasmBatch): Uint8Array {
  const result = new Uint8Array(ends instanceof Uint32Array ? ends.length : 0);
  forEachPackedChunk(bytes, ends, (count, first, keysPtr, start) => {
    const { ends: endsPtr, out } = useScratch(0);
    call(keysPtr, endsPtr, count, start, out);
    result.set(heapU8().subarray(out, out + count), first);
  });
  return result;
}

/** Runs `call` over packed keys; one u32 per key. */
export function u32sOfPacked(bytes: Uint8Array, ends: Uint32Array, call: WasmBatch): Uint32Array {
  const result = new Uint32Array(ends instanceof Uint32Array ? ends.length : 0);
  forEachPackedChunk(bytes, ends, (count, first, keysPtr, start) => {
    const { ends: endsPtr, out } = useScratch(0);
    call(keysPtr, endsPtr, count, start, out);
    result.set(heapU32().subarray(out >>> 2, (out >>> 2) + count), first);
  });
  return result;
}

/** Runs `call` on one key as a batch of one; returns the first output byte, or u32 when `wide`. */
export function one(key: Key, call: WasmBatch, wide = false): number {
  const len = writeKey(key);
  const { bytes, ends, out } = useScratch(0);
  heapU32()[ends >>> 2] = len;
  call(bytes, ends, 1, 0, out);
  return wide ? heapU32()[out >>> 2] : heapU8()[out];
}

/** One wasm lines call: handles up to `maxLines` whole lines from `keys`, returns how many; `consumed()` then tells the bytes. */
export interface LinesCall {
  run(keys: number, len: number, final: boolean, maxLines: number, out: number, lineEnds: number): number;
  consumed(): number;
}

/** Concatenates typed arrays of one kind. */
export function concat<T extends Uint8Array | Uint32Array>(parts: T[], Type: { new (length: number): T }): T {
  const out = new Type(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Runs a lines call over a buffer and hands each piece's answers and line
 * ends (offsets in `buffer`) to `visit` as views of wasm memory, valid only
 * during the call: nothing is copied or allocated per piece.
 */
export function linesEach(buffer: Uint8Array, call: LinesCall, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
  let base = 0;
  forEachLineChunk(buffer, (keys, len, final) => {
    let at = 0;
    while (at < len) {
      const { ends: endsPtr, out } = useScratch(0);
      const lines = call.run(keys + at, len - at, final, MAX_BATCH_KEYS, out, endsPtr);
      if (lines === 0) break;
      const memory = heapU8().buffer;
      // Ends come relative to this call's start; `offset` turns them into offsets in `buffer`.
      visit(new Uint8Array(memory, out, lines), new Uint32Array(memory, endsPtr, lines), base + at);
      at += call.consumed();
    }
    base += at;
    return at;
  });
}

/**
 * Runs a lines call over a buffer of newline-delimited keys: one answer byte
 * per line and, when asked, each line's end offset in the buffer. `onAnswers`
 * sees each piece's answers as they come (for counting new keys).
 */
export function linesOf(buffer: Uint8Array, call: LinesCall, wantEnds: boolean, onAnswers?: (answers: Uint8Array) => void): { answers: Uint8Array; ends: Uint32Array } {
  const answers: Uint8Array[] = [];
  const ends: Uint32Array[] = [];
  let base = 0;
  forEachLineChunk(buffer, (keys, len, final) => {
    let at = 0;
    while (at < len) {
      const { ends: endsPtr, out } = useScratch(0);
      const lines = call.run(keys + at, len - at, final, MAX_BATCH_KEYS, out, wantEnds ? endsPtr : 0);
      if (lines === 0) break;
      const piece = heapU8().slice(out, out + lines);
      onAnswers?.(piece);
      answers.push(piece);
      if (wantEnds) {
        const lineEnds = heapU32().slice(endsPtr >>> 2, (endsPtr >>> 2) + lines);
        for (let i = 0; i < lines; i++) lineEnds[i] += base + at;
        ends.push(lineEnds);
      }
      at += call.consumed();
    }
    base += at;
    return at;
  });
  return { answers: concat(answers, Uint8Array), ends: concat(ends, Uint32Array) };
}

/** Integer keys per wasm call: one answer byte each fits the scratch area's 8-bytes-per-key result room. */
const INTS_PER_CALL = MAX_BATCH_KEYS * 8;

/** One wasm call over `count` integer keys at `keys` (u32 when `wide` is 0, else u64); one answer byte each into `out`. */
export type IntsCall = (keys: number, count: number, wide: number, out: number) => number;

/** Runs `call` over integer keys in chunks copied into wasm memory; one answer byte per key. */
export function intsOf(keys: Uint32Array | BigUint64Array, call: IntsCall): Uint8Array {
  return intsInto(keys, call, new Uint8Array(checkInts(keys).length));
}

/** Runs `call` over integer keys; one u32 per key (counts). */
export function u32sOfInts(keys: Uint32Array | BigUint64Array, call: IntsCall): Uint32Array {
  return intsInto(keys, call, new Uint32Array(checkInts(keys).length));
}

/** Throws the TypeError for anything but a Uint32Array or BigUint64Array. */
function checkInts(keys: unknown): Uint32Array | BigUint64Array {
  if (keys instanceof Uint32Array || keys instanceof BigUint64Array) return keys;
  throw new TypeError(`keys must be a Uint32Array or a BigUint64Array, got ${describe(keys)}`);
}

/** The chunk loop of intsOf and u32sOfInts: `result` gets one answer per key, of its own width. */
function intsInto<T extends Uint8Array | Uint32Array>(keys: Uint32Array | BigUint64Array, call: IntsCall, result: T): T {
  const wide = keys instanceof BigUint64Array;
  const width = wide ? 8 : 4;
  const answerBytes = result.BYTES_PER_ELEMENT;
  // The scratch area's result room is 8 bytes per MAX_BATCH_KEYS key.
  const perCall = INTS_PER_CALL / answerBytes;
  const { bytes, out } = useScratch(INTS_PER_CALL * 8);
  const raw = new Uint8Array(keys.buffer, keys.byteOffset, keys.byteLength);
  const answers = new Uint8Array(result.buffer, result.byteOffset, result.byteLength);
  for (let first = 0; first < keys.length; first += perCall) {
    const count = Math.min(perCall, keys.length - first);
    heapU8().set(raw.subarray(first * width, (first + count) * width), bytes);
    call(bytes, count, wide ? 1 : 0, out);
    answers.set(heapU8().subarray(out, out + count * answerBytes), first * answerBytes);
  }
  return result;
}

/**
 * Runs a packed-keys wasm call over newline-delimited keys: each piece is
 * compacted in wasm memory into packed keys (lines without "\n" and one
 * trailing "\r"), then handed to `call`. One answer byte per line.
 */
export function linesAsPacked(buffer: Uint8Array, call: WasmBatch): Uint8Array {
  const parts: Uint8Array[] = [];
  forEachLineChunk(buffer, (keys, len, final) => {
    let at = 0;
    while (at < len) {
      const { ends, out } = useScratch(0);
      const lines = core.compactLines(keys + at, len - at, final ? 1 : 0, MAX_BATCH_KEYS, ends);
      if (lines === 0) break;
      const consumed = core.compactLinesConsumed();
      call(keys + at, ends, lines, 0, out);
      parts.push(heapU8().slice(out, out + lines));
      at += consumed;
    }
    return at;
  });
  return concat(parts, Uint8Array);
}
