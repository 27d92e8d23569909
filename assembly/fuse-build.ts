// Building a binary fuse filter (see binary-fuse.ts) from distinct 64-bit
// key hashes (fuse-sort.ts removes duplicates): for a seed, place every key
// in its three slots, peel slots that hold a single key until none is left,
// and assign fingerprints in reverse peeling order. A seed under which some
// keys cannot be peeled is replaced by the next one of a fixed sequence.
// Every buffer is passed in: nothing here keeps state between calls.

import {
  FUSE_ARRAY_LENGTH,
  FUSE_FIRST_RANGE,
  FUSE_HEADER,
  FUSE_MAX_SIZE,
  FUSE_SEED,
  FUSE_SEGMENT_COUNT,
  FUSE_SEGMENT_LENGTH,
  arrayLengthFor,
  fingerprintOf,
  firstSlot,
  fuseInit,
  fuseMix,
  fuseSetLayout,
  halvedSegmentCount,
  halvedSegmentLength,
  secondSlot,
  segmentCountFor,
  segmentLengthFor,
  slotAt,
  thirdSlot,
} from "./binary-fuse";

/** fuseBuild results. */
// @ts-ignore: decorator
@inline const FUSE_OK: u32 = 0;
// @ts-ignore: decorator
@inline const FUSE_ERROR_FINGERPRINT_BITS: u32 = 1;
// @ts-ignore: decorator
@inline const FUSE_ERROR_SIZE: u32 = 2;
// @ts-ignore: decorator
@inline const FUSE_ERROR_NOT_PEELED: u32 = 3;

/** Attempts HALVED_AT, HALVED_AT + HALVED_EVERY, … take the halved layout (halvedSegmentLength); the others the paper's. */
// @ts-ignore: decorator
@inline const HALVED_EVERY: u32 = 4;
// @ts-ignore: decorator
@inline const HALVED_AT: u32 = 1;

/** A slot's key count is kept ×4 in a byte whose low 2 bits XOR the slot's index (0, 1, 2) within each of its keys. */
// @ts-ignore: decorator
@inline const COUNT_ONE: u32 = 4;

/** splitmix64's increment and finaliser: the sequence of seeds. */
// @ts-ignore: decorator
@inline const GOLDEN: u64 = 0x9E3779B97F4A7C15;
// @ts-ignore: decorator
@inline const SPLITMIX_C1: u64 = 0xBF58476D1CE4E5B9;
// @ts-ignore: decorator
@inline const SPLITMIX_C2: u64 = 0x94D049BB133111EB;

/** The seed of attempt `state / GOLDEN`: splitmix64's output for a counter state. */
// @ts-ignore: decorator
@inline function splitmix(state: u64): u64 {
  let z = state;
  z = (z ^ (z >> 30)) * SPLITMIX_C1;
  z = (z ^ (z >> 27)) * SPLITMIX_C2;
  return z ^ (z >> 31);
}

/** log2 of the groups keys are put in by their first slot: the fewest (≥ 2) that give each segment its own. */
// @ts-ignore: decorator
@inline function groupBitsFor(segmentCount: u32): u32 {
  return max<u32>(1, 32 - clz<u32>(segmentCount - 1));
}

// The build's temp memory, for A slots and G groups, in two blocks (so that
// neither passes the allocator's largest block before the filter does):
//   slot hashes: u64 × A, the XOR of the mixed hashes of each slot's keys;
//   temp: work, u32 × (A + 1), the peeled slots from the bottom up and the
//     slots waiting to be peeled from the top down; group heads and ends,
//     u32 × G each, for grouping the hashes by first slot; slot counts,
//     u8 × A, COUNT_ONE × keys | XOR of the slot's index within each of its keys.
// 13 bytes per slot in all: about 14.7 per key for large sets.

/** Where the group heads start (the ends follow). */
// @ts-ignore: decorator
@inline function groupsAt(temp: usize, slots: u32): usize {
  return temp + ((<usize>slots + 1) << 2);
}

/** Where the slot counts start. */
// @ts-ignore: decorator
@inline function countsAt(temp: usize, slots: u32, groups: u32): usize {
  return groupsAt(temp, slots) + (<usize>groups << 3);
}

/** Bytes of the slot hashes block fuseBuild needs for `size` distinct keys: 8 per slot. */
export function fuseSlotHashBytes(size: u32): f64 {
  return <f64>(arrayLengthFor(size) << 3);
}

/** Bytes of the other temp block fuseBuild needs for `size` distinct keys: about 5 per slot. */
export function fuseTempBytes(size: u32): f64 {
  const slots = arrayLengthFor(size);
  // Groups for the halved layout's segments, which an attempt may take.
  const groups = <u64>1 << groupBitsFor(halvedSegmentCount(segmentCountFor(size, segmentLengthFor(size))));
  return <f64>((slots * 5 + 4 + (groups << 3) + 7) & ~7);
}

