// How large a filter the page makes: the limits its checks, its controls and
// its messages share, and the cuckoo table an n gets, worked out as the
// library sizes it so that a table too large is refused before it is made.

/** The most cells (bits, counters or slots) the page makes a filter of: 2^24, enough for the crawler preset's 14.4 million bits. */
export const MAX_CELLS = 2 ** 24;
/** The fewest bits or counters of "m and k directly": one byte's worth. */
export const MIN_CELLS = 8;
/** The most hash functions, in either sizing: a key's positions are listed and outlined one by one, and 32 still fit a narrow screen. */
export const MAX_HASHES = 32;
/** Fingerprints in a cuckoo bucket (the library's BUCKET_SIZE). */
export const SLOTS = 4;
/** A cuckoo filter gets room for n keys at this load (the library's TARGET_LOAD); past it, inserts start to fail. */
export const CUCKOO_LOAD = 0.95;

/**
 * The slots of CuckooFilter.create(n, p), whatever p: a power-of-two number of
 * buckets of 4 with room for n at 95% load (bindings/cuckoo-filter.ts, the
 * same expression, so that both round alike).
 */
export function cuckooSlots(n) {
  return SLOTS * 2 ** Math.max(0, Math.ceil(Math.log2(Math.ceil(n / (SLOTS * CUCKOO_LOAD)))));
}
