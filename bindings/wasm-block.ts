// The base of every structure that owns blocks of wasm memory: freed at once
// by dispose() (or `using`), or by the garbage collector when dropped. A
// structure larger than one wasm memory is held in segments, one block each,
// and its keys are routed to them by hash. It also runs the structure's
// batches: each subclass declares its kernel for an operation code (its
// table of operations) and its key hash, and the batch layer feeds it every
// kind of key.
//
// A shared structure (created with { shared: true }, or received from
// another thread) has each block in a shared memory of its own
// (bindings/shared-arena.ts). Its batches are hashed in the thread's own
// arena, and only the hashes or integer keys go over to the thread's batch
// area in the shared memory, where the kernel runs.
import type { Arena } from "./arena.js";
import type { Core } from "./core.generated.js";
import { allocate, allocateShared, defaultArena, disown, freeMemory, named, own, type Block, type What } from "./memory.js";
import { SharedArena } from "./shared-arena.js";
import { keyRoom, roomTakes, scratchBytes, scratchOf, holdScratchDuring, writeKey, type Key, type KeyRoom } from "./keys.js";
import { bytePieces, checkKeyLengths, placeChunk, runBatch, forEachChunk, saveChunk, type BatchResult, type Chunk, type Kernel, type KeyHash, type KeySource } from "./batch.js";
import { OP_ADD, OP_COUNT, OP_HAS } from "./constants.generated.js";
import { checkIntsKeys, formatBytes } from "./errors.js";
import { FilterBase } from "./filter.js";

/**
 * Where a structure's blocks go: in new shared memories, each with batch
 * areas for `keyBytes` bytes of keys per thread, or the blocks of a shared
 * structure another thread made (fromShared).
 */
export type Placement = { readonly sharedKeyBytes: number } | { readonly attach: readonly Block[] };

/**
 * What a string key needs on the one-key fast path (WasmBlock.oneString):
 * the addresses a single-key kernel takes, looked up once. The key goes to
 * room.scratch.bytes, the kernel answers at room.scratch.out.
 */
export interface OneString {
  /** Where the key goes; its own object, made by keyRoom alone, so roomTakes sees one shape. */
  readonly room: KeyRoom;
  readonly core: Core;
  /** The first block's address. */
  readonly filter: number;
}

export abstract class WasmBlock extends FilterBase {
  #blocks: Block[] | undefined;
  #count = 0;
  /** The one-key fast path: undefined until first used (or after it lapsed), null for a structure that never takes it. */
  #oneString: OneString | null | undefined;

