// The wasm module's exports: numbers and pointers only; bindings/ owns the typed API.

export { alloc, free, maxBlockBytes } from "./heap";
export {
  bloomBlockBytes,
  bloomInit,
  bloomSetIndependentHash,
  bloomSetBaseBits,
  bloomBaseBits,
  bloomFold,
  bloomCombine,
  bloomAdd,
  bloomHas,
  bloomAddPacked,
  bloomHasPacked,
  bloomSetBits,
  bloomPositions,
  bloomLines,
  bloomLinesConsumed,
  bloomInts,
} from "./bloom";
export { hashBits, hashKey, hashPacked } from "./hash";
export { compactLines, compactLinesConsumed } from "./lines";
export { countingBlockBytes, countingPacked, countingSaturated, countingNonZero, countingToBloom, countingCounter, countingInts } from "./counting";
export { cuckooBlockBytes, cuckooInit, cuckooPacked, cuckooSize, cuckooHeaderBytes, cuckooSetSize, cuckooLocate, cuckooInts } from "./cuckoo";
export { sbbfBlockBytes, sbbfInit, sbbfHeaderBytes, sbbfPacked, sbbfLines, sbbfLinesConsumed, sbbfFalsePositiveRate, sbbfSetBits, sbbfInts } from "./split-block";
export {
  fuseBlockBytes,
  fuseInit,
  fuseHeaderBytes,
  fuseMaxSize,
  fuseSize,
  fuseFingerprintBits,
  fuseSegmentLength,
  fuseSegmentCount,
  fuseArrayLength,
  fuseSeedLow,
  fuseSeedHigh,
  fuseSetSeed,
  fuseContains,
  fuseHasHashes,
  fuseHasPacked,
  fuseHasInts,
  fuseHashInts,
} from "./binary-fuse";
export { fuseSortTempBytes, fuseSortUnique } from "./fuse-sort";
export { fuseSlotHashBytes, fuseTempBytes, fuseBuild } from "./fuse-build";
