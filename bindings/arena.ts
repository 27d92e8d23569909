// An arena is one instance of the wasm core over a memory of its own, and the
// blocks placed in that memory. wasm32 addresses one memory of at most 4 GiB,
// so bloomkit keeps many: small filters share pool arenas, each large filter
// (or each segment of one above 4 GiB) gets an arena to itself, and the
// memory goes back to the system when that filter is gone. Addresses are
// plain non-negative JS numbers below 2^32; blocks are laid out here, in JS,
// since the kernels never allocate.
import { instantiate } from "./wasm.js";
import type { Core } from "./core.generated.js";

export const PAGE_BYTES = 65536;
/** Pages of the largest wasm32 memory. */
export const MAX_PAGES = 65536;
/** Bytes of the largest wasm32 memory: 4 GiB. */
export const ARENA_MAX_BYTES = MAX_PAGES * PAGE_BYTES;
/** Block alignment: a cache line, so split-block filters' 32-byte blocks never straddle two. */
const ALIGN = 64;
/** Memory grows in steps of at least this many pages (1 MiB), so small blocks do not grow it one page at a time. */
const GROW_PAGES = 16;

/** Rounds up to the block alignment. */
function aligned(bytes: number): number {
  return Math.ceil(bytes / ALIGN) * ALIGN;
}

/** A freed range below the arena's top, kept for reuse. */
interface Hole {
  ptr: number;
  size: number;
}

export class Arena {
  readonly core: Core;
  /**
   * The memory the core runs over. @internal: left out of the shipped
   * declarations, which then name no WebAssembly type, so an app compiles
   * with Node's types and no DOM lib.
   */
  readonly memory: WebAssembly.Memory;
  /** True for a SharedArrayBuffer-backed memory that threads can share. */
  readonly shared: boolean;
  /** The first address the arena hands out (after the core's static data). */
  readonly base: number;
  #top: number;
  readonly #sizes = new Map<number, number>();
  #holes: Hole[] = [];
  #u8: Uint8Array;
  #u32: Uint32Array;
  #f64: Float64Array;
  /** The arena's scratch area (bindings/keys.ts lays it out): a field, not a map, since every key operation looks it up. */
  scratch: unknown = undefined;
  /** Callbacks running in the middle of a batch over the scratch area (keys.ts holdScratchDuring): while any runs, a replaced area is not freed. */
  scratchHolds = 0;
  /** Batches reading their keys into the scratch area (batch.ts keysChunks), which they take from the arena meanwhile. */
  readingKeys = 0;
  /** Scratch areas replaced while held, freed when the last hold ends. */
  readonly scratchToFree: number[] = [];
  /**
   * Set on an arena made for one large block (memory.ts): when its last block
   * is freed it is retired, never used again, rather than zeroed for reuse.
   * Zeroing would write every page of it: a 4 GiB filter whose stream ended
   * after its header took 3.1 s and 2.1 GB of resident memory to give up.
   */
  retireWhenEmpty = false;
  /** Times this arena's memory grew: a batch writing through views of it checks this after each key it reads (keysChunks). */
  grows = 0;
  #retired = false;

