// The k indices of a batch of keys in a Bloom-style filter (standard or
// counting), segments included: what the page shows for a key, and where a
// copy of the filter kept elsewhere (Redis) sets and tests its bits.
import type { Arena } from "./arena.js";
import { defaultArena, type Block } from "./memory.js";
import { MAX_BATCH_KEYS } from "./keys.js";
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

/** A Bloom filter's numbers without its bits: enough to place keys in a copy kept elsewhere (Redis). Never folded. */
export interface BloomShape {
  /** Bits of each segment. */
  readonly segmentBits: number;
  readonly segments: number;
  readonly hashes: number;
  /** The key hash and seed (the seed also mixes integer keys). */
  readonly keyHash: KeyHash;
}

/** One chunk's placement: key j (batch key first + j) lies in segment segmentOf[j], its k indices within the segment at indices[k·j …]. */
export interface Placement {
  readonly first: number;
  readonly count: number;
  /** Each key's segment; null when the filter has one segment. */
  readonly segmentOf: Uint32Array | null;
  readonly indices: Float64Array;
}

/**
 * Places every key of a batch, chunk by chunk, as a local BloomFilter of
 * the same shape would (bloomRoute, then the indices within the segment), with
 * no block of bits: each chunk is hashed once in the default arena.
 */
export function forEachPlacement(shape: BloomShape, source: KeySource, visit: (placement: Placement) => void): void {
  const k = shape.hashes;
  // The answer room holds 8 bytes per batch key: a call places MAX_BATCH_KEYS / k keys.
  const perCall = Math.max(1, Math.floor(MAX_BATCH_KEYS / k));
  forEachChunk(defaultArena(), shape.keyHash, source, (chunk) => {
    const { arena, ends, out } = chunk.scratch;
    const width = chunk.source === SOURCE_U32 ? 4 : 8;
    let segmentOf: Uint32Array | null = null;
    if (shape.segments > 1) {
      arena.core.bloomRoute(chunk.source, chunk.src, chunk.hashes2, chunk.count, shape.keyHash.seed, shape.segments, ends);
      segmentOf = arena.u32().slice(ends >>> 2, (ends >>> 2) + chunk.count);
    }
    const indices = new Float64Array(chunk.count * k);
    for (let first = 0; first < chunk.count; first += perCall) {
      const n = Math.min(perCall, chunk.count - first);
      const hashes2 = chunk.hashes2 === 0 ? 0 : chunk.hashes2 + first * 8;
      arena.core.bloomIndicesOf(shape.segmentBits, k, shape.keyHash.seed, chunk.source, chunk.src + first * width, hashes2, n, out);
      indices.set(arena.f64().subarray(out / 8, out / 8 + n * k), first * k);
    }
    visit({ first: chunk.first, count: chunk.count, segmentOf, indices });
  });
}
