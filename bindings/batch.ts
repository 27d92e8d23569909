// The one batch layer: every kind of key a filter takes (an array of strings
// or byte arrays, packed bytes, newline-delimited lines, integers) reaches a
// filter's kernel through here, a chunk of up to MAX_BATCH_KEYS keys per wasm
// call. Keys that are bytes are hashed first (one hashing pass, the one line
// splitter) and the kernel runs over the hashes; integer keys go to the
// kernel as they are. Every key is checked before the first call, so a bad
// key changes nothing.
import type { Arena } from "./arena.js";
import { SOURCE_HASHES, SOURCE_U32, SOURCE_U64, HASH_MURMUR3_128 } from "./constants.generated.js";
import { checkReadable, describe, isUnreadable, keysNotAnArray } from "./errors.js";
import { isBytes, keyRoomIn, keyText, MAX_BATCH_KEYS, scratchOf, utf8Length, writeString, type Key, type Scratch } from "./keys.js";

/** Where a batch's keys come from. */
export type KeySource =
  | { readonly kind: "keys"; readonly keys: readonly Key[] }
  | { readonly kind: "packed"; readonly bytes: Uint8Array; readonly ends: Uint32Array }
  | { readonly kind: "lines"; readonly buffer: Uint8Array }
  | { readonly kind: "ints"; readonly keys: Uint32Array | BigUint64Array }
  | { readonly kind: "hashes"; readonly hashes: BigUint64Array };

/** The key hash of a filter: the hash id and seed its kernels expect. */
export interface KeyHash {
  readonly id: number;
  readonly seed: number;
}

/** A chunk's keys as packed bytes, for kernels that read the bytes (the independent strategy): not a SOURCE_* value. */
export const SOURCE_BYTES = -1;

/** One chunk of a batch, in the scratch area of one arena, ready for a kernel. */
export interface Chunk {
  readonly scratch: Scratch;
  /** Keys in the chunk. */
  readonly count: number;
  /** Index in the whole batch of the chunk's first key. */
  readonly first: number;
  /** SOURCE_HASHES, SOURCE_U32 or SOURCE_U64 (src holds hashes or integer keys), or SOURCE_BYTES. */
  readonly source: number;
  readonly src: number;
  /** Second halves of 128-bit hashes, or 0. */
  readonly hashes2: number;
  /** SOURCE_BYTES: key i is the bytes from src + ends[i − 1] to src + ends[i], key 0 starting at src + start. */
  readonly start: number;
  /** Lines: where line i of the chunk ends in the caller's buffer is lineBase + u32 at scratch.lineEnds + 4i. */
  readonly lineBase: number;
}

/** Keys a source holds; −1 for lines (unknown until split) and for a source that is not valid (its run will say why). */
export function sourceLength(source: KeySource): number {
  switch (source.kind) {
    case "keys":
      return Array.isArray(source.keys) ? source.keys.length : -1;
    case "packed":
      return source.ends instanceof Uint32Array ? source.ends.length : -1;
    case "ints":
      return source.keys instanceof Uint32Array || source.keys instanceof BigUint64Array ? source.keys.length : -1;
    case "hashes":
      return source.hashes instanceof BigUint64Array ? source.hashes.length : -1;
    case "lines":
      return -1;
  }
}

/** Throws the TypeError for keys that are not an array. */
function checkKeyArray(keys: unknown): asserts keys is readonly Key[] {
  if (!Array.isArray(keys)) throw keysNotAnArray(keys);
}

/** Checks a packed batch: `ends` must be non-decreasing offsets within `bytes`; returns the longest key's index (−1 for none) and length. */
function checkPacked(bytes: unknown, ends: unknown): { at: number; largest: number } {
  if (!isBytes(bytes)) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
  if (!(ends instanceof Uint32Array)) throw new TypeError(`ends must be a Uint32Array, got ${describe(ends)}`);
  checkReadable("bytes", bytes);
  checkReadable("ends", ends);
  let previous = 0;
  let largest = 0;
  let at = -1;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i];
    if (end < previous || end > bytes.length) {
      const after = i === 0 ? "0" : `ends[${i - 1}] = ${previous}`;
      throw new RangeError(`ends[${i}] = ${end} must be ≥ ${after} and ≤ bytes.length = ${bytes.length}`);
    }
    if (end - previous > largest) {
      largest = end - previous;
      at = i;
    }
    previous = end;
  }
  return { at, largest };
}

