// Finding line ends in a buffer of newline-delimited keys, 16 bytes at a time.

/** Index of the first "\n" in [at, len), or len: v128 compares for whole 16-byte blocks, bytes for the tail. */
// @ts-ignore: decorator
@inline export function findNewline(buf: usize, at: u32, len: u32): u32 {
  const newlines = i8x16.splat(10);
  while (at + 16 <= len) {
    const hits = i8x16.bitmask(i8x16.eq(v128.load(buf + at), newlines));
    if (hits != 0) return at + ctz<u32>(hits);
    at += 16;
  }
  while (at < len && load<u8>(buf + at) != 10) at++;
  return at;
}

/** End of the key of a line that ends at `end`: one trailing "\r" is not part of it. */
// @ts-ignore: decorator
@inline export function keyEnd(buf: usize, start: u32, end: u32): u32 {
  return end > start && load<u8>(buf + end - 1) == 13 ? end - 1 : end;
}

/** Bytes the last compactLines call consumed from its buffer. */
let compactConsumed: u32 = 0;

export function compactLinesConsumed(): u32 {
  return compactConsumed;
}

/**
 * Turns up to `maxLines` newline-delimited lines at `buf` into packed keys in
 * place: each line's "\n" and one trailing "\r" are dropped and the keys moved
 * together, key i ending at keyEnds[i] (u32, from `buf`). With `final` 0 a last
 * line without "\n" is left. Returns the lines handled; compactLinesConsumed()
 * tells the bytes of the original buffer they took.
 */
export function compactLines(buf: usize, len: u32, final: u32, maxLines: u32, keyEnds: usize): u32 {
  let at: u32 = 0;
  let packed: u32 = 0;
  let lines: u32 = 0;
  while (lines < maxLines && at < len) {
    const end = findNewline(buf, at, len);
    if (end == len && !final) break;
    const keyLength = keyEnd(buf, at, end) - at;
    memory.copy(buf + packed, buf + at, keyLength);
    packed += keyLength;
    store<u32>(keyEnds + (<usize>lines << 2), packed);
    lines++;
    at = end < len ? end + 1 : end;
  }
  compactConsumed = at;
  return lines;
}
