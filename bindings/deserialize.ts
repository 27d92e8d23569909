// The generic reader: any serialised filter back as the right type.
import { BloomFilter } from "./bloom-filter.js";
import { ScalableBloomFilter } from "./scalable-bloom-filter.js";
import { CountingBloomFilter } from "./counting-bloom-filter.js";
import { CuckooFilter } from "./cuckoo-filter.js";
import { SplitBlockBloomFilter } from "./split-block-bloom-filter.js";
import { BinaryFuseFilter } from "./binary-fuse-filter.js";
import { FilterType, FormatError, fromBase64, recordType } from "./format.js";

/** Any filter this version can read. */
export type AnyFilter = BloomFilter | ScalableBloomFilter | CountingBloomFilter | CuckooFilter | SplitBlockBloomFilter | BinaryFuseFilter;

/** A filter of whichever type the bytes hold (checked as each type's deserialize checks). */
export function deserialize(bytes: Uint8Array): AnyFilter {
  const type = recordType(bytes);
  switch (type) {
    case FilterType.bloom:
      return BloomFilter.deserialize(bytes);
    case FilterType.scalable:
      return ScalableBloomFilter.deserialize(bytes);
    case FilterType.counting:
      return CountingBloomFilter.deserialize(bytes);
    case FilterType.cuckoo:
      return CuckooFilter.deserialize(bytes);
    case FilterType.splitBlock:
      return SplitBlockBloomFilter.deserialize(bytes);
    case FilterType.binaryFuse:
      return BinaryFuseFilter.deserialize(bytes);
    default:
      throw new FormatError(`filter type ${type} is not supported by this version of bloomkit`);
  }
}

/** deserialize() of base64 text. */
export function deserializeBase64(text: string): AnyFilter {
  return deserialize(fromBase64(text));
}