  /**
   * Allocates the structure's zeroed blocks of `sizes` bytes, one per
   * segment (in `near`'s arena, or segment i in near[i]'s, when it has
   * room), or places them as `placement` says; `what` names it in a
   * failure. Nothing stays allocated when one of them fails.
   */
  protected constructor(sizes: number | readonly number[], what: What, near?: Arena | readonly (Arena | undefined)[], placement?: Placement) {
    super();
    if (placement && "attach" in placement) {
      this.#blocks = [...placement.attach];
      for (const block of this.#blocks) own(this, block);
      return;
    }
    const list = typeof sizes === "number" ? [sizes] : sizes;
    if (list.length > 1) {
      const total = list.reduce((sum, bytes) => sum + bytes, 0);
      const free = freeMemory();
      if (total > free) throw new RangeError(`cannot allocate ${formatBytes(total)} for ${named(what)}: only ${formatBytes(free)} of memory is free on this machine`);
    }
    const blocks: Block[] = [];
    // The number a shared structure's memories share, so fromShared knows them for one structure's.
    const filter = placement ? Math.floor(Math.random() * 2 ** 32) : 0;
    try {
      for (const bytes of list) {
        if (placement) blocks.push(allocateShared(bytes, what, scratchBytes(placement.sharedKeyBytes), { segment: blocks.length, segments: list.length, filter }));
        else blocks.push(allocate(bytes, what, Array.isArray(near) ? near[blocks.length] : blocks.length === 0 ? (near as Arena | undefined) : undefined));
      }
    } catch (error) {
      for (const block of blocks) block.arena.free(block.ptr);
      throw error;
    }
    this.#blocks = blocks;
    for (const block of blocks) own(this, block);
  }

  /** The first block's address; throws once the structure was disposed. */
  protected live(): number {
    if (this.#blocks === undefined) throw new TypeError(`this ${this.constructor.name} was disposed; it cannot be used after dispose()`);
    return this.#blocks[0].ptr;
  }

  /** The blocks, one per segment. */
  protected segments(): readonly Block[] {
    this.live();
    return this.#blocks!;
  }

  /** Number of segments (1 unless the structure is larger than one wasm memory). */
  get segmentCount(): number {
    return this.segments().length;
  }

  /** The arena the first block lives in. @internal */
  get arena(): Arena {
    return this.segments()[0].arena;
  }

  /** Where batches for this structure are hashed: its own arena, or for a structure in segments or shared a pool arena of this thread. @internal */
  get batchArena(): Arena {
    const blocks = this.segments();
    return blocks.length === 1 && !blocks[0].arena.shared ? blocks[0].arena : defaultArena();
  }

  /** True when single keys go through the batch path too: the structure is in segments, or shared (its batch area holds hashes, not keys). */
  protected get viaBatch(): boolean {
    const blocks = this.segments();
    return blocks.length > 1 || blocks[0].arena.shared;
  }

  /** True for a structure in shared memory: share() gives a handle for other threads. */
  get shared(): boolean {
    return this.segments()[0].arena.shared;
  }

  /** The shared memories of the blocks, one per segment; an Error for a private structure. @internal */
  protected sharedMemories(): WebAssembly.Memory[] {
    const blocks = this.segments();
    if (!blocks[0].arena.shared) {
      throw new TypeError(`share() needs a ${this.constructor.name} created with { shared: true }; this one lives in memory private to its thread`);
    }
    return blocks.map((block) => block.arena.memory);
  }

  /** Keys counted in `size`: this object's own count, or for a shared structure the one every thread adds to. */
  protected get keyCount(): number {
    const arena = this.segments()[0].arena;
    return arena instanceof SharedArena ? arena.keyCount : this.#count;
  }

  protected addKeyCount(n: number): void {
    const arena = this.segments()[0].arena;
    if (arena instanceof SharedArena) arena.addKeyCount(n);
    else this.#count += n;
  }

  protected setKeyCount(n: number): void {
    const arena = this.segments()[0].arena;
    if (arena instanceof SharedArena) arena.setKeyCount(n);
    else this.#count = n;
  }

  /** The wasm instance of the first block's arena. */
  protected get core(): Core {
    return this.arena.core;
  }

  /** The kernel that runs operation `op` over a chunk of keys in `block`'s arena. */
  protected abstract blockKernel(op: number, block: Block): Kernel;

  /** Writes the segment of each key of a chunk, as u32, at chunk.scratch.ends (structures in segments only). */
  protected routeChunk(_chunk: Chunk): void {
    throw new Error(`${this.constructor.name} is not held in segments`);
  }

  /** The key hash the kernels expect, or null when they read key bytes themselves. */
  protected abstract get keyHash(): KeyHash | null;

  /** The kernel for `op`: the block's own, or for a structure in segments one that routes each key to its segment's. */
  protected kernel(op: number): Kernel {
    const blocks = this.segments();
    if (blocks.length === 1 && !blocks[0].arena.shared) return this.blockKernel(op, blocks[0]);
    const kernels = blocks.map((block) => this.blockKernel(op, block));
    const wide = op === OP_COUNT;
    if (blocks.length === 1) {
      // Shared: the chunk's keys go over to this thread's batch area in the shared memory, the answers come back.
      const { arena } = blocks[0];
      return (chunk) => {
        const saved = saveChunk(chunk, false);
        const home = chunk.scratch.arena;
        let total = 0;
        // Key bytes (the independent strategy) go in pieces when the chunk is larger than the batch area.
        for (const [from, to] of bytePieces(saved, scratchOf(arena).capacity)) {
          const whole = from === 0 && to === chunk.count;
          const placed = placeChunk(saved, whole ? null : Array.from({ length: to - from }, (_, j) => from + j), arena);
          total += kernels[0](placed);
          const out = placed.scratch.out;
          if (wide) home.u32().set(arena.u32().subarray(out >>> 2, (out >>> 2) + placed.count), (chunk.scratch.out >>> 2) + from);
          else home.u8().set(arena.u8().subarray(out, out + placed.count), chunk.scratch.out + from);
        }
        return total;
      };
    }
    const shared = blocks[0].arena.shared;
    return (chunk) => {
      // A shared structure takes this thread's batch area in every segment's memory before any segment's kernel
      // runs: when one cannot be taken (all in use), the batch fails having added nothing to the other segments.
      if (shared) for (const { arena } of blocks) scratchOf(arena);
      const home = chunk.scratch.arena;
      this.routeChunk(chunk);
      const ids = home.u32().slice(chunk.scratch.ends >>> 2, (chunk.scratch.ends >>> 2) + chunk.count);
      const saved = saveChunk(chunk);
      const picks: number[][] = blocks.map(() => []);
      for (let i = 0; i < ids.length; i++) picks[ids[i]].push(i);
      const answers = wide ? new Uint32Array(chunk.count) : new Uint8Array(chunk.count);
      let total = 0;
      for (let s = 0; s < blocks.length; s++) {
        if (picks[s].length === 0) continue;
        const { arena } = blocks[s];
        const placed = placeChunk(saved, picks[s], arena);
        total += kernels[s](placed);
        const out = placed.scratch.out;
        const got = wide ? arena.u32().subarray(out >>> 2, (out >>> 2) + placed.count) : arena.u8().subarray(out, out + placed.count);
        for (let j = 0; j < got.length; j++) answers[picks[s][j]] = got[j];
      }
      if (wide) home.u32().set(answers, chunk.scratch.out >>> 2);
      else home.u8().set(answers, chunk.scratch.out);
      return total;
    };
  }

  /** True when the key is probably present; false when it is definitely absent. (Each type answers single keys itself.) */
  abstract has(key: Key): boolean;

  /** Queries every key: 1 = probably present, 0 = definitely absent. */
  hasMany(keys: readonly Key[]): Uint8Array {
    return this.runOp(OP_HAS, { kind: "keys", keys }).answers;
  }

  /** Queries keys packed in one buffer: key i is bytes[ends[i−1] .. ends[i]) (key 0 starts at 0). */
  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.runOp(OP_HAS, { kind: "packed", bytes, ends }).answers;
  }

  /** Queries newline-delimited keys (a line without its "\n" and one trailing "\r"), split inside wasm: one 0/1 per line. */
  hasLines(buffer: Uint8Array): Uint8Array {
    return this.runOp(OP_HAS, { kind: "lines", buffer }).answers;
  }

  /** Queries integer keys (a Uint32Array or a BigUint64Array; a 64-bit mix of the value, not its bytes): 1 = probably present. */
  hasInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    this.checkIntKeys(keys);
    return this.runOp(OP_HAS, { kind: "ints", keys }).answers;
  }