/** Throws the TypeError for a lines buffer that is not bytes. */
function checkLines(buffer: unknown): void {
  if (!isBytes(buffer)) throw new TypeError(`buffer must be a Uint8Array of newline-delimited keys, got ${describe(buffer)}`);
  checkReadable("buffer", buffer);
}

/** Throws the TypeError for key hashes that are not a BigUint64Array. */
export function checkHashes(hashes: unknown): asserts hashes is BigUint64Array {
  if (!(hashes instanceof BigUint64Array)) throw new TypeError(`hashes must be a BigUint64Array of key hashes (as hashLines gives them), got ${describe(hashes)}`);
  checkReadable("hashes", hashes);
}

/** Throws the TypeError for integer keys of another type. */
function checkInts(keys: unknown): void {
  if (!(keys instanceof Uint32Array || keys instanceof BigUint64Array)) {
    throw new TypeError(`keys must be a Uint32Array or a BigUint64Array, got ${describe(keys)}`);
  }
  checkReadable("keys", keys);
}

/** Hashes a chunk of packed keys in the scratch area (unless the kernel wants bytes) and hands it on. */
function packedChunk(scratch: Scratch, hash: KeyHash | null, count: number, first: number, keys: number, start: number, visit: (chunk: Chunk) => void): void {
  if (hash === null) {
    visit({ scratch, count, first, source: SOURCE_BYTES, src: keys, hashes2: 0, start, lineBase: 0 });
    return;
  }
  const hashes2 = hash.id === HASH_MURMUR3_128 ? scratch.hashes2 : 0;
  scratch.arena.core.hashPackedKeys(hash.id, hash.seed, keys, scratch.ends, count, start, scratch.hashes, hashes2);
  visit({ scratch, count, first, source: SOURCE_HASHES, src: scratch.hashes, hashes2, start: 0, lineBase: 0 });
}

