// Loads the wasm core once, at import time (top-level await), from bytes
// inlined at build time: the same path in Node and in browsers, no fs, no fetch.
import { instantiate } from "@assemblyscript/loader";
import { WASM_BASE64 } from "./wasm-bytes.generated.js";

/** The raw exports of assembly/index.ts: numbers and pointers only. */
export interface Core {
  readonly memory: WebAssembly.Memory;
  alloc(size: number): number;
  free(ptr: number): void;
  maxBlockBytes(): number;
  bloomBlockBytes(bits: number): number;
  bloomInit(filter: number, bits: number, hashes: number, hashId: number, seed: number, strategy: number): void;
  bloomSetIndependentHash(filter: number, index: number, hashId: number): void;
  bloomSetBaseBits(filter: number, baseBits: number): void;
  bloomBaseBits(filter: number): number;
  bloomFold(src: number, dst: number, factor: number): void;
  bloomCombine(dst: number, a: number, b: number, intersect: number): void;
  bloomAdd(filter: number, key: number, len: number): number;
  bloomHas(filter: number, key: number, len: number): number;
  bloomAddPacked(filter: number, keys: number, ends: number, count: number, start: number, out: number): number;
  bloomHasPacked(filter: number, keys: number, ends: number, count: number, start: number, out: number): number;
  bloomSetBits(filter: number): number;
  bloomPositions(filter: number, key: number, len: number, out: number): void;
  bloomLines(filter: number, op: number, buf: number, len: number, final: number, maxLines: number, out: number, lineEnds: number, fresh: number): number;
  bloomLinesConsumed(): number;
  bloomInts(filter: number, op: number, keys: number, count: number, wide: number, out: number): number;
  countingBlockBytes(counters: number, width: number): number;
  countingPacked(filter: number, width: number, op: number, keys: number, ends: number, count: number, start: number, out: number): number;
  countingSaturated(filter: number, width: number): number;
  countingNonZero(filter: number, width: number): number;
  countingToBloom(filter: number, width: number, dst: number): void;
  countingCounter(filter: number, width: number, index: number): number;
  countingInts(filter: number, width: number, op: number, keys: number, count: number, wide: number, out: number): number;
  cuckooBlockBytes(buckets: number, fingerprintBits: number): number;
  cuckooInit(filter: number, buckets: number, fingerprintBits: number, hashId: number, seed: number): void;
  cuckooPacked(filter: number, op: number, keys: number, ends: number, count: number, start: number, out: number): number;
  cuckooSize(filter: number): number;
  cuckooHeaderBytes(): number;
  cuckooSetSize(filter: number, size: number): void;
  cuckooLocate(filter: number, key: number, len: number, out: number): void;
  cuckooInts(filter: number, op: number, keys: number, count: number, wide: number, out: number): number;
  sbbfBlockBytes(blocks: number): number;
  sbbfInit(filter: number, blocks: number): void;
  sbbfHeaderBytes(): number;
  sbbfPacked(filter: number, op: number, keys: number, ends: number, count: number, start: number, out: number): number;
  sbbfLines(filter: number, op: number, buf: number, len: number, final: number, maxLines: number, out: number, lineEnds: number): number;
  sbbfLinesConsumed(): number;
  sbbfFalsePositiveRate(filter: number): number;
  sbbfSetBits(filter: number): number;
  sbbfInts(filter: number, op: number, keys: number, count: number, wide: number, out: number): number;
  fuseBlockBytes(size: number, fingerprintBits: number): number;
  fuseInit(filter: number, size: number, fingerprintBits: number): void;
  fuseHeaderBytes(): number;
  fuseMaxSize(): number;
  fuseSize(filter: number): number;
  fuseFingerprintBits(filter: number): number;
  fuseSegmentLength(filter: number): number;
  fuseSegmentCount(filter: number): number;
  fuseArrayLength(filter: number): number;
  fuseSeedLow(filter: number): number;
  fuseSeedHigh(filter: number): number;
  fuseSetSeed(filter: number, low: number, high: number): void;
  fuseHasHashes(filter: number, hashes: number, count: number, out: number): number;
  fuseHasPacked(filter: number, keys: number, ends: number, count: number, start: number, out: number): number;
  fuseHasInts(filter: number, keys: number, count: number, wide: number, out: number): number;
  fuseHashInts(keys: number, count: number, wide: number, out: number): void;
  fuseSortTempBytes(count: number): number;
  fuseSortUnique(hashes: number, count: number, temp: number): number;
  fuseSlotHashBytes(size: number): number;
  fuseTempBytes(size: number): number;
  fuseBuild(filter: number, hashes: number, size: number, fingerprintBits: number, slotHashes: number, temp: number, seedLow: number, seedHigh: number): number;
  compactLines(buf: number, len: number, final: number, maxLines: number, keyEnds: number): number;
  compactLinesConsumed(): number;
  hashBits(id: number): number;
  hashKey(id: number, key: number, len: number, seed: number, out: number): void;
  hashPacked(id: number, keys: number, ends: number, count: number, start: number, seed: number, out: number): void;
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const loaded = await instantiate<Record<string, unknown>>(decodeBase64(WASM_BASE64));

/** The instantiated core. */
export const core = loaded.exports as unknown as Core;

let u8 = new Uint8Array(core.memory.buffer);
let u32 = new Uint32Array(core.memory.buffer);

/** A byte view of wasm memory; rebuilt after memory.grow detaches the old buffer. */
export function heapU8(): Uint8Array {
  if (u8.byteLength === 0) u8 = new Uint8Array(core.memory.buffer);
  return u8;
}

/** A u32 view of wasm memory; rebuilt after memory.grow detaches the old buffer. */
export function heapU32(): Uint32Array {
  if (u32.byteLength === 0) u32 = new Uint32Array(core.memory.buffer);
  return u32;
}

/** The u64 the core wrote at `ptr` (8-byte aligned), as a bigint. */
export function readU64(ptr: number): bigint {
  const words = heapU32();
  return (BigInt(words[(ptr >>> 2) + 1]) << 32n) | BigInt(words[ptr >>> 2]);
}

/** Largest single block the core allocates (the TLSF allocator's limit, 1 GiB − 4 bytes). */
export const MAX_BLOCK_BYTES = core.maxBlockBytes();

/** Total size of the wasm32 address space. */
export const WASM_MEMORY_LIMIT = 4 * 1024 ** 3;