  /** Throws the TypeError for integer keys this structure cannot take (a type other than u32/u64 arrays; the independent strategy). */
  protected checkIntKeys(keys: unknown): void {
    checkIntsKeys(keys);
  }

  /** Runs `op` over a batch; one byte per key (a u32 with `Answers` = Uint32Array), in `into` when given. */
  protected runOp<T extends Uint8Array | Uint32Array = Uint8Array>(
    op: number,
    source: KeySource,
    Answers: { new (length: number): T; readonly BYTES_PER_ELEMENT: number } = Uint8Array as never,
    wantEnds = false,
    into?: T,
  ): BatchResult<T> {
    this.checkShared(source);
    return runBatch(this.batchArena, this.keyHash, source, this.kernel(op), Answers, wantEnds, into);
  }

  /**
   * Runs `op` over newline-delimited keys and hands each piece's answers and
   * line ends to `visit` as views of wasm memory, valid only during the call
   * and until it calls a bloomkit method: line i of the piece ends at
   * offset + ends[i] in the buffer. `added` gets what the kernel returned for
   * each piece, before its visit.
   */
  protected runLinesEach(op: number, buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void, added?: (fresh: number) => void): void {
    this.#runLineChunks(op, buffer, (chunk) => {
      const memory = chunk.scratch.arena.memory.buffer;
      visit(new Uint8Array(memory, chunk.scratch.out, chunk.count), new Uint32Array(memory, chunk.scratch.lineEnds, chunk.count), chunk.lineBase);
    }, added);
  }

  /** Runs `op` over the lines of `buffer` and hands each chunk to `visit` once it is answered and `added` has what the kernel returned. */
  #runLineChunks(op: number, buffer: Uint8Array, visit: (chunk: Chunk) => void, added?: (fresh: number) => void): void {
    this.checkShared({ kind: "lines", buffer });
    const kernel = this.kernel(op);
    forEachChunk(this.batchArena, this.keyHash, { kind: "lines", buffer }, (chunk) => {
      // A visit may have disposed this structure: the kernel holds the addresses of blocks given back by then,
      // which a new structure may hold already (or, shared, this thread's batch area, which another filter
      // object or thread may have taken). Nothing more is read or written: the disposed TypeError.
      this.live();
      const fresh = kernel(chunk);
      // Counted before the visit, which may throw or dispose this structure: the piece's keys are added by now
      // (and a shared filter's other objects go on counting them).
      added?.(fresh);
      holdScratchDuring(chunk.scratch.arena, () => visit(chunk));
    });
  }

  /**
   * OP_ADD over the lines of `buffer`, chunk by chunk, handing `visit` each
   * chunk's lines answered 0 (new), in order and with their line endings,
   * and how many there were of how many (dedupLines). The kernels that take
   * key hashes leave the chunk's bytes as they were copied in, so wasm moves
   * the new lines together there; the independent strategy's kernels read
   * keys compacted in place, so its new lines are gathered from `buffer`.
   * `added` gets each piece's keys that set a new bit, before its visit.
   */
  protected runDedupLines(buffer: Uint8Array, visit: (newLines: Uint8Array, newCount: number, lineCount: number) => void, added: (fresh: number) => void): void {
    if (this.keyHash === null) {
      let gathered = new Uint8Array(0);
      this.runLinesEach(OP_ADD, buffer, (answers, ends, offset) => {
        let used = 0;
        let start = offset;
        for (let i = 0; i < answers.length; i++) {
          const end = offset + ends[i];
          if (answers[i] === 0) {
            if (used + end - start > gathered.length) {
              const larger = new Uint8Array(Math.max(2 * gathered.length, used + end - start, 1 << 16));
              larger.set(gathered.subarray(0, used));
              gathered = larger;
            }
            gathered.set(buffer.subarray(start, end), used);
            used += end - start;
          }
          start = end;
        }
        visit(gathered.subarray(0, used), answers.length - answers.reduce((sum, answer) => sum + answer, 0), answers.length);
      }, added);
      return;
    }
    this.#runLineChunks(OP_ADD, buffer, ({ scratch, count }) => {
      const { arena } = scratch;
      const fresh = arena.core.keepLines(scratch.bytes, scratch.lineEnds, scratch.out, count, 0, scratch.consumed);
      const bytes = arena.u32()[scratch.consumed >>> 2];
      visit(new Uint8Array(arena.memory.buffer, scratch.bytes, bytes), fresh, count);
    }, added);
  }

  /** For a shared structure whose kernel reads key bytes: every key must fit this thread's batch area, checked before anything runs. */
  protected checkShared(source: KeySource): void {
    const blocks = this.segments();
    if (this.keyHash === null && blocks[0].arena.shared) checkKeyLengths(source, scratchOf(blocks[0].arena).capacity);
  }

  /** Writes one key into the first block's arena's scratch area: its address and length for a single-key kernel. */
  protected oneKey(key: unknown): { ptr: number; length: number; out: number } {
    const { scratch, length } = writeKey(this.arena, key);
    return { ptr: scratch.bytes, length, out: scratch.out };
  }

  /**
   * The one-key fast path, when `key` can take it: a string, in Node, for a
   * structure in one private block. The caller writes the key with
   * text.utf8Write and calls its kernel at the addresses given, instead of
   * looking them up through oneKey on every call. Measured on 1,000 URL
   * keys in cache, both builds in one process, 30 alternating passes each
   * (median): has, has of absent keys and testAndAdd took 4-17% less time
   * under Node 20 (BloomFilter has 144 -> 139 ns, CountingBloomFilter 165 ->
   * 149; cuckoo 0-2%) and 7-16% less under Node 24 (BloomFilter has 103 ->
   * 93 ns), of which encoding the key is 50-75 ns. Undefined for every
   * other key, and when the path lapsed (the arena took a larger scratch
   * area, or its memory grew): the caller then takes oneKey, which checks
   * the key and says why it cannot be used.
   */
  protected oneString(key: Key): OneString | undefined {
    const one = this.#oneString;
    if (one && roomTakes(one.room, key)) return one;
    return one === null || typeof key !== "string" ? undefined : this.#takeOneString(key);
  }

  /** Builds (again) the fast path for a string key, when this structure can take it. */
  #takeOneString(key: string): OneString | undefined {
    const blocks = this.#blocks;
    if (blocks === undefined) return undefined;
    if (this.viaBatch) {
      this.#oneString = null;
      return undefined;
    }
    // The area as it is: a key longer than it holds takes oneKey, which makes the area as large as the key's
    // UTF-8 bytes (not 3 bytes a character), or says why the memory has no room; the path is built again after.
    const room = keyRoom(scratchOf(blocks[0].arena));
    if (room === undefined) {
      this.#oneString = null;
      return undefined;
    }
    const one: OneString = { room, core: blocks[0].arena.core, filter: blocks[0].ptr };
    this.#oneString = one;
    return roomTakes(room, key) ? one : undefined;
  }

  /** Releases the wasm memory now; any later use throws. Calling it again does nothing. */
  dispose(): void {
    this.#oneString = undefined;
    if (this.#blocks === undefined) return;
    for (const block of this.#blocks) disown(this, block);
    this.#blocks = undefined;
  }

  /** True once dispose() ran. */
  get disposed(): boolean {
    return this.#blocks === undefined;
  }
}
