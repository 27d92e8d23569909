// Scalable Bloom filter (Almeida, Baquero, Preguiça, Hutchison, 2007): a list
// of standard filters. Layer i holds n0·s^i keys at p0·r^i with
// p0 = p·(1 − r), so the compound false-positive rate 1 − Π(1 − p_i) stays
// below Σ p_i = p however many layers are added.
import { BloomFilter } from "./bloom-filter.js";
import { checkOptions, checkPositive, checkProbability, describe } from "./errors.js";
import { FilterType, FormatError, ParamReader, ParamWriter, checksumOf, fromBase64, readRecord, toBase64, writeRecord } from "./format.js";
import { HASHING_OPTION_NAMES, hashingOptions, readHashing, resolveHashing, writeHashing, type Hashing, type HashingOptions } from "./hashing.js";
import { isBytes, type Key } from "./keys.js";

/** Options of ScalableBloomFilter.create. */
export interface ScalableBloomFilterOptions extends HashingOptions {
  /** s: each layer holds s times the keys of the one before (default 2, at least 1). */
  growth?: number;
  /** r: each layer's false-positive rate is r times the one before (default 0.85, in (0, 1)). */
  tightening?: number;
}

const OPTION_NAMES = [...HASHING_OPTION_NAMES, "growth", "tightening"] as const;

/** Splits packed keys into views (no copy) so they can take the array path. */
function unpack(bytes: Uint8Array, ends: Uint32Array): Uint8Array[] {
  if (!isBytes(bytes)) throw new TypeError(`bytes must be a Uint8Array, got ${describe(bytes)}`);
  if (!(ends instanceof Uint32Array)) throw new TypeError(`ends must be a Uint32Array, got ${describe(ends)}`);
  const keys: Uint8Array[] = new Array(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    if (ends[i] < start || ends[i] > bytes.length) {
      throw new RangeError(`ends[${i}] = ${ends[i]} must be ≥ ends[${i - 1}] = ${start} and ≤ bytes.length = ${bytes.length}`);
    }
    keys[i] = bytes.subarray(start, ends[i]);
    start = ends[i];
  }
  return keys;
}

/** Splits newline-delimited keys into views (no copy): a key is a line without its "\n" and one trailing "\r", as BloomFilter.addLines reads them. */
function splitLines(buffer: Uint8Array): Uint8Array[] {
  if (!isBytes(buffer)) throw new TypeError(`buffer must be a Uint8Array of newline-delimited keys, got ${describe(buffer)}`);
  const keys: Uint8Array[] = [];
  let from = 0;
  while (from < buffer.length) {
    const newline = buffer.indexOf(10, from);
    let end = newline < 0 ? buffer.length : newline;
    if (end > from && buffer[end - 1] === 13) end--;
    keys.push(buffer.subarray(from, end));
    from = newline < 0 ? buffer.length : newline + 1;
  }
  return keys;
}

/** One batch of keys as the layers' batch methods take them: an array of keys, or integer keys. */
interface LayerBatch {
  readonly length: number;
  /** `layer`'s answers for the keys from index `from` on (1 = probably present). */
  has(layer: BloomFilter, from: number): Uint8Array;
  /** Adds the keys at `picks` to `layer`, in order; 1 where one was probably present before. */
  testAndAdd(layer: BloomFilter, picks: number[]): Uint8Array;
}

function keysBatch(keys: readonly Key[]): LayerBatch {
  return {
    length: Array.isArray(keys) ? keys.length : 0,
    has: (layer, from) => layer.hasMany(from === 0 ? keys : keys.slice(from)),
    testAndAdd: (layer, picks) => layer.testAndAddMany(picks.map((i) => keys[i])),
  };
}

function intsBatch(keys: Uint32Array | BigUint64Array): LayerBatch {
  return {
    length: keys instanceof Uint32Array || keys instanceof BigUint64Array ? keys.length : 0,
    has: (layer, from) => layer.hasInts(keys.subarray(from)),
    testAndAdd: (layer, picks) => {
      if (keys instanceof BigUint64Array) return layer.testAndAddInts(BigUint64Array.from(picks, (i) => keys[i]));
      return layer.testAndAddInts(Uint32Array.from(picks, (i) => keys[i]));
    },
  };
}

/** A Bloom filter that grows: no capacity to choose up front, and a false-positive rate that stays ≤ p. */
export class ScalableBloomFilter implements Disposable {
  readonly #initialCapacity: number;
  readonly #p: number;
  readonly #growth: number;
  readonly #tightening: number;
  readonly #hashing: Hashing;
  #layers: BloomFilter[] = [];
  #disposed = false;

  private constructor(initialCapacity: number, p: number, growth: number, tightening: number, hashing: Hashing) {
    this.#initialCapacity = initialCapacity;
    this.#p = p;
    this.#growth = growth;
    this.#tightening = tightening;
    this.#hashing = hashing;
  }

