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
