// Sorting 64-bit key hashes and removing duplicates before a binary fuse
// filter is built (fuse-build.ts): a key given twice would sit twice in the
// same three slots, which no seed can peel. Temp memory is passed in.

/**
 * Radix sort on the high 32 bits of the hashes: 4 passes of 8-bit digits, one
 * 256-entry u32 histogram per pass. Random hashes rarely share their high
 * half, so the runs that do are finished by a sort on the low half.
 */
// @ts-ignore: decorator
@inline const RADIX_BITS: u32 = 8;
// @ts-ignore: decorator
@inline const RADIX_PASSES: u32 = 4;
// @ts-ignore: decorator
@inline const RADIX_BUCKETS: u32 = 1 << RADIX_BITS;
// @ts-ignore: decorator
@inline const HISTOGRAM_BYTES: usize = <usize>(RADIX_PASSES * RADIX_BUCKETS) << 2;
/** Runs of equal high halves up to this length are finished by insertion sort, longer ones by radix passes. */
// @ts-ignore: decorator
@inline const INSERTION_RUN: u32 = 16;

/** Bytes of temp memory fuseSortUnique needs for `count` hashes: a second array and the histograms. */
export function fuseSortTempBytes(count: u32): f64 {
  return <f64>((<u64>count << 3) + HISTOGRAM_BYTES);
}

/** Address of histogram entry `d` of pass `pass`. */
// @ts-ignore: decorator
@inline function bucketAt(histograms: usize, pass: u32, d: u32): usize {
  return histograms + ((<usize>(pass * RADIX_BUCKETS + d)) << 2);
}

/** Adds one to histogram entry `d` of pass `pass`. */
// @ts-ignore: decorator
@inline function bump(histograms: usize, pass: u32, d: u32): void {
  const at = bucketAt(histograms, pass, d);
  store<u32>(at, load<u32>(at) + 1);
}

/**
 * LSD radix sort of `count` u64 at `hashes` by the 32 bits from `low`
 * upwards, through `aux` (as many u64) and `histograms`; stable, result in
 * place. A pass whose digit is the same for every value is skipped.
 */
function radixSort(hashes: usize, aux: usize, count: u32, histograms: usize, low: u32): void {
  const shift = <u64>low;
  memory.fill(histograms, 0, HISTOGRAM_BYTES);
  for (let i: u32 = 0; i < count; i++) {
    const h = <u32>(load<u64>(hashes + (<usize>i << 3)) >> shift);
    bump(histograms, 0, h & 0xFF);
    bump(histograms, 1, (h >> 8) & 0xFF);
    bump(histograms, 2, (h >> 16) & 0xFF);
    bump(histograms, 3, h >> 24);
  }
  let from = hashes;
  let to = aux;
  for (let pass: u32 = 0; pass < RADIX_PASSES; pass++) {
    const digitShift = shift + <u64>(pass * RADIX_BITS);
    if (load<u32>(bucketAt(histograms, pass, <u32>(load<u64>(from) >> digitShift) & 0xFF)) == count) continue;
    // Histogram counts become each digit's first position.
    let next: u32 = 0;
    for (let d: u32 = 0; d < RADIX_BUCKETS; d++) {
      const at = bucketAt(histograms, pass, d);
      const n = load<u32>(at);
      store<u32>(at, next);
      next += n;
    }
    for (let i: u32 = 0; i < count; i++) {
      const h = load<u64>(from + (<usize>i << 3));
      const at = bucketAt(histograms, pass, <u32>(h >> digitShift) & 0xFF);
      const position = load<u32>(at);
      store<u32>(at, position + 1);
      store<u64>(to + (<usize>position << 3), h);
    }
    const swap = from;
    from = to;
    to = swap;
  }
  if (from != hashes) memory.copy(hashes, from, <usize>count << 3);
}

/** Insertion sort of `count` u64 at `values` (short runs). */
function insertionSort(values: usize, count: u32): void {
  for (let i: u32 = 1; i < count; i++) {
    const v = load<u64>(values + (<usize>i << 3));
    let j = i;
    while (j > 0 && load<u64>(values + (<usize>(j - 1) << 3)) > v) {
      store<u64>(values + (<usize>j << 3), load<u64>(values + (<usize>(j - 1) << 3)));
      j--;
    }
    store<u64>(values + (<usize>j << 3), v);
  }
}

/**
 * Sorts `count` u64 hashes in place (through `temp`, which has
 * fuseSortTempBytes(count)) and removes duplicates; returns how many distinct
 * hashes now start the array. Duplicate keys are never a build failure: this
 * is where they go.
 */
export function fuseSortUnique(hashes: usize, count: u32, temp: usize): u32 {
  if (count < 2) return count;
  const histograms = temp + (<usize>count << 3);
  radixSort(hashes, temp, count, histograms, 32);
  // Runs of equal high halves, sorted by their low halves.
  let runStart: u32 = 0;
  for (let i: u32 = 1; i <= count; i++) {
    if (i < count && (load<u64>(hashes + (<usize>i << 3)) >> 32) == (load<u64>(hashes + (<usize>runStart << 3)) >> 32)) continue;
    const run = i - runStart;
    const at = hashes + (<usize>runStart << 3);
    if (run > INSERTION_RUN) radixSort(at, temp, run, histograms, 0);
    else if (run > 1) insertionSort(at, run);
    runStart = i;
  }
  let distinct: u32 = 1;
  let last = load<u64>(hashes);
  for (let i: u32 = 1; i < count; i++) {
    const h = load<u64>(hashes + (<usize>i << 3));
    if (h != last) {
      store<u64>(hashes + (<usize>distinct << 3), h);
      distinct++;
      last = h;
    }
  }
  return distinct;
}
