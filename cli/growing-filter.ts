// dedup's filter for standard input of unknown length: layers of split-block
// (or standard) Bloom filters, each twice the lines of the one before at a
// tighter rate, so that the rates add up to at most p (the scalable Bloom
// filter's rule, Almeida et al. 2007). Unlike ScalableBloomFilter, whose layers
// are standard filters of k words each, a split-block layer costs one cache
// line a line; and every layer hashes a line alike, so a piece is hashed once
// (by a worker thread with --threads) and its hashes asked of each layer in
// one call. Measured on the 498 MB crawl log through a pipe (bench/CLI.md,
// Node 20, one thread): 3.7-4.0 s, where the scalable filter took 7.3-9.8 s
// (the two builds in turn); the pipe alone costs 0.8-1.0 s, the file's own
// dedup 1.3 s.
import { BloomFilter, SplitBlockBloomFilter, falsePositiveRateFor, splitBlockFalsePositiveRate, type LineHashes } from "bloomkit";
import { CliError } from "./args.js";
import { fmt } from "./words.js";

/** Lines of the first layer: standard input's length is unknown. */
export const FIRST_LAYER_LINES = 1_000_000;
/** Each layer holds this many times the lines of the one before. */
const GROWTH = 2;
/** Layer i's rate is p · (1 − r) · r^i: rates that add up to p, tightening slowly (ScalableBloomFilter's default r). */
const TIGHTENING = 0.85;

/**
 * After a call that the newest layer's room cut short, the pending lines
 * ahead asked of it: 4 times its room, at least this many. A window rather
 * than the whole rest of the piece: where the room left is small and the
 * lines repeat, each call then costs about its room, not the piece (a layer
 * with 700 lines of room given 500,000 lines, each repeated 500 times in a
 * row, took 2.4 s when the whole rest was asked each time).
 */
const MIN_LOOK_AHEAD = 4096;

type Layer = BloomFilter | SplitBlockBloomFilter;

/** A standard or split-block filter's false-positive rate once it holds x keys (dedup's loss estimate integrates it). */
export function rateAfter(filter: Layer): (x: number) => number {
  return filter instanceof BloomFilter ? (x) => falsePositiveRateFor(x, filter.bits, filter.hashes) : (x) => splitBlockFalsePositiveRate(x, filter.blocks);
}

/** One layer: its filter, the lines it was made for (past which a new layer starts), and the lines added to it. */
export interface GrowingLayer {
  readonly filter: Layer;
  readonly lines: number;
  held: number;
}

export class GrowingFilter {
  readonly #layers: GrowingLayer[] = [];
  /** The answers of a full layer, or of the newest for the lines no full layer holds. */
  #answers = new Uint8Array(0);
  /** The lines no full layer holds: their indexes, and their hashes as pairs of u32 (a BigInt per line would be allocated). */
  #pending = new Uint32Array(0);
  #pendingHashes = new Uint32Array(0);
  /** 1 for a pending line found held by the newest layer before its turn came: a repeat, not added. */
  #dropped = new Uint8Array(0);
  /** The pending lines of one call to the newest layer: their places among the pending, and their hashes. */
  #taken = new Uint32Array(0);
  #takenHashes = new Uint32Array(0);
  /** testAndAddLinesEach's arrays for a piece's hashes, line ends and answers, used again for each piece. */
  #lineHashes: LineHashes | undefined;
  #lineAnswers = new Uint8Array(0);

  /**
   * A filter of `type` layers (made with the same default hash, so that they
   * hash a line alike) whose rates add up to `falsePositiveRate`; the first
   * is for `firstLayerLines` lines.
   */
  constructor(
    readonly type: "split-block" | "bloom",
    readonly falsePositiveRate: number,
    readonly firstLayerLines = FIRST_LAYER_LINES,
  ) {
    this.#addLayer();
  }

  /** The layers, oldest first. */
  get layers(): readonly GrowingLayer[] {
    return this.#layers;
  }

