// The standard Bloom filter: an m-bit array in wasm memory and k indices per
// key, by default from Kirsch–Mitzenmacher double hashing over one 64-bit
// xxh64 hash (see assembly/bloom.ts).
import { core, heapU8, MAX_BLOCK_BYTES } from "./wasm.js";
import { WasmBlock } from "./wasm-block.js";
import { checkInteger, checkIntsHashing, checkOptions, checkPositive, checkProbability, describe, formatBytes } from "./errors.js";
import { forEachChunk, forEachPackedChunk, useScratch, writeKey, type Key } from "./keys.js";
import { intsOf, linesEach, linesOf, type IntsCall, type LinesCall } from "./batch.js";
import { falsePositiveRateFor, MAX_HASHES, optimal } from "./optimal.js";
import { type HashName } from "./hash.js";
import { FilterType, FormatError, ParamReader, ParamWriter, checksumAt, fromBase64, readRecord, writeRecord } from "./format.js";
import {
  HASHING_OPTION_NAMES,
  hashingDifference,
  writeIndexHeader,
  readHashing,
  resolveHashing,
  writeHashing,
  type Hashing,
  type HashingOptions,
  type HashStrategy,
} from "./hashing.js";

export { DEFAULT_HASH, type HashStrategy } from "./hashing.js";

/** Options shared by the constructors. */
export interface BloomFilterOptions extends HashingOptions {
  /** create() only: round m up so the filter can be folded (m a multiple of 64 · 2^f, with at most 1/16 more bits). */
  foldable?: boolean;
}

const OPTION_NAMES = [...HASHING_OPTION_NAMES, "foldable"] as const;
const HEADER_BYTES = core.bloomBlockBytes(0);
/** bloomLines operations. */
const LINES = { add: 0, has: 1 } as const;

/** Largest m a single filter can have: its block must fit the allocator's 1 GiB − 4 byte limit. */
export const MAX_FILTER_BITS = Math.floor((MAX_BLOCK_BYTES - HEADER_BYTES) / 8) * 64;
/** Most folds a foldable create() prepares for: m a multiple of 64 · 2^16 at most. */
const MAX_FOLD_LOG2 = 16;

/** m rounded up to a multiple of 64 · 2^f, for the largest f (≤ 16) that adds at most m/16 bits. */
function foldableBits(m: number): number {
  let f = 0;
  while (f < MAX_FOLD_LOG2 && 64 * 2 ** (f + 1) <= m / 16) f++;
  const block = 64 * 2 ** f;
  return Math.ceil(m / block) * block;
}

/** A standard Bloom filter: no false negatives, false positives at a rate set by m, k and n. */
export class BloomFilter extends WasmBlock {
  readonly #bits: number;
  readonly #hashes: number;
  readonly #hashing: Hashing;
  #count = 0;
  /** Set bits, or −1 when an add may have changed them. */
  #setBits = 0;

  readonly #baseBits: number;

  private constructor(bits: number, hashes: number, hashing: Hashing, baseBits = bits) {
    super(core.bloomBlockBytes(bits), `a Bloom filter of ${bits} bits`);
    writeIndexHeader(this.live(), bits, hashes, hashing, baseBits);
    this.#bits = bits;
    this.#hashes = hashes;
    this.#hashing = hashing;
    this.#baseBits = baseBits;
  }

  /**
   * A filter sized for `expectedItems` keys at `falsePositiveRate`:
   * m = ⌈−n·ln p / (ln 2)²⌉ bits and k = round(m/n · ln 2) hashes (at least
   * 1). With the independent strategy, k is the number of hashes listed and
   * m the smallest that reaches p with that k.
   */
  static create(expectedItems: number, falsePositiveRate: number, options?: BloomFilterOptions): BloomFilter {
    const n = checkPositive("expectedItems", expectedItems);
    const p = checkProbability("falsePositiveRate", falsePositiveRate);
    const checked = checkOptions("options", options, OPTION_NAMES);
    const hashing = resolveHashing(checked);
    if (checked.foldable !== undefined && typeof checked.foldable !== "boolean") {
      throw new TypeError(`options.foldable must be a boolean, got ${describe(checked.foldable)}`);
    }
    const sized = hashing.strategy === "independent" ? optimal({ n, p, k: hashing.names.length }) : optimal({ n, p });
    const m = checked.foldable ? foldableBits(sized.m) : sized.m;
    const k = sized.k;
    if (m > MAX_FILTER_BITS) {
      throw new RangeError(
        `a filter for ${n} items at p = ${p} needs ${m} bits (${formatBytes(m / 8)}); ` +
          `one filter holds at most ${MAX_FILTER_BITS} bits (${formatBytes(MAX_FILTER_BITS / 8)})`,
      );
    }
    return new BloomFilter(m, k, hashing);
  }

