// Keys given by their key hashes: the two filters whose kernels take one
// 64-bit hash per key (BloomFilter with double hashing, SplitBlockBloomFilter)
// let a caller hash on one thread and add or query on another. hashLines is
// the first half of testAndAddLines; the *Hashes methods are the second, with
// the same answers.
import { checkHashes, checkLineHashes, lineHashes, type KeyHash, type KeySource, type LineHashes } from "./batch.js";
import { HASH_MURMUR3_128, OP_HAS } from "./constants.generated.js";
import { checkReadable, describe } from "./errors.js";
import { isBytes } from "./keys.js";
import { WasmBlock } from "./wasm-block.js";

export abstract class KeyHashedBlock extends WasmBlock {
  /**
   * The key hash of each line of `buffer` (split as addLines splits it) and
   * where each line ends in `buffer` (after its "\n"). Hash on any thread,
   * then add or query the hashes here or on another thread's view of a
   * shared filter: the answers are the same as for the lines. With `into`
   * (a result of an earlier call will do), the results are written into its
   * arrays, and into new ones only when the lines outnumber them: lending
   * the same arrays again, a pipeline allocates nothing per batch. (A call
   * that fails part way, when wasm memory cannot grow for a very long line,
   * may leave part of the results in them; the filter is unchanged.)
   */
  hashLines(buffer: Uint8Array, into?: LineHashes): LineHashes {
    this.live();
    if (!isBytes(buffer)) throw new TypeError(`buffer must be a Uint8Array of newline-delimited keys, got ${describe(buffer)}`);
    if (into !== undefined) checkLineHashes(into);
    return lineHashes(this.batchArena, this.checkKeyHashes(), buffer, into);
  }

  /** Adds keys given by their key hashes (from hashLines, or hashMany with the filter's hash and seed). */
  addHashes(hashes: BigUint64Array): this {
    this.testAndAddHashes(hashes);
    return this;
  }

  /** Adds keys given by their key hashes in order; 1 where a key was probably present before (into the first answers of `into` when given). */
  testAndAddHashes(hashes: BigUint64Array, into?: Uint8Array): Uint8Array {
    this.checkHashesFor(hashes, into);
    return this.addSource({ kind: "hashes", hashes }, into);
  }

  /** Queries keys given by their key hashes: 1 = probably present, 0 = definitely absent (into the first answers of `into` when given). */
  hasHashes(hashes: BigUint64Array, into?: Uint8Array): Uint8Array {
    this.checkHashesFor(hashes, into);
    return this.runOp(OP_HAS, { kind: "hashes", hashes }, Uint8Array, false, into).answers;
  }

  /** Checks, in this order, that the filter is live, that `hashes` are hashes, that `into` has room for their answers, and that this filter takes them. */
  private checkHashesFor(hashes: unknown, into: unknown): void {
    this.live();
    checkHashes(hashes);
    if (into !== undefined) {
      if (!(into instanceof Uint8Array)) throw new TypeError(`into must be a Uint8Array for the answers, got ${describe(into)}`);
      checkReadable("into", into);
      if (into.length < hashes.length) throw new RangeError(`into.length = ${into.length} must be ≥ hashes.length = ${hashes.length}: one answer per hash`);
    }
    this.checkKeyHashes();
  }

  /** Adds a batch of keys in order and counts the new ones; 1 where a key was probably present before (in `into` when given). */
  protected abstract addSource(source: KeySource, into?: Uint8Array): Uint8Array;

  /** The key hash, when it is one 64-bit hash per key (what key hashes can be given as); a TypeError otherwise. */
  private checkKeyHashes(): KeyHash {
    const hash = this.keyHash;
    if (hash === null || hash.id === HASH_MURMUR3_128) {
      throw new TypeError(`key hashes need one 64-bit hash per key; this ${this.constructor.name} hashes ${hash === null ? "with the independent strategy" : "with murmur3_128"}`);
    }
    return hash;
  }
}
