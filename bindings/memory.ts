// Where blocks of wasm memory go, who owns them, and when they are freed.
// Small blocks share pool arenas; a block of DEDICATED_BYTES or more gets an
// arena of its own, so its memory returns to the system when it is freed.
// Every request is checked against the memory the machine has free before
// anything is allocated.
import { Arena, ARENA_MAX_BYTES, PAGE_BYTES } from "./arena.js";
import { SharedArena } from "./shared-arena.js";
import { formatBytes } from "./errors.js";

/**
 * Blocks at least this large (64 MiB) get an arena of their own. A new
 * instance costs about a millisecond and a few hundred KiB of compiled-code
 * bookkeeping, nothing per key; smaller blocks share pools so that thousands
 * of small filters do not each pay for an instance.
 */
export const DEDICATED_BYTES = 64 * 1024 * 1024;
/** Room kept in every arena for its scratch area (keys and answers of a batch). */
export const SCRATCH_RESERVE = 2 * 1024 * 1024;
/** The largest block one arena can hold: 4 GiB less a page of static data and the scratch reserve. */
export const MAX_BLOCK_BYTES = ARENA_MAX_BYTES - PAGE_BYTES - SCRATCH_RESERVE;

/** What a block is for, in words for an error message: a string, or a function that builds it only when a message needs it. */
export type What = string | (() => string);

/** The words of a What. */
export function named(what: What): string {
  return typeof what === "function" ? what() : what;
}

/**
 * Where to place a filter computed from a block of `arena` (a union, an
 * intersection, a fold): beside it when `arena` is a pool, so that one kernel
 * call reads both; elsewhere when it is the arena of a large filter alone,
 * whose whole memory the new filter would otherwise keep alive after that
 * filter is disposed (a 400 MiB filter folded by 8 and disposed kept 578 MB
 * resident for the 50 MiB fold).
 */
export function placeBeside(arena: Arena): Arena | undefined {
  return arena.retireWhenEmpty ? undefined : arena;
}

/** A block of wasm memory: its arena and address. */
export interface Block {
  readonly arena: Arena;
  readonly ptr: number;
  readonly bytes: number;
}

const pools: Arena[] = [];

/** The first pool arena: where hashing, checksums and other work without a filter of its own run. */
export function defaultArena(): Arena {
  if (pools.length === 0) pools.push(newPool());
  return pools[0];
}

/**
 * A new pool arena of at least `bytes`. The engine refuses a wasm memory where
 * the address space is limited (`ulimit -v`: each memory reserves gigabytes of
 * it) with its own words, "WebAssembly.Memory(): could not allocate memory":
 * said here in ours, naming what needed it.
 */
function newPool(bytes?: number, what?: What): Arena {
  try {
    return new Arena(bytes);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const needed = bytes === undefined ? "" : ` of ${formatBytes(bytes)}`;
    throw new RangeError(`cannot make a wasm memory${needed}${what === undefined ? "" : ` for ${named(what)}`}: the engine refused it (${error.message}); a limit on this process's address space (ulimit -v) can cause this`);
  }
}

interface ProcessWithMemory {
  availableMemory?: () => number;
  getBuiltinModule?: (name: string) => { freemem(): number } | undefined;
}

/** Bytes of all pool arenas' memories (where filters below DEDICATED_BYTES live). @internal */
export function poolBytes(): number {
  return pools.reduce((sum, pool) => sum + pool.memoryBytes, 0);
}

/** Bytes of memory the system can still give this process, or Infinity where the platform does not say (browsers). */
export function freeMemory(): number {
  const process = (globalThis as { process?: ProcessWithMemory }).process;
  if (!process) return Infinity;
  // availableMemory() also honours a container's limit (Node ≥ 20.13); freemem() is MemAvailable on Linux.
  const available = process.availableMemory?.() ?? process.getBuiltinModule?.("node:os")?.freemem();
  return available === undefined || !(available > 0) ? Infinity : available;
}

/**
 * Growth below this (16 MiB) is not checked against the free memory: asking
 * the system costs about 90 µs (it reads the container's limits), more than
 * creating a small filter, and the engine's own refusal is caught anyway.
 */
const CHECKED_GROWTH_BYTES = 16 * 1024 * 1024;

/** Throws the RangeError for a request of `bytes` that the machine cannot serve now. */
function checkFree(bytes: number, what: What): void {
  if (bytes < CHECKED_GROWTH_BYTES) return;
  const free = freeMemory();
  if (bytes > free) {
    throw new RangeError(
      `cannot allocate ${formatBytes(bytes)} for ${named(what)}: only ${formatBytes(free)} of memory is free on this machine ` +
        `(dispose() filters you no longer need; dropped ones are freed only after the garbage collector finds them)`,
    );
  }
}

/**
 * Allocates `bytes` zeroed bytes for `what`, in `near`'s arena when given and
 * it has room (kernels that read two filters need them in one memory), else
 * by size: a pool arena or an arena of its own. Throws a RangeError that says
 * why, and changes nothing, when it cannot.
 */
