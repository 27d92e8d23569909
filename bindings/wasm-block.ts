// The base of every structure that owns one block of wasm memory: freed at
// once by dispose() (or `using`), or by the garbage collector when dropped.
import { allocate, disown, own } from "./memory.js";
import { toBase64 } from "./format.js";

export abstract class WasmBlock implements Disposable {
  #ptr: number;

  /** Allocates the structure's zeroed block of `bytes`; `what` names it in a failure. */
  protected constructor(bytes: number, what: string) {
    this.#ptr = allocate(bytes, what);
    own(this, this.#ptr, bytes);
  }

  /** The block's address; throws once the structure was disposed. */
  protected live(): number {
    if (this.#ptr === 0) throw new Error(`this ${this.constructor.name} was disposed`);
    return this.#ptr;
  }

  /** The structure in bloomkit's binary format (docs/FORMAT.md). */
  abstract serialize(): Uint8Array;

  /** serialize() as base64. */
  toBase64(): string {
    return toBase64(this.serialize());
  }

  /** Releases the wasm memory now; any later use throws. Calling it again does nothing. */
  dispose(): void {
    if (this.#ptr === 0) return;
    disown(this, this.#ptr);
    this.#ptr = 0;
  }

  /** For `using filter = …`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** True once dispose() ran. */
  get disposed(): boolean {
    return this.#ptr === 0;
  }
}
