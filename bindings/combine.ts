// Word-wise OR / AND of one block's bytes into another's, when the two may
// live in different wasm memories: unions, intersections and folds. Within
// one arena it is one kernel call; across arenas the source goes over in
// pieces through the destination's scratch area.
import type { Arena } from "./arena.js";
import { scratchOf } from "./keys.js";

/** dst[0 .. bytes) |= src[0 .. bytes) (&= with `intersect`); `bytes` a multiple of 8, both 8-byte aligned. */
export function combineInto(dstArena: Arena, dst: number, srcArena: Arena, src: number, bytes: number, intersect: boolean): void {
  const and = intersect ? 1 : 0;
  if (dstArena === srcArena) {
    dstArena.core.combineWords(dst, src, bytes, and);
    return;
  }
  const scratch = scratchOf(dstArena);
  const piece = scratch.capacity - (scratch.capacity % 8);
  for (let at = 0; at < bytes; at += piece) {
    const n = Math.min(piece, bytes - at);
    dstArena.u8().set(srcArena.u8().subarray(src + at, src + at + n), scratch.bytes);
    dstArena.core.combineWords(dst + at, scratch.bytes, n, and);
  }
}
