// The hash family: hash one key or a batch with any of the names below, in wasm.
import { defaultArena } from "./memory.js";
import { checkInteger, describe } from "./errors.js";
import { writeKey, type Key } from "./keys.js";
import { forEachChunk, SOURCE_BYTES, type KeySource } from "./batch.js";

/**
 * Every hash, in the order of the wasm core's ids (assembly/hash.ts). Frozen:
 * a name's place is its id, so a caller's hashNames.sort() for a list would
 * otherwise make every name hash as another.
 */
export const hashNames = Object.freeze([
  "rs", "js", "pjw", "elf", "bkdr", "sdbm", "djb", "dek", "bp", "fnv", "ap", "hflp", "hf", "str", "tianl",
  "fnv1_32", "fnv1a_32", "fnv1a_64", "murmur3_32", "murmur3_128", "xxh32", "xxh64", "xxh3",
] as const);

export type HashName = (typeof hashNames)[number];
/** Names whose result is a 64-bit bigint. */
export type Hash64Name = "fnv1a_64" | "xxh64" | "xxh3";
/** Names whose result is a 32-bit number. */
export type Hash32Name = Exclude<HashName, Hash64Name | "murmur3_128">;

/** Names that take a seed; the others ignore it. */
const SEEDED: ReadonlySet<HashName> = new Set(["murmur3_32", "murmur3_128", "xxh32", "xxh64", "xxh3"]);

/** The wasm id of a hash name, or a RangeError listing the names. */
export function hashId(name: unknown, argument = "name"): number {
  const id = hashNames.indexOf(name as HashName);
  if (id < 0) {
    if (typeof name !== "string") throw new TypeError(`${argument} must be a hash name, got ${describe(name)}`);
    throw new RangeError(`unknown hash ${describe(name)} in ${argument}; known: ${hashNames.join(", ")}`);
  }
  return id;
}

/** Output width of a hash: 32, 64 or 128 bits. */
export function hashBits(name: HashName): 32 | 64 | 128 {
  return defaultArena().core.hashBits(hashId(name)) as 32 | 64 | 128;
}

/** True when the hash takes a seed (murmur3_32, murmur3_128, xxh32, xxh64, xxh3). */
export function isSeeded(name: HashName): boolean {
  hashId(name); // an unknown name is the RangeError hashBits gives, not false
  return SEEDED.has(name);
}

function checkSeed(seed: unknown): number {
  return checkInteger("seed", seed, 0, 0xffffffff);
}

/**
 * Hashes one key (a string as its UTF-8 bytes, or a Uint8Array). 32-bit
 * names give a number in [0, 2^32); fnv1a_64, xxh64 and xxh3 (XXH3-64) a
 * 64-bit bigint; murmur3_128 the 128-bit bigint h1 + 2^64·h2. `seed` (u32,
 * default 0) is used by murmur3_32, murmur3_128, xxh32, xxh64 and xxh3 and
 * ignored by the rest.
 */
export function hash(name: Hash32Name, key: Key, seed?: number): number;
export function hash(name: Hash64Name | "murmur3_128", key: Key, seed?: number): bigint;
export function hash(name: HashName, key: Key, seed?: number): number | bigint;
export function hash(name: HashName, key: Key, seed = 0): number | bigint {
  const id = hashId(name);
  checkSeed(seed);
  const arena = defaultArena();
  const { scratch, length } = writeKey(arena, key);
  arena.core.hashKey(id, scratch.bytes, length, seed, scratch.out);
  const bits = arena.core.hashBits(id);
  if (bits === 32) return arena.u32()[scratch.out >>> 2];
  const low = arena.readU64(scratch.out);
  return bits === 64 ? low : low + (arena.readU64(scratch.out + 8) << 64n);
}

/** Hashes a batch in one wasm call per chunk: u32 per key for 32-bit names, u64 (murmur3_128: h1) otherwise. */
function hashBatch(id: number, seed: number, source: KeySource, length: number): Uint32Array | BigUint64Array {
  const arena = defaultArena();
  const wide = arena.core.hashBits(id) > 32;
  const results = (count: number) => (wide ? new BigUint64Array(count) : new Uint32Array(count));
  // Made at the first chunk, once every key has been checked: an array with holes whose length is far past
  // its keys (new Array(2 ** 32 - 1)) gets the TypeError for its first missing key, not Node's failed allocation.
  let result: Uint32Array | BigUint64Array | undefined;
  // Chunks as packed bytes (no hash given): the public hashes run over their own kernel.
  forEachChunk(arena, null, source, (chunk) => {
    const { scratch, count } = chunk;
    if (chunk.source !== SOURCE_BYTES) throw new Error("unreachable: hash batches are bytes");
    result ??= results(length);
    arena.core.hashPacked(id, chunk.src, scratch.ends, count, chunk.start, seed, scratch.out);
    const buffer = arena.memory.buffer;
    if (result instanceof Uint32Array) result.set(new Uint32Array(buffer, scratch.out, count), chunk.first);
    else result.set(new BigUint64Array(buffer, scratch.out, count), chunk.first);
  });
  return result ?? results(0);
}

/** Hashes an array of keys in one wasm call per chunk: Uint32Array for 32-bit names, BigUint64Array for 64-bit (murmur3_128: h1). */
export function hashMany(name: Hash32Name, keys: readonly Key[], seed?: number): Uint32Array;
export function hashMany(name: Hash64Name | "murmur3_128", keys: readonly Key[], seed?: number): BigUint64Array;
export function hashMany(name: HashName, keys: readonly Key[], seed?: number): Uint32Array | BigUint64Array;
export function hashMany(name: HashName, keys: readonly Key[], seed = 0): Uint32Array | BigUint64Array {
  const id = hashId(name);
  checkSeed(seed);
  return hashBatch(id, seed, { kind: "keys", keys }, Array.isArray(keys) ? keys.length : 0);
}

/** hashMany for keys packed in one buffer with u32 end offsets (as BloomFilter.addPacked), skipping string encoding. */
export function hashPacked(name: Hash32Name, bytes: Uint8Array, ends: Uint32Array, seed?: number): Uint32Array;
export function hashPacked(name: Hash64Name | "murmur3_128", bytes: Uint8Array, ends: Uint32Array, seed?: number): BigUint64Array;
export function hashPacked(name: HashName, bytes: Uint8Array, ends: Uint32Array, seed?: number): Uint32Array | BigUint64Array;
export function hashPacked(name: HashName, bytes: Uint8Array, ends: Uint32Array, seed = 0): Uint32Array | BigUint64Array {
  const id = hashId(name);
  checkSeed(seed);
  return hashBatch(id, seed, { kind: "packed", bytes, ends }, ends instanceof Uint32Array ? ends.length : 0);
}
