// The handle share() gives: what another thread needs to use the same filter.
// It holds the filter's shared wasm memories (one per segment) and its
// parameters, nothing else, so posting it to a worker copies no bits. The
// memories stay alive while anything references them: a handle kept around
// keeps them, so drop it once fromShared() has run.
import { checkInteger, checkOptions, describe } from "./errors.js";
import { attachShared, type Block } from "./memory.js";
import { SharedArena } from "./shared-arena.js";
import { sharedBuildNumber } from "./wasm.js";

/**
 * A shared wasm memory (a WebAssembly.Memory over a SharedArrayBuffer),
 * typed by what a handle's reader needs, so the declarations an app compiles
 * against name no WebAssembly type (a Node config without the DOM lib has none).
 */
export interface SharedMemory {
  readonly buffer: ArrayBufferLike;
}

/** Options of a shareable filter type's deserialize, deserializeChunks and fromBase64. */
export interface DeserializeOptions {
  /** Read the filter into shared memory, as create(…, { shared: true }) holds it, so share() can hand it to worker threads (default false). */
  shared?: boolean;
}

/** Options of the stream readers (deserializeChunks) of a type that cannot be shared. */
export interface ChunksOptions {
  /** Bytes the source holds, when known (a file's size): a header that declares more is refused as truncated before anything is allocated. */
  size?: number;
}

/** Options of deserializeChunks, and of the stream readers of the types that can be shared. */
export interface DeserializeChunksOptions extends DeserializeOptions, ChunksOptions {}

/** A stream reader's options, checked before any byte is read: `size` (a whole number of bytes) and, where the type can be shared, `shared`. */
export function checkChunksOptions(options: unknown, shareable: boolean): { available: number | undefined; shared: boolean } {
  const { size, shared } = checkOptions("options", options, shareable ? ["size", "shared"] : ["size"]);
  const available = size === undefined ? undefined : checkInteger("options.size", size, 0, Number.MAX_SAFE_INTEGER);
  return { available, shared: checkDeserializeOptions({ shared }) };
}

/** options.shared of a deserialize call, checked before any byte is read: a TypeError naming it when it is not a boolean. */
export function checkDeserializeOptions(options: unknown): boolean {
  const { shared } = checkOptions("options", options, ["shared"]);
  if (shared !== undefined && typeof shared !== "boolean") throw new TypeError(`options.shared must be a boolean, got ${describe(shared)}`);
  return shared === true;
}

/** A structured-cloneable handle to a shared filter: post it to a worker, and call fromShared() there. */
export interface SharedFilterHandle<Type extends string = string, Params = Record<string, unknown>> {
  /** The class whose fromShared() takes it. */
  readonly type: Type;
  /** One shared wasm memory per segment. */
  readonly memories: readonly SharedMemory[];
  /** The filter's parameters, as its class records them. */
  readonly params: Params;
}

/** The classes with share() and fromShared(). */
const SHAREABLE_TYPES = ["BloomFilter", "SplitBlockBloomFilter"];

/** The parameters of a handle of `type` and this thread's blocks over its memories; a TypeError naming `handle` when it is not such a handle. */
export function openHandle(handle: unknown, type: string, maxSegments: number): { blocks: Block[]; params: Record<string, unknown> } {
  const given = handle as Partial<SharedFilterHandle> | null;
  if (typeof given !== "object" || given === null || typeof given.type !== "string") {
    // A filter posted to a worker arrives as an empty object: its state is private, which postMessage does not copy.
    const posted = given !== null && typeof given === "object" && Object.keys(given).length === 0 ? ` (a filter posted to another thread arrives empty: post filter.share() and open that)` : "";
    throw new TypeError(`handle must be what ${type}.share() returns, got ${describe(handle)}${posted}`);
  }
  if (given.type !== type) {
    // The other shareable class's handle (opened with the wrong class) is named as such; other types have no fromShared to point to.
    if (SHAREABLE_TYPES.includes(given.type) && Array.isArray(given.memories)) {
      throw new TypeError(`handle must be what ${type}.share() returns, got the handle of a ${given.type} (open it with ${given.type}.fromShared)`);
    }
    throw new TypeError(`handle.type must be "${type}" (handle must be what ${type}.share() returns), got ${describe(given.type)}`);
  }
  if (!Array.isArray(given.memories)) throw new TypeError(`handle.memories must be the array of shared wasm memories share() gives, got ${describe(given.memories)}`);
  if (typeof given.params !== "object" || given.params === null) throw new TypeError(`handle.params must be the parameters share() records, got ${describe(given.params)}`);
  const { memories } = given;
  if (memories.length < 1 || memories.length > maxSegments) {
    throw new RangeError(`handle.memories must hold 1 to ${maxSegments} memories, got ${memories.length}`);
  }
  // Array.from, not map: a hole in the array (kept by postMessage) is then named as missing, as undefined.
  const blocks = Array.from(memories, (memory, i) => {
    const block = attachShared(memory);
    if (!block) throw new TypeError(`handle.memories[${i}] must be a shared wasm memory from share(), got ${describeMemory(memory)}`);
    return block;
  });
  // Each memory records which segment of how many it holds, and a number its filter's memories share: a
  // handle put together otherwise (memories out of order, repeated, missing, or of another filter of the same
  // parameters) would set and test keys in other segments than the other threads (false negatives there).
  const first = blocks[0].arena as SharedArena;
  blocks.forEach(({ arena }, i) => {
    const { segment, segments, filter } = arena as SharedArena;
    if (filter !== first.filter || segment !== i || segments !== memories.length) {
      throw new RangeError(
        `handle.memories must be the memories of one filter, all of them, in the order share() gives them: ` +
          `memories[${i}] holds segment ${segment + 1} of ${segments} of ${filter === first.filter ? "the filter of memories[0]" : "another filter"}`,
      );
    }
  });
  return { blocks, params: given.params as Record<string, unknown> };
}

/** What a memory of a handle is that cannot be opened: a shared filter's memory laid out by another copy of bloomkit is named as such. */
function describeMemory(memory: unknown): string {
  const build = memory instanceof WebAssembly.Memory ? SharedArena.buildOf(memory) : undefined;
  if (build === undefined) return describe(memory);
  const hex = (n: number) => n.toString(16).padStart(8, "0");
  return `the memory of a filter made by another build of bloomkit (build ${hex(build)}; this one is ${hex(sharedBuildNumber())}): open the handle with the bloomkit that made the filter`;
}
