// The contract every filter type keeps, so code that holds "a filter" (the
// CLI, the page, a user's pipeline) needs no instanceof chains: the query
// half every type answers, the adding half of the types that grow, and the
// removing half of the deletable ones.
//
// Every filter is Disposable (`using filter = …`). That type and
// Symbol.dispose live in TypeScript's "esnext.disposable" lib, which a default
// config (target es2022) does not load; preserve="true" keeps the reference in
// the emitted filter.d.ts, so an app compiles against the package with no
// extra lib setting (TypeScript 5.2 or later, which has that lib).
/// <reference lib="esnext.disposable" preserve="true" />
import type { Key } from "./keys.js";
import { recordBase64, recordBytes, recordChunks, type RecordSource } from "./format.js";

/** What every filter answers: membership of every kind of key, its size, and its bytes. */
export interface FilterQueries extends Disposable {
  /** True when the key is probably present; false when it is definitely absent. */
  has(key: Key): boolean;
  /** One answer per key: 1 = probably present, 0 = definitely absent. */
  hasMany(keys: readonly Key[]): Uint8Array;
  /** Keys packed in one buffer: key i is bytes[ends[i−1] .. ends[i]) (key 0 starts at 0). */
  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array;
  /** Newline-delimited keys (a line without its "\n" and one trailing "\r"). */
  hasLines(buffer: Uint8Array): Uint8Array;
  /** Integer keys: their own key space, hashed by a 64-bit mix (a u32 key equals the u64 key of the same value). */
  hasInts(keys: Uint32Array | BigUint64Array): Uint8Array;
  /** The keys it holds (for filters that cannot tell repeats apart: keys that changed it). */
  readonly size: number;
  /** Bits of memory its table takes. */
  readonly bits: number;
  /** The filter in bloomkit's binary format (docs/FORMAT.md). */
  serialize(): Uint8Array;
  /** serialize() as base64. */
  toBase64(): string;
  /** Releases its memory now; any later use throws. */
  dispose(): void;
  /** True once dispose() ran. */
  readonly disposed: boolean;
}

/** A filter keys can be added to; the testAndAdd forms add and answer whether each key was probably present before. */
export interface Filter extends FilterQueries {
  add(key: Key): this;
  addMany(keys: readonly Key[]): this;
  addPacked(bytes: Uint8Array, ends: Uint32Array): this;
  addLines(buffer: Uint8Array): this;
  addInts(keys: Uint32Array | BigUint64Array): this;
  testAndAdd(key: Key): boolean;
  testAndAddMany(keys: readonly Key[]): Uint8Array;
  testAndAddPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array;
  testAndAddLines(buffer: Uint8Array): Uint8Array;
  testAndAddInts(keys: Uint32Array | BigUint64Array): Uint8Array;
}

/** A filter keys can be removed from, that can tell how often a key was added. */
export interface DeletableFilter extends Filter {
  /** Removes one occurrence; false (and nothing changes) when the key is definitely absent. */
  remove(key: Key): boolean;
  removeMany(keys: readonly Key[]): Uint8Array;
  removePacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array;
  removeLines(buffer: Uint8Array): Uint8Array;
  removeInts(keys: Uint32Array | BigUint64Array): Uint8Array;
  /** How often the key was probably added (an upper bound; 0 = definitely absent). */
  count(key: Key): number;
  countMany(keys: readonly Key[]): Uint32Array;
}

const inspectSymbol = Symbol.for("nodejs.util.inspect.custom");

/** What every filter class shares: base64, `using`, and a printable summary of its parameters (never its bits). */
export abstract class FilterBase implements Disposable {
  abstract dispose(): void;
  abstract get disposed(): boolean;
  /** The parameters that describe this filter, for toJSON() and console.log. */
  protected abstract describeParameters(): Record<string, unknown>;

  /** What serialize() writes: the type, the parameters and where the payload lies. @internal */
  abstract recordSource(): RecordSource;

  /**
   * The filter in bloomkit's binary format (docs/FORMAT.md); a RangeError
   * when the record is larger than one Uint8Array can be (see serializeChunks).
   */
  serialize(): Uint8Array {
    return recordBytes(this.recordSource());
  }

  /**
   * serialize() in pieces: the payload in pieces of at most `chunkBytes` (16 MiB
   * by default; the head and the 8-byte checksum of the record, and of each of a
   * scalable filter's layers, come whole), copied
   * out of wasm memory one at a time: for filters larger than one Uint8Array,
   * and for writing to a file or stream without a second copy in memory.
   */
  serializeChunks(chunkBytes?: number): Generator<Uint8Array> {
    // chunkBytes is checked now; the pieces are read from wasm memory as they are asked for.
    return this.#whileLive(recordChunks(this.recordSource(), chunkBytes), this.changes);
  }

  /**
   * Calls so far that changed a filter whose changes move what it already
   * holds (a cuckoo filter's inserts move fingerprints between buckets), so
   * that pieces read before and after one can miss a key held throughout,
   * or whose record is wrong with a stale key count (a scalable filter's);
   * undefined for the others, whose changes only ever add to (or take from)
   * each piece in place. @internal
   */
  protected get changes(): number | undefined {
    return undefined;
  }

  /** Why a change between pieces spoils the record (see `changes`), for its TypeError. @internal */
  protected get changeSpoils(): string {
    return "which moves keys between the pieces";
  }

  /**
   * The pieces while this filter is not disposed: a piece read after dispose() holds whatever took its memory
   * since (another filter's bits), and with the checksum computed over it the record loaded as a wrong filter.
   * Nor after a change that moves what the filter holds (see `changes`): the record could miss a key.
   */
  *#whileLive(pieces: Generator<Uint8Array>, changes: number | undefined): Generator<Uint8Array> {
    for (const piece of pieces) {
      if (this.disposed) throw new TypeError(`this ${this.constructor.name} was disposed while serializeChunks() was writing it; the pieces so far are not a record`);
      if (this.changes !== changes) {
        throw new TypeError(
          `this ${this.constructor.name} was changed while serializeChunks() was writing it, ${this.changeSpoils}; ` +
            `the pieces so far are not a record: finish them before changing the filter`,
        );
      }
      yield piece;
    }
  }

  /** serialize() as base64; a RangeError when the text would be longer than a string can be (see serializeChunks). */
  toBase64(): string {
    return recordBase64(this.recordSource());
  }

  /** For `using filter = …`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** The type and parameters (not the bits): what JSON.stringify and console.log show. */
  toJSON(): Record<string, unknown> {
    return { type: this.constructor.name, ...(this.disposed ? { disposed: true } : this.describeParameters()) };
  }

  [inspectSymbol](): string {
    const { type, ...rest } = this.toJSON();
    return `${type as string} ${JSON.stringify(rest).replace(/"(\w+)":/g, "$1: ").replace(/,/g, ", ")}`;
  }
}