/** An array of string or byte keys, written chunk by chunk. */
function keysChunks(arena: Arena, hash: KeyHash | null, keys: readonly Key[], visit: (chunk: Chunk) => void): void {
  checkKeyArray(keys);
  let largest = 0;
  let at = -1;
  for (let i = 0; i < keys.length; i++) {
    const room = keyRoomIn(arena, keys[i], i);
    if (room > largest) {
      largest = room;
      at = i;
    }
  }
  const scratch = scratchOf(arena, largest, () => {
    const key = keys[at];
    // A one-key call (add, has) is a batch of one: its argument is `key`.
    return `${keys.length === 1 ? "key" : `keys[${at}]`} is ${typeof key === "string" ? utf8Length(key) : key.length} bytes and`;
  });
  const { ends, bytes, capacity } = scratch;
  const endsIndex = ends >>> 2;
  let first = 0;
  let count = 0;
  let used = 0;
  // Views fetched once per chunk: a visit may grow the memory (a scalable filter adding a layer), so they are fetched again after it.
  let u8 = arena.u8();
  let u32 = arena.u32();
  // Node's Buffer over the key room, taken once per chunk instead of once per key: hasMany of 10^6 URL
  // keys took 4-12% less time under Node 20 (BloomFilter 133-159 -> 122-143 ns/key, A/B in one process)
  // and the same under Node 24.
  let text = keyText(scratch);
  let grows = arena.grows;
  // While keys are read, a key's getter or a Proxy can call bloomkit: its keys would go into this area over the
  // chunk being written. The area is taken from the arena meanwhile (so the one-key paths lapse, and scratchOf
  // refuses the call); it is the arena's again while a chunk runs, and after the batch.
  let lent: boolean = lendScratch(arena);
  try {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      // A getter or Proxy that made a filter may have grown the memory, which empties the views: taken again then
      // (writing through the old ones failed with Node's own '"offset" is outside of buffer bounds'). Told by the
      // arena's count of growths: checking u8.length instead made addMany of 2·10^5 URL keys 2–3% slower (fastest
      // of 40 passes, A/B in one process, four runs, Node 20); the count showed no difference beyond the noise.
      if (arena.grows !== grows) {
        grows = arena.grows;
        u8 = arena.u8();
        u32 = arena.u32();
        text = keyText(scratch);
      }
      const isString = typeof key === "string";
      // Anything but a string or readable bytes at this read (null, an array, a Uint16Array) gets NaN, and is refused below:
      // taken for bytes, an object with a length was added as zeros, a key never given.
      const bound = isString ? key.length * 3 : isBytes(key) && !(key.length === 0 && isUnreadable(key)) ? key.length : NaN;
      // Each key is read twice, to size the area and to write it. An array whose elements change in between
      // (a getter, a Proxy) could hand over a key longer than the area the second time, or no key: it is refused
      // before its chunk is cut, let alone written. (`!(… <= …)` refuses NaN too.) Common keys cost one comparison.
      if (!(bound <= capacity) && !(isString && utf8Length(key) <= capacity)) throw changedKey(keys.length, i);
      // (A string longer than a third of the area fits it by its exact length, keyRoomIn: written at 0, it needs no chunk cut before it.)
      if (count === MAX_BATCH_KEYS || (count > 0 && used + bound > capacity)) {
        lent = reclaimScratch(arena, scratch);
        packedChunk(scratch, hash, count, first, bytes, 0, visit);
        lent = lendScratch(arena);
        u8 = arena.u8();
        u32 = arena.u32();
        text = keyText(scratch);
        first = i;
        count = 0;
        used = 0;
      }
      if (isString) used += text !== undefined ? text.utf8Write(key, used) : writeString(scratch, key, used);
      else {
        u8.set(key, bytes + used);
        used += key.length;
      }
      u32[endsIndex + count++] = used;
    }
  } finally {
    if (lent) reclaimScratch(arena, scratch);
  }
  if (count > 0) packedChunk(scratch, hash, count, first, bytes, 0, visit);
}

/** Takes the scratch area from `arena` while a batch reads keys into it (see keysChunks); returns true. */
function lendScratch(arena: Arena): true {
  arena.scratch = undefined;
  arena.readingKeys++;
  return true;
}

/** Gives `scratch` back to `arena` once the keys are read; returns false (no longer lent). */
function reclaimScratch(arena: Arena, scratch: Scratch): false {
  arena.readingKeys--;
  arena.scratch = scratch;
  return false;
}

/** The TypeError for a key that was longer when written than when the batch was sized, or no key at all. */
function changedKey(length: number, index: number): TypeError {
  // A one-key call (add, has) is a batch of one: its argument is `key`.
  const which = length === 1 ? "key" : `keys[${index}]`;
  return new TypeError(`${which} changed while the call read it (a getter or Proxy gave a longer key, or no key, the second time); keys before it may have been taken: pass an array of fixed keys`);
}

/** Packed keys, each chunk copied once. */
function packedChunks(arena: Arena, hash: KeyHash | null, bytes: Uint8Array, ends: Uint32Array, visit: (chunk: Chunk) => void): void {
  const { at, largest } = checkPacked(bytes, ends);
  const scratch = scratchOf(arena, largest, () => `packed key ${at} (bytes ${at === 0 ? 0 : ends[at - 1]} to ${ends[at]}) is ${largest} bytes and`);
  const total = ends.length;
  let i = 0;
  while (i < total) {
    const start = i === 0 ? 0 : ends[i - 1];
    const limit = Math.min(total, i + MAX_BATCH_KEYS);
    let j = i;
    while (j < limit && ends[j] - start <= scratch.capacity) j++;
    arena.u8().set(bytes.subarray(start, ends[j - 1]), scratch.bytes);
    arena.u32().set(ends.subarray(i, j), scratch.ends >>> 2);
    // Offsets stay as the caller gave them; the key base is shifted instead (wraps mod 2^32).
    packedChunk(scratch, hash, j - i, i, (scratch.bytes - start) >>> 0, start, visit);
    i = j;
  }
}

