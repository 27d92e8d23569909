// Loads the wasm core: the module is compiled once, synchronously, at import,
// from bytes inlined at build time. No top-level await, no fs, no fetch, so
// the same code loads through `import`, `require` and browser bundles. Each
// arena (bindings/arena.ts) instantiates this module over a memory of its own.
// A module that imports a non-shared memory cannot take a shared one, so
// filters shared between threads use a second build of the same sources
// (asconfig.json target "shared", atomic bit-setting stores), compiled the
// first time a shared filter is made or received.
import { WASM_BASE64, WASM_SHARED_BASE64 } from "./wasm-bytes.generated.js";
import type { Core } from "./core.generated.js";
import { base64ToBytes } from "./base64.js";

export type { Core };

/** The wasm bytes of a base64 build, in a plain (never shared) buffer as WebAssembly.Module wants them. */
const wasmBytes = (base64: string) => base64ToBytes(base64) as Uint8Array<ArrayBuffer>;

/** The compiled core, shared by every instance. */
export const wasmModule = new WebAssembly.Module(wasmBytes(WASM_BASE64));

let sharedModule: WebAssembly.Module | undefined;
let sharedModuleBuild = 0;

/**
 * The bytes of the build for shared memories, as base64. @internal: a test
 * gives bytes that do not compile, as an engine without wasm threads fails
 * on these, before the first shared filter.
 */
export const sharedBuild = { base64: WASM_SHARED_BASE64 };

/** The core built for shared memories, compiled on first use; an Error that says so when the engine cannot compile it. */
function sharedWasmModule(): WebAssembly.Module {
  if (sharedModule === undefined) {
    try {
      sharedModule = new WebAssembly.Module(wasmBytes(sharedBuild.base64));
      sharedModuleBuild = buildNumber(sharedBuild.base64);
    } catch (error) {
      throw new Error(`cannot compile the wasm core's threads build, which filters in shared memory run on: ${(error as Error).message}`, { cause: error });
    }
  }
  return sharedModule;
}

/** A number of these bytes (FNV-1a of the base64): two builds with other bytes get other numbers. Never 0, what memories made before it was recorded hold. */
function buildNumber(base64: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < base64.length; i++) hash = Math.imul(hash ^ base64.charCodeAt(i), 0x01000193);
  return hash >>> 0 || 1;
}

/**
 * The number of the threads build this copy of bloomkit runs (compiling it
 * first). A shared memory records the build that laid it out: instantiating
 * another build over it would write that build's constant tables over the ones
 * the threads already on it read.
 */
export function sharedBuildNumber(): number {
  sharedWasmModule();
  return sharedModuleBuild;
}

/**
 * A new instance of the core over `memory` (the module imports it as
 * env.memory); `shared` picks the build for a SharedArrayBuffer memory. Its
 * data segments (read-only constants) are written again into a shared memory
 * each time: the same bytes, so threads already running read no change.
 */
export function instantiate(memory: WebAssembly.Memory, shared = false): Core {
  const instance = new WebAssembly.Instance(shared ? sharedWasmModule() : wasmModule, { env: { memory } });
  return instance.exports as unknown as Core;
}
