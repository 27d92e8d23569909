// Why a cuckoo build failed. A key's copies can only live in its two buckets
// of four slots, so a line repeated more than 8 times never fits, however
// large the filter: that needs other advice than "a larger --n". Copies crowd
// their buckets before that (kicks then only move them between the two), so a
// repeated key that fails while the filter still has room fails for the same cause.
import type { CuckooFilter } from "bloomkit";
import { CliError } from "./args.js";
import { count, fmt } from "./words.js";

/** Characters of a line quoted in the message. */
const SHOWN_CHARS = 40;

/** Below this load a cuckoo filter of 4-slot buckets still finds room for new keys, so a failure there is not "full". */
const ROOM_LEFT_LOAD = 0.9;

/** A key with this many copies stored is a repeat crowding its own buckets. */
const CROWDING_COPIES = 2;

export class CuckooOverflow {
  readonly #filter: CuckooFilter;
  /** Keys that did not fit because their two buckets were full of their own copies. */
  #repeated = 0;
  /** Keys that did not fit because the filter was full. */
  #full = 0;
  #example: string | undefined;
  /** The example's bytes, and how many of its copies did not fit. */
  #exampleKey: Uint8Array | undefined;
  #exampleMisses = 0;

  constructor(filter: CuckooFilter) {
    this.#filter = filter;
  }

  /** Most copies of one key the filter can hold: both its buckets full (one bucket when its two are the same). */
  #limit(key: Uint8Array): number {
    const { buckets } = this.#filter.locate(key);
    return buckets[0] === buckets[1] ? this.#filter.bucketSize : 2 * this.#filter.bucketSize;
  }

  /** Looks at each key that was not stored (stored[i] = 0), while the filter is as it was then. */
  note(keys: readonly Uint8Array[], stored: Uint8Array): void {
    for (let i = 0; i < keys.length; i++) {
      if (stored[i] === 1) continue;
      const key = keys[i];
      const copies = this.#filter.count(key);
      if (copies >= this.#limit(key) || (copies >= CROWDING_COPIES && this.#filter.loadFactor < ROOM_LEFT_LOAD)) {
        this.#repeated++;
        if (this.#example === undefined) {
          this.#example = Buffer.from(key).toString("utf8");
          this.#exampleKey = Uint8Array.from(key);
        }
        if (Buffer.compare(key, this.#exampleKey!) === 0) this.#exampleMisses++;
      } else this.#full++;
    }
  }

  /**
   * The error to stop with, or undefined when every key fitted; `counted`
   * names the lines the filter was sized for when no --n was given.
   */
  error(lines: number, counted?: string): CliError | undefined {
    if (this.#repeated === 0 && this.#full === 0) return undefined;
    const limit = 2 * this.#filter.bucketSize;
    if (this.#full > 0) {
      // Copies crowd their two buckets well before there are `limit` of them: not "repeated over 8 times".
      const also = this.#repeated > 0 ? ` (and ${fmt(this.#repeated)} more were repeats of lines whose two buckets their own copies had filled)` : "";
      const advice = counted === undefined ? "build with a larger --n" : `it was sized for ${counted}; give a larger --n`;
      // A larger --n alone leaves the repeats past their two buckets: the next build stops on them.
      const dedup = this.#repeated > 0 ? ", and remove repeated lines first (bloomkit dedup)" : "";
      return new CliError(`the cuckoo filter is full: ${fmt(this.#full)} of ${count(lines, "key")} did not fit${also}; ${advice}${dedup}`);
    }
    const text = this.#example!;
    const shown = JSON.stringify(text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text);
    // Its copies, stored and not: more than its two buckets hold, and no --n makes room for them.
    if (this.#filter.count(this.#exampleKey!) + this.#exampleMisses <= limit) {
      // Fewer copies than its buckets hold, crowded by other keys in them: a larger filter spreads those.
      return new CliError(
        `the line ${shown} repeats, and its copies and the other keys in its two buckets filled them; ` +
          `${fmt(this.#repeated)} of ${count(lines, "line")} did not fit. Remove repeated lines first (bloomkit dedup), or give a larger --n`,
      );
    }
    return new CliError(
      `the line ${shown} repeats more than a cuckoo filter can hold: at most ${limit} copies of one key ` +
        `(2 buckets of ${this.#filter.bucketSize} slots, fewer when other keys share them), ` +
        `whatever --n; ${fmt(this.#repeated)} of ${count(lines, "line")} did not fit. Remove repeated lines first (bloomkit dedup) or use another --type`,
    );
  }
}