/**
 * Newline-delimited keys, split in wasm piece by piece. A key is a line
 * without its "\n" and one trailing "\r"; a last line without "\n" counts. A
 * line longer than the scratch area gets a larger one.
 */
function linesChunks(arena: Arena, hash: KeyHash | null, buffer: Uint8Array, visit: (chunk: Chunk) => void): void {
  checkLines(buffer);
  // A line longer than the scratch area gets a larger one: taken before the first piece, so that when the
  // memory has no room for it the batch fails having added nothing.
  const long = longestLine(buffer, scratchOf(arena).capacity);
  if (long.bytes > 0) scratchOf(arena, long.bytes, () => `the line at byte ${long.from} of buffer, with its line ending, is ${long.bytes} bytes and`);
  let from = 0;
  let first = 0;
  const total = buffer.length;
  while (from < buffer.length) {
    // Taken again each piece: a callback between pieces may have made the memory take a larger area.
    let scratch = scratchOf(arena);
    let len = Math.min(scratch.capacity, buffer.length - from);
    let lines = splitLines(scratch, hash, buffer, from, len);
    if (lines === 0) {
      // No whole line fits: take a scratch area as large as the next line.
      const newline = buffer.indexOf(10, from);
      len = (newline < 0 ? buffer.length : newline + 1) - from;
      scratch = scratchOf(arena, len);
      lines = splitLines(scratch, hash, buffer, from, len);
    }
    const consumed = arena.u32()[scratch.consumed >>> 2];
    if (hash === null) visit({ scratch, count: lines, first, source: SOURCE_BYTES, src: scratch.bytes, hashes2: 0, start: 0, lineBase: from });
    else {
      const hashes2 = hash.id === HASH_MURMUR3_128 ? scratch.hashes2 : 0;
      visit({ scratch, count: lines, first, source: SOURCE_HASHES, src: scratch.hashes, hashes2, start: 0, lineBase: from });
    }
    first += lines;
    from += consumed;
  }
  // A callback between pieces shrank the buffer (resized or transferred its ArrayBuffer): the lines past its new
  // end were never read, and the call would have returned as if they had been. (After the last piece it may.)
  if (from < total) {
    throw new TypeError(`buffer shrank from ${total} to ${buffer.length} bytes while its lines were read (in a callback?): the lines before byte ${from} were taken, the rest were not`);
  }
}

/**
 * The longest line of `buffer` (with its "\n") that a scratch area of
 * `capacity` bytes cannot take whole, and where it starts; bytes 0 when every
 * line fits (the last one, without "\n", too). One search per `capacity`
 * bytes: a line that ends within the next `capacity` bytes fits, and so do
 * all lines before it.
 */
export function longestLine(buffer: Uint8Array, capacity: number): { from: number; bytes: number } {
  let longest = { from: 0, bytes: 0 };
  for (let from = 0; buffer.length - from > capacity; ) {
    const newline = buffer.lastIndexOf(10, from + capacity - 1);
    if (newline >= from) {
      from = newline + 1;
      continue;
    }
    const next = buffer.indexOf(10, from + capacity);
    const end = next < 0 ? buffer.length : next + 1;
    if (end - from > longest.bytes) longest = { from, bytes: end - from };
    from = end;
  }
  return longest;
}

/** Copies `len` bytes of `buffer` from `from` into the scratch area and splits up to MAX_BATCH_KEYS lines; returns how many. */
function splitLines(scratch: Scratch, hash: KeyHash | null, buffer: Uint8Array, from: number, len: number): number {
  const { arena } = scratch;
  arena.u8().set(buffer.subarray(from, from + len), scratch.bytes);
  const final = from + len === buffer.length ? 1 : 0;
  if (hash === null) return arena.core.compactLines(scratch.bytes, len, final, MAX_BATCH_KEYS, scratch.ends, scratch.lineEnds, scratch.consumed);
  const hashes2 = hash.id === HASH_MURMUR3_128 ? scratch.hashes2 : 0;
  return arena.core.hashLines(hash.id, hash.seed, scratch.bytes, len, final, MAX_BATCH_KEYS, scratch.hashes, hashes2, scratch.lineEnds, scratch.consumed);
}

