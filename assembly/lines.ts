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

/**
 * Moves the lines whose answer is `keep` to the front of `bytes`, in order,
 * with their line endings: line i of `count` ends at lineEnds[i] (u32,
 * offsets into `bytes`), its answer is the byte answers[i]. Runs of kept
 * lines move with one memory.copy each. Writes the bytes kept (u32) at
 * `keptBytes`; returns the lines kept. What dedupLines gives: the crawler
 * program's new lines, with no pass over them in JS.
 */
export function keepLines(bytes: usize, lineEnds: usize, answers: usize, count: u32, keep: u32, keptBytes: usize): u32 {
  let to: u32 = 0;
  let kept: u32 = 0;
  let runStart: u32 = 0;
  let start: u32 = 0;
  let inRun = false;
  for (let i: u32 = 0; i < count; i++) {
    const end = load<u32>(lineEnds + (<usize>i << 2));
    const keeps = <u32>load<u8>(answers + i) == keep;
    if (keeps && !inRun) {
      runStart = start;
      inRun = true;
    } else if (!keeps && inRun) {
      memory.copy(bytes + to, bytes + runStart, start - runStart);
      to += start - runStart;
      inRun = false;
    }
    kept += <u32>keeps;
    start = end;
  }
  if (inRun) {
    memory.copy(bytes + to, bytes + runStart, start - runStart);
    to += start - runStart;
  }
  store<u32>(keptBytes, to);
  return kept;
}