  /** A filter of exactly `bits` bits and `hashes` hash functions (with the independent strategy, as many as listed). */
  static withSize(bits: number, hashes: number, options?: BloomFilterOptions): BloomFilter {
    checkInteger("bits", bits, 1, MAX_FILTER_BITS);
    checkInteger("hashes", hashes, 1, MAX_HASHES);
    const checked = checkOptions("options", options, OPTION_NAMES);
    if (checked.foldable !== undefined) throw new TypeError("options.foldable is for create(); withSize() takes the bits you give it");
    const hashing = resolveHashing(checked);
    if (hashing.strategy === "independent" && hashing.names.length !== hashes) {
      throw new RangeError(`hashes is ${hashes} but options.hash lists ${hashing.names.length} hashes for strategy "independent"`);
    }
    return new BloomFilter(bits, hashes, hashing);
  }

  /** m, the number of bits. */
  get bits(): number {
    return this.#bits;
  }

  /** k, the number of hash functions. */
  get hashes(): number {
    return this.#hashes;
  }

  /** The hash seed. */
  get seed(): number {
    return this.#hashing.seed;
  }

  /** The hash name (double hashing) or the list of names (independent). */
  get hash(): HashName | readonly HashName[] {
    const { strategy, names } = this.#hashing;
    return strategy === "double" ? names[0] : names;
  }

  /** How indices are derived from the key. */
  get strategy(): HashStrategy {
    return this.#hashing.strategy;
  }

  /** Keys added that set at least one new bit: distinct keys, less those the filter already took for present. */
  get count(): number {
    this.live();
    return this.#count;
  }

  /** Fraction of bits set, X / m. */
  get fillRatio(): number {
    return this.#countSetBits() / this.#bits;
  }

