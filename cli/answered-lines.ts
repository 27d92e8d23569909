// query's output for a piece of lines: every line without its line ending
// ("\n", and one "\r" before it, as hasLines drops them), followed by the text
// of its answer. Both the one-thread path and the workers of --threads write
// it, so the two outputs are the same bytes.
import { countNewlines } from "./io.js";

/** Writes lines with their answers into a buffer it reuses, grown for a larger piece. */
export class AnsweredLines {
  readonly #suffixes: Uint8Array[];
  #buffer = new Uint8Array(2 << 20);

  /** `texts[answer]` follows each line answered 0 or 1. */
  constructor(texts: readonly [string, string]) {
    const encoder = new TextEncoder();
    this.#suffixes = texts.map((text) => encoder.encode(text));
  }

  /** The lines of `bytes` (line i ends at ends[i]) with their answers; the bytes are valid until the next call. Also the number of 1 answers. */
  of(bytes: Uint8Array, answers: Uint8Array, ends: Uint32Array): { text: Uint8Array; ones: number } {
    let at = 0;
    let start = 0;
    let ones = 0;
    for (let i = 0; i < answers.length; i++) {
      const end = ends[i];
      let keyEnd = end;
      if (keyEnd > start && bytes[keyEnd - 1] === 10) keyEnd--;
      if (keyEnd > start && bytes[keyEnd - 1] === 13) keyEnd--;
      const suffix = this.#suffixes[answers[i]];
      const need = at + (keyEnd - start) + suffix.length;
      if (need > this.#buffer.length) {
        const larger = new Uint8Array(Math.max(this.#buffer.length * 2, need));
        larger.set(this.#buffer.subarray(0, at));
        this.#buffer = larger;
      }
      this.#buffer.set(bytes.subarray(start, keyEnd), at);
      at += keyEnd - start;
      this.#buffer.set(suffix, at);
      at += suffix.length;
      ones += answers[i];
      start = end;
    }
    return { text: this.#buffer.subarray(0, at), ones };
  }
}

/** Where each line of a piece ends (after its "\n"); a last line without "\n" ends at the end of the piece. */
export function lineEnds(piece: Uint8Array): Uint32Array {
  const last = piece.length > 0 && piece[piece.length - 1] !== 10;
  const ends = new Uint32Array(countNewlines(piece) + (last ? 1 : 0));
  let i = 0;
  for (let at = piece.indexOf(10); at >= 0; at = piece.indexOf(10, at + 1)) ends[i++] = at + 1;
  if (last) ends[i] = piece.length;
  return ends;
}
