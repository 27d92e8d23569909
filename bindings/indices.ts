// The k indices of a batch of keys in a Bloom-style filter (standard or
// counting), segments included: what the page shows for a key, and where a
// copy of the filter kept elsewhere (Redis) sets and tests its bits.
import { defaultArena } from "./memory.js";
import { MAX_BATCH_KEYS } from "./keys.js";
import { SOURCE_U32 } from "./constants.generated.js";
import { STRATEGY_CODE } from "./hashing.js";
import { concat, forEachChunk, type KeyHash, type KeySource } from "./batch.js";

/** A Bloom filter's numbers without its bits: enough to place keys, in the filter itself or in a copy kept elsewhere (Redis). */
export interface BloomShape {
  /** Bits of each segment. */
  readonly segmentBits: number;
  /** Bits of each segment before any fold (default: segmentBits, never folded). */
  readonly baseBits?: number;
  readonly segments: number;
  readonly hashes: number;
  /** How the k indices follow from the key hash. */
  readonly strategy: "triple" | "double";
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
      arena.core.bloomIndicesOf(shape.segmentBits, shape.baseBits ?? shape.segmentBits, k, shape.keyHash.seed, STRATEGY_CODE[shape.strategy], chunk.source, chunk.src + first * width, hashes2, n, out);
      indices.set(arena.f64().subarray(out / 8, out / 8 + n * k), first * k);
    }
    visit({ first: chunk.first, count: chunk.count, segmentOf, indices });
  });
}

/** Key i's k indices at [k·i, k·(i+1)), over the whole filter: segment s's start at s · segmentBits. Triple or double hashing only. */
export function segmentIndices(shape: BloomShape, source: KeySource): Float64Array {
  const k = shape.hashes;
  const parts: Float64Array[] = [];
  forEachPlacement(shape, source, ({ count, segmentOf, indices }) => {
    if (segmentOf) for (let j = 0; j < count; j++) for (let t = 0; t < k; t++) indices[j * k + t] += segmentOf[j] * shape.segmentBits;
    parts.push(indices);
  });
  return concat(parts, Float64Array);
}
