// Raw memory for filters and scratch buffers. The TS layer owns every block
// it allocates here and frees it explicitly or from a FinalizationRegistry.

/** Largest block the TLSF allocator hands out (its BLOCK_MAXSIZE, 1 GiB − 4). */
export const MAX_BLOCK_BYTES: usize = (1 << 30) - 4;

/** Allocates `size` zeroed bytes, 16-byte aligned; traps when memory cannot grow. */
export function alloc(size: usize): usize {
  const ptr = heap.alloc(size);
  memory.fill(ptr, 0, size);
  return ptr;
}

/** Returns a block obtained from `alloc` to the allocator. */
export function free(ptr: usize): void {
  heap.free(ptr);
}

/** Largest size `alloc` accepts in one block. */
export function maxBlockBytes(): usize {
  return MAX_BLOCK_BYTES;
}
