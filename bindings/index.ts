// bloomkit's public API.
export { BloomFilter, MAX_FILTER_BITS, type BloomFilterOptions } from "./bloom-filter.js";
export { optimal, falsePositiveRateFor, type OptimalInput, type OptimalParameters } from "./optimal.js";
export type { Key } from "./keys.js";