/**
 * Builds the filter at `filter` (a block of fuseBlockBytes(size, fingerprintBits))
 * from `size` distinct u64 key hashes (fuseSortUnique's output; they are
 * reordered), with fuseSlotHashBytes(size) bytes at `slotHashes` and
 * fuseTempBytes(size) at `temp`. Seeds come from
 * splitmix64 started at (seedHigh · 2^32 + seedLow), so a build is
 * reproducible. Returns FUSE_OK, or FUSE_ERROR_NOT_PEELED when `attempts`
 * seeds failed (which duplicate hashes cause); the caller decides how many
 * to try from which start (bindings/binary-fuse-filter.ts).
 */
export function fuseBuild(filter: usize, hashes: usize, size: u32, fingerprintBits: u32, slotHashes: usize, temp: usize, seedLow: u32, seedHigh: u32, attempts: u32): u32 {
  if (fingerprintBits != 8 && fingerprintBits != 16) return FUSE_ERROR_FINGERPRINT_BITS;
  if (size > FUSE_MAX_SIZE) return FUSE_ERROR_SIZE;
  fuseInit(filter, size, fingerprintBits);
  if (size == 0) return FUSE_OK;
  const segmentLength = load<u32>(filter, FUSE_SEGMENT_LENGTH);
  const segmentCount = load<u32>(filter, FUSE_SEGMENT_COUNT);
  const halved = halvedSegmentLength(segmentLength);
  let state = (<u64>seedHigh << 32) | seedLow;
  for (let attempt: u32 = 0; attempt < attempts; attempt++) {
    state += GOLDEN;
    const seed = splitmix(state);
    if (halved != 0 && attempt % HALVED_EVERY == HALVED_AT) fuseSetLayout(filter, halved, halvedSegmentCount(segmentCount));
    else fuseSetLayout(filter, segmentLength, segmentCount);
    groupByFirstSlot(filter, hashes, size, temp, seed);
    if (peelAll(filter, hashes, size, slotHashes, temp, seed)) {
      store<u64>(filter, seed, FUSE_SEED);
      if (fingerprintBits == 8) assign<u8>(filter, size, slotHashes, temp);
      else assign<u16>(filter, size, slotHashes, temp);
      return FUSE_OK;
    }
  }
  return FUSE_ERROR_NOT_PEELED;
}

/** The group of a hash under `seed`: the top bits of its mix, which order first slots. */
// @ts-ignore: decorator
@inline function groupOf(h: u64, seed: u64, shift: u64): u32 {
  return <u32>(fuseMix(h, seed) >> shift);
}

/**
 * Reorders the hashes in place so their first slots under `seed` come
 * nearly in order (an in-place counting sort on the top bits of the mix,
 * cycle by cycle): the slot arrays are then filled almost sequentially, not
 * at random, which is most of a large build's time.
 */
function groupByFirstSlot(filter: usize, hashes: usize, size: u32, temp: usize, seed: u64): void {
  const slots = load<u32>(filter, FUSE_ARRAY_LENGTH);
  const groupBits = groupBitsFor(load<u32>(filter, FUSE_SEGMENT_COUNT));
  const groups: u32 = 1 << groupBits;
  const shift = <u64>(64 - groupBits);
  const heads = groupsAt(temp, slots);
  const ends = heads + (<usize>groups << 2);
  memory.fill(ends, 0, <usize>groups << 2);
  for (let i: u32 = 0; i < size; i++) {
    const at = ends + (<usize>groupOf(load<u64>(hashes + (<usize>i << 3)), seed, shift) << 2);
    store<u32>(at, load<u32>(at) + 1);
  }
  let next: u32 = 0;
  for (let g: u32 = 0; g < groups; g++) {
    store<u32>(heads + (<usize>g << 2), next);
    next += load<u32>(ends + (<usize>g << 2));
    store<u32>(ends + (<usize>g << 2), next);
  }
  for (let g: u32 = 0; g < groups; g++) {
    const end = load<u32>(ends + (<usize>g << 2));
    const headAt = heads + (<usize>g << 2);
    while (load<u32>(headAt) < end) {
      // Carry the hash at this group's head to its own group, and the one it displaces on, until one belongs here.
      let h = load<u64>(hashes + (<usize>load<u32>(headAt) << 3));
      let target = groupOf(h, seed, shift);
      while (target != g) {
        const targetAt = heads + (<usize>target << 2);
        const position = load<u32>(targetAt);
        store<u32>(targetAt, position + 1);
        const displaced = load<u64>(hashes + (<usize>position << 3));
        store<u64>(hashes + (<usize>position << 3), h);
        h = displaced;
        target = groupOf(h, seed, shift);
      }
      const position = load<u32>(headAt);
      store<u64>(hashes + (<usize>position << 3), h);
      store<u32>(headAt, position + 1);
    }
  }
}

/** Adds (or removes: XOR is its own inverse) a key of mixed hash `m` to slot `slot` as its slot number `index`. */
// @ts-ignore: decorator
@inline function toggle(counts: usize, slotHashes: usize, slot: u32, index: u32, m: u64, add: bool): void {
  const at = counts + <usize>slot;
  store<u8>(at, <u8>((add ? load<u8>(at) + COUNT_ONE : load<u8>(at) - COUNT_ONE) ^ index));
  const hashAt = slotHashes + (<usize>slot << 3);
  store<u64>(hashAt, load<u64>(hashAt) ^ m);
}