  /** The first layer: its key hash (hashLines) is every layer's. */
  get first(): Layer {
    return this.#layers[0].filter;
  }

  get bits(): number {
    return this.#layers.reduce((sum, layer) => sum + layer.filter.bits, 0);
  }

  /**
   * testAndAddLines for the growing filter: the lines of `buffer` hashed once
   * (into arrays kept for the next piece) and asked of every layer; `visit`
   * gets the answers and where each line ends, as the filters'
   * testAndAddLinesEach gives them.
   */
  testAndAddLinesEach(buffer: Uint8Array, visit: (answers: Uint8Array, ends: Uint32Array, offset: number) => void): void {
    const { hashes, ends } = this.first.hashLines(buffer, this.#lineHashes);
    // Lent again whole, for the next piece to be hashed into.
    this.#lineHashes = { hashes: new BigUint64Array(hashes.buffer), ends: new Uint32Array(ends.buffer) };
    if (this.#lineAnswers.length < hashes.length) this.#lineAnswers = new Uint8Array(hashes.length);
    visit(this.testAndAddHashes(hashes, this.#lineAnswers), ends, 0);
  }

  /**
   * testAndAddHashes over every layer, in input order: 1 for a line some layer
   * may hold (a repeat), 0 for a new one, then added to the newest layer.
   * `into` has room for every hash.
   */
  testAndAddHashes(hashes: BigUint64Array, into: Uint8Array): Uint8Array {
    const count = hashes.length;
    const answers = into.subarray(0, count);
    const layers = this.#layers;
    if (layers.length === 1 && count <= this.#room(layers[0])) return this.#addTo(layers[0], hashes, answers);
    answers.fill(0);
    for (let i = 0; i < layers.length - 1; i++) this.#mark(layers[i].filter.hasHashes(hashes, this.#scratch(count)), answers);
    const pending = this.#gather(hashes, answers);
    let next = 0;
    while (next < pending) {
      const layer = layers[layers.length - 1];
      if (this.#room(layer) === 0) {
        // Full: the lines still pending are asked of it as of the older layers (it holds lines of this piece too).
        this.#dropHeld(layer, next, pending, answers);
        while (next < pending && this.#dropped[next] !== 0) next++;
        // A new layer only for a new line: a piece of repeats leaves the layers as they are.
        if (next < pending) this.#addLayer();
        continue;
      }
      next = this.#addNext(layer, next, pending, answers);
      // Stopped short by the room left: the lines just ahead that the layer now holds are repeats whatever
      // comes before them, so they are dropped, and the next call takes only lines that may be new.
      const room = this.#room(layer);
      if (next < pending && room > 0) this.#dropHeld(layer, next, Math.min(pending, next + Math.max(4 * room, MIN_LOOK_AHEAD)), answers);
    }
    return answers;
  }

  /** Frees every layer. */
  dispose(): void {
    for (const layer of this.#layers) layer.filter.dispose();
  }

  #addLayer(): void {
    const i = this.#layers.length;
    const lines = Math.ceil(this.firstLayerLines * GROWTH ** i);
    const rate = this.falsePositiveRate * (1 - TIGHTENING) * TIGHTENING ** i;
    let filter: Layer;
    try {
      // Not exchanged with Parquet: no need to round the size up to a power of two.
      filter = this.type === "split-block" ? SplitBlockBloomFilter.create(lines, rate, { powerOfTwo: false }) : BloomFilter.create(lines, rate);
    } catch (error) {
      // Out of memory, or a rate no filter reaches (each layer's is tighter): said in the command's words.
      if (i === 0 || !(error instanceof RangeError)) throw error;
      const held = this.#layers.reduce((sum, layer) => sum + layer.held, 0);
      throw new CliError(
        `the filter that grows on a pipe cannot make its layer ${i + 1} (for ${fmt(lines)} more lines at a rate of ${rate.toPrecision(3)}) after ${fmt(held)} distinct lines: ${error.message}; give --n (the lines to expect) or --memory`,
      );
    }
    this.#layers.push({ filter, lines, held: 0 });
  }

  /**
   * New lines a layer has room for. A layer takes exactly its count, however
   * the input comes in pieces, so that the output is the same with threads
   * (whose pieces are larger) as without.
   */
  #room(layer: GrowingLayer): number {
    return layer.lines - layer.held;
  }

  /** testAndAddHashes on one layer, counting the lines added. */
  #addTo(layer: GrowingLayer, hashes: BigUint64Array, into: Uint8Array): Uint8Array {
    const answers = layer.filter.testAndAddHashes(hashes, into);
    let repeats = 0;
    for (let i = 0; i < answers.length; i++) repeats += answers[i];
    layer.held += answers.length - repeats;
    return answers;
  }

  /** An array of `count` answers, reused. */
  #scratch(count: number): Uint8Array {
    if (this.#answers.length < count) this.#answers = new Uint8Array(count);
    return this.#answers;
  }

  /** answers[i] |= found[i]. */
  #mark(found: Uint8Array, answers: Uint8Array): void {
    for (let i = 0; i < answers.length; i++) answers[i] |= found[i];
  }

  /** Keeps the indexes and hashes of the lines answered 0 so far, in order; returns how many. */
  #gather(hashes: BigUint64Array, answers: Uint8Array): number {
    const count = hashes.length;
    if (this.#pending.length < count) {
      this.#pending = new Uint32Array(count);
      this.#pendingHashes = new Uint32Array(2 * count);
      this.#dropped = new Uint8Array(count);
    }
    const words = new Uint32Array(hashes.buffer, hashes.byteOffset, 2 * count);
    const indexes = this.#pending;
    const kept = this.#pendingHashes;
    let pending = 0;
    for (let i = 0; i < count; i++) {
      if (answers[i] !== 0) continue;
      indexes[pending] = i;
      kept[2 * pending] = words[2 * i];
      kept[2 * pending + 1] = words[2 * i + 1];
      pending++;
    }
    this.#dropped.fill(0, 0, pending);
    return pending;
  }

  /** The pending lines from..to as key hashes. */
  #hashesOf(from: number, to: number): BigUint64Array {
    return new BigUint64Array(this.#pendingHashes.buffer, from * 8, to - from);
  }

  /**
   * Adds the pending lines from `next` on that are not dropped, up to the
   * layer's room, in one call; their answers go to `answers`. Returns where
   * the next lines start.
   */
  #addNext(layer: GrowingLayer, next: number, pending: number, answers: Uint8Array): number {
    const room = this.#room(layer);
    if (this.#taken.length < room) {
      this.#taken = new Uint32Array(Math.min(room, pending));
      this.#takenHashes = new Uint32Array(2 * this.#taken.length);
    }
    const dropped = this.#dropped;
    const kept = this.#pendingHashes;
    const taken = this.#taken;
    const takenHashes = this.#takenHashes;
    let count = 0;
    let at = next;
    for (; at < pending && count < room; at++) {
      if (dropped[at] !== 0) continue;
      taken[count] = at;
      takenHashes[2 * count] = kept[2 * at];
      takenHashes[2 * count + 1] = kept[2 * at + 1];
      count++;
    }
    const got = this.#addTo(layer, new BigUint64Array(takenHashes.buffer, 0, count), this.#scratch(count));
    const indexes = this.#pending;
    for (let c = 0; c < count; c++) answers[indexes[taken[c]]] = got[c];
    return at;
  }

  /** Marks the pending lines from..to that `layer` holds as repeats, dropped from the lines still to add. */
  #dropHeld(layer: GrowingLayer, from: number, to: number, answers: Uint8Array): void {
    const found = layer.filter.hasHashes(this.#hashesOf(from, to), this.#scratch(to - from));
    const indexes = this.#pending;
    const dropped = this.#dropped;
    for (let j = from; j < to; j++) {
      if (found[j - from] === 0 || dropped[j] !== 0) continue;
      dropped[j] = 1;
      answers[indexes[j]] = 1;
    }
  }

}
