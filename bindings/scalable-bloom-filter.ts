// Scalable Bloom filter (Almeida, Baquero, Preguiça, Hutchison, 2007): a list
// of standard filters. Layer i holds n0·s^i keys at p0·r^i with
// p0 = p·(1 − r), so the compound false-positive rate 1 − Π(1 − p_i) stays
// below Σ p_i = p however many layers are added.
import { checkChunksOptions, type ChunksOptions } from "./shared.js";
import { BloomFilter } from "./bloom-filter.js";
import { HASH_MURMUR3_128, OP_ADD, OP_HAS, SOURCE_HASHES, SOURCE_U32 } from "./constants.generated.js";
import type { Arena } from "./arena.js";
import { checkInteger, checkIntsHashing, checkIntsKeys, checkOptions, checkPositive, checkProbability, checkVisit, checkMadeBy, checkCreateNumbers, isUnreadable, refuseLoaderOptions } from "./errors.js";
import { checkReachable, rateFor, smallestRate } from "./optimal.js";
import {
  FilterType,
  FormatError,
  ParamReader,
  ParamWriter,
  RecordReader,
  fromBase64,
  readRecordBytes,
  readRecordStream,
  recordChunks,
  recordLength,
  type ByteSource,
  type Loader,
  type RecordSource,
} from "./format.js";
import { HASHING_OPTION_NAMES, hashesOnce, hashOf, hashingDifference, keyHashOf, hashingOptions, readHashing, resolveHashing, writeHashing, type Hashing, type HashingOptions, type HashStrategy } from "./hashing.js";
import type { HashName } from "./hash.js";
import { isBytes, keyRoom, maxKeyBytes, roomTakes, holdScratchDuring, writeKey, type Key, type KeyRoom } from "./keys.js";
import { binaryString } from "./base64.js";
import { forEachChunk, placeChunk, saveChunk, sourceLength, concat, type Chunk, type KeyHash, type KeySource, type SavedChunk } from "./batch.js";
import { FilterBase, type Filter } from "./filter.js";

/** Options of ScalableBloomFilter.create. */
export interface ScalableBloomFilterOptions extends HashingOptions {
  /** s: each layer holds s times the keys of the one before (default 2, at least 1). */
  growth?: number;
  /** r: each layer's false-positive rate is r times the one before (default 0.85, in (0, 1)). */
  tightening?: number;
}

const OPTION_NAMES = [...HASHING_OPTION_NAMES, "growth", "tightening"] as const;
/** Most layers a filter has: every query asks each layer, so a filter this deep should have been created larger. */
export const MAX_LAYERS = 1024;

/** Keys in a newline-delimited buffer, at most: one per "\n", and one after the last. */
function lineCount(buffer: Uint8Array): number {
  let lines = 1;
  for (let at = buffer.indexOf(10); at >= 0; at = buffer.indexOf(10, at + 1)) lines++;
  return lines;
}

/** What the first layer's sizing refusal calls its n and p (its p is falsePositiveRate's share). */
const FIRST_LAYER_NAMES = { n: "the first layer's capacity", p: "its share of the rate" };

/** A rate every capacity reaches with k ≤ 256 (the smallest is about 2^−256.5 for any n ≥ 1). */
const SURELY_REACHABLE = 2 ** -250;

/**
 * Fewest bits a layer has. The formula layers are sized by reads low for a
 * filter of a few hundred bits, and more so with triple hashing, whose
 * indices bunch in a few dozen bits: over 400 filters of each size, 2,000,000
 * probes, a filter of 256 bits measured 1.03–1.23× the formula's rate (k = 4 to
 * 14), of 1,021 bits 1.00–1.04×, of 2,048 bits 1.00–1.01×. Layer 0 takes the
 * largest share of p, so a filter grown from 1 key measured 1.2–1.3× p at p = 0.01
 * and 3.3–3.7× at 10^-4. A layer the formula makes smaller gets this many bits and
 * keeps its k: its rate falls far below its share, and it costs 128 bytes.
 * A prime, the largest in 128 bytes, not 1,024: with the independent strategy
 * a key's index is hash mod m, and a power of two keeps only a hash's low bits,
 * which are weak in some (64 keys with fnv1_32, fnv1a_32 and bp: 4.3× the
 * formula's rate at 1,024 bits, 0.94× at 1,021).
 */
export const MIN_LAYER_BITS = 1021;

/**
 * The record version of a filter whose first layer was raised to
 * MIN_LAYER_BITS. When no layer is, the sizes are version 1's, written before
 * the minimum; a filter read from a version-1 record keeps sizing by the
 * formula alone, so that it writes back the record it was read from.
 */
const MIN_LAYER_BITS_VERSION = 2;

/** Keys a layer before the last may hold below its keysThatFill in a record (see the loader). */
const FULL_SLACK_KEYS = 1;

/** Layer i's capacity ⌈n0 · s^i⌉. */
function capacityOf(initialCapacity: number, growth: number, i: number): number {
  return Math.ceil(initialCapacity * growth ** i);
}

/**
 * Keys that set a bit a layer of n keys, m bits and k hashes takes before it
 * is full. A layer counts only keys that set a bit: a new key it already
 * answers present (a false positive) goes in as nothing, yet the layer was
 * sized for n keys as they come, false positives included. Taking n keys that
 * each set a bit fills it past that (p·(1 − r) = 0.16: 5% more keys, a rate of
 * 0.18), so it stops n less those it is expected to take for present on the
 * way, ∫₀ⁿ (1 − e^(−kx/m))^k dx (Simpson's rule), and at least one.
 */
function keysThatFill(n: number, m: number, k: number): number {
  const steps = 64;
  const rate = (x: number) => rateFor(x, m, k);
  let sum = rate(0) + rate(n);
  for (let i = 1; i < steps; i++) sum += (i % 2 === 1 ? 4 : 2) * rate((n * i) / steps);
  return Math.max(1, Math.round(n - (sum * n) / (3 * steps)));
}

