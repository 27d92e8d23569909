// The wasm module's exports: numbers and pointers only; bindings/ owns the typed API.
// The constants exported at the end are the numbers the bindings share with the
// kernels; scripts/embed-wasm.mjs reads them from the compiled module into
// bindings/constants.generated.ts, so each is written down once, here.

export { heapBase } from "./heap";
export {
  bloomBlockBytes,
  bloomInit,
  bloomSetIndependentHash,
  bloomSetBaseBits,
  bloomBaseBits,
  bloomAdd,
  bloomHas,
  bloomBytes,
  bloomRun,
  bloomRoute,
  bloomLayers,
  bloomLayersKey,
  bloomIndicesOf,
  bloomSetBits,
  bloomPositions,
} from "./bloom";
export { hashBits, hashKey, hashPacked } from "./hash";
export { xxh64Start, xxh64Update, xxh64Digest } from "./xxh64-stream";
export { hashPackedKeys, hashLines, compactLines, combineWords } from "./batch";
export { keepLines } from "./lines";
export { countingBlockBytes, countingBytes, countingKey, countingRun, countingSaturated, countingNonZero, countingToBloomWords, countingCounter } from "./counting";
export { cuckooBlockBytes, cuckooInit, cuckooKey, cuckooRun, cuckooUndo, cuckooSize, cuckooSetSize, cuckooLocate } from "./cuckoo";
export { sbbfBlockBytes, sbbfInit, sbbfKey, sbbfRun, sbbfRoute, sbbfFalsePositiveRate, sbbfSetBits } from "./split-block";
export {
  fuseBlockBytes,
  fuseInit,
  fuseSize,
  fuseFingerprintBits,
  fuseSegmentLength,
  fuseSegmentCount,
  fuseArrayLength,
  fuseSeedLow,
  fuseSeedHigh,
  fuseSetSeed,
  fuseSetLayout,
  halvedSegmentCount,
  halvedSegmentLength,
  fuseRun,
  fuseHasKey,
  fuseSetVersion,
  fuseWidenInts,
  fuseNonZeroSlots,
} from "./binary-fuse";
export { fuseSortTempBytes, fuseSortUnique } from "./fuse-sort";
export { fuseSlotHashBytes, fuseTempBytes, fuseBuild } from "./fuse-build";

import * as batch from "./batch";
import * as bloom from "./bloom";
import * as splitBlock from "./split-block";
import * as indices from "./indices";
import * as cuckoo from "./cuckoo";
import * as hash from "./hash";
import * as xxh64Stream from "./xxh64-stream";
import * as binaryFuse from "./binary-fuse";

export const SOURCE_HASHES = batch.SOURCE_HASHES;
export const SOURCE_U32 = batch.SOURCE_U32;
export const SOURCE_U64 = batch.SOURCE_U64;
export const OP_ADD = batch.OP_ADD;
export const OP_HAS = batch.OP_HAS;
export const OP_REMOVE = batch.OP_REMOVE;
export const OP_COUNT = batch.OP_COUNT;
export const OP_TEST_AND_ADD = batch.OP_TEST_AND_ADD;
export const BLOOM_GROUP_BYTES = bloom.BLOOM_GROUP_BYTES;
export const SBBF_GROUP_BYTES = splitBlock.SBBF_GROUP_BYTES;
export const FILTER_HEADER = <u32>indices.FILTER_HEADER;
export const MAX_INDEPENDENT = indices.MAX_INDEPENDENT;
export const MAX_HASHES = indices.MAX_HASHES;
export const STRATEGY_DOUBLE = indices.STRATEGY_DOUBLE;
export const STRATEGY_INDEPENDENT = indices.STRATEGY_INDEPENDENT;
export const STRATEGY_TRIPLE = indices.STRATEGY_TRIPLE;
export const BUCKET_SIZE = cuckoo.BUCKET_SIZE;
export const MAX_KICKS = cuckoo.MAX_KICKS;
export const CUCKOO_HEADER = <u32>cuckoo.CUCKOO_HEADER;
export const CUCKOO_JOURNAL_HEADER = <u32>cuckoo.JOURNAL_HEADER;
export const CUCKOO_JOURNAL_ENTRIES_PER_KEY = cuckoo.JOURNAL_ENTRIES_PER_KEY;
export const SBBF_HEADER = <u32>splitBlock.SBBF_HEADER;
export const HASH_COUNT = hash.HASH_COUNT;
export const HASH_FNV1A_64 = hash.HASH_FNV1A_64;
export const HASH_MURMUR3_128 = hash.HASH_MURMUR3_128;
export const HASH_XXH64 = hash.HASH_XXH64;
export const HASH_XXH3 = hash.HASH_XXH3;
export const XXH64_STATE_BYTES = xxh64Stream.XXH64_STATE_BYTES;
export const FUSE_HEADER = <u32>binaryFuse.FUSE_HEADER;
export const FUSE_MAX_SIZE = binaryFuse.FUSE_MAX_SIZE;
export const FUSE_RECORD_VERSION = binaryFuse.FUSE_RECORD_VERSION;
