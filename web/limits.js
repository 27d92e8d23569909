// How large a filter the page makes: the limits its checks, its controls and
// its messages share. The cuckoo table an n gets is the library's
// CuckooFilter.sizeFor, not worked out here.

/** The most cells (bits, counters or slots) the page makes a filter of: 2^24, enough for the crawler preset's 14.4 million bits. */
export const MAX_CELLS = 2 ** 24;
/**
 * The most distinct keys the page keeps a record of, to tell a false positive
 * from a key it added: 2,000,000, more than its largest filter holds at 1%
 * (about 1.75 million in 2^24 bits). A JavaScript Map holds at most 2^24
 * keys, and before this limit the 17th click of a million random keys
 * threw there after the filter had taken them.
 */
export const MAX_KEYS_KEPT = 2_000_000;
/** The fewest bits or counters of "m and k directly": one byte's worth. */
export const MIN_CELLS = 8;
/** The most hash functions, in either sizing: a key's positions are listed and outlined one by one, and 32 still fit a narrow screen. */
export const MAX_HASHES = 32;
/**
 * The rates p's field takes, as the library does: above 0 and below 1. A
 * number field's min and max are inclusive, so they are the least number
 * above 0 and the greatest below 1 (a p too small for the filter's hashes or
 * fingerprints gets a message of its own, not a narrower field).
 */
export const MIN_RATE = Number.MIN_VALUE;
export const MAX_RATE = 1 - Number.EPSILON / 2;
/** The largest count of the page's counting filter, whose counters have 4 bits: one that reaches it stops counting. */
export const COUNTER_MAX = 15;
/** Fingerprints in a cuckoo bucket (the library's BUCKET_SIZE). */
export const SLOTS = 4;
/** The load a cuckoo filter is sized for (the library's TARGET_LOAD), for the page's words; past it, inserts start to fail. */
export const CUCKOO_LOAD = 0.95;
