// xxHash64 over input that arrives in pieces, as xxhash.h's XXH64_update
// does: how a payload larger than one wasm memory (a filter in segments, a
// file read in chunks) gets the one checksum the format stores. The state
// lives in memory the caller passes, so it can move between memories.

import { XXH64_P1, XXH64_P2, XXH64_P5, round, converge, finish } from "./xxh64";

/** State layout: four accumulators, the length so far, the bytes buffered, then up to 32 buffered bytes. */
// @ts-ignore: decorator
@inline const X_V1: usize = 0;
// @ts-ignore: decorator
@inline const X_V2: usize = 8;
// @ts-ignore: decorator
@inline const X_V3: usize = 16;
// @ts-ignore: decorator
@inline const X_V4: usize = 24;
// @ts-ignore: decorator
@inline const X_TOTAL: usize = 32;
// @ts-ignore: decorator
@inline const X_BUFFERED: usize = 40;
// @ts-ignore: decorator
@inline const X_BUFFER: usize = 48;
/** Bytes of a state. */
// @ts-ignore: decorator
@inline export const XXH64_STATE_BYTES: u32 = 80;

/** Starts a hash with `seed` in the state at `state`. */
export function xxh64Start(state: usize, seed: u64): void {
  store<u64>(state, seed + XXH64_P1 + XXH64_P2, X_V1);
  store<u64>(state, seed + XXH64_P2, X_V2);
  store<u64>(state, seed, X_V3);
  store<u64>(state, seed - XXH64_P1, X_V4);
  store<u64>(state, 0, X_TOTAL);
  store<u32>(state, 0, X_BUFFERED);
}

/** Runs the four accumulators over one 32-byte stripe. */
// @ts-ignore: decorator
@inline function stripe(state: usize, p: usize): void {
  store<u64>(state, round(load<u64>(state, X_V1), load<u64>(p)), X_V1);
  store<u64>(state, round(load<u64>(state, X_V2), load<u64>(p, 8)), X_V2);
  store<u64>(state, round(load<u64>(state, X_V3), load<u64>(p, 16)), X_V3);
  store<u64>(state, round(load<u64>(state, X_V4), load<u64>(p, 24)), X_V4);
}

/** Adds `len` bytes at `ptr` to the hash. */
export function xxh64Update(state: usize, ptr: usize, len: usize): void {
  store<u64>(state, load<u64>(state, X_TOTAL) + <u64>len, X_TOTAL);
  let buffered = <usize>load<u32>(state, X_BUFFERED);
  const buffer = state + X_BUFFER;
  if (buffered + len < 32) {
    memory.copy(buffer + buffered, ptr, len);
    store<u32>(state, <u32>(buffered + len), X_BUFFERED);
    return;
  }
  const end = ptr + len;
  if (buffered > 0) {
    const fill: usize = 32 - buffered;
    memory.copy(buffer + buffered, ptr, fill);
    stripe(state, buffer);
    ptr += fill;
    buffered = 0;
  }
  while (ptr + 32 <= end) {
    stripe(state, ptr);
    ptr += 32;
  }
  memory.copy(buffer, ptr, end - ptr);
  store<u32>(state, <u32>(end - ptr), X_BUFFERED);
}

/** The hash of everything added so far, written as a u64 to `out` (the state is left as it was). */
export function xxh64Digest(state: usize, out: usize): void {
  const total = load<u64>(state, X_TOTAL);
  let h: u64;
  if (total >= 32) {
    const v1 = load<u64>(state, X_V1), v2 = load<u64>(state, X_V2), v3 = load<u64>(state, X_V3), v4 = load<u64>(state, X_V4);
    h = converge(v1, v2, v3, v4);
  } else {
    h = load<u64>(state, X_V3) + XXH64_P5; // v3 holds the seed until a stripe ran
  }
  const p = state + X_BUFFER;
  h = finish(h + total, p, p + <usize>load<u32>(state, X_BUFFERED));
  store<u64>(out, h);
}