/** Integer keys (or, as SOURCE_HASHES, key hashes), copied chunk by chunk; the kernels hash integers, and take hashes as they are. */
function intsChunks(arena: Arena, keys: Uint32Array | BigUint64Array, visit: (chunk: Chunk) => void, source?: number): void {
  const wide = keys instanceof BigUint64Array;
  const width = wide ? 8 : 4;
  const scratch = scratchOf(arena);
  const perCall = Math.min(MAX_BATCH_KEYS, Math.floor(scratch.capacity / width));
  const raw = new Uint8Array(keys.buffer, keys.byteOffset, keys.byteLength);
  for (let first = 0; first < keys.length; first += perCall) {
    const count = Math.min(perCall, keys.length - first);
    arena.u8().set(raw.subarray(first * width, (first + count) * width), scratch.bytes);
    visit({ scratch, count, first, source: source ?? (wide ? SOURCE_U64 : SOURCE_U32), src: scratch.bytes, hashes2: 0, start: 0, lineBase: 0 });
  }
}

/**
 * Feeds a source to `visit` chunk by chunk in `arena`'s scratch area: keys of
 * bytes hashed with `hash` (or, when it is null, as packed bytes), integers as
 * they are. The source is checked first; nothing runs if it is bad.
 */
export function forEachChunk(arena: Arena, hash: KeyHash | null, source: KeySource, visit: (chunk: Chunk) => void): void {
  switch (source.kind) {
    case "keys":
      return keysChunks(arena, hash, source.keys, visit);
    case "packed":
      return packedChunks(arena, hash, source.bytes, source.ends, visit);
    case "lines":
      return linesChunks(arena, hash, source.buffer, visit);
    case "ints":
      checkInts(source.keys);
      return intsChunks(arena, source.keys, visit);
    case "hashes":
      checkHashes(source.hashes);
      return intsChunks(arena, source.hashes, visit, SOURCE_HASHES);
  }
}

/** Where each line of a lines chunk ends in the caller's buffer (after its "\n"), copied out. */
function chunkLineEnds(chunk: Chunk): Uint32Array {
  const { arena } = chunk.scratch;
  const ends = arena.u32().slice(chunk.scratch.lineEnds >>> 2, (chunk.scratch.lineEnds >>> 2) + chunk.count);
  for (let i = 0; i < ends.length; i++) ends[i] += chunk.lineBase;
  return ends;
}

/** Arrays a caller lends to hashLines for its results: the hashes and line ends of as many lines as they have room for. */
export interface LineHashes {
  hashes: BigUint64Array;
  ends: Uint32Array;
}

/** Throws the TypeError for arrays lent to hashLines that are not a BigUint64Array and a Uint32Array, or that cannot be read (see isUnreadable). */
export function checkLineHashes(into: unknown): asserts into is LineHashes {
  const wanted = "into must be { hashes: BigUint64Array, ends: Uint32Array } (a result of hashLines will do)";
  if (typeof into !== "object" || into === null) throw new TypeError(`${wanted}, got ${describe(into)}`);
  const { hashes, ends } = into as Partial<LineHashes>;
  if (!(hashes instanceof BigUint64Array)) throw new TypeError(`${wanted}, got ${describe(into)} whose hashes is ${describe(hashes)}`);
  if (!(ends instanceof Uint32Array)) throw new TypeError(`${wanted}, got ${describe(into)} whose ends is ${describe(ends)}`);
  checkReadable("into.hashes", hashes);
  checkReadable("into.ends", ends);
}

/** `array`'s first `used` elements in a new array of at least `need` (twice as many, so that growing costs linear time). */
function grown<T extends BigUint64Array | Uint32Array>(array: T, used: number, need: number, Type: { new (length: number): T }): T {
  const larger = new Type(Math.max(need, array.length * 2));
  (larger as Uint32Array).set((array as Uint32Array).subarray(0, used)); // one kind throughout: the casts only quiet the union
  return larger;
}

