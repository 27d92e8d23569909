// bloomkit's public API.
export { BloomFilter, DEFAULT_HASH, DEFAULT_STRATEGY, MAX_FILTER_BITS, MAX_SEGMENT_BITS, type BloomFilterOptions, type BloomFilterSize, type HashStrategy, type SharedBloomFilterHandle } from "./bloom-filter.js";
export { hash, hashMany, hashPacked, hashNames, hashBits, isSeeded, type HashName, type Hash32Name, type Hash64Name } from "./hash.js";
export { optimal, falsePositiveRateFor, doubleHashingExcess, MAX_HASHES, type OptimalInput, type OptimalParameters } from "./optimal.js";
export type { Key } from "./keys.js";
export type { LineHashes } from "./batch.js";
export { ScalableBloomFilter, type ScalableBloomFilterOptions } from "./scalable-bloom-filter.js";
export { CountingBloomFilter, type CountingBloomFilterOptions, type CounterBits } from "./counting-bloom-filter.js";
export { CuckooFilter, fingerprintBitsFor, type CuckooFilterOptions, type CuckooFilterSize } from "./cuckoo-filter.js";
export {
  SplitBlockBloomFilter,
  splitBlockBytesFor,
  splitBlockFalsePositiveRate,
  SBBF_BLOCK_BYTES,
  type SplitBlockBloomFilterOptions,
  type SplitBlockBloomFilterSize,
  type SharedSplitBlockBloomFilterHandle,
} from "./split-block-bloom-filter.js";
export type { ChunksOptions, DeserializeChunksOptions, DeserializeOptions, SharedFilterHandle } from "./shared.js";
export { BinaryFuseFilter, type BinaryFuseFilterOptions } from "./binary-fuse-filter.js";
export { deserialize, deserializeBase64, deserializeChunks, type AnyFilter } from "./deserialize.js";
export { FormatError, FORMAT_VERSION, type ByteSource } from "./format.js";
export type { HashingOptions } from "./hashing.js";
export type { Filter, FilterQueries, DeletableFilter } from "./filter.js";