export function allocate(bytes: number, what: What, near?: Arena): Block {
  if (!(bytes <= MAX_BLOCK_BYTES)) {
    throw new RangeError(`${named(what)} needs ${formatBytes(bytes)}; one wasm memory block holds at most ${formatBytes(MAX_BLOCK_BYTES)}`);
  }
  if (near && near.canFit(bytes + SCRATCH_RESERVE)) {
    checkFree(near.growthFor(bytes), what);
    const ptr = near.alloc(bytes);
    if (ptr !== 0) return { arena: near, ptr, bytes };
  }
  if (bytes >= DEDICATED_BYTES) {
    checkFree(bytes, what);
    let arena: Arena;
    try {
      arena = new Arena(bytes + SCRATCH_RESERVE);
      arena.retireWhenEmpty = true;
    } catch {
      throw new RangeError(`cannot allocate ${formatBytes(bytes)} for ${named(what)}: the engine refused a wasm memory of that size`);
    }
    const ptr = arena.alloc(bytes);
    if (ptr === 0) throw new RangeError(`cannot allocate ${formatBytes(bytes)} for ${named(what)}: the engine refused to grow a wasm memory to that size`);
    return { arena, ptr, bytes };
  }
  for (const pool of pools.length ? pools : [defaultArena()]) {
    if (!pool.canFit(bytes + SCRATCH_RESERVE)) continue;
    checkFree(pool.growthFor(bytes), what);
    const ptr = pool.alloc(bytes);
    if (ptr !== 0) return { arena: pool, ptr, bytes };
  }
  checkFree(bytes, what);
  const pool = newPool(bytes + SCRATCH_RESERVE, what);
  const ptr = pool.alloc(bytes);
  if (ptr === 0) throw new RangeError(`cannot allocate ${formatBytes(bytes)} for ${named(what)}: the engine refused to grow a wasm memory`);
  pools.push(pool);
  return { arena: pool, ptr, bytes };
}

/** Throws a TypeError for `{ shared: true }` where threads cannot share memory (no SharedArrayBuffer, or a page that is not cross-origin isolated): the option cannot be met here. */
export function checkSharable(): void {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  if (typeof SharedArrayBuffer !== "function" || isolated === false) {
    throw new TypeError(
      "{ shared: true } needs SharedArrayBuffer, which " +
        (isolated === false
          ? "this page does not get: serve it cross-origin isolated (headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp, as npm start does)"
          : "this JavaScript environment does not offer"),
    );
  }
}

/** Where a shared block stands in its filter: segment `segment` of `segments`, in memories that all record `filter`. */
export interface SharedPlace {
  readonly segment: number;
  readonly segments: number;
  readonly filter: number;
}

/**
 * Allocates `bytes` zeroed bytes for `what` in a new shared memory of its
 * own, with batch areas of `slotBytes` for the threads that will use it.
 * Throws an Error where memory cannot be shared, a RangeError that says why
 * when it cannot allocate.
 */
export function allocateShared(bytes: number, what: What, slotBytes: number, place: SharedPlace = { segment: 0, segments: 1, filter: 0 }): Block {
  checkSharable();
  if (!(bytes <= MAX_BLOCK_BYTES)) {
    throw new RangeError(`${named(what)} needs ${formatBytes(bytes)}; one wasm memory block holds at most ${formatBytes(MAX_BLOCK_BYTES)}`);
  }
  checkFree(bytes + slotBytes, what);
  let arena: SharedArena;
  try {
    arena = SharedArena.create(bytes, slotBytes, place.segment, place.segments, place.filter);
  } catch (error) {
    // The engine refuses a memory with a RangeError; anything else (the threads build not compiling) says itself what failed.
    if (!(error instanceof RangeError) || /batch area/.test(error.message)) throw error;
    throw new RangeError(`cannot allocate ${formatBytes(bytes)} for ${named(what)}: the engine refused a shared wasm memory of that size`);
  }
  return { arena, ptr: arena.block, bytes };
}

/** This thread's Block over a shared memory from allocateShared, or null when `memory` is not one. */
export function attachShared(memory: unknown): Block | null {
  if (!(memory instanceof WebAssembly.Memory)) return null;
  const arena = SharedArena.attach(memory);
  return arena && { arena, ptr: arena.block, bytes: arena.blockBytes };
}

const released = new FinalizationRegistry<{ arena: Arena; ptr: number }>(({ arena, ptr }) => arena.free(ptr));

// The garbage collector cannot see blocks in a pool: a dropped filter looks
// like a few bytes of JS and might not be collected until memory runs out. An
// ArrayBuffer of the block's size, held by the owner and never written, makes
// V8 count the block as external memory and collect in time; its pages are
// never touched, so it costs address space, not resident memory. A block in
// an arena of its own needs no hint: V8 counts that whole memory.
const sizeHints = new WeakMap<object, ArrayBuffer>();

/** Frees `block` when `owner` is garbage-collected, unless `disown` ran first. */
export function own(owner: object, block: Block): void {
  released.register(owner, { arena: block.arena, ptr: block.ptr }, owner);
  if (block.bytes >= DEDICATED_BYTES || block.arena.shared) return;
  try {
    sizeHints.set(owner, new ArrayBuffer(block.bytes));
  } catch {
    // Only a hint: where the engine refuses a buffer this large, do without.
  }
}

/** Frees `block` now and cancels its release at collection. */
export function disown(owner: object, block: Block): void {
  released.unregister(owner);
  sizeHints.delete(owner);
  block.arena.free(block.ptr);
}
