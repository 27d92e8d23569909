// Batch plumbing shared by the filters: run a wasm loop over keys (an array or
// packed bytes) chunk by chunk and collect one result per key.
import { heapU32, heapU8 } from "./wasm.js";
import { forEachChunk, forEachPackedChunk, useScratch, writeKey, type Key } from "./keys.js";

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