  /** A filter that starts with room for `initialCapacity` keys and grows by adding layers, keeping its rate ≤ p. */
  static create(initialCapacity: number, falsePositiveRate: number, options?: ScalableBloomFilterOptions): ScalableBloomFilter {
    const n = checkPositive("initialCapacity", initialCapacity);
    const p = checkProbability("falsePositiveRate", falsePositiveRate);
    const checked = checkOptions("options", options, OPTION_NAMES);
    const growth = checked.growth === undefined ? 2 : checkPositive("options.growth", checked.growth);
    if (growth < 1) throw new RangeError(`options.growth must be at least 1, got ${growth}`);
    const tightening = checked.tightening === undefined ? 0.85 : checkProbability("options.tightening", checked.tightening);
    const filter = new ScalableBloomFilter(Math.ceil(n), p, growth, tightening, resolveHashing(checked));
    filter.#addLayer();
    return filter;
  }

  /** Keys layer i is sized for: ⌈n0 · s^i⌉. */
  layerCapacity(i: number): number {
    return Math.ceil(this.#initialCapacity * this.#growth ** i);
  }

  /** False-positive rate layer i is sized for: p · (1 − r) · r^i. */
  layerFalsePositiveRate(i: number): number {
    return this.#p * (1 - this.#tightening) * this.#tightening ** i;
  }

  /** Number of layers so far. */
  get layers(): number {
    this.#live();
    return this.#layers.length;
  }

  /** Keys added that were not already (probably) present. */
  get count(): number {
    return this.#live().reduce((sum, layer) => sum + layer.count, 0);
  }

  /** Keys the current layers are sized for. */
  get capacity(): number {
    return this.#live().reduce((sum, _, i) => sum + this.layerCapacity(i), 0);
  }

  /** Total bits over all layers. */
  get bits(): number {
    return this.#live().reduce((sum, layer) => sum + layer.bits, 0);
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

  /** The rate now, from each layer's fill: 1 − Π(1 − (X_i/m_i)^k_i). */
  falsePositiveRate(): number {
    return 1 - this.#live().reduce((keep, layer) => keep * (1 - layer.falsePositiveRate()), 1);
  }

  /** The rate the layers are sized for once full: 1 − Π(1 − p_i), always < p. */
  expectedFalsePositiveRate(): number {
    return 1 - this.#live().reduce((keep, _, i) => keep * (1 - this.layerFalsePositiveRate(i)), 1);
  }

  /** Adds a key (a no-op when it is probably present already). */
  add(key: Key): this {
    this.testAndAdd(key);
    return this;
  }

  /** True when some layer probably holds the key. */
  has(key: Key): boolean {
    return this.#live().some((layer) => layer.has(key));
  }

  /** Adds the key unless a layer probably holds it; returns whether one did. */
  testAndAdd(key: Key): boolean {
    const layers = this.#live();
    if (layers.some((layer) => layer.has(key))) return true;
    return this.#current().testAndAdd(key);
  }

  addMany(keys: readonly Key[]): this {
    this.testAndAddMany(keys);
    return this;
  }

  hasMany(keys: readonly Key[]): Uint8Array {
    return this.#has(keysBatch(keys));
  }

  /**
   * Adds the keys in order; result[i] = 1 when key i was probably present
   * before. Keys go to the newest layer in slices no larger than its free
   * room, so no layer ever takes more keys than it was sized for.
   */
  testAndAddMany(keys: readonly Key[]): Uint8Array {
    return this.#testAndAdd(keysBatch(keys));
  }

  addPacked(bytes: Uint8Array, ends: Uint32Array): this {
    return this.addMany(unpack(bytes, ends));
  }

  hasPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.hasMany(unpack(bytes, ends));
  }

  testAndAddPacked(bytes: Uint8Array, ends: Uint32Array): Uint8Array {
    return this.testAndAddMany(unpack(bytes, ends));
  }

  /**
   * Adds newline-delimited keys (a line without its "\n" and one trailing
   * "\r", as BloomFilter.addLines). The lines are found with
   * Uint8Array#indexOf and taken as views, without copying the buffer.
   */
  addLines(buffer: Uint8Array): this {
    return this.addMany(splitLines(buffer));
  }

  hasLines(buffer: Uint8Array): Uint8Array {
    return this.hasMany(splitLines(buffer));
  }

  testAndAddLines(buffer: Uint8Array): Uint8Array {
    return this.testAndAddMany(splitLines(buffer));
  }

  /** Adds integer keys (as BloomFilter.addInts: a 64-bit mix of the value, not its bytes). Double hashing only. */
  addInts(keys: Uint32Array | BigUint64Array): this {
    this.testAndAddInts(keys);
    return this;
  }

  hasInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return this.#has(intsBatch(keys));
  }

  testAndAddInts(keys: Uint32Array | BigUint64Array): Uint8Array {
    return this.#testAndAdd(intsBatch(keys));
  }

