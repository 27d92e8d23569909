// A shared arena: one filter block (or one segment of a filter) in a
// SharedArrayBuffer-backed wasm memory that several threads use at once.
// Every thread has an Arena of its own over the same memory (its own instance
// of the core's shared build) and its own batch area (scratch) inside that
// memory, since a kernel reads keys and writes answers only in the memory it
// runs in. The memory is laid out once, by the thread that creates the filter:
//
//   [static data of the core | control area | block | batch area 0 | 1 | …]
//
// The control area, at 64 KiB (the core's static data fits its first page),
// holds the layout, which segment of which filter the block is, the
// filter's key count and one state word per batch area. A thread takes a batch area with an atomic compare-exchange on its
// state the first time one of its filter objects over the memory runs a
// batch; its other objects over the same memory use the same area, and it
// is given back when the last of them is disposed or collected. The memory
// grows (atomically, in wasm) to cover an area the first time one is taken,
// up to a maximum fixed at creation.
import { Arena, ARENA_MAX_BYTES, MAX_PAGES, PAGE_BYTES } from "./arena.js";
import { formatBytes } from "./errors.js";
import { sharedBuildNumber } from "./wasm.js";

/** Most threads that can work on one shared memory at once (each holds one batch area while its filter is alive). */
export const MAX_SCRATCH_SLOTS = 256;
/** Marks a memory laid out by SharedArena ("BKSH"). */
const MAGIC = 0x48534b42;
/** Where the control area starts: above the core's static data, which fits its first page. */
const CONTROL = PAGE_BYTES;
/**
 * u32 words of the control area: magic, batch-area bytes, first batch area, their number, block address, block
 * bytes, then which segment of how many the block is (segment | segments << 16) and a number shared by the
 * memories of one filter, so that a handle's memories are known to be one filter's, all of them, in order.
 */
const W_MAGIC = 0;
const W_SLOT_BYTES = 1;
const W_SLOTS = 2;
const W_SLOT_COUNT = 3;
const W_BLOCK = 4;
const W_BLOCK_BYTES = 5;
const W_SEGMENT = 6;
const W_FILTER = 7;
/** Two words of a random number of this memory alone: how a thread knows its arenas over the same memory (each fromShared makes one). */
const W_NONCE = 10;
/** The number of the threads build that laid the memory out (sharedBuildNumber): only that build may be instantiated over it. */
const W_BUILD = 12;
/** The key count (the filter's size) is a u64 at this byte of the control area. */
const COUNT_BYTE = 32;
/** The batch areas' state words (u32 each) start at this byte of the control area. */
const STATES_BYTE = 64;
const CONTROL_BYTES = STATES_BYTE + 4 * MAX_SCRATCH_SLOTS;
/** A batch area's states: never taken (its memory may not exist yet), in use by a thread, given back. */
const UNUSED = 0;
export const BUSY = 1;
export const FREE = 2;
/** Where the batch areas' state words (u32) are in a shared memory: tests stand in for other threads with them. @internal */
export const BATCH_STATES_BYTE = CONTROL + STATES_BYTE;

/**
 * The batch area this thread holds in each shared memory it uses, by the
 * memory's random number, and how many of its arenas use it. One area per
 * thread, however many filter objects: a worker that opens the handle for
 * every task and drops the filter ran out of the 256 areas before the
 * garbage collector gave them back.
 */
const threadSlots = new Map<string, { slot: number; users: number }>();

/** A random u32 for a memory's number: crypto's where there is one. */
function randomWord(): number {
  const crypto = (globalThis as { crypto?: { getRandomValues(array: Uint32Array): Uint32Array } }).crypto;
  return crypto ? crypto.getRandomValues(new Uint32Array(1))[0] : Math.floor(Math.random() * 2 ** 32);
}

/** Rounds up to 64 bytes (a cache line). */
function aligned(bytes: number): number {
  return Math.ceil(bytes / 64) * 64;
}

/** Where the block starts in every shared memory. */
const BLOCK = aligned(CONTROL + CONTROL_BYTES);

/**
 * Batch areas a shared memory holding a block of `blockBytes` has room for,
 * each of `slotBytes`: at most MAX_SCRATCH_SLOTS, fewer when the block leaves
 * less than that many areas' worth of the 4 GiB a wasm memory can reach (41
 * for a segment of 12.8 GB / 3, 3 for a segment of nearly 4 GiB). Each thread
 * that uses the filter holds one, so this is the most threads at once.
 */
export function batchAreaRoom(blockBytes: number, slotBytes: number): number {
  return Math.max(0, Math.min(MAX_SCRATCH_SLOTS, Math.floor((ARENA_MAX_BYTES - aligned(BLOCK + blockBytes)) / aligned(slotBytes))));
}