/**
 * The chance that at least one of independent events of these rates happens,
 * 1 − Π(1 − r_i), summed in logarithms: a product of terms like 1 − 10^-15
 * rounds to 1 and would give 0 for a lightly filled filter.
 */
function anyOf(rates: number[]): number {
  return 0 - Math.expm1(rates.reduce((sum, rate) => sum + Math.log1p(-rate), 0)); // 0 - : an empty filter is 0, not -0
}

/** Layer i's rate p · (1 − r) · r^i. */
function rateOf(p: number, tightening: number, i: number): number {
  return p * (1 - tightening) * tightening ** i;
}

/**
 * How many layers these parameters can ever have: layers are sized in turn
 * until one would be larger than a filter can be, or MAX_LAYERS. Throws a
 * RangeError (its message naming the option to change) when a layer's rate
 * falls below what any filter of its capacity can reach first, or when not
 * even a second layer could be made.
 */
function layerLimit(initialCapacity: number, p: number, growth: number, tightening: number, hashing: Hashing): number {
  for (let i = 0; i < MAX_LAYERS; i++) {
    const capacity = capacityOf(initialCapacity, growth, i);
    const rate = rateOf(p, tightening, i);
    // Rates far above 2^−256 are reachable for any capacity; only the smallest need the exact bound.
    const smallest = hashesOnce(hashing) && rate < SURELY_REACHABLE ? smallestRate(capacity) : Number.MIN_VALUE;
    if (!(rate >= smallest)) {
      throw new RangeError(
        `options.tightening = ${tightening} with falsePositiveRate = ${p}: layer ${i}'s rate p·(1 − r)·r^${i} = ${rate} is below ${smallest}, ` +
          `the smallest a layer of ${capacity} keys can have; use a tightening closer to 1 or a larger growth`,
      );
    }
    try {
      // The first layer's refusal names the layer: the user gave initialCapacity and falsePositiveRate, not its expectedItems.
      BloomFilter.sizing(capacity, rate, hashing, false, undefined, i === 0 ? FIRST_LAYER_NAMES : undefined);
    } catch (error) {
      if (i >= 2) return i;
      const message = (error as Error).message;
      if (i === 0) throw new RangeError(`initialCapacity = ${initialCapacity} at falsePositiveRate = ${p}: ${message}`);
      throw new RangeError(`options.growth = ${growth}: the second layer, for ${capacity} keys, could never be made (${message})`);
    }
  }
  return MAX_LAYERS;
}

/**
 * The one-key fast path of a scalable filter whose layers share one memory,
 * as WasmBlock.oneString: a string key is written with one utf8Write and the
 * layers' addresses copied beside it, instead of going through writeKey and
 * a typed-array set. It holds while its key room does (roomTakes), and for
 * adds while the newest layer has room.
 */
interface LayersOne {
  /** Where the key goes, as OneString's room (one shape for roomTakes). */
  readonly room: KeyRoom;
  readonly core: Arena["core"];
  /** The layers' block addresses, oldest first. */
  readonly addresses: Uint32Array;
  readonly newest: BloomFilter;
  /** Keys that set a bit the newest layer takes before it is full (#fullAtLayer). */
  readonly newestFullAt: number;
}

/** A Bloom filter that grows: no capacity to choose up front, and a false-positive rate that stays ≤ p. */
export class ScalableBloomFilter extends FilterBase implements Filter {
  readonly #initialCapacity: number;
  readonly #p: number;
  readonly #growth: number;
  readonly #tightening: number;
  readonly #hashing: Hashing;
  /** MIN_LAYER_BITS, or 0 for a filter read from a version-1 record whose layers the formula alone sized. */
  readonly #minLayerBits: number;
  readonly #keyHash: KeyHash | null;
  readonly #maxLayers: number;
  #layers: BloomFilter[] = [];
  /** layerCapacity(i) of the layers so far: asked for on every add. */
  #capacities: number[] = [];
  /** keysThatFill of the layers so far: when the add paths take a layer for full. */
  #fullAt: number[] = [];
  /**
   * Layers made before a batch that might need them, by layer index, so that a failure to make one changes
   * nothing. By index, not in a queue: a batch's visit may add to this filter, and that batch's reservations
   * then sit beside the first one's.
   */
  #reserved = new Map<number, BloomFilter>();
  /**
   * For single keys while every layer is in one memory: that memory and the
   * layers' addresses, kept until a layer is added (null: the layers are
   * apart; undefined: not worked out yet). Working them out on every call
   * cost 60 ns of a 365 ns query.
   */
  #single: { arena: Arena; addresses: Uint32Array } | null | undefined;
  /** The one-key fast path for string keys: made again from #single by each string key that takes the slow path; forgotten with it. */
  #fast: LayersOne | undefined;
  #disposed = false;

  private constructor(initialCapacity: number, p: number, growth: number, tightening: number, hashing: Hashing, minLayerBits: number) {
    checkMadeBy(typeof initialCapacity === "number" && typeof hashing === "object" && hashing !== null, "ScalableBloomFilter", "ScalableBloomFilter.create(initialCapacity, falsePositiveRate) or deserialize(bytes)");
    super();
    this.#maxLayers = layerLimit(initialCapacity, p, growth, tightening, hashing);
    this.#keyHash = keyHashOf(hashing);
    this.#initialCapacity = initialCapacity;
    this.#p = p;
    this.#growth = growth;
    this.#tightening = tightening;
    this.#hashing = hashing;
    this.#minLayerBits = minLayerBits;
  }

