// The wasm module's exports: numbers and pointers only; bindings/ owns the typed API.

export { alloc, free, maxBlockBytes } from "./heap";
export {
  bloomBlockBytes,
  bloomInit,
  bloomSetIndependentHash,
  bloomAdd,
  bloomHas,
  bloomAddPacked,
  bloomHasPacked,
  bloomSetBits,
  bloomPositions,
} from "./bloom";
export { hashBits, hashKey, hashPacked } from "./hash";