/**
 * Threads that can start using the shared filter whose memories (a share()
 * handle's) these are: in each memory, its batch areas that no thread holds
 * now; the fewest of them. The CLI sizes its worker pool by it, since a worker
 * past it fails at its first batch. Left in the declarations (no internal
 * tag), so that the CLI compiles against it through package.json's private
 * "imports"; the package's exports do not reach this module.
 */
export function freeBatchAreas(memories: readonly { readonly buffer: ArrayBufferLike }[]): number {
  let fewest = MAX_SCRATCH_SLOTS;
  for (const memory of memories) {
    const words = new Uint32Array(memory.buffer, CONTROL, CONTROL_BYTES / 4);
    if (Atomics.load(words, W_MAGIC) !== MAGIC) throw new TypeError("not the memory of a shared filter (share().memories)");
    const count = words[W_SLOT_COUNT];
    let free = 0;
    for (let i = 0; i < count; i++) if (Atomics.load(words, STATES_BYTE / 4 + i) !== BUSY) free++;
    fewest = Math.min(fewest, free);
  }
  return fewest;
}

export class SharedArena extends Arena {
  /** Address and size of the block this memory holds. */
  readonly block: number;
  readonly blockBytes: number;
  /** Bytes of one batch area. */
  readonly slotBytes: number;
  /** Batch areas the memory has room for: the most threads that can work on it at once. */
  readonly slotCount: number;
  /** Which segment of its filter the block is (0 for a filter in one memory), of how many. */
  readonly segment: number;
  readonly segments: number;
  /** The number the memories of one filter share. */
  readonly filter: number;
  readonly #slots: number;
  readonly #words: Uint32Array;
  readonly #count: BigInt64Array;
  /** This memory's key in threadSlots. */
  readonly #nonce: string;
  /** This thread's batch area (its index), or −1 before the first batch and after release. */
  #slot = -1;
  #released = false;

  private constructor(memory: WebAssembly.Memory) {
    super(0, true, memory);
    const buffer = memory.buffer;
    // Unsigned: addresses reach 4 GiB.
    this.#words = new Uint32Array(buffer, CONTROL, CONTROL_BYTES / 4);
    this.#count = new BigInt64Array(buffer, CONTROL + COUNT_BYTE, 1);
    if (this.base > CONTROL) throw new Error(`internal: the core's static data (${this.base} bytes) overlaps the shared control area`);
    this.slotBytes = this.#words[W_SLOT_BYTES];
    this.#slots = this.#words[W_SLOTS];
    this.slotCount = this.#words[W_SLOT_COUNT];
    this.block = this.#words[W_BLOCK];
    this.blockBytes = this.#words[W_BLOCK_BYTES];
    this.segment = this.#words[W_SEGMENT] & 0xffff;
    this.segments = this.#words[W_SEGMENT] >>> 16;
    this.filter = this.#words[W_FILTER];
    this.#nonce = `${this.#words[W_NONCE]}:${this.#words[W_NONCE + 1]}`;
  }

  /**
   * A new shared memory for a block of `blockBytes` (zeroed), with room for
   * up to MAX_SCRATCH_SLOTS batch areas of `slotBytes`: its maximum is fixed
   * here, so the memory never moves and every thread sees the same bytes.
   * The block is segment `segment` of `segments` of the filter whose
   * memories all record the number `filter`.
   */
  static create(blockBytes: number, slotBytes: number, segment = 0, segments = 1, filter = 0): SharedArena {
    const slotSize = aligned(slotBytes);
    const slots = aligned(BLOCK + blockBytes);
    const slotCount = batchAreaRoom(blockBytes, slotBytes);
    if (slotCount < 1) throw new RangeError(`a shared block of ${formatBytes(blockBytes)} leaves no room for a batch area in one wasm memory`);
    const initial = Math.ceil(slots / PAGE_BYTES);
    const maximum = Math.min(MAX_PAGES, Math.ceil((slots + slotCount * slotSize) / PAGE_BYTES));
    const build = sharedBuildNumber();
    const memory = new WebAssembly.Memory({ initial, maximum, shared: true });
    const words = new Uint32Array(memory.buffer, CONTROL, W_BUILD + 1);
    words[W_SLOT_BYTES] = slotSize;
    words[W_SLOTS] = slots;
    words[W_SLOT_COUNT] = slotCount;
    words[W_BLOCK] = BLOCK;
    words[W_BLOCK_BYTES] = blockBytes;
    words[W_SEGMENT] = segment | (segments << 16);
    words[W_FILTER] = filter;
    words[W_NONCE] = randomWord();
    words[W_NONCE + 1] = randomWord();
    words[W_BUILD] = build;
    // Written last: a memory another thread receives is whole once it carries the mark.
    Atomics.store(words, W_MAGIC, MAGIC);
    return new SharedArena(memory);
  }