  /** A filter that starts with room for `initialCapacity` keys and grows by adding layers, keeping its rate ≤ p. */
  static create(initialCapacity: number, falsePositiveRate: number, options?: ScalableBloomFilterOptions): ScalableBloomFilter {
    const { n, p } = checkCreateNumbers("ScalableBloomFilter.create", "initialCapacity", initialCapacity, falsePositiveRate);
    const checked = checkOptions("options", options, OPTION_NAMES);
    const growth = checked.growth === undefined ? 2 : checkPositive("options.growth", checked.growth);
    if (growth < 1) throw new RangeError(`options.growth must be at least 1, got ${growth}`);
    const tightening = checked.tightening === undefined ? 0.85 : checkProbability("options.tightening", checked.tightening);
    const hashing = resolveHashing(checked);
    if (hashesOnce(hashing)) checkReachable("initialCapacity", "falsePositiveRate", n, p);
    const filter = new ScalableBloomFilter(Math.ceil(n), p, growth, tightening, hashing, MIN_LAYER_BITS);
    filter.#addLayer();
    return filter;
  }

  /** Keys layer `layer` (0 the first) is sized for: ⌈n0 · s^layer⌉. */
  layerCapacity(layer: number): number {
    return this.#capacityAt(checkInteger("layer", layer, 0, this.#maxLayers - 1));
  }

  /** layerCapacity without the argument check, remembered: the add paths ask for it on every key. */
  #capacityAt(i: number): number {
    return (this.#capacities[i] ??= capacityOf(this.#initialCapacity, this.#growth, i));
  }