/**
 * One attempt under `seed`: counts every slot's keys (in the grouped order),
 * then peels. A peeled key's slot keeps its count and hash (no later key
 * touches it), so the work array records only the slot. True when every key
 * was peeled; the peeled slots are then left in the work array for assign().
 */
function peelAll(filter: usize, hashes: usize, size: u32, slotHashes: usize, temp: usize, seed: u64): bool {
  const slots = load<u32>(filter, FUSE_ARRAY_LENGTH);
  const segmentLength = load<u32>(filter, FUSE_SEGMENT_LENGTH);
  const firstRange = <u64>load<u32>(filter, FUSE_FIRST_RANGE);
  const groups: u32 = 1 << groupBitsFor(load<u32>(filter, FUSE_SEGMENT_COUNT));
  const work = temp;
  const counts = countsAt(temp, slots, groups);

  // Every key into its three slots; a count past 63 wraps the byte: try another seed.
  memory.fill(counts, 0, slots);
  memory.fill(slotHashes, 0, <usize>slots << 3);
  let wrapped = false;
  for (let i: u32 = 0; i < size; i++) {
    const m = fuseMix(load<u64>(hashes + (<usize>i << 3)), seed);
    const h0 = firstSlot(m, firstRange);
    const h1 = secondSlot(h0, m, segmentLength);
    const h2 = thirdSlot(h0, m, segmentLength);
    toggle(counts, slotHashes, h0, 0, m, true);
    toggle(counts, slotHashes, h1, 1, m, true);
    toggle(counts, slotHashes, h2, 2, m, true);
    wrapped = wrapped || load<u8>(counts + h0) < COUNT_ONE || load<u8>(counts + h1) < COUNT_ONE || load<u8>(counts + h2) < COUNT_ONE;
  }
  if (wrapped) return false;

  // Peel: a slot with one key fixes that key; removing it may leave its other
  // slots with one. The waiting slots are a stack at the top of the work array
  // (entry `slots − i`), the peeled ones grow from the bottom; each slot waits
  // at most once, so the two never meet (one spare entry takes the
  // unconditional store below when the array is full).
  const top = work + (<usize>slots << 2);
  let waiting: u32 = 0;
  for (let s: u32 = 0; s < slots; s++) {
    store<u32>(top - (<usize>waiting << 2), s);
    waiting += <u32>(load<u8>(counts + s) >> 2 == 1);
  }
  let peeled: u32 = 0;
  while (waiting > 0) {
    waiting--;
    const slot = load<u32>(top - (<usize>waiting << 2));
    const count = <u32>load<u8>(counts + slot);
    if (count >> 2 != 1) continue;
    store<u32>(work + (<usize>peeled << 2), slot);
    peeled++;
    const m = load<u64>(slotHashes + (<usize>slot << 3));
    const index = count & 3;
    const h0 = firstSlot(m, firstRange);
    const h1 = secondSlot(h0, m, segmentLength);
    const h2 = thirdSlot(h0, m, segmentLength);
    // The key leaves its other two slots; one that drops to a single key waits.
    const otherA = index == 0 ? h1 : h0;
    const otherB = index == 2 ? h1 : h2;
    const indexA: u32 = index == 0 ? 1 : 0;
    const indexB: u32 = index == 2 ? 1 : 2;
    store<u32>(top - (<usize>waiting << 2), otherA);
    waiting += <u32>(load<u8>(counts + otherA) >> 2 == 2);
    toggle(counts, slotHashes, otherA, indexA, m, false);
    store<u32>(top - (<usize>waiting << 2), otherB);
    waiting += <u32>(load<u8>(counts + otherB) >> 2 == 2);
    toggle(counts, slotHashes, otherB, indexB, m, false);
  }
  return peeled == size;
}

/**
 * Fingerprints in reverse peeling order: each key's peeled slot is still 0
 * (no key set after it touches that slot), so setting it to the key's
 * fingerprint XOR its three slots makes the three XOR to the fingerprint.
 */
function assign<T>(filter: usize, size: u32, slotHashes: usize, temp: usize): void {
  const fingerprints = filter + FUSE_HEADER;
  const slots = load<u32>(filter, FUSE_ARRAY_LENGTH);
  const segmentLength = load<u32>(filter, FUSE_SEGMENT_LENGTH);
  const firstRange = <u64>load<u32>(filter, FUSE_FIRST_RANGE);
  const work = temp;
  for (let i = size; i > 0; ) {
    i--;
    const slot = load<u32>(work + (<usize>i << 2));
    const m = load<u64>(slotHashes + (<usize>slot << 3));
    const h0 = firstSlot(m, firstRange);
    const f = fingerprintOf(m) ^ <u32>load<T>(slotAt<T>(fingerprints, h0)) ^
      <u32>load<T>(slotAt<T>(fingerprints, secondSlot(h0, m, segmentLength))) ^
      <u32>load<T>(slotAt<T>(fingerprints, thirdSlot(h0, m, segmentLength)));
    store<T>(slotAt<T>(fingerprints, slot), <T>f);
  }
}