  /**
   * An arena of this thread over a memory from SharedArena.create (received in a share() handle); null when it is
   * not one, or when another build of bloomkit laid it out (checked before this build's core is put over it).
   */
  static attach(memory: WebAssembly.Memory): SharedArena | null {
    const build = SharedArena.buildOf(memory);
    return build !== undefined && build === sharedBuildNumber() ? new SharedArena(memory) : null;
  }

  /** The number of the threads build that laid out `memory` (0 for one made before builds were recorded); undefined when it is not a shared filter's memory. */
  static buildOf(memory: WebAssembly.Memory): number | undefined {
    const buffer = memory.buffer as ArrayBufferLike;
    if (!(typeof SharedArrayBuffer === "function" && buffer instanceof SharedArrayBuffer)) return undefined;
    if (buffer.byteLength < CONTROL + CONTROL_BYTES) return undefined;
    const words = new Uint32Array(buffer, CONTROL, CONTROL_BYTES / 4);
    return Atomics.load(words, W_MAGIC) === MAGIC ? words[W_BUILD] : undefined;
  }

  /** Nothing else is placed in a shared memory: filters made from a shared one (union, fold, deserialize) are private. */
  override canFit(): boolean {
    return false;
  }

  override growthFor(): number {
    return Infinity;
  }

  override alloc(): number {
    return 0;
  }

  /** This filter object is done with the block (disposed or collected): the thread's batch area goes back once no other object of it uses it. Other threads keep working. */
  override free(ptr: number): void {
    if (ptr !== this.block || this.#released) return;
    this.#released = true;
    const mine = threadSlots.get(this.#nonce);
    if (this.#slot >= 0 && mine && --mine.users === 0) {
      threadSlots.delete(this.#nonce);
      Atomics.store(this.#words, STATES_BYTE / 4 + this.#slot, FREE);
    }
    this.#slot = -1;
  }

  /**
   * This thread's batch area (slotBytes at the address returned): the one
   * it holds in this memory already, else one given back by a thread that
   * finished, else one never used, for which the memory grows. A RangeError
   * when every one is taken.
   */
  claimScratch(): number {
    if (this.#released) throw new Error("internal: a batch on a released shared arena");
    if (this.#slot >= 0) return this.#slots + this.#slot * this.slotBytes;
    const mine = threadSlots.get(this.#nonce);
    if (mine) {
      const ptr = this.#slots + mine.slot * this.slotBytes;
      // Grown already, by this thread: only this arena's views catch up.
      this.#cover(ptr + this.slotBytes);
      mine.users++;
      this.#slot = mine.slot;
      return ptr;
    }
    const states = STATES_BYTE / 4;
    for (const from of [FREE, UNUSED]) {
      for (let i = 0; i < this.slotCount; i++) {
        if (Atomics.compareExchange(this.#words, states + i, from, BUSY) !== from) continue;
        const ptr = this.#slots + i * this.slotBytes;
        if (!this.#cover(ptr + this.slotBytes)) {
          Atomics.store(this.#words, states + i, from);
          throw new RangeError(`cannot grow a shared filter's memory by ${formatBytes(this.slotBytes)} for this thread's batch area: the engine refused`);
        }
        this.#slot = i;
        threadSlots.set(this.#nonce, { slot: i, users: 1 });
        return ptr;
      }
    }
    throw new RangeError(
      `all ${this.slotCount} batch areas of this shared filter's memory are taken: at most ${this.slotCount} threads can use it at once ` +
        `(dispose() the filter in threads that are done with it; a worker that ends without dispose() keeps its area)`,
    );
  }

  /** Grows the memory (if no thread did already) to at least `end` bytes; false when the engine refuses. */
  #cover(end: number): boolean {
    const wanted = Math.ceil(end / PAGE_BYTES);
    // grow(0) gives the memory's size now: buffer.byteLength can lag behind another thread's grow, and a grow
    // sized from it would ask for too much near the maximum (seen with 256 workers taking batch areas at once).
    for (let pages = this.memory.grow(0); pages < wanted; ) {
      try {
        this.memory.grow(wanted - pages);
        break;
      } catch {
        // Another thread may have grown it meanwhile: try again from the new size, give up when nothing changed.
        const now = this.memory.grow(0);
        if (now === pages) return false;
        pages = now;
      }
    }
    this.refreshViews();
    return true;
  }

  /** The filter's key count, as every thread adds to it. */
  get keyCount(): number {
    return Number(Atomics.load(this.#count, 0));
  }

  addKeyCount(n: number): void {
    if (n !== 0) Atomics.add(this.#count, 0, BigInt(n));
  }

  setKeyCount(n: number): void {
    Atomics.store(this.#count, 0, BigInt(n));
  }
}
