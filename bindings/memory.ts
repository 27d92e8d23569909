// Blocks of wasm memory owned by JS objects: allocation with clear errors,
// and release when the owner is disposed or garbage-collected.
import { core, MAX_BLOCK_BYTES, WASM_MEMORY_LIMIT } from "./wasm.js";
import { formatBytes } from "./errors.js";

/** Allocates `bytes` zeroed bytes in wasm memory, or throws a RangeError that says why not. */
export function allocate(bytes: number, what: string): number {
  if (bytes > MAX_BLOCK_BYTES) {
    throw new RangeError(
      `${what} needs ${formatBytes(bytes)}, more than the ${formatBytes(MAX_BLOCK_BYTES)} a single wasm block can hold`,
    );
  }
  try {
    return core.alloc(bytes);
  } catch {
    // The allocator traps before it changes any state, so the heap is intact.
    throw new RangeError(
      `cannot allocate ${formatBytes(bytes)} for ${what}: wasm memory is limited to ${formatBytes(WASM_MEMORY_LIMIT)} ` +
        `and ${formatBytes(core.memory.buffer.byteLength)} of it is in use; dispose() filters you no longer need ` +
        `(dropped ones are freed only after the garbage collector finds them, between tasks)`,
    );
  }
}

const released = new FinalizationRegistry<number>((ptr) => core.free(ptr));

// The garbage collector cannot see wasm blocks: a dropped filter looks like a
// few bytes of JS and might not be collected until wasm memory is full. An
// ArrayBuffer of the block's size, held by the owner and never written, makes
// V8 count the block as external memory and collect in time; its pages are
// never touched, so it costs address space, not resident memory.
const sizeHints = new WeakMap<object, ArrayBuffer>();

/** Frees `ptr` (a block of `bytes`) when `owner` is garbage-collected, unless `disown` ran first. */
export function own(owner: object, ptr: number, bytes: number): void {
  released.register(owner, ptr, owner);
  try {
    sizeHints.set(owner, new ArrayBuffer(bytes));
  } catch {
    // Only a hint: where the engine refuses a buffer this large, do without.
  }
}

/** Frees `ptr` now and cancels its release at collection. */
export function disown(owner: object, ptr: number): void {
  released.unregister(owner);
  sizeHints.delete(owner);
  core.free(ptr);
}
