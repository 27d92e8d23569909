// The generic reader: any serialised filter back as the right type, from
// bytes or from a stream of pieces.
import { BloomFilter } from "./bloom-filter.js";
import { ScalableBloomFilter } from "./scalable-bloom-filter.js";
import { CountingBloomFilter } from "./counting-bloom-filter.js";
import { CuckooFilter } from "./cuckoo-filter.js";
import { SplitBlockBloomFilter } from "./split-block-bloom-filter.js";
import { BinaryFuseFilter } from "./binary-fuse-filter.js";
import { FilterType, fromBase64, readRecordBytes, readRecordStream, type ByteSource, type Loader, type Loaders } from "./format.js";
import { checkChunksOptions, checkDeserializeOptions, type DeserializeChunksOptions, type DeserializeOptions } from "./shared.js";

/** Any filter this version can read. */
export type AnyFilter = BloomFilter | ScalableBloomFilter | CountingBloomFilter | CuckooFilter | SplitBlockBloomFilter | BinaryFuseFilter;

/** Every type's loader. */
const LOADERS: Loaders<AnyFilter> = {
  [FilterType.bloom]: BloomFilter.loader,
  [FilterType.scalable]: ScalableBloomFilter.loader,
  [FilterType.counting]: CountingBloomFilter.loader,
  [FilterType.cuckoo]: CuckooFilter.loader,
  [FilterType.splitBlock]: SplitBlockBloomFilter.loader,
  [FilterType.binaryFuse]: BinaryFuseFilter.loader,
};

/** A loader that refuses, for { shared: true }, a record of a type that cannot live in shared memory. */
const notShareable =
  (type: string): Loader<AnyFilter> =>
  () => {
    throw new TypeError(`options.shared is true, but the bytes hold a ${type}; only a BloomFilter or a SplitBlockBloomFilter can live in shared memory`);
  };

/** The loaders of { shared: true }: the two shareable types into shared memory, the others refused. */
const SHARED_LOADERS: Loaders<AnyFilter> = {
  [FilterType.bloom]: BloomFilter.sharedLoader,
  [FilterType.scalable]: notShareable("ScalableBloomFilter"),
  [FilterType.counting]: notShareable("CountingBloomFilter"),
  [FilterType.cuckoo]: notShareable("CuckooFilter"),
  [FilterType.splitBlock]: SplitBlockBloomFilter.sharedLoader,
  [FilterType.binaryFuse]: notShareable("BinaryFuseFilter"),
};

/**
 * A filter of whichever type the bytes hold (checked as each type's
 * deserialize checks). With `{ shared: true }`, a BloomFilter or
 * SplitBlockBloomFilter is read into shared memory, ready for share(); any
 * other type is a TypeError.
 */
export function deserialize(bytes: Uint8Array, options?: DeserializeOptions): AnyFilter {
  return readRecordBytes(bytes, checkDeserializeOptions(options) ? SHARED_LOADERS : LOADERS);
}

/** deserialize() of base64 text. */
export function deserializeBase64(text: string, options?: DeserializeOptions): AnyFilter {
  const shared = checkDeserializeOptions(options);
  return deserialize(fromBase64(text), { shared });
}

/**
 * A filter of whichever type a stream holds: any async or sync iterable of
 * Uint8Array pieces (a Node file stream, a fetch body, serializeChunks()'s
 * pieces). The payload goes piece by piece into wasm memory, so filters larger
 * than one Uint8Array load. The stream must hold one record and nothing after it.
 * `size`, the bytes the stream holds when they are known (a file's size), lets
 * a header that declares more be refused as truncated before the filter it
 * declares is allocated: a damaged 65-byte file does not cost 4 GiB first.
 * `shared` as for deserialize().
 */
export function deserializeChunks(source: ByteSource, options?: DeserializeChunksOptions): Promise<AnyFilter> {
  const { available, shared } = checkChunksOptions(options, true);
  return readRecordStream(source, shared ? SHARED_LOADERS : LOADERS, undefined, available);
}