/**
 * The key hash of every line of `buffer` (split as linesChunks splits it)
 * and where each line ends: the first half of a batch, for callers that hash
 * on one thread and add or query on another. `hash` must be a 64-bit one
 * (the filter checks it). With `into`, results go into its arrays, and into
 * new, larger ones only past their room: the result is then views of their
 * first lines, and a pipeline that lends the same arrays again allocates
 * nothing per batch.
 */
export function lineHashes(arena: Arena, hash: KeyHash, buffer: Uint8Array, into?: LineHashes): LineHashes {
  checkEndsFit(buffer);
  let hashes = into?.hashes ?? new BigUint64Array(0);
  let ends = into?.ends ?? new Uint32Array(0);
  let lines = 0;
  linesChunks(arena, hash, buffer, (chunk) => {
    const { count, lineBase, scratch } = chunk;
    const need = lines + count;
    if (need > hashes.length) hashes = grown(hashes, lines, need, BigUint64Array);
    if (need > ends.length) ends = grown(ends, lines, need, Uint32Array);
    hashes.set(new BigUint64Array(arena.memory.buffer, chunk.src, count), lines);
    const chunkEnds = arena.u32().subarray(scratch.lineEnds >>> 2, (scratch.lineEnds >>> 2) + count);
    for (let i = 0; i < count; i++) ends[lines + i] = chunkEnds[i] + lineBase;
    lines = need;
  });
  // Lent arrays give views of their first lines; without them, the caller gets arrays of its own, exactly as long.
  if (into !== undefined) return { hashes: hashes.subarray(0, lines), ends: ends.subarray(0, lines) };
  return { hashes: hashes.length === lines ? hashes : hashes.slice(0, lines), ends: ends.length === lines ? ends : ends.slice(0, lines) };
}

/**
 * Throws the RangeError for a key longer than `limit` bytes (what a shared
 * filter's batch area holds of a kernel that reads key bytes), before
 * anything runs. A source that is not valid passes: its run says why.
 */
export function checkKeyLengths(source: KeySource, limit: number): void {
  const tooLong = (which: string, length: number) =>
    new RangeError(`${which} is ${length} bytes, more than a shared filter's batch area holds for the independent strategy (${limit} bytes)`);
  if (source.kind === "keys" && Array.isArray(source.keys)) {
    const { keys } = source;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const bound = typeof key === "string" ? key.length * 3 : isBytes(key) ? key.length : 0;
      const length = bound > limit && typeof key === "string" ? utf8Length(key) : bound;
      // A one-key call (add, has) is a batch of one: its argument is `key`.
      if (length > limit) throw tooLong(keys.length === 1 ? "the key" : `keys[${i}]`, length);
    }
  } else if (source.kind === "packed" && source.ends instanceof Uint32Array) {
    let previous = 0;
    for (let i = 0; i < source.ends.length; i++) {
      const end = source.ends[i];
      if (end - previous > limit) throw tooLong(`packed key ${i} (bytes ${previous} to ${end})`, end - previous);
      previous = end;
    }
  } else if (source.kind === "lines" && isBytes(source.buffer)) {
    const { buffer } = source;
    for (let from = 0; from < buffer.length; ) {
      // A line is split from the area with its "\r" and "\n": they must fit there too.
      const newline = buffer.indexOf(10, from);
      const end = newline < 0 ? buffer.length : newline + 1;
      if (end - from > limit) throw tooLong(`the line at byte ${from} of buffer, with its line ending,`, end - from);
      from = end;
    }
  }
}

/** Runs of consecutive keys [from, to) of a saved chunk of key bytes whose bytes fit `capacity` each (every key does, checkKeyLengths saw to it). */
export function bytePieces(saved: SavedChunk, capacity: number): [number, number][] {
  const { chunk } = saved;
  if (chunk.source !== SOURCE_BYTES || saved.bytes!.length <= capacity) return [[0, chunk.count]];
  const ends = saved.ends!;
  const pieces: [number, number][] = [];
  let from = 0;
  let start = chunk.start;
  for (let i = 0; i < chunk.count; i++) {
    if (ends[i] - start > capacity && i > from) {
      pieces.push([from, i]);
      from = i;
      start = i === 0 ? chunk.start : ends[i - 1];
    }
  }
  pieces.push([from, chunk.count]);
  return pieces;
}