  /** The m, k and segments create() gives layer i: what it is made with, and what a record's layer i must have. */
  #sizingAt(i: number): { bits: number; hashes: number; segments: number } {
    const sized = this.#formulaSizingAt(i);
    return sized.bits >= this.#minLayerBits ? sized : { ...sized, bits: this.#minLayerBits };
  }

  /** Layer i's sizing by the formula alone, as BloomFilter.create gives it. */
  #formulaSizingAt(i: number): { bits: number; hashes: number; segments: number } {
    return BloomFilter.sizing(this.#capacityAt(i), this.layerFalsePositiveRate(i), this.#hashing);
  }

  /** A new, empty layer i of the size #sizingAt gives. */
  #makeLayer(i: number): BloomFilter {
    const { bits, hashes } = this.#sizingAt(i);
    return BloomFilter.withSize(bits, hashes, hashingOptions(this.#hashing));
  }

  /** The record version this filter writes: MIN_LAYER_BITS_VERSION when the minimum raised its first layer (layers only grow). */
  #version(): number {
    return this.#formulaSizingAt(0).bits < this.#minLayerBits ? MIN_LAYER_BITS_VERSION : 1;
  }

  /** Keys that set a bit layer i takes before a new layer is made (keysThatFill): its capacity less its expected false positives. */
  #fullAtLayer(i: number): number {
    if (this.#fullAt[i] === undefined) {
      const { bits, hashes } = this.#sizingAt(i);
      this.#fullAt[i] = keysThatFill(this.#capacityAt(i), bits, hashes);
    }
    return this.#fullAt[i];
  }

  /** Keys that set a bit the newest layer takes before it is full (0 for a layer read from a record written when it filled to capacity). */
  #room(): number {
    const last = this.#layers.length - 1;
    return Math.max(0, this.#fullAtLayer(last) - this.#layers[last].size);
  }

  /** False-positive rate layer `layer` is sized for: p · (1 − r) · r^layer. */
  layerFalsePositiveRate(layer: number): number {
    return rateOf(this.#p, this.#tightening, checkInteger("layer", layer, 0, this.#maxLayers - 1));
  }

  /** The most layers this filter can have: once they are full, adding a new key is a RangeError. */
  get maxLayers(): number {
    return this.#maxLayers;
  }

  /** Number of layers so far. */
  get layers(): number {
    this.#live();
    return this.#layers.length;
  }

  /** Keys added that were not already (probably) present. */
  get size(): number {
    return this.#live().reduce((sum, layer) => sum + layer.size, 0);
  }

  /** @deprecated Use `size`; `count` is kept for one release. */
  get count(): number {
    return this.size;
  }

  /** Keys the current layers are sized for. */
  get capacity(): number {
    return this.#capacityOfLayers(this.#live().length);
  }

  /** Total bits over all layers. */
  get bits(): number {
    return this.#live().reduce((sum, layer) => sum + layer.bits, 0);
  }

  /** The memory of the newest layer, where a single key is written. @internal */
  get arena(): Arena {
    const layers = this.#live();
    return layers[layers.length - 1].arena;
  }

  /** The target rate p. */
  get targetFalsePositiveRate(): number {
    return this.#p;
  }

  get growth(): number {
    return this.#growth;
  }

  get tightening(): number {
    return this.#tightening;
  }

  /** The hash name (triple or double hashing) or the list of names (independent), as every layer's. */
  get hash(): HashName | readonly HashName[] {
    return hashOf(this.#hashing);
  }

  /** The hash seed. */
  get seed(): number {
    return this.#hashing.seed;
  }

  /** How every layer derives a key's indices from its hash. */
  get strategy(): HashStrategy {
    return this.#hashing.strategy;
  }

  /** The rate now, from each layer's fill: 1 − Π(1 − (X_i/m_i)^k_i). */
  falsePositiveRate(): number {
    return anyOf(this.#live().map((layer) => layer.falsePositiveRate()));
  }

  /**
   * The rate once every layer is full: 1 − Π(1 − p_i), always < p. p_i is
   * layer i's share of p, or for a layer the minimum size made larger than
   * the formula's, the formula's rate at its capacity in its bits: far
   * lower (the share alone read 0.73% where filters grown from 1 key to
   * eight layers at p = 1% measured 0.10%).
   */
  expectedFalsePositiveRate(): number {
    return anyOf(this.#live().map((layer, i) => this.#fullRateAt(i, layer)));
  }

  /** Layer i's rate once full, as expectedFalsePositiveRate counts it. */
  #fullRateAt(i: number, layer: BloomFilter): number {
    const share = this.layerFalsePositiveRate(i);
    if (layer.bits <= this.#formulaSizingAt(i).bits) return share;
    return Math.min(share, rateFor(this.#capacityAt(i), layer.bits, layer.hashes));
  }

  /** Adds a key (a no-op when it is probably present already). */
  add(key: Key): this {
    this.testAndAdd(key);
    return this;
  }

  /** True when some layer probably holds the key. */
  has(key: Key): boolean {
    return this.#one(key, false);
  }

  /** Adds the key unless a layer probably holds it; returns whether one did. */
  testAndAdd(key: Key): boolean {
    return this.#one(key, true);
  }

  addMany(keys: readonly Key[]): this {
    this.#run({ kind: "keys", keys }, true);
    return this;
  }

  hasMany(keys: readonly Key[]): Uint8Array {
    return this.#run({ kind: "keys", keys }, false);
  }

  /**
   * Adds the keys in order; result[i] = 1 when key i was probably present
   * before. Keys go to the newest layer in slices no larger than its free
   * room, so no layer ever takes more keys than it was sized for.
   */
  testAndAddMany(keys: readonly Key[]): Uint8Array {
    return this.#run({ kind: "keys", keys }, true);
  }

  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    this.#run({ kind: "packed", bytes, ends }, true);
    return this;
  }

  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.#run({ kind: "packed", bytes, ends }, false);
  }

  testAndAddPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.#run({ kind: "packed", bytes, ends }, true);
  }

  /** Adds newline-delimited keys (a line without its "\n" and one trailing "\r", as BloomFilter.addLines), split in wasm. */
  addLines(buffer: Uint8Array): this {
    this.#run({ kind: "lines", buffer }, true);
    return this;
  }

  hasLines(buffer: Uint8Array): Uint8Array {
    return this.#run({ kind: "lines", buffer }, false);
  }

  testAndAddLines(buffer: Uint8Array): Uint8Array {
    return this.#run({ kind: "lines", buffer }, true);
  }

  /**
   * As BloomFilter.testAndAddLinesEach: each piece's answers and line ends
   * (views, valid during the call until it calls a bloomkit method); line i
   * ends at offset + ends[i].
   */
  testAndAddLinesEach(buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
    checkVisit(visit);
    this.#run({ kind: "lines", buffer }, true, visit);
  }

  /** As BloomFilter.hasLinesEach. */
  hasLinesEach(buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
    checkVisit(visit);
    this.#run({ kind: "lines", buffer }, false, visit);
  }

  /** Adds integer keys (as BloomFilter.addInts: a 64-bit mix of the value, not its bytes). Triple or double hashing only. */
  addInts(keys: Uint32Array | BigUint64Array): this {
    this.testAndAddInts(keys);
    return this;
  }

  hasInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    checkIntsKeys(keys);
    checkIntsHashing(this.#hashing.strategy);
    return this.#run({ kind: "ints", keys }, false);
  }

  testAndAddInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    checkIntsKeys(keys);
    checkIntsHashing(this.#hashing.strategy);
    return this.#run({ kind: "ints", keys }, true);
  }

  /** What serialize() writes: parameters and where the payload lies. @internal */
  recordSource(): RecordSource {
    const layers = this.#live().map((layer) => layer.recordSource());
    const w = new ParamWriter().f64(this.#initialCapacity).f64(this.#p).f64(this.#growth).f64(this.#tightening).u32(layers.length);
    writeHashing(w, this.#hashing);
    return {
      type: FilterType.scalable,
      version: this.#version(),
      params: w.bytes(),
      payload: {
        length: layers.reduce((sum, layer) => sum + recordLength(layer), 0),
        // The layers' pieces as large as the caller's: at the default 16 MiB, serializeChunks(4096) gave a piece per layer.
        *chunks(chunkBytes: number) {
          for (const layer of layers) yield* recordChunks(layer, chunkBytes);
        },
      },
    };
  }

  /** A filter from serialize()'s bytes; truncated, corrupted or foreign bytes throw a FormatError. */
  static deserialize(bytes: Uint8Array): ScalableBloomFilter {
    refuseLoaderOptions("ScalableBloomFilter.deserialize", arguments[1]);
    return readRecordBytes(bytes, { [FilterType.scalable]: ScalableBloomFilter.loader }, FilterType.scalable);
  }

  /** A filter from a stream of serializeChunks()'s pieces. */
  static deserializeChunks(source: ByteSource, options?: ChunksOptions): Promise<ScalableBloomFilter> {
    const { available } = checkChunksOptions(options, false);
    return readRecordStream(source, { [FilterType.scalable]: ScalableBloomFilter.loader }, FilterType.scalable, available);
  }

  /** Checks a record's parameters; its payload, the layers' records, is read layer by layer as it comes. @internal */
  static loader: Loader<ScalableBloomFilter> = (header) => {
    const r = new ParamReader(header.params);
    const [initialCapacity, p, growth, tightening] = [r.f64(), r.f64(), r.f64(), r.f64()];
    const layerCount = r.u32();
    const hashing = readHashing(r);
    r.end();
    if (header.version !== 1 && header.version !== MIN_LAYER_BITS_VERSION) throw new FormatError(`corrupted: a scalable record of version ${header.version}`);
    if (!(Number.isInteger(initialCapacity) && initialCapacity >= 1 && p > 0 && p < 1 && growth >= 1 && Number.isFinite(growth) && tightening > 0 && tightening < 1)) {
      throw new FormatError("corrupted: the scalable filter's parameters are out of range");
    }
    let filter: ScalableBloomFilter;
    try {
      filter = new ScalableBloomFilter(initialCapacity, p, growth, tightening, hashing, header.version === MIN_LAYER_BITS_VERSION ? MIN_LAYER_BITS : 0);
    } catch (error) {
      throw new FormatError(`corrupted: parameters create() refuses: ${(error as Error).message}`);
    }
    // Version 2 only when the minimum raised the first layer: otherwise both versions size alike and this one writes 1.
    if (filter.#version() !== header.version) {
      throw new FormatError(`corrupted: a scalable record of version 2 whose first layer the formula makes ${filter.#formulaSizingAt(0).bits} bits, no fewer than ${MIN_LAYER_BITS}`);
    }
    if (layerCount < 1 || layerCount > filter.#maxLayers) throw new FormatError(`corrupted: ${layerCount} layers; these parameters allow 1 to ${filter.#maxLayers}`);
    // A layer is read with the bytes left in this payload as its limit: a layer header that declares more (a
    // corrupted record of a few hundred bytes declaring a 256 GiB layer) is refused before the layer is allocated,
    // not after gigabytes were reserved for it, nor as a RangeError for a filter this record could never hold.
    // Its m is checked against the one its index gives before BloomFilter.loader allocates it (the rest after).
    let taken = 0;
    /** The sizing of the layer being read, worked out once its header comes (layerLimit() sized every layer up to maxLayers). */
    let expected: { bits: number; hashes: number; segments: number };
    const layerLoader: Loader<BloomFilter> = (layerHeader) => {
      // A layer is added only when the one before is full (keysThatFill, or its capacity in records written before):
      // a record whose earlier layer holds fewer keys was written by no filter, and reported fewer keys than it holds.
      // One key of slack: keysThatFill rounds a floating-point integral, and an engine whose Math.pow differs from
      // the writer's in the last digit could round it one higher; a valid record must never be refused for that.
      // Yet never an empty layer before another: a layer of one key, full at 1, is at 0 within that slack.
      const before = filter.#layers.length - 1;
      if (before >= 0 && (filter.#layers[before].size === 0 || filter.#layers[before].size + FULL_SLACK_KEYS < filter.#fullAtLayer(before))) {
        throw new FormatError(`corrupted: layer ${before} holds ${filter.#layers[before].size} keys and is not full (${filter.#fullAtLayer(before)}), yet a layer follows it`);
      }
      expected = filter.#sizingAt(filter.#layers.length);
      const { bits } = expected;
      const declared = layerHeader.params.byteLength >= 8 ? layerHeader.params.getBigUint64(0, true) : undefined;
      if (declared !== BigInt(bits)) throw new FormatError(`corrupted: ${declared ?? "no"} bits where its parameters give ${bits}`);
      return BloomFilter.loader(layerHeader);
    };
    const layerReader = () => new RecordReader({ [FilterType.bloom]: layerLoader }, FilterType.bloom, header.payloadLength - taken);
    let reader = layerReader();
    const layerDone = () => {
      const i = filter.#layers.length;
      const layer = reader.result();
      filter.#layers.push(layer);
      filter.#single = undefined;
      filter.#fast = undefined;
      // A layer is a filter create() made: never folded, in the segments its size needs, hashed as the record says;
      // a folded or re-segmented layer would look for its keys at other bits and answer them absent.
      const same = expected.bits === layer.bits && expected.hashes === layer.hashes && layer.baseBits === layer.bits && layer.segmentCount === expected.segments && hashingDifference(layer.hashing, hashing) === undefined;
      if (!same) throw new FormatError(`corrupted: layer ${i} does not have the size, folding, segments or hashing its parameters give`);
      if (layer.size > filter.layerCapacity(i)) throw new FormatError(`corrupted: layer ${i} holds ${layer.size} keys, more than its capacity ${filter.layerCapacity(i)}`);
      reader = layerReader();
    };
    return {
      target: {
        push(bytes: Uint8Array) {
          let at = 0;
          while (at < bytes.length) {
            if (filter.#layers.length === layerCount) throw new FormatError("corrupted: bytes left over after the last layer");
            let n: number;
            try {
              n = reader.push(bytes.subarray(at));
            } catch (error) {
              if (error instanceof FormatError) throw new FormatError(`corrupted: layer ${filter.#layers.length}: ${error.message.replace(/^corrupted: /, "")}`);
              throw error;
            }
            at += n;
            taken += n;
            if (reader.done) layerDone();
          }
        },
        end() {
          if (filter.#layers.length !== layerCount) throw new FormatError(`corrupted: ${filter.#layers.length} of ${layerCount} layers`);
        },
      },
      finish: () => filter,
      abandon: () => {
        reader.abandon();
        filter.dispose();
      },
    };
  };

  static fromBase64(text: string): ScalableBloomFilter {
    refuseLoaderOptions("ScalableBloomFilter.fromBase64", arguments[1]);
    return ScalableBloomFilter.deserialize(fromBase64(text, FilterType.scalable));
  }

  /** Releases every layer's wasm memory now; any later use throws. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const layer of this.#layers) layer.dispose();
    this.#layers = [];
    this.#single = null;
    this.#fast = undefined;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /**
   * Keys held (FilterBase.changes): each layer's record head, written before its bits, holds its key count, which
   * decides when the next layer is made. A record whose pieces were read around an add would load with a newest
   * layer fuller than its count, and that layer would take that many keys again, past the rate it was sized for.
   * @internal
   */
  protected override get changes(): number {
    return this.size;
  }

  /** @internal */
  protected override get changeSpoils(): string {
    return "and the key count of a layer, written before its bits, decides when the filter grows";
  }

  protected describeParameters(): Record<string, unknown> {
    return {
      initialCapacity: this.#initialCapacity,
      falsePositiveRate: this.#p,
      growth: this.#growth,
      tightening: this.#tightening,
      layers: this.#layers.length,
      size: this.size,
      bits: this.bits,
      hash: this.hash,
      seed: this.seed,
      strategy: this.strategy,
    };
  }

  /**
   * Queries (or test-and-adds) a batch: each chunk is hashed once, in the
   * newest layer's memory, and every layer runs its kernel over those hashes.
   */
  #run(source: KeySource, add: boolean, visit?: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): Uint8Array {
    const layers = this.#live();
    const length = sourceLength(source);
    const whole = length >= 0 ? new Uint8Array(length) : undefined;
    const parts: Uint8Array[] = [];
    const reserved = add ? this.#reserve(source) : [];
    try {
      forEachChunk(layers[layers.length - 1].batchArena, this.#keyHash, source, (chunk) => {
        // A visit may have disposed this filter: its layers are gone, so the disposed TypeError, not a query of no layers.
        this.#live();
        // bloomLayers takes key hashes: the independent strategy's chunks hold the keys' bytes, which each layer hashes itself.
        const together = this.#keyHash !== null && this.#together() === chunk.scratch.arena;
        const answers = together ? (add ? this.#testAndAddTogether(chunk) : this.#hasTogether(chunk)) : add ? this.#testAndAddChunk(chunk) : this.#hasChunk(chunk).answers;
        if (visit) {
          // The line ends stay where the splitter wrote them: the layers' kernels do not touch that room.
          const { arena, lineEnds } = chunk.scratch;
          holdScratchDuring(arena, () => visit(answers, arena.u32().subarray(lineEnds >>> 2, (lineEnds >>> 2) + chunk.count), chunk.lineBase));
          return;
        }
        if (whole) whole.set(answers, chunk.first);
        else parts.push(answers);
      });
    } finally {
      this.#release(reserved);
    }
    return whole ?? concat(parts, Uint8Array);
  }

  /**
   * One key: hashed once in the newest layer's memory, then each layer's
   * kernel runs over that one hash until one holds it (no batch machinery:
   * measured here, a single key through the batch path cost five times as much).
   */
  #one(key: Key, add: boolean): boolean {
    const fast = this.#fast;
    if (fast !== undefined && roomTakes(fast.room, key) && !(add && fast.newest.size >= fast.newestFullAt)) {
      const { scratch, text } = fast.room;
      const length = text.utf8Write(key, 0);
      const words = scratch.arena.u32();
      const at = scratch.ends >>> 2;
      const addresses = fast.addresses;
      for (let i = 0; i < addresses.length; i++) words[at + i] = addresses[i];
      const seen = fast.core.bloomLayersKey(scratch.ends, addresses.length, add ? OP_ADD : OP_HAS, scratch.bytes, length);
      if (add && seen === 0) fast.newest.countAdded(1);
      return seen === 1;
    }
    return this.#oneLayers(key, add);
  }

  /** #one off the fast path: any key, checked; takes the fast path for the next string key when it can. */
  #oneLayers(key: Key, add: boolean): boolean {
    maxKeyBytes(key);
    const hash = this.#keyHash;
    const layers = this.#live();
    if (add && this.#room() === 0) {
      // Full: a key it holds still answers, and makes no new layer (as the batch path, which makes one only for a
      // key no layer holds); a new one gets a new layer, or #addLayer's error past the last.
      if (this.#oneLayers(key, false)) return true;
      if (layers.length >= this.#maxLayers) this.#addLayer();
    }
    if (hash === null) return this.#run({ kind: "keys", keys: [key] }, add)[0] === 1;
    if (add) this.#current(); // room for one more key in the newest layer
    const single = this.#single === undefined ? (this.#single = this.#singleLayout()) : this.#single;
    if (single !== null) {
      // One call: the key hashed as the layers hash it, every layer tested, the newest added to.
      const { arena, addresses } = single;
      const { scratch, length } = writeKey(arena, key);
      arena.u32().set(addresses, scratch.ends >>> 2);
      const seen = arena.core.bloomLayersKey(scratch.ends, addresses.length, add ? OP_ADD : OP_HAS, scratch.bytes, length);
      const last = this.#layers.length - 1;
      if (add && seen === 0) this.#layers[last].countAdded(1);
      const room = typeof key === "string" ? keyRoom(scratch) : undefined;
      if (room !== undefined) this.#fast = { room, core: arena.core, addresses, newest: this.#layers[last], newestFullAt: this.#fullAtLayer(last) };
      return seen === 1;
    }
    return this.#oneApart(key, add, hash);
  }

  /**
   * #one when the layers are not all in the newest layer's memory: the key
   * hashed there, its hash copied to each other layer's memory. Apart from
   * #one, whose fast path would otherwise allocate this one's closure
   * context on every call.
   */
  #oneApart(key: Key, add: boolean, hash: KeyHash): boolean {
    const layers = this.#layers;
    const home = layers[layers.length - 1].batchArena;
    const { scratch, length } = writeKey(home, key);
    home.u32()[scratch.ends >>> 2] = length;
    const hashes2 = hash.id === HASH_MURMUR3_128 ? scratch.hashes2 : 0;
    home.core.hashPackedKeys(hash.id, hash.seed, scratch.bytes, scratch.ends, 1, 0, scratch.hashes, hashes2);
    const chunk: Chunk = { scratch, count: 1, first: 0, source: SOURCE_HASHES, src: scratch.hashes, hashes2, start: 0, lineBase: 0 };
    let saved: SavedChunk | undefined;
    const inArenaOf = (layer: BloomFilter) => (layer.batchArena === home ? chunk : placeChunk((saved ??= saveChunk(chunk)), null, layer.batchArena));
    for (let i = layers.length - 1; i >= 0; i--) if (layers[i].runChunk(OP_HAS, inArenaOf(layers[i]))[0] === 1) return true;
    if (add) {
      saved ??= saveChunk(chunk); // a new layer may be placed in this memory and reuse its scratch area
      const layer = this.#current();
      layer.runChunk(OP_ADD, layer.batchArena === home ? placeChunk(saved, null, home) : inArenaOf(layer));
    }
    return false;
  }

  /** #single's value for the layers as they are. */
  #singleLayout(): { arena: Arena; addresses: Uint32Array } | null {
    const layers = this.#layers;
    const arena = this.#together();
    if (arena === undefined || arena !== layers[layers.length - 1].batchArena) return null;
    return { arena, addresses: Uint32Array.from(layers, (layer) => layer.blockAddress) };
  }

  /** The one memory every layer is in, each in one block (small layers share a pool), or undefined. */
  #together(): Arena | undefined {
    const layers = this.#layers;
    const arena = layers[0].arena;
    for (const layer of layers) if (layer.segmentCount !== 1 || layer.arena !== arena) return undefined;
    return arena;
  }

  /** Writes the layers' addresses (oldest first) at `table` in `arena`, where bloomLayers reads them: a chunk's `ends` room, free once its keys are hashed. */
  #layerTable(table: number, arena: Arena): number {
    const u32 = arena.u32();
    const layers = this.#layers;
    for (let i = 0; i < layers.length; i++) u32[(table >>> 2) + i] = layers[i].blockAddress;
    return table;
  }

  /** has over a chunk when every layer is in the chunk's memory: one kernel call tests all layers. */
  #hasTogether(chunk: Chunk): Uint8Array {
    const { arena, out } = chunk.scratch;
    arena.core.bloomLayers(this.#layerTable(chunk.scratch.ends, arena), this.#layers.length, OP_HAS, chunk.source, chunk.src, chunk.hashes2, chunk.count, out, 0);
    return arena.u8().slice(out, out + chunk.count);
  }

  /**
   * testAndAdd over a chunk when every layer is in the chunk's memory: one
   * kernel call tests all layers and adds to the newest until it is full;
   * a new layer, then the call again for the keys left.
   */
  #testAndAddTogether(chunk: Chunk): Uint8Array {
    const { arena, out } = chunk.scratch;
    const width = chunk.source === SOURCE_U32 ? 4 : 8;
    let first = 0;
    while (first < chunk.count) {
      // Not #current(): a full newest layer still answers the keys a layer holds; a layer is added only for a new key.
      const layer = this.#layers[this.#layers.length - 1];
      if (this.#together() !== arena) {
        // A new layer went to a memory of its own: the keys left take the general path.
        const saved = saveChunk(chunk);
        const answers = arena.u8().slice(out, out + chunk.count);
        const rest = Array.from({ length: chunk.count - first }, (_, j) => first + j);
        answers.set(this.#testAndAddChunk(placeChunk(saved, rest, arena)), first);
        return answers;
      }
      const room = this.#room();
      const handled = arena.core.bloomLayers(
        this.#layerTable(chunk.scratch.ends, arena),
        this.#layers.length,
        OP_ADD,
        chunk.source,
        chunk.src + first * width,
        chunk.hashes2 === 0 ? 0 : chunk.hashes2 + first * 8,
        chunk.count - first,
        out + first,
        room,
      );
      let seen = 0;
      const answers = arena.u8();
      for (let i = first; i < first + handled; i++) seen += answers[out + i];
      layer.countAdded(handled - seen);
      first += handled;
      // Key `first` is new and the newest layer is full.
      if (first < chunk.count) this.#addLayer();
    }
    return arena.u8().slice(out, out + chunk.count);
  }

  /**
   * Makes, before a batch is added, every layer it could need if all its keys
   * were new: a batch that would need more layers than the filter can have,
   * or a layer there is no memory for, fails before any key is added.
   * Returns the indices of the layers it made, for #release once the batch is done.
   */
  #reserve(source: KeySource): number[] {
    const room = this.#room();
    // A buffer of b bytes holds at most b + 1 lines: count them only when that might not fit. One that cannot be
    // read (transferred, or past the end of a shrunk resizable buffer) is left to the batch, which names it.
    const lines = source.kind === "lines" && isBytes(source.buffer) && !isUnreadable(source.buffer) ? (source.buffer.length < room ? 0 : lineCount(source.buffer)) : -1;
    const keys = source.kind === "lines" ? lines : sourceLength(source);
    if (keys <= 0) return []; // nothing to add, a batch the newest layer has room for, or a source the batch will refuse
    if (!this.#layersHold(keys - room)) return this.#reserveFor(this.#newKeys(source, (count) => this.#layersHold(count - room)), room);
    try {
      return this.#reserveFor(keys, room);
    } catch (error) {
      // A layer there is no memory for: keys the filter holds need none, as add() of each one alone takes them on a
      // full filter (a batch of them was refused for a layer it never needed). Refused only if its new keys need it.
      if (!(error instanceof RangeError)) throw error;
      const fewer = this.#newKeys(source, (count) => count <= room);
      if (fewer >= keys) throw error;
      return this.#reserveFor(fewer, room);
    }
  }

  /**
   * The keys of a batch that add() of each in turn would add, at most: keys the filter holds already add nothing,
   * and a key given twice is added once (distinct ones counted only when `enough` is false of the others).
   */
  #newKeys(source: KeySource, enough: (keys: number) => boolean): number {
    const answers = this.#run(source, false);
    const keys = answers.length - answers.reduce((sum, answer) => sum + answer, 0);
    return enough(keys) ? keys : Math.min(keys, distinctAbsent(source, answers));
  }

  /** #reserve for `keys` keys, `room` of which the newest layer takes. */
  #reserveFor(keys: number, room: number): number[] {
    const made: number[] = [];
    let last = this.#layers.length - 1;
    let need = keys - room;
    try {
      while (need > 0) {
        last++;
        if (last >= this.#maxLayers) {
          // All the layers these parameters allow, not only those made so far (capacity): a filter of one layer
          // with room for 1,024 said its 1,024 layers held 2 keys.
          const most = this.#capacityOfLayers(this.#maxLayers);
          throw new RangeError(
            `the scalable filter is full: ${keys} more key${keys === 1 ? "" : "s"} could need layer ${last + 1}, and these parameters allow ${this.#maxLayers} layers, ` +
              `which hold ${most} key${most === 1 ? "" : "s"} in all; nothing was added`,
          );
        }
        // A batch whose visit called this one may have reserved this layer already: it keeps it.
        if (!this.#reserved.has(last)) {
          this.#reserved.set(last, this.#makeLayer(last));
          made.push(last);
        }
        need -= this.#fullAtLayer(last);
      }
    } catch (error) {
      this.#release(made);
      throw error;
    }
    return made;
  }

  /** Frees the layers #reserve made at these indices that no batch took. */
  #release(indices: number[]): void {
    for (const i of indices) {
      this.#reserved.get(i)?.dispose();
      this.#reserved.delete(i);
    }
  }

  /** Keys the first `layers` layers are sized for, in all. */
  #capacityOfLayers(layers: number): number {
    let total = 0;
    for (let i = 0; i < layers; i++) total += this.#capacityAt(i);
    return total;
  }

  /** True when the layers this filter may still add hold `need` more keys than the newest one has room for. */
  #layersHold(need: number): boolean {
    for (let layer = this.#layers.length; need > 0; layer++) {
      if (layer >= this.#maxLayers) return false;
      need -= this.#fullAtLayer(layer);
    }
    return true;
  }

  /** OR of every layer's answers for a chunk (a copy); the chunk is copied out only for layers in another memory. */
  #hasChunk(chunk: Chunk): { answers: Uint8Array; saved: SavedChunk | undefined } {
    const answers = new Uint8Array(chunk.count);
    let saved: SavedChunk | undefined;
    for (const layer of this.#layers) {
      let here = chunk;
      if (layer.batchArena !== chunk.scratch.arena) {
        saved ??= saveChunk(chunk);
        here = placeChunk(saved, null, layer.batchArena);
      }
      const hits = layer.runChunk(OP_HAS, here);
      for (let i = 0; i < answers.length; i++) answers[i] |= hits[i];
    }
    return { answers, saved };
  }

  /** testAndAdd over one chunk: keys no layer holds go to the newest layer, never more than its room at a time. */
  #testAndAddChunk(chunk: Chunk): Uint8Array {
    const { answers, saved: savedByHas } = this.#hasChunk(chunk);
    let pending: number[] = [];
    for (let i = 0; i < answers.length; i++) if (answers[i] === 0) pending.push(i);
    if (pending.length === 0) return answers;
    const saved = savedByHas ?? saveChunk(chunk);
    // Whether this chunk has added keys to the newest layer: once it is full, keys still to come may repeat them.
    let addedToNewest = false;
    while (pending.length > 0) {
      if (this.#room() === 0) {
        if (addedToNewest) {
          const full = this.#layers[this.#layers.length - 1];
          const again = full.runChunk(OP_HAS, placeChunk(saved, pending, full.batchArena));
          pending = pending.filter((i, j) => {
            if (again[j] === 1) answers[i] = 1;
            return again[j] === 0;
          });
          // Only repeats were left: no new layer, as testAndAdd makes none for a key a layer holds.
          if (pending.length === 0) break;
        }
        this.#addLayer();
        addedToNewest = false;
      }
      const layer = this.#layers[this.#layers.length - 1];
      const room = this.#room();
      const slice = pending.slice(0, room);
      pending = pending.slice(room);
      const seen = layer.runChunk(OP_ADD, placeChunk(saved, slice, layer.batchArena));
      for (let j = 0; j < slice.length; j++) answers[slice[j]] = seen[j];
      addedToNewest = true;
    }
    return answers;
  }

  #live(): BloomFilter[] {
    if (this.#disposed) throw new TypeError("this ScalableBloomFilter was disposed; it cannot be used after dispose()");
    return this.#layers;
  }

  /** The newest layer, after adding a layer if it is full. */
  #current(): BloomFilter {
    if (this.#room() === 0) this.#addLayer();
    return this.#layers[this.#layers.length - 1];
  }

  #addLayer(): void {
    const i = this.#layers.length;
    if (i >= this.#maxLayers) {
      throw new RangeError(`the scalable filter is full: its ${this.#maxLayers} layers hold ${this.capacity} keys, all these parameters allow; nothing was added`);
    }
    const reserved = this.#reserved.get(i);
    this.#reserved.delete(i);
    this.#layers.push(reserved ?? this.#makeLayer(i));
    this.#single = undefined;
    this.#fast = undefined;
  }
}