  /** The filter in bloomkit's binary format (docs/FORMAT.md): parameters, then every layer as a BloomFilter record. */
  serialize(): Uint8Array {
    const layers = this.#live().map((layer) => layer.serialize());
    const w = new ParamWriter().f64(this.#initialCapacity).f64(this.#p).f64(this.#growth).f64(this.#tightening).u32(layers.length);
    writeHashing(w, this.#hashing);
    const payload = new Uint8Array(layers.reduce((sum, layer) => sum + layer.length, 0));
    let at = 0;
    for (const layer of layers) {
      payload.set(layer, at);
      at += layer.length;
    }
    return writeRecord({
      type: FilterType.scalable,
      params: w.bytes(),
      payloadLength: payload.length,
      writePayload: (target) => target.set(payload),
      payloadChecksum: checksumOf(payload),
    });
  }

  /** A filter from serialize()'s bytes; truncated, corrupted or foreign bytes throw a FormatError. */
  static deserialize(bytes: Uint8Array): ScalableBloomFilter {
    const record = readRecord(bytes, FilterType.scalable);
    const r = new ParamReader(record.params);
    const [initialCapacity, p, growth, tightening] = [r.f64(), r.f64(), r.f64(), r.f64()];
    const layerCount = r.u32();
    const hashing = readHashing(r);
    r.end();
    if (!(Number.isInteger(initialCapacity) && initialCapacity >= 1 && p > 0 && p < 1 && growth >= 1 && Number.isFinite(growth) && tightening > 0 && tightening < 1)) {
      throw new FormatError("corrupted: the scalable filter's parameters are out of range");
    }
    if (layerCount < 1) throw new FormatError("corrupted: a scalable filter has at least one layer");
    if (checksumOf(record.payload) !== record.payloadChecksum) throw new FormatError("corrupted: the payload checksum does not match");
    const filter = new ScalableBloomFilter(initialCapacity, p, growth, tightening, hashing);
    try {
      let at = 0;
      for (let i = 0; i < layerCount; i++) {
        const { filter: layer, length } = BloomFilter.fromRecord(record.payload.subarray(at));
        filter.#layers.push(layer);
        at += length;
        const expected = BloomFilter.create(filter.layerCapacity(i), filter.layerFalsePositiveRate(i), hashingOptions(hashing));
        const same = expected.bits === layer.bits && expected.hashes === layer.hashes && expected.seed === layer.seed && String(expected.hash) === String(layer.hash);
        expected.dispose();
        if (!same) throw new FormatError(`corrupted: layer ${i} does not have the size or hashing its parameters give`);
      }
      if (at !== record.payload.length) throw new FormatError("corrupted: bytes left over after the last layer");
    } catch (error) {
      filter.dispose();
      throw error;
    }
    return filter;
  }

  toBase64(): string {
    return toBase64(this.serialize());
  }

  static fromBase64(text: string): ScalableBloomFilter {
    return ScalableBloomFilter.deserialize(fromBase64(text));
  }

  /** Releases every layer's wasm memory now; any later use throws. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const layer of this.#layers) layer.dispose();
    this.#layers = [];
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** OR of every layer's answers; the first layer's call checks every key. */
  #has(batch: LayerBatch): Uint8Array {
    const layers = this.#live();
    const result = batch.has(layers[0], 0);
    for (const layer of layers.slice(1)) {
      const more = batch.has(layer, 0);
      for (let i = 0; i < result.length; i++) result[i] |= more[i];
    }
    return result;
  }

  /** testAndAddMany for any batch. */
  #testAndAdd(batch: LayerBatch): Uint8Array {
    this.#live();
    const present = this.#has(batch); // also checks every key before anything is added
    const result = new Uint8Array(batch.length);
    let i = 0;
    while (i < batch.length) {
      const before = this.#layers.length;
      const layer = this.#current();
      if (this.#layers.length !== before && i > 0) {
        // A layer filled during this batch: the keys still to come may repeat ones it took.
        const inFull = batch.has(this.#layers[before - 1], i);
        for (let j = 0; j < inFull.length; j++) present[i + j] |= inFull[j];
      }
      const room = this.layerCapacity(this.#layers.length - 1) - layer.count;
      // Keys already in an older layer are answered without taking room.
      const picks: number[] = [];
      for (; i < batch.length && picks.length < room; i++) {
        if (present[i]) result[i] = 1;
        else picks.push(i);
      }
      const seen = batch.testAndAdd(layer, picks);
      for (let j = 0; j < picks.length; j++) result[picks[j]] = seen[j];
    }
    return result;
  }

  #live(): BloomFilter[] {
    if (this.#disposed) throw new Error("this ScalableBloomFilter was disposed");
    return this.#layers;
  }

  /** The newest layer, after adding a layer if it is full. */
  #current(): BloomFilter {
    const last = this.#layers.length - 1;
    if (this.#layers[last].count >= this.layerCapacity(last)) this.#addLayer();
    return this.#layers[this.#layers.length - 1];
  }

  #addLayer(): void {
    const i = this.#layers.length;
    this.#layers.push(BloomFilter.create(this.layerCapacity(i), this.layerFalsePositiveRate(i), hashingOptions(this.#hashing)));
  }
}