  /** Estimate of the distinct keys added, −m/k · ln(1 − X/m) (Swamidass & Baldi); Infinity when every bit is set. */
  estimatedCount(): number {
    const x = this.#countSetBits();
    return (-this.#bits / this.#hashes) * Math.log1p(-x / this.#bits);
  }

  /** The false-positive rate now, from the fill: (X/m)^k. */
  falsePositiveRate(): number {
    return Math.pow(this.#countSetBits() / this.#bits, this.#hashes);
  }

  /** The rate the formula predicts for `items` distinct keys in this filter: (1 − e^(−k·n/m))^k. */
  expectedFalsePositiveRate(items: number = this.count): number {
    return falsePositiveRateFor(items, this.#bits, this.#hashes);
  }

  /** Adds a key. */
  add(key: Key): this {
    this.#insertOne(key);
    return this;
  }

  /** True when the key is probably present; false when it is definitely absent. */
  has(key: Key): boolean {
    const ptr = this.live();
    const len = writeKey(key);
    return core.bloomHas(ptr, useScratch(0).bytes, len) === 1;
  }

  /** Adds a key and returns true when it was probably present before (a de-duplication step in one call). */
  testAndAdd(key: Key): boolean {
    return !this.#insertOne(key);
  }

  /** The key's k bit indices, in the order the hashes produce them (duplicates possible). */
  positions(key: Key): number[] {
    const ptr = this.live();
    const len = writeKey(key);
    // The scratch result bytes hold at least MAX_BATCH_KEYS ≥ 8 × MAX_HASHES bytes.
    const { bytes, out } = useScratch(0);
    core.bloomPositions(ptr, bytes, len, out);
    return Array.from(new Float64Array(core.memory.buffer, out, this.#hashes));
  }

  /**
   * Adds integer keys (a Uint32Array or a BigUint64Array): no encoding, one
   * wasm call per 131,072 keys. Integers are their own key space, hashed by
   * a 64-bit mix, not as bytes: add(bytes) and addInts of the same number are
   * different keys; a 32-bit key equals the 64-bit key of the same value.
   */
  addInts(keys: Uint32Array | BigUint64Array): this {
    this.testAndAddInts(keys);
    return this;
  }

  /** Queries integer keys (as addInts): 1 = probably present, 0 = definitely absent. */
  hasInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return intsOf(keys, this.#intsCall(1));
  }

  /** Adds integer keys in order; 1 where a key was probably present before. */
  testAndAddInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    const answers = intsOf(keys, this.#intsCall(0));
    this.#countNew(answers);
    return answers;
  }

  /** A copy of the bit array: bit i is bit (i & 7) of byte (i >> 3), ⌈m/8⌉ bytes. */
  bitArray(): Uint8Array {
    const data = this.live() + HEADER_BYTES;
    return heapU8().slice(data, data + Math.ceil(this.#bits / 8));
  }

  /** Adds every key, in one wasm call per chunk. */
  addMany(keys: readonly Key[]): this {
    const ptr = this.live();
    forEachChunk(keys as Key[], (count, _first, keysPtr, start) => {
      this.#added(core.bloomAddPacked(ptr, keysPtr, useScratch(0).ends, count, start, 0));
    });
    return this;
  }

  /** Queries every key: 1 = probably present, 0 = definitely absent. */
  hasMany(keys: readonly Key[]): Uint8Array {
    const ptr = this.live();
    const result = new Uint8Array(keys.length);
    forEachChunk(keys as Key[], (count, first, keysPtr, start) => {
      const { ends, out } = useScratch(0);
      core.bloomHasPacked(ptr, keysPtr, ends, count, start, out);
      result.set(heapU8().subarray(out, out + count), first);
    });
    return result;
  }

  /** Adds every key in order; result[i] = 1 when key i was probably present before it was added. */
  testAndAddMany(keys: readonly Key[]): Uint8Array {
    const ptr = this.live();
    const result = new Uint8Array(keys.length);
    forEachChunk(keys as Key[], (count, first, keysPtr, start) => {
      const { ends, out } = useScratch(0);
      this.#added(core.bloomAddPacked(ptr, keysPtr, ends, count, start, out));
      result.set(heapU8().subarray(out, out + count), first);
    });
    return result;
  }

  /** Adds keys packed in one buffer: key i is bytes[ends[i−1] .. ends[i]) (key 0 starts at 0). Skips string encoding. */
  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    const ptr = this.live();
    forEachPackedChunk(bytes, ends, (count, _first, keysPtr, start) => {
      this.#added(core.bloomAddPacked(ptr, keysPtr, useScratch(0).ends, count, start, 0));
    });
    return this;
  }

  /** Queries keys packed as in addPacked: 1 = probably present, 0 = definitely absent. */
  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    const ptr = this.live();
    const result = new Uint8Array(ends instanceof Uint32Array ? ends.length : 0);
    forEachPackedChunk(bytes, ends, (count, first, keysPtr, start) => {
      const { ends: endsPtr, out } = useScratch(0);
      core.bloomHasPacked(ptr, keysPtr, endsPtr, count, start, out);
      result.set(heapU8().subarray(out, out + count), first);
    });
    return result;
  }

  /**
   * A new filter holding the keys of both (bitwise OR): it answers exactly
   * like a filter built from both key sets. Both operands stay unchanged.
   * Its count is the fill-based estimate (at most the operands' counts added),
   * since keys added to both cannot be told apart.
   */
  union(other: BloomFilter): BloomFilter {
    return this.#combine(other, "union");
  }

  /**
   * A new filter of the keys probably in both (bitwise AND). It has no false
   * negatives for keys added to both, but its false-positive rate is higher
   * than that of a filter built from the intersection alone: a bit set by one
   * key in each operand survives the AND. Both operands stay unchanged.
   */
  intersect(other: BloomFilter): BloomFilter {
    return this.#combine(other, "intersect");
  }

  /**
   * A new filter with m / factor bits, the halves of the array OR-ed together
   * `log2(factor)` times (the seeds' compressed filter). Every key added stays
   * present; the false-positive rate becomes that of m / factor bits. `factor`
   * is a power of two and m / factor a multiple of 64: see maxFoldFactor, and
   * create(n, p, { foldable: true }).
   */
  fold(factor: number): BloomFilter {
    const ptr = this.live();
    checkInteger("factor", factor, 2, Number.MAX_SAFE_INTEGER);
    if ((factor & (factor - 1)) !== 0 || factor > this.maxFoldFactor) {
      throw new RangeError(
        `cannot fold ${this.#bits} bits by ${factor}: the factor must be a power of two up to maxFoldFactor = ${this.maxFoldFactor} ` +
          `(m / factor a whole number of 64-bit words); create with { foldable: true } to allow folding`,
      );
    }
    const folded = new BloomFilter(this.#bits / factor, this.#hashes, this.#hashing, this.#baseBits);
    core.bloomFold(ptr, folded.live(), factor);
    folded.#count = this.#count;
    folded.#setBits = -1;
    return folded;
  }

  /** The largest factor fold() accepts now (1 when m is not a multiple of 128). */
  get maxFoldFactor(): number {
    let factor = 1;
    while ((this.#bits / (factor * 2)) % 64 === 0 && this.#bits / (factor * 2) >= 64) factor *= 2;
    return factor;
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md). */
  serialize(): Uint8Array {
    const ptr = this.live();
    const w = new ParamWriter().u64(this.#bits).u64(this.#baseBits).u32(this.#hashes).u64(this.#count);
    writeHashing(w, this.#hashing);
    const data = ptr + HEADER_BYTES;
    const length = core.bloomBlockBytes(this.#bits) - HEADER_BYTES;
    return writeRecord({
      type: FilterType.bloom,
      params: w.bytes(),
      payloadLength: length,
      writePayload: (target) => target.set(heapU8().subarray(data, data + length)),
      payloadChecksum: checksumAt(data, length),
    });
  }

  /** A filter from serialize()'s bytes; truncated, corrupted or foreign bytes throw a FormatError. */
  static deserialize(bytes: Uint8Array): BloomFilter {
    return BloomFilter.fromRecord(bytes).filter;
  }

  /** Reads one BloomFilter record from the start of `bytes`; also says how many bytes it took. @internal */
  static fromRecord(bytes: Uint8Array): { filter: BloomFilter; length: number } {
    const record = readRecord(bytes, FilterType.bloom);
    const r = new ParamReader(record.params);
    const bits = r.u64("bits");
    const baseBits = r.u64("base bits");
    const hashes = r.u32();
    const count = r.u64("count");
    const hashing = readHashing(r);
    r.end();
    if (bits < 1 || bits > MAX_FILTER_BITS) throw new FormatError(`corrupted: bits = ${bits} is out of range`);
    if (hashes < 1 || hashes > MAX_HASHES) throw new FormatError(`corrupted: hashes = ${hashes} is out of range`);
    const factor = baseBits / bits;
    if (!Number.isInteger(factor) || (factor & (factor - 1)) !== 0 || (factor > 1 && bits % 64 !== 0)) {
      throw new FormatError(`corrupted: base bits ${baseBits} is not a power-of-two multiple of bits ${bits}`);
    }
    if (hashing.strategy === "independent" && hashing.names.length !== hashes) {
      throw new FormatError(`corrupted: ${hashing.names.length} hashes listed for k = ${hashes}`);
    }
    const length = core.bloomBlockBytes(bits) - HEADER_BYTES;
    if (record.payload.length !== length) throw new FormatError(`corrupted: payload of ${record.payload.length} bytes for ${bits} bits`);
    const filter = new BloomFilter(bits, hashes, hashing, baseBits);
    const data = filter.live() + HEADER_BYTES;
    heapU8().set(record.payload, data);
    // A filter never sets the bits of its last word past m.
    const lastWord = new DataView(record.payload.buffer, record.payload.byteOffset + length - 8, 8).getBigUint64(0, true);
    const padding = bits % 64 !== 0 && lastWord >> BigInt(bits % 64) !== 0n;
    if (padding || checksumAt(data, length) !== record.payloadChecksum) {
      filter.dispose();
      throw new FormatError(padding ? "corrupted: bits past m are set" : "corrupted: the payload checksum does not match");
    }
    filter.#count = count;
    filter.#setBits = -1;
    return { filter, length: record.length };
  }

  /** @internal A filter with these parameters whose bits `fill` writes, given the block pointer. */
  static fromFill(bits: number, hashes: number, hashing: Hashing, count: number, fill: (ptr: number) => void): BloomFilter {
    const filter = new BloomFilter(bits, hashes, hashing);
    fill(filter.live());
    filter.#count = count;
    filter.#setBits = -1;
    return filter;
  }

  /** A filter from toBase64()'s text. */
  static fromBase64(text: string): BloomFilter {
    return BloomFilter.deserialize(fromBase64(text));
  }

  /**
   * Adds keys given as newline-delimited bytes (a file's contents, say),
   * split inside wasm: no JS string per key. A key is a line without its
   * "\n" and one trailing "\r"; a last line without "\n" counts, a final "\n"
   * adds no empty key.
   */
  addLines(buffer: Uint8Array): this {
    this.#lines(LINES.add, buffer, false);
    return this;
  }

  /** Queries newline-delimited keys (as addLines splits them): one 0/1 per line. */
  hasLines(buffer: Uint8Array): Uint8Array {
    return this.#lines(LINES.has, buffer, false).answers;
  }

  /** Adds newline-delimited keys in order; 1 where a line was probably present before (a de-dup pass over a buffer). */
  testAndAddLines(buffer: Uint8Array): Uint8Array {
    return this.#lines(LINES.add, buffer, false).answers;
  }

  /**
   * testAndAddLines without copies: `visit(answers, ends, offset)` gets each
   * piece's answers and line ends as views of wasm memory, valid only during
   * the call; line i of the piece ends at offset + ends[i] in `buffer`.
   */
  testAndAddLinesEach(buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
    linesEach(buffer, this.#linesCall(LINES.add), (answers, ends, offset) => {
      this.#countNew(answers);
      visit(answers, ends, offset);
    });
  }

  /** testAndAddLines plus each line's end offset in `buffer` (after its "\n"), for writers that copy lines out. */
  testAndAddLinesWithEnds(buffer: Uint8Array): { answers: Uint8Array; ends: Uint32Array } {
    return this.#lines(LINES.add, buffer, true);
  }

  /** The wasm lines loop for `op`, as batch.ts's runners take it. */
  #linesCall(op: number): LinesCall {
    const ptr = this.live();
    return {
      run: (keys, len, final, maxLines, out, lineEnds) => core.bloomLines(ptr, op, keys, len, final ? 1 : 0, maxLines, out, lineEnds, 0),
      consumed: () => core.bloomLinesConsumed(),
    };
  }

  #lines(op: number, buffer: Uint8Array, wantEnds: boolean): { answers: Uint8Array; ends: Uint32Array } {
    const call = this.#linesCall(op);
    return linesOf(buffer, call, wantEnds, op === LINES.add ? (answers) => this.#countNew(answers) : undefined);
  }

  #intsCall(op: number): IntsCall {
    const ptr = this.live();
    checkIntsHashing(this.#hashing.strategy);
    return (keys, count, wide, out) => core.bloomInts(ptr, op, keys, count, wide, out);
  }

  /** Counts the keys that were new (answer 0) among add answers. */
  #countNew(answers: Uint8Array): void {
    let added = 0;
    for (const seen of answers) added += seen ^ 1;
    this.#added(added);
  }

  #combine(other: BloomFilter, op: "union" | "intersect"): BloomFilter {
    const ptr = this.live();
    if (!(other instanceof BloomFilter)) throw new TypeError(`${op}() takes a BloomFilter, got ${describe(other)}`);
    const otherPtr = other.live();
    const differs =
      this.#bits !== other.#bits ? `bits: ${this.#bits} vs ${other.#bits}`
      : this.#hashes !== other.#hashes ? `hashes: ${this.#hashes} vs ${other.#hashes}`
      : this.#baseBits !== other.#baseBits ? `folding: base bits ${this.#baseBits} vs ${other.#baseBits}`
      : hashingDifference(this.#hashing, other.#hashing);
    if (differs) throw new RangeError(`cannot ${op} filters with different ${differs}`);
    const result = new BloomFilter(this.#bits, this.#hashes, this.#hashing, this.#baseBits);
    core.bloomCombine(result.live(), ptr, otherPtr, op === "intersect" ? 1 : 0);
    result.#setBits = -1;
    // Shared keys cannot be told apart: the fill estimate, bounded by what the operands hold.
    const bound = op === "union" ? this.#count + other.#count : Math.min(this.#count, other.#count);
    const estimate = result.estimatedCount();
    result.#count = Number.isFinite(estimate) ? Math.min(bound, Math.round(estimate)) : bound;
    return result;
  }

  /** Inserts one key; true when it set a new bit. */
  #insertOne(key: Key): boolean {
    const ptr = this.live();
    const len = writeKey(key);
    const fresh = core.bloomAdd(ptr, useScratch(0).bytes, len);
    this.#added(fresh);
    return fresh === 1;
  }

  #added(fresh: number): void {
    if (fresh > 0) {
      this.#count += fresh;
      this.#setBits = -1;
    }
  }

  #countSetBits(): number {
    const ptr = this.live();
    if (this.#setBits < 0) this.#setBits = core.bloomSetBits(ptr);
    return this.#setBits;
  }
}