/**
 * How many distinct keys of `source` are absent (answers[i] === 0), as the filter tells keys apart: by the bytes
 * it hashes, a string by its UTF-8 (a lone surrogate as U+FFFD's, as the filter encodes it), a line without its
 * "\n" and one "\r" before it. Infinity at MOST_COUNTED of them (past 2^24, a Set's limit, counting them was the
 * engine's RangeError 'Set maximum size exceeded'): such a batch is counted with its repeats.
 */
function distinctAbsent(source: KeySource, answers: Uint8Array): number {
  const seen = new Set<string | number | bigint>();
  let lineStart = 0;
  for (let i = 0; i < answers.length; i++) {
    let key: string | number | bigint;
    if (source.kind === "keys") {
      const given = source.keys[i];
      key = binaryString(typeof given === "string" ? utf8Encoder.encode(given) : given);
    } else if (source.kind === "packed") key = binaryString(source.bytes.subarray(i === 0 ? 0 : source.ends[i - 1], source.ends[i]));
    else if (source.kind === "lines") {
      // Line i is the one whose answer is answers[i]: the filter splits at every "\n" as this does.
      const newline = source.buffer.indexOf(0x0a, lineStart);
      const end = newline < 0 ? source.buffer.length : newline;
      const line = source.buffer.subarray(lineStart, end > lineStart && source.buffer[end - 1] === 0x0d ? end - 1 : end);
      lineStart = end + 1;
      key = binaryString(line);
    } else if (source.kind === "ints") key = source.keys[i];
    else return answers.length; // key hashes: each counted
    if (answers[i] === 0 && seen.add(key).size === MOST_COUNTED) return Infinity;
  }
  return seen.size;
}

const utf8Encoder = new TextEncoder();

/**
 * Distinct keys distinctAbsent counts at most, below the 2^24 a Set holds (Node 20 and 24), and a bound on
 * the work before a refusal (counting 2^24 took 5.4 s): a batch of more new keys is counted with its repeats.
 */
const MOST_COUNTED = 2 ** 20;
