// The k indices of a batch of keys in a Bloom-style filter (standard or
// counting), segments included: what the page shows for a key, and where a
// copy of the filter kept elsewhere (Redis) sets and tests its bits.
import type { Arena } from "./arena.js";
import type { Block } from "./memory.js";
import { SOURCE_U32 } from "./constants.generated.js";
import { forEachChunk, placeChunk, saveChunk, type Chunk, type KeyHash, type KeySource } from "./batch.js";

/** What segmentIndices needs to know of a filter. */
export interface Indexing {
  readonly blocks: readonly Block[];
  readonly segmentBits: number;
  readonly hashes: number;
  readonly keyHash: KeyHash;
  readonly batchArena: Arena;
  /** Writes each key's segment at chunk.scratch.ends (filters in segments). */
  route(chunk: Chunk): void;
}

/** Key i's k indices at [k·i, k·(i+1)), over the whole filter (segment s's start at s · segmentBits). Double hashing only. */
export function segmentIndices(filter: Indexing, source: KeySource): Float64Array {
  const k = filter.hashes;
  const parts: Float64Array[] = [];
  forEachChunk(filter.batchArena, filter.keyHash, source, (chunk) => {
    const result = new Float64Array(chunk.count * k);
    if (filter.blocks.length === 1 && filter.blocks[0].arena === chunk.scratch.arena) indicesInto(result, k, filter.blocks[0], chunk, 0, null);
    else {
      // In segments, or shared (the chunk was hashed in this thread's own arena): each key goes to its segment's arena.
      if (filter.blocks.length > 1) filter.route(chunk);
      const ids = filter.blocks.length > 1 ? chunk.scratch.arena.u32().slice(chunk.scratch.ends >>> 2, (chunk.scratch.ends >>> 2) + chunk.count) : new Uint32Array(chunk.count);
      const saved = saveChunk(chunk);
      filter.blocks.forEach((block, s) => {
        const picks: number[] = [];
        for (let i = 0; i < ids.length; i++) if (ids[i] === s) picks.push(i);
        if (picks.length > 0) indicesInto(result, k, block, placeChunk(saved, picks, block.arena), s * filter.segmentBits, picks);
      });
    }
    parts.push(result);
  });
  const out = new Float64Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Writes the indices of a chunk in `block`'s arena to `result`, key j at picks[j] (or j), each plus `offset`. */
function indicesInto(result: Float64Array, k: number, block: Block, chunk: Chunk, offset: number, picks: readonly number[] | null): void {
  const { arena, ptr } = block;
  const out = chunk.scratch.out;
  // The answer room holds 8 bytes per key and a key has k indices: go in slices of count / k keys.
  const per = Math.max(1, Math.floor(chunk.count / k));
  const width = chunk.source === SOURCE_U32 ? 4 : 8;
  for (let first = 0; first < chunk.count; first += per) {
    const n = Math.min(per, chunk.count - first);
    arena.core.bloomIndices(ptr, chunk.source, chunk.src + first * width, chunk.hashes2 === 0 ? 0 : chunk.hashes2 + first * 8, n, out);
    const got = arena.f64().subarray(out / 8, out / 8 + n * k);
    for (let j = 0; j < n; j++) {
      const i = picks === null ? first + j : picks[first + j];
      for (let t = 0; t < k; t++) result[i * k + t] = got[j * k + t] + offset;
    }
  }
}
