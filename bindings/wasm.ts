// Loads the wasm core: the module is compiled once, synchronously, at import,
// from bytes inlined at build time. No top-level await, no fs, no fetch, so
// the same code loads through `import`, `require` and browser bundles. Each
// arena (bindings/arena.ts) instantiates this module over a memory of its own.
import { WASM_BASE64 } from "./wasm-bytes.generated.js";
import type { Core } from "./core.generated.js";

export type { Core };

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The compiled core, shared by every instance. */
export const wasmModule = new WebAssembly.Module(decodeBase64(WASM_BASE64));

/** A new instance of the core over `memory` (the module imports it as env.memory). */
export function instantiate(memory: WebAssembly.Memory): Core {
  const instance = new WebAssembly.Instance(wasmModule, { env: { memory } });
  return instance.exports as unknown as Core;
}
