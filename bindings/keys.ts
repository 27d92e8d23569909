// Moving keys into wasm memory. Every arena has one scratch area that holds a
// chunk of up to MAX_BATCH_KEYS keys: their bytes, end offsets, hashes and
// answers, so one wasm call handles a whole chunk. Its pointers are handed to
// the kernels by the caller; no kernel reads a global for them.
import type { Arena } from "./arena.js";
import { SharedArena } from "./shared-arena.js";
import { BLOOM_GROUP_BYTES } from "./constants.generated.js";
import { describe, formatBytes, isUnreadable } from "./errors.js";

/** A key: a string (hashed as its UTF-8 bytes) or raw bytes. */
export type Key = string | Uint8Array;

/** Keys per wasm call. */
export const MAX_BATCH_KEYS = 1 << 14;
/** Default room for key bytes per wasm call. */
const DEFAULT_KEY_BYTES = 1 << 20;
const encoder = new TextEncoder();

/** Node's Buffer, when present: its utf8Write encodes at an offset without a new view per key. */
export interface NodeBufferView extends Uint8Array {
  utf8Write(text: string, offset: number): number;
}
const NodeBuffer = (globalThis as { Buffer?: { from(buffer: ArrayBufferLike, offset: number, length: number): NodeBufferView } }).Buffer;

/**
 * Pointers into an arena's scratch block, in this order: ends (u32 per key),
 * lineEnds (u32 per key), out (8 bytes per key: a byte or a u32 answer),
 * hashes and hashes2 (u64 per key), room (the kernels' group buffers),
 * consumed (a u32 the line kernels write), then `capacity` bytes of keys.
 */
export interface Scratch {
  readonly arena: Arena;
  readonly ends: number;
  readonly lineEnds: number;
  readonly out: number;
  readonly hashes: number;
  readonly hashes2: number;
  readonly room: number;
  readonly consumed: number;
  readonly bytes: number;
  readonly capacity: number;
  /** A Buffer over just the key bytes (Node): utf8Write fails on views larger than 2 GiB. */
  text: NodeBufferView | undefined;
}

const FIXED_BYTES = MAX_BATCH_KEYS * (4 + 4 + 8 + 8 + 8) + BLOOM_GROUP_BYTES + 64;
/**
 * Bytes of a scratch area with room for `keyBytes` bytes of keys: what each
 * thread's batch area in a shared memory holds. Batches for a shared filter
 * are hashed in the thread's own arena and only hashes, integer keys (at most
 * 8 bytes each) or, for the independent strategy, one chunk's key bytes are
 * placed there.
 */
export function scratchBytes(keyBytes: number): number {
  return FIXED_BYTES + keyBytes;
}

/** Key bytes of a shared batch area for filters whose kernels take hashes or integers: one chunk of u64 keys. */
export const SHARED_KEY_BYTES = MAX_BATCH_KEYS * 8;
/** Key bytes of a shared batch area for filters whose kernels read key bytes (the independent strategy): a default chunk. */
export const SHARED_BYTES_KEY_BYTES = DEFAULT_KEY_BYTES;

/**
 * The refusal of a call made from a key's getter or a Proxy while a batch
 * reads its keys into the scratch area of the same memory (see keysChunks):
 * its keys would go over the batch's there, which it would then hash
 * instead of its own (false negatives, for any filter in that memory).
 */
const CALLED_WHILE_READING_KEYS =
  "bloomkit was called from a key's getter or a Proxy while a batch was reading its keys into the same wasm memory, which it refuses: " +
  "this call's keys would go over the batch's; pass an array of fixed keys";

/**
 * `arena`'s scratch area, with room for at least `keyBytes` bytes of keys (a
 * larger one replaces it when needed). `what` names the key that needs the
 * room, as the API names it ("keys[3]", "the key", …), for the RangeError
 * when the memory has no room for it.
 */
