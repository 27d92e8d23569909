// A batch for a filter kept in Redis, cut into the pieces that are sent as
// one script call each. Every key is checked before the first piece is
// sent, so a bad key changes nothing.
import { checkIntsKeys, checkReadable, describe, keysNotAnArray } from "../errors.js";
import { isBytes, maxKeyBytes } from "../keys.js";
import type { KeySource } from "../batch.js";

/**
 * Keys sent per piece of a batch (one script call). A script holds Redis for
 * every other client while it runs: measured here (k = 10) about 7 µs a key,
 * so a piece of 4,096 keys keeps other clients waiting 30 ms at most, and
 * the pieces in flight keep Redis busy between them.
 */
export const PIECE_KEYS = 4096;
/** Bytes of newline-delimited keys per piece (about 4,000 URLs). */
const PIECE_LINE_BYTES = 1 << 18;

/**
 * A batch source cut into pieces of at most PIECE_KEYS keys (lines: also at
 * most PIECE_LINE_BYTES, cut after a newline). Checks the whole source first;
 * a buffer or integer array that cannot be read (transferred, or past the
 * end of a shrunk resizable buffer), which would read as no keys, is refused
 * as a local filter refuses it.
 */
export function pieces(source: KeySource): KeySource[] {
  const out: KeySource[] = [];
  if (source.kind === "keys") {
    const { keys } = source;
    if (!Array.isArray(keys)) throw keysNotAnArray(keys);
    for (let i = 0; i < keys.length; i++) maxKeyBytes(keys[i], i);
    for (let i = 0; i < keys.length; i += PIECE_KEYS) out.push({ kind: "keys", keys: keys.slice(i, i + PIECE_KEYS) });
  } else if (source.kind === "ints") {
    const { keys } = source;
    checkIntsKeys(keys);
    for (let i = 0; i < keys.length; i += PIECE_KEYS) out.push({ kind: "ints", keys: keys.subarray(i, i + PIECE_KEYS) });
  } else if (source.kind === "lines") {
    const { buffer } = source;
    if (!isBytes(buffer)) throw new TypeError(`buffer must be a Uint8Array of newline-delimited keys, got ${describe(buffer)}`);
    checkReadable("buffer", buffer);
    let from = 0;
    while (from < buffer.length) {
      let end = Math.min(buffer.length, from + PIECE_LINE_BYTES);
      if (end < buffer.length) {
        const newline = buffer.lastIndexOf(10, end - 1);
        const after = newline >= from ? newline : buffer.indexOf(10, end);
        end = after < 0 ? buffer.length : after + 1;
      }
      // Short lines: at most PIECE_KEYS of them (a megabyte of empty lines held Redis for over 5 s in one call).
      let lines = 0;
      for (let at = buffer.indexOf(10, from); at >= 0 && at < end; at = buffer.indexOf(10, at + 1)) {
        if (++lines === PIECE_KEYS) {
          end = at + 1;
          break;
        }
      }
      out.push({ kind: "lines", buffer: buffer.subarray(from, end) });
      from = end;
    }
  } else {
    throw new TypeError("packed keys are not taken by a RedisBloomFilter");
  }
  return out;
}

