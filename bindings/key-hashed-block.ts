// Keys given by their key hashes: the two filters whose kernels take one
// 64-bit hash per key (BloomFilter with double hashing, SplitBlockBloomFilter)
// let a caller hash on one thread and add or query on another. hashLines is
// the first half of testAndAddLines; the *Hashes methods are the second, with
// the same answers.
import { checkHashes, lineHashes, type KeyHash, type KeySource } from "./batch.js";
import { HASH_MURMUR3_128, OP_HAS } from "./constants.generated.js";
import { describe } from "./errors.js";
import { isBytes } from "./keys.js";
import { WasmBlock } from "./wasm-block.js";

export abstract class KeyHashedBlock extends WasmBlock {
  /**
   * The key hash of each line of `buffer` (split as addLines splits it) and
   * where each line ends in `buffer` (after its "\n"). Hash on any thread,
   * then add or query the hashes here or on another thread's view of a
   * shared filter: the answers are the same as for the lines.
   */
  hashLines(buffer: Uint8Array): { hashes: BigUint64Array; ends: Uint32Array } {
    this.live();
    if (!isBytes(buffer)) throw new TypeError(`buffer must be a Uint8Array of newline-delimited keys, got ${describe(buffer)}`);
    return lineHashes(this.batchArena, this.checkKeyHashes(), buffer);
  }

  /** Adds keys given by their key hashes (from hashLines, or hashMany with the filter's hash and seed). */
  addHashes(hashes: BigUint64Array): this {
    this.testAndAddHashes(hashes);
    return this;
  }

  /** Adds keys given by their key hashes in order; 1 where a key was probably present before. */
  testAndAddHashes(hashes: BigUint64Array): Uint8Array {
    this.checkHashesFor(hashes);
    return this.addSource({ kind: "hashes", hashes });
  }

  /** Queries keys given by their key hashes: 1 = probably present, 0 = definitely absent. */
  hasHashes(hashes: BigUint64Array): Uint8Array {
    this.checkHashesFor(hashes);
    return this.runOp(OP_HAS, { kind: "hashes", hashes }).answers;
  }

  /** Checks, in this order, that the filter is live, that `hashes` are hashes, and that this filter takes them. */
  private checkHashesFor(hashes: unknown): void {
    this.live();
    checkHashes(hashes);
    this.checkKeyHashes();
  }

  /** Adds a batch of keys in order and counts the new ones; 1 where a key was probably present before. */
  protected abstract addSource(source: KeySource): Uint8Array;

  /** The key hash, when it is one 64-bit hash per key (what key hashes can be given as); a TypeError otherwise. */
  private checkKeyHashes(): KeyHash {
    const hash = this.keyHash;
    if (hash === null || hash.id === HASH_MURMUR3_128) {
      throw new TypeError(`key hashes need one 64-bit hash per key; this ${this.constructor.name} hashes ${hash === null ? "with the independent strategy" : "with murmur3_128"}`);
    }
    return hash;
  }
}