/** Concatenates typed arrays of one kind. */
export function concat<T extends Uint8Array | Uint32Array | Float64Array | BigUint64Array>(parts: T[], Type: { new (length: number): T }): T {
  if (parts.length === 1) return parts[0];
  const out = new Type(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    (out as Uint8Array).set(part as Uint8Array, at); // one kind throughout: the casts only quiet the union
    at += part.length;
  }
  return out;
}

/** A kernel over one chunk: writes one answer per key at `scratch.out` and returns the sum of the answers' "hits". */
export type Kernel = (chunk: Chunk) => number;

/** What a batch run gives back: one answer per key, and the sum the kernel returned over all chunks. */
export interface BatchResult<T extends Uint8Array | Uint32Array> {
  answers: T;
  total: number;
  /** Lines only: each line's end offset in the buffer (after its "\n"), when asked for. */
  ends?: Uint32Array;
}

/** The longest buffer whose line ends a Uint32Array holds: an end of 2^32 would read as 0. */
export const MAX_ENDS_BUFFER_BYTES = 0xffff_ffff;

/** Throws a RangeError, before any line is read, for a buffer too long for its line ends to be given as a Uint32Array. */
function checkEndsFit(buffer: Uint8Array): void {
  if (buffer?.length > MAX_ENDS_BUFFER_BYTES) {
    throw new RangeError(
      `buffer is ${buffer.length} bytes; its line ends are given as a Uint32Array, which holds ends up to ${MAX_ENDS_BUFFER_BYTES}: ` +
        "pass it in pieces of at most that many bytes, each ending at the end of a line",
    );
  }
}

/**
 * Runs `kernel` over every chunk of `source` in `arena` and collects one
 * answer per key: a byte, or a u32 when `Answers` is Uint32Array; into the
 * first answers of `into` when given (a source of known length).
 */
export function runBatch<T extends Uint8Array | Uint32Array>(
  arena: Arena,
  hash: KeyHash | null,
  source: KeySource,
  kernel: Kernel,
  Answers: { new (length: number): T; readonly BYTES_PER_ELEMENT: number },
  wantEnds = false,
  into?: T,
): BatchResult<T> {
  if (wantEnds && source.kind === "lines") checkEndsFit(source.buffer);
  const length = sourceLength(source);
  // A caller's array (checked by the caller to have room) takes the answers instead of a new one.
  const whole = length >= 0 ? ((into?.subarray(0, length) as T | undefined) ?? new Answers(length)) : undefined;
  const parts: T[] = [];
  const endParts: Uint32Array[] = [];
  let total = 0;
  forEachChunk(arena, hash, source, (chunk) => {
    total += kernel(chunk);
    const { scratch, count } = chunk;
    const view = Answers.BYTES_PER_ELEMENT === 1 ? arena.u8().subarray(scratch.out, scratch.out + count) : arena.u32().subarray(scratch.out >>> 2, (scratch.out >>> 2) + count);
    if (whole) whole.set(view as T, chunk.first);
    else parts.push(view.slice() as T);
    if (wantEnds) endParts.push(chunkLineEnds(chunk));
  });
  const answers = whole ?? (parts.length ? concat(parts, Answers) : new Answers(0));
  return wantEnds ? { answers, total, ends: concat(endParts, Uint32Array) } : { answers, total };
}

/** A chunk's keys copied out of wasm memory, so that picks of them can be placed in any arena any number of times. */
export interface SavedChunk {
  readonly chunk: Chunk;
  /** Hashes or integer keys as u32 words (two per u64); for SOURCE_BYTES, the key bytes. */
  readonly words: Uint32Array;
  readonly words2: Uint32Array | undefined;
  readonly bytes: Uint8Array | undefined;
  /** SOURCE_BYTES: key i is bytes[ends[i − 1] − start .. ends[i] − start). */
  readonly ends: Uint32Array | undefined;
}

/** u32 words per key of a source. */
function wordsPerKey(source: number): number {
  return source === SOURCE_U32 ? 1 : 2;
}

