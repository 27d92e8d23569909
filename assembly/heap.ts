// Memory is laid out by the TS layer (bindings/arena.ts), not by an allocator
// in wasm: each wasm instance gets its own imported memory, and the bindings
// place filters and scratch areas above the module's static data. The kernels
// never allocate.

/** The first address the bindings may use: the end of the static data, 16-byte aligned. */
export function heapBase(): usize {
  return (__heap_base + 15) & ~<usize>15;
}
