// The base of every structure that owns one block of wasm memory: freed at
// once by dispose() (or `using`), or by the garbage collector when dropped.
// It also runs the structure's batches: each subclass declares its kernel
// for an operation code (its table of operations) and its key hash, and the
// batch layer feeds it every kind of key.
/// <reference lib="esnext.disposable" />
import type { Arena } from "./arena.js";
import type { Core } from "./core.generated.js";
import { allocate, disown, own, type Block } from "./memory.js";
import { runBatch, forEachChunk, type BatchResult, type Kernel, type KeyHash, type KeySource } from "./batch.js";
import { writeKey } from "./keys.js";
import { FilterBase } from "./filter.js";

export abstract class WasmBlock extends FilterBase {
  #block: Block | undefined;

  /** Allocates the structure's zeroed block of `bytes` (in `near`'s arena when it has room); `what` names it in a failure. */
  protected constructor(bytes: number, what: string, near?: Arena) {
    super();
    this.#block = allocate(bytes, what, near);
    own(this, this.#block);
  }

  /** The block's address; throws once the structure was disposed. */
  protected live(): number {
    if (this.#block === undefined) throw new Error(`this ${this.constructor.name} was disposed`);
    return this.#block.ptr;
  }

  /** The arena the block lives in. @internal */
  get arena(): Arena {
    this.live();
    return this.#block!.arena;
  }

  /** The wasm instance of the block's arena. */
  protected get core(): Core {
    return this.arena.core;
  }

  /** The kernel that runs operation `op` over one chunk of keys. */
  protected abstract kernel(op: number): Kernel;

  /** The key hash the kernels expect, or null when they read key bytes themselves. */
  protected abstract get keyHash(): KeyHash | null;

  /** Runs `op` over a batch; one byte per key (a u32 with `Answers` = Uint32Array). */
  protected runOp<T extends Uint8Array | Uint32Array = Uint8Array>(
    op: number,
    source: KeySource,
    Answers: { new (length: number): T; readonly BYTES_PER_ELEMENT: number } = Uint8Array as never,
    wantEnds = false,
  ): BatchResult<T> {
    this.live();
    return runBatch(this.arena, this.keyHash, source, this.kernel(op), Answers, wantEnds);
  }

  /**
   * Runs `op` over newline-delimited keys and hands each piece's answers and
   * line ends to `visit` as views of wasm memory, valid only during the call:
   * line i of the piece ends at offset + ends[i] in the buffer. Returns the
   * sum the kernel returned.
   */
  protected runLinesEach(op: number, buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): number {
    this.live();
    const arena = this.arena;
    const kernel = this.kernel(op);
    let total = 0;
    forEachChunk(arena, this.keyHash, { kind: "lines", buffer }, (chunk) => {
      total += kernel(chunk);
      const memory = arena.memory.buffer;
      visit(new Uint8Array(memory, chunk.scratch.out, chunk.count), new Uint32Array(memory, chunk.scratch.lineEnds, chunk.count), chunk.lineBase);
    });
    return total;
  }

  /** Writes one key into the arena's scratch area: its address and length for a single-key kernel. */
  protected oneKey(key: unknown): { ptr: number; length: number; out: number } {
    this.live();
    const arena = this.arena;
    const { scratch, length } = writeKey(arena, key);
    return { ptr: scratch.bytes, length, out: scratch.out };
  }

  /** Releases the wasm memory now; any later use throws. Calling it again does nothing. */
  dispose(): void {
    if (this.#block === undefined) return;
    disown(this, this.#block);
    this.#block = undefined;
  }

  /** True once dispose() ran. */
  get disposed(): boolean {
    return this.#block === undefined;
  }
}