/**
 * Copies a chunk's keys out of its scratch area before other batches reuse
 * it; without `copy`, views of them in wasm memory, for placing them at once.
 */
export function saveChunk(chunk: Chunk, copy = true): SavedChunk {
  const arena = chunk.scratch.arena;
  const take = <T extends Uint8Array | Uint32Array>(array: T, from: number, to: number): T => (copy ? array.slice(from, to) : array.subarray(from, to)) as T;
  if (chunk.source === SOURCE_BYTES) {
    const ends = take(arena.u32(), chunk.scratch.ends >>> 2, (chunk.scratch.ends >>> 2) + chunk.count);
    const last = chunk.count === 0 ? chunk.start : ends[chunk.count - 1];
    // src is the key base shifted back by the caller's offsets (packedChunks), mod 2^32 as wasm adds them: the bytes start at src + start mod 2^32.
    const from = (chunk.src + chunk.start) >>> 0;
    const bytes = take(arena.u8(), from, from + (last - chunk.start));
    return { chunk, words: new Uint32Array(0), words2: undefined, bytes, ends };
  }
  const width = wordsPerKey(chunk.source);
  const words = take(arena.u32(), chunk.src >>> 2, (chunk.src >>> 2) + chunk.count * width);
  const words2 = chunk.hashes2 !== 0 ? take(arena.u32(), chunk.hashes2 >>> 2, (chunk.hashes2 >>> 2) + chunk.count * 2) : undefined;
  return { chunk, words, words2, bytes: undefined, ends: undefined };
}

/**
 * The keys of a saved chunk at `picks` (indices into the chunk; null for all
 * of them) as a chunk of their own in `arena`'s scratch area: how one
 * hashing pass serves filters in other memories, and subsets of a chunk (the
 * keys a scalable filter's newest layer takes).
 */
export function placeChunk(saved: SavedChunk, picks: readonly number[] | null, arena: Arena): Chunk {
  const { chunk } = saved;
  const count = picks === null ? chunk.count : picks.length;
  const index = (j: number) => (picks === null ? j : picks[j]);
  if (chunk.source === SOURCE_BYTES) {
    const ends = saved.ends!;
    const keyStart = (i: number) => (i === 0 ? chunk.start : ends[i - 1]);
    let needed = saved.bytes!.length;
    if (picks !== null) {
      needed = 0;
      for (const i of picks) needed += ends[i] - keyStart(i);
    }
    const to = scratchOf(arena, needed);
    const u8 = arena.u8();
    const u32 = arena.u32();
    let used = 0;
    for (let j = 0; j < count; j++) {
      const i = index(j);
      const start = keyStart(i) - chunk.start;
      const end = ends[i] - chunk.start;
      u8.set(saved.bytes!.subarray(start, end), to.bytes + used);
      used += end - start;
      u32[(to.ends >>> 2) + j] = used;
    }
    return { scratch: to, count, first: chunk.first, source: SOURCE_BYTES, src: to.bytes, hashes2: 0, start: 0, lineBase: chunk.lineBase };
  }
  const to = scratchOf(arena);
  const dst = chunk.source === SOURCE_HASHES ? to.hashes : to.bytes;
  const width = wordsPerKey(chunk.source);
  placeWords(saved.words, arena.u32(), dst >>> 2, width, count, picks);
  let hashes2 = 0;
  if (saved.words2) {
    hashes2 = to.hashes2;
    placeWords(saved.words2, arena.u32(), hashes2 >>> 2, 2, count, picks);
  }
  return { scratch: to, count, first: chunk.first, source: chunk.source, src: dst, hashes2, start: 0, lineBase: chunk.lineBase };
}

/** Writes entry picks[j] (or j) of `width` words of `words` to entry j at word `at` of `target`. */
function placeWords(words: Uint32Array, target: Uint32Array, at: number, width: number, count: number, picks: readonly number[] | null): void {
  if (picks === null) {
    target.set(words.subarray(0, count * width), at);
    return;
  }
  for (let j = 0; j < count; j++) {
    const i = picks[j];
    for (let w = 0; w < width; w++) target[at + j * width + w] = words[i * width + w];
  }
}