export function scratchOf(arena: Arena, keyBytes = 0, what?: () => string): Scratch {
  const current = arena.scratch as Scratch | undefined;
  if (current && keyBytes <= current.capacity) return current;
  if (arena.readingKeys > 0) throw new TypeError(CALLED_WHILE_READING_KEYS);
  if (arena instanceof SharedArena) return sharedScratch(arena, keyBytes);
  const capacity = Math.max(DEFAULT_KEY_BYTES, keyBytes);
  const ptr = arena.alloc(FIXED_BYTES + capacity);
  if (ptr === 0) {
    throw new RangeError(
      `${what ? what() : `a key of ${keyBytes} bytes`} does not fit: its wasm memory (4 GiB at most, the filters in it included) ` +
        `has no room left for a batch area of ${formatBytes(FIXED_BYTES + capacity)}`,
    );
  }
  if (current && arena.scratchHolds > 0) arena.scratchToFree.push(current.ends);
  else if (current) arena.free(current.ends);
  return placeScratch(arena, ptr, capacity);
}

/** Lays a scratch area out at `ptr` (FIXED_BYTES + `capacity` bytes) and makes it `arena`'s. */
function placeScratch(arena: Arena, ptr: number, capacity: number): Scratch {
  const n = MAX_BATCH_KEYS;
  const lineEnds = ptr + n * 4;
  const out = lineEnds + n * 4;
  const hashes = out + n * 8;
  const hashes2 = hashes + n * 8;
  const room = hashes2 + n * 8;
  const consumed = room + BLOOM_GROUP_BYTES;
  const scratch: Scratch = { arena, ends: ptr, lineEnds, out, hashes, hashes2, room, consumed, bytes: consumed + 64, capacity, text: undefined };
  arena.scratch = scratch;
  return scratch;
}

/**
 * Runs `visit`, a caller's callback in the middle of a batch over `arena`'s
 * scratch area. A key longer than the area, given to any filter in the same
 * memory during the callback, makes the memory take a larger area: the one the
 * batch and the callback's views use is then freed only after the callback, so
 * no new filter is placed over it meanwhile (it was, and lost keys to the
 * batch's later pieces).
 */
export function holdScratchDuring(arena: Arena, visit: () => void): void {
  arena.scratchHolds++;
  try {
    visit();
  } finally {
    if (--arena.scratchHolds === 0) {
      for (const ptr of arena.scratchToFree) arena.free(ptr);
      arena.scratchToFree.length = 0;
    }
  }
}

/** This thread's batch area in a shared memory: a fixed size, taken once (see SharedArena.claimScratch). */
function sharedScratch(arena: SharedArena, keyBytes: number): Scratch {
  const capacity = arena.slotBytes - FIXED_BYTES;
  if (keyBytes > capacity) {
    throw new RangeError(`a chunk of ${keyBytes} key bytes does not fit a shared filter's batch area of ${capacity} bytes per thread; give keys of at most ${capacity} bytes`);
  }
  const ptr = arena.claimScratch();
  return placeScratch(arena, ptr, capacity);
}

/** True for a Uint8Array from any realm (Buffer included). */
export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array || Object.prototype.toString.call(value) === "[object Uint8Array]";
}

/** Throws the TypeError for a single key that is not a key, naming it `key`, before it is wrapped in a batch (which would call it keys[0]). */
export function checkKey(key: unknown): Key {
  maxKeyBytes(key);
  return key as Key;
}

/** A key's name in an error: `keys[index]`, or `key` without an index. */
const keyName = (index: number) => (index < 0 ? "key" : `keys[${index}]`);

/**
 * Upper bound on the UTF-8 size of a key; throws a TypeError for anything but
 * a key, naming it `keys[index]` (or `key` without an index). The name is
 * built only for the error: a string per key would cost more than the check.
 */
export function maxKeyBytes(key: unknown, index = -1): number {
  // Numbers, booleans and the like first, on a branch of their own: under Node 20 (V8 11.3), TurboFan inlined this
  // into keysChunks and read a small integer key's string length before its typeof test, and the process died
  // (segfault) where this TypeError was due, after a few thousand batches. Node 24 does not.
  if (typeof key !== "string" && typeof key !== "object") throw notAKey(key, index);
  if (typeof key === "string") return key.length * 3;
  if (isBytes(key)) {
    // An empty view may be one whose buffer was transferred, or past the end of a shrunk resizable buffer: any copy
    // of it throws, so it is refused before anything is added.
    if (key.length === 0 && isUnreadable(key)) throw new TypeError(`${keyName(index)} must be readable, got ${describe(key)}`);
    return key.length;
  }
  throw notAKey(key, index);
}