  /**
   * An arena whose memory starts with room for `bytes` bytes of blocks; over
   * `memory` when given (a shared one: see SharedArena), instantiating the
   * core's shared build when `shared`. @internal
   */
  constructor(bytes = 0, shared = false, memory?: WebAssembly.Memory) {
    // The static data of the core fits its first page; the first call tells where it ends.
    const pages = Math.min(MAX_PAGES, Math.max(1, Math.ceil((PAGE_BYTES + bytes) / PAGE_BYTES)));
    this.memory =
      memory ??
      (shared ? new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES, shared: true }) : new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES }));
    this.shared = shared;
    this.core = instantiate(this.memory, shared);
    this.base = aligned(this.core.heapBase() >>> 0);
    this.#top = this.base;
    this.#u8 = new Uint8Array(this.memory.buffer);
    this.#u32 = new Uint32Array(this.memory.buffer);
    this.#f64 = new Float64Array(this.memory.buffer);
  }

  /** Bytes of the memory now. */
  get memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Bytes in live blocks. */
  get usedBytes(): number {
    let total = 0;
    for (const size of this.#sizes.values()) total += size;
    return total;
  }

  /** Live blocks. */
  get blockCount(): number {
    return this.#sizes.size;
  }

  /** Bytes this arena would still have to grow by to place a block of `bytes` (0 when a hole fits it). */
  growthFor(bytes: number): number {
    const size = aligned(Math.max(bytes, 1));
    if (this.#holes.some((hole) => hole.size >= size)) return 0;
    return Math.max(0, this.#top + size - this.memoryBytes);
  }

  /** True when a block of `bytes` fits below 4 GiB. */
  canFit(bytes: number): boolean {
    if (this.#retired) return false;
    const size = aligned(Math.max(bytes, 1));
    return this.#holes.some((hole) => hole.size >= size) || this.#top + size <= ARENA_MAX_BYTES;
  }

  /**
   * A zeroed block of `bytes` bytes, 64-byte aligned; 0 when it does not fit
   * below 4 GiB or the engine refuses to grow the memory. Nothing changes then.
   */
  alloc(bytes: number): number {
    if (this.#retired) return 0;
    const size = aligned(Math.max(bytes, 1));
    const at = this.#holes.findIndex((hole) => hole.size >= size);
    if (at >= 0) {
      const hole = this.#holes[at];
      const ptr = hole.ptr;
      if (hole.size === size) this.#holes.splice(at, 1);
      else this.#holes[at] = { ptr: ptr + size, size: hole.size - size };
      this.u8().fill(0, ptr, ptr + size);
      this.#sizes.set(ptr, size);
      return ptr;
    }
    const ptr = this.#top;
    const end = ptr + size;
    if (end > ARENA_MAX_BYTES) return 0;
    if (end > this.memoryBytes && !this.#grow(end)) return 0;
    // Memory above the top was never handed out since it grew, or was zeroed when a block below the top was freed.
    this.#top = end;
    this.#sizes.set(ptr, size);
    return ptr;
  }

  /** Returns a block from alloc() to the arena. */
  free(ptr: number): void {
    const size = this.#sizes.get(ptr);
    if (size === undefined) return;
    this.#sizes.delete(ptr);
    if (this.retireWhenEmpty && this.#sizes.size === 0) {
      this.#retired = true;
      return;
    }
    if (ptr + size === this.#top) {
      // The top block: lower the top past it and past any hole that now ends there.
      this.#top = ptr;
      const last = this.#holes[this.#holes.length - 1];
      if (last && last.ptr + last.size === this.#top) {
        this.#top = last.ptr;
        this.#holes.pop();
      }
      // Above the top is zero again, as alloc() assumes.
      this.u8().fill(0, this.#top, ptr + size);
      return;
    }
    let at = this.#holes.findIndex((hole) => hole.ptr > ptr);
    if (at < 0) at = this.#holes.length;
    this.#holes.splice(at, 0, { ptr, size });
    // Merge with the neighbours it touches.
    const next = this.#holes[at + 1];
    if (next && ptr + size === next.ptr) {
      this.#holes[at].size += next.size;
      this.#holes.splice(at + 1, 1);
    }
    const previous = this.#holes[at - 1];
    if (previous && previous.ptr + previous.size === ptr) {
      previous.size += this.#holes[at].size;
      this.#holes.splice(at, 1);
    }
  }

  #grow(end: number): boolean {
    const needed = Math.ceil((end - this.memoryBytes) / PAGE_BYTES);
    const pages = Math.min(MAX_PAGES - this.memoryBytes / PAGE_BYTES, Math.max(needed, GROW_PAGES));
    try {
      this.memory.grow(pages);
    } catch {
      return false;
    }
    this.grows++;
    this.#refresh();
    return true;
  }

  /** Views of the memory as it is now (after this or another thread grew it). */
  protected refreshViews(): void {
    this.#refresh();
  }

  #refresh(): void {
    this.#u8 = new Uint8Array(this.memory.buffer);
    this.#u32 = new Uint32Array(this.memory.buffer);
    this.#f64 = new Float64Array(this.memory.buffer);
  }

  /** A byte view of the whole memory (indices are addresses). */
  u8(): Uint8Array {
    // Only alloc() grows the memory, and it refreshes the views; a private memory's old views read as empty after a grow.
    if (this.#u8.byteLength === 0) this.#refresh();
    return this.#u8;
  }

  /** A u32 view of the whole memory (index = address / 4). */
  u32(): Uint32Array {
    if (this.#u32.byteLength === 0) this.#refresh();
    return this.#u32;
  }

  /** An f64 view of the whole memory (index = address / 8). */
  f64(): Float64Array {
    if (this.#f64.byteLength === 0) this.#refresh();
    return this.#f64;
  }

  /** The u64 at `ptr` (8-byte aligned), as a bigint. */
  readU64(ptr: number): bigint {
    const words = this.u32();
    return (BigInt(words[(ptr >>> 2) + 1]) << 32n) | BigInt(words[ptr >>> 2]);
  }
}