/** The TypeError for a value that is not a key. */
function notAKey(key: unknown, index: number): TypeError {
  return new TypeError(`${keyName(index)} must be a string or a Uint8Array, got ${describe(key)}`);
}

/** A Buffer over the scratch area's key bytes, made again after the memory grew (which empties the old one); undefined outside Node. */
export function keyText(scratch: Scratch): NodeBufferView | undefined {
  if (!NodeBuffer) return undefined;
  let text = scratch.text;
  if (text === undefined || text.byteLength === 0) text = scratch.text = NodeBuffer.from(scratch.arena.memory.buffer, scratch.bytes, scratch.capacity);
  return text;
}

/**
 * Where a one-key fast path writes a string key (WasmBlock.oneString, the
 * scalable filter's): a scratch area, Node's Buffer over its key room, and
 * the longest string (in UTF-16 units) whose UTF-8 bytes surely fit.
 */
export interface KeyRoom {
  readonly scratch: Scratch;
  /** text.utf8Write(key, 0) writes the key at scratch.bytes and gives its length. */
  readonly text: NodeBufferView;
  readonly maxChars: number;
}

/** The key room of `scratch` for a fast path; undefined outside Node, where there is no Buffer to write with. */
export function keyRoom(scratch: Scratch): KeyRoom | undefined {
  const text = keyText(scratch);
  return text === undefined ? undefined : { scratch, text, maxChars: Math.floor(scratch.capacity / 3) };
}

/**
 * True when `key` is a string that fits `room` and the room still holds:
 * its scratch area is still its arena's (a longer key makes the arena take
 * a larger one and free this) and the memory has not grown (which empties
 * the Buffer). Fast paths hold their room as a field, never spread into
 * their own objects: with two shapes here, the scalable filter's one-key
 * calls measured 10–15% slower.
 */
export function roomTakes(room: KeyRoom, key: unknown): key is string {
  return typeof key === "string" && key.length <= room.maxChars && room.scratch.arena.scratch === room.scratch && room.text.byteLength !== 0;
}

/**
 * Writes a string's UTF-8 bytes at scratch offset `at` (from scratch.bytes);
 * the caller guarantees room for them (3 bytes per UTF-16 unit, or the
 * exact length of a large key). Nothing is written past the key room. Measured
 * (bench/STRINGS.md): Buffer#utf8Write beats encodeInto on a fresh subarray,
 * which beats a charCodeAt loop.
 */
export function writeString(scratch: Scratch, key: string, at: number): number {
  if (NodeBuffer) return keyText(scratch)!.utf8Write(key, at);
  const start = scratch.bytes + at;
  // Never past the key room: a large key fits it by its exact length, not by 3 bytes a unit.
  const end = Math.min(start + key.length * 3, scratch.bytes + scratch.capacity);
  return encoder.encodeInto(key, scratch.arena.u8().subarray(start, end)).written;
}

/**
 * The room a key needs in `arena`'s scratch area, checking it as maxKeyBytes
 * does: a string's bound of 3 bytes per UTF-16 unit while the area holds
 * that, else (a key of hundreds of KiB) its exact UTF-8 length, so that a
 * key whose bytes fit the area, or the room left in the memory, is taken.
 */
export function keyRoomIn(arena: Arena, key: unknown, index = -1): number {
  const bound = maxKeyBytes(key, index);
  if (typeof key !== "string" || bound <= ((arena.scratch as Scratch | undefined)?.capacity ?? DEFAULT_KEY_BYTES)) return bound;
  return utf8Length(key);
}

/** A string's length in UTF-8 bytes, as it is hashed. */
export function utf8Length(key: string): number {
  return encoder.encode(key).length;
}

/** Copies one key into `arena`'s scratch area; returns the scratch and the key's byte length. */
export function writeKey(arena: Arena, key: unknown): { scratch: Scratch; length: number } {
  const length = keyRoomIn(arena, key);
  const scratch = scratchOf(arena, length, () => `key is ${length} bytes and`);
  if (typeof key === "string") return { scratch, length: writeString(scratch, key, 0) };
  arena.u8().set(key as Uint8Array, scratch.bytes);
  return { scratch, length: (key as Uint8Array).length };
}
