// Cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014): buckets
// of four fingerprints, partial-key cuckoo hashing i2 = i1 ⊕ hash(fp), a
// power-of-two bucket count. An insert that finds no room after MAX_KICKS
// relocations undoes every relocation, so a full filter loses nothing. A
// batch can keep a journal of every slot it writes, so the caller can put a
// failed batch back byte for byte (cuckooUndo).

import { filterHash } from "./hash";
import { Hashed, OP_ADD, OP_COUNT, OP_HAS, OP_TEST_AND_ADD, SOURCE_HASHES, SOURCE_U32, sourceHash } from "./batch";

/** Header field offsets; the slots follow at CUCKOO_HEADER. */
// @ts-ignore: decorator
@inline const C_BUCKETS: usize = 0; // u32 bucket count, a power of two
// @ts-ignore: decorator
@inline const C_FP_BITS: usize = 4; // u32 fingerprint bits: 8, 16 or 32
// @ts-ignore: decorator
@inline const C_HASH: usize = 8; // u32 hash id
// @ts-ignore: decorator
@inline const C_SEED: usize = 12; // u32 seed
// @ts-ignore: decorator
@inline const C_SIZE: usize = 16; // u64 fingerprints stored
// @ts-ignore: decorator
@inline export const CUCKOO_HEADER: usize = 32;
/** Entries per bucket. */
// @ts-ignore: decorator
@inline export const BUCKET_SIZE: u32 = 4;
/** Relocations tried before an insert fails. */
// @ts-ignore: decorator
@inline export const MAX_KICKS: u32 = 500;
/** murmur2's multiplier: hashes a fingerprint to its bucket offset. */
// @ts-ignore: decorator
@inline const FP_MIX: u32 = 0x5BD1E995;

/** The kick path of the running insert: per relocation its slot and the fingerprint it held, for undoing it. */
const KICK_PATH: usize = memory.data(<i32>MAX_KICKS << 3, 8);

/** Journal header: u32 entries written, u32 keys run by the last cuckooRun; the entries follow. */
// @ts-ignore: decorator
@inline const J_ENTRIES: usize = 0;
// @ts-ignore: decorator
@inline const J_KEYS: usize = 4;
// @ts-ignore: decorator
@inline export const JOURNAL_HEADER: usize = 8;
/** Entries one insert may write: a slot per relocation and the final free slot. */
// @ts-ignore: decorator
@inline export const JOURNAL_ENTRIES_PER_KEY: u32 = MAX_KICKS + 1;

/** Slot bytes for `buckets` buckets of `fpBits`-bit fingerprints. */
export function cuckooBlockBytes(buckets: f64, fpBits: u32): f64 {
  return <f64>(<u64>CUCKOO_HEADER + ((<u64>buckets * BUCKET_SIZE * (fpBits >> 3) + 7) & ~7));
}

export function cuckooInit(filter: usize, buckets: u32, fpBits: u32, hashId: u32, seed: u32): void {
  store<u32>(filter, buckets, C_BUCKETS);
  store<u32>(filter, fpBits, C_FP_BITS);
  store<u32>(filter, hashId, C_HASH);
  store<u32>(filter, seed, C_SEED);
  store<u64>(filter, 0, C_SIZE);
}

/** Fingerprint in slot `s` (bucket · 4 + entry); 0 = empty. */
// @ts-ignore: decorator
@inline function getSlot(filter: usize, fpBits: u32, s: u32): u32 {
  const data = filter + CUCKOO_HEADER;
  if (fpBits == 8) return load<u8>(data + s);
  if (fpBits == 16) return load<u16>(data + (<usize>s << 1));
  return load<u32>(data + (<usize>s << 2));
}

// @ts-ignore: decorator
@inline function setSlot(filter: usize, fpBits: u32, s: u32, fp: u32): void {
  const data = filter + CUCKOO_HEADER;
  if (fpBits == 8) store<u8>(data + s, <u8>fp);
  else if (fpBits == 16) store<u16>(data + (<usize>s << 1), <u16>fp);
  else store<u32>(data + (<usize>s << 2), fp);
}

/** The other bucket of a fingerprint: i ⊕ hash(fp), masked. */
// @ts-ignore: decorator
@inline function altBucket(i: u32, fp: u32, mask: u32): u32 {
  return (i ^ (fp * FP_MIX)) & mask;
}

/** Key hash: fingerprint from the high 32 bits (never 0), first bucket from the low ones. */
let keyFp: u32 = 0;
let keyBucket: u32 = 0;

/** Sets keyFp and keyBucket from a key's 64-bit hash. */
// @ts-ignore: decorator
@inline function useHash(filter: usize, h: u64): void {
  const fpBits = load<u32>(filter, C_FP_BITS);
  const fpMask: u32 = fpBits == 32 ? 0xFFFFFFFF : (1 << fpBits) - 1;
  const fp = <u32>(h >> 32) & fpMask;
  keyFp = fp == 0 ? 1 : fp;
  keyBucket = <u32>h & (load<u32>(filter, C_BUCKETS) - 1);
}

/** Hashes a key of bytes with the filter's hash and seed, then useHash. */
// @ts-ignore: decorator
@inline function hashKey(filter: usize, key: usize, len: usize): void {
  const id = load<u32>(filter, C_HASH);
  const seed = load<u32>(filter, C_SEED);
  useHash(filter, filterHash(id, key, len, seed));
}

/** Low 15 bits of each 16-bit lane, and of each 8-bit lane its low 7: what the lane tests add to. */
// @ts-ignore: decorator
@inline const LANES16_LOW: u64 = 0x7FFF7FFF7FFF7FFF;
// @ts-ignore: decorator
@inline const LANES8_LOW: u32 = 0x7F7F7F7F;

/** The high bit of each 16-bit lane of x that is 0, and no other bit: exact, with no carry between lanes. */
// @ts-ignore: decorator
@inline function zeroLanes16(x: u64): u64 {
  return ~(((x & LANES16_LOW) + LANES16_LOW) | x | LANES16_LOW);
}

/** The high bit of each 8-bit lane of x that is 0, and no other bit. */
// @ts-ignore: decorator
@inline function zeroLanes8(x: u32): u32 {
  return ~(((x & LANES8_LOW) + LANES8_LOW) | x | LANES8_LOW);
}

/**
 * Writes fp into the first free entry of bucket b and returns its slot
 * (b · 4 + entry), or −1 when the bucket is full. 8- and 16-bit buckets are
 * read as one word, as copiesIn reads them, instead of slot by slot with a
 * branch on each. Measured with both builds in one process (10^6 keys into a
 * fresh table, 16-bit fingerprints): addInts 58.0 -> 45.8 ns/key (Node 20)
 * and 22.2 -> 17.3 (Node 24), addPacked 1.27x (Node 20) and 1.02x (Node 24),
 * single-key add level.
 */
// @ts-ignore: decorator
@inline function placeIn(filter: usize, fpBits: u32, b: u32, fp: u32): i32 {
  const data = filter + CUCKOO_HEADER;
  if (fpBits == 16) {
    // The empty lanes of the bucket in one word, as copiesIn finds equal ones: the lowest is the first free entry.
    const at = data + (<usize>b << 3);
    const empty = zeroLanes16(load<u64>(at));
    if (empty == 0) return -1;
    const j = <u32>ctz<u64>(empty) >> 4; // the lowest empty lane's high bit: 16j + 15
    store<u16>(at + (<usize>j << 1), <u16>fp);
    return <i32>(b * BUCKET_SIZE + j);
  }
  if (fpBits == 8) {
    const at = data + (<usize>b << 2);
    const empty = zeroLanes8(load<u32>(at));
    if (empty == 0) return -1;
    const j = ctz<u32>(empty) >> 3; // 8j + 7
    store<u8>(at + <usize>j, <u8>fp);
    return <i32>(b * BUCKET_SIZE + j);
  }
  for (let j: u32 = 0; j < BUCKET_SIZE; j++) {
    const s = b * BUCKET_SIZE + j;
    if (getSlot(filter, fpBits, s) == 0) {
      setSlot(filter, fpBits, s, fp);
      return <i32>s;
    }
  }
  return -1;
}

/**
 * Copies of fp in bucket b. 8- and 16-bit buckets are compared in one word:
 * lanes equal to fp are the zero lanes of bucket ⊕ fp·(1 in every lane),
 * counted exactly by their high bits. Measured against four slot loads
 * (10^6 keys, 16-bit fingerprints, both builds in one process): hasInts 19.6
 * -> 13.1 ns/key under Node 20 and 21.5 -> 12.5 under Node 24, hasPacked
 * 32.8 -> 26.0 under Node 20.
 */
// @ts-ignore: decorator
@inline function copiesIn(filter: usize, fpBits: u32, b: u32, fp: u32): u32 {
  const data = filter + CUCKOO_HEADER;
  if (fpBits == 16) {
    return <u32>popcnt<u64>(zeroLanes16(load<u64>(data + (<usize>b << 3)) ^ (<u64>fp * 0x0001000100010001)));
  }
  if (fpBits == 8) {
    return popcnt<u32>(zeroLanes8(load<u32>(data + (<usize>b << 2)) ^ (fp * 0x01010101)));
  }
  let n: u32 = 0;
  for (let j: u32 = 0; j < BUCKET_SIZE; j++) n += <u32>(getSlot(filter, fpBits, b * BUCKET_SIZE + j) == fp);
  return n;
}

/**
 * xorshift32 state of the running insert's kicks, seeded from its key: what
 * an insert does depends on the slots and the key alone, so a filter loaded
 * from a record stores what the original would (a generator kept in the
 * filter, which a record does not hold, made the two part near full).
 */
let kickState: u32 = 0;

/** Seeds kickState from the key being inserted (keyFp, keyBucket); never 0, which xorshift keeps. */
// @ts-ignore: decorator
@inline function seedKicks(): void {
  const x = (keyFp * 0x9E3779B1) ^ (keyBucket * 0x85EBCA77);
  kickState = x == 0 ? 0x9E3779B9 : x;
}

/** The next number of the running insert's kicks (xorshift32). */
// @ts-ignore: decorator
@inline function nextRandom(): u32 {
  let x = kickState;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  kickState = x;
  return x;
}

/** Puts back `entries` slot writes of (u32 slot, u32 fingerprint before) at `at`, last first: a failed insert's kick path, or a journal. */
// @ts-ignore: decorator
@inline function putBack(filter: usize, fpBits: u32, at: usize, entries: u32): void {
  while (entries > 0) {
    entries--;
    const entry = at + (<usize>entries << 3);
    setSlot(filter, fpBits, load<u32>(entry), load<u32>(entry, 4));
  }
}

/** Entries in the running batch's journal: a global while cuckooRun runs, in the journal's header after. */
let journalEntries: u32 = 0;

/** Appends the write of slot `s`, which held `before`, to the journal (0: none). */
// @ts-ignore: decorator
@inline function journalWrite(journal: usize, s: u32, before: u32): void {
  if (journal == 0) return;
  store<u64>(journal + JOURNAL_HEADER + (<usize>journalEntries << 3), <u64>s | (<u64>before << 32));
  journalEntries++;
}

/**
 * Inserts the hashed key; false when no room is found, and then the slots
 * are as before. With a journal (not 0), every slot written is appended to
 * it: at most JOURNAL_ENTRIES_PER_KEY entries.
 */
function insert(filter: usize, journal: usize): bool {
  const fpBits = load<u32>(filter, C_FP_BITS);
  const mask = load<u32>(filter, C_BUCKETS) - 1;
  const i1 = keyBucket;
  const i2 = altBucket(i1, keyFp, mask);
  let placed = placeIn(filter, fpBits, i1, keyFp);
  if (placed < 0) placed = placeIn(filter, fpBits, i2, keyFp);
  if (placed < 0) {
    seedKicks();
    let fp = keyFp;
    let b = nextRandom() & 1 ? i2 : i1;
    let kicks: u32 = 0;
    while (placed < 0 && kicks < MAX_KICKS) {
      const s = b * BUCKET_SIZE + (nextRandom() & (BUCKET_SIZE - 1));
      const evicted = getSlot(filter, fpBits, s);
      store<u32>(KICK_PATH + (<usize>kicks << 3), s);
      store<u32>(KICK_PATH + (<usize>kicks << 3), evicted, 4);
      kicks++;
      setSlot(filter, fpBits, s, fp);
      fp = evicted;
      b = altBucket(b, fp, mask);
      placed = placeIn(filter, fpBits, b, fp);
    }
    if (placed < 0) {
      // Undo: walk the path back, each slot taking again what it held.
      putBack(filter, fpBits, KICK_PATH, kicks);
      return false;
    }
    for (let j: u32 = 0; j < kicks; j++) {
      const at = KICK_PATH + (<usize>j << 3);
      journalWrite(journal, load<u32>(at), load<u32>(at, 4));
    }
  }
  journalWrite(journal, <u32>placed, 0);
  store<u64>(filter, load<u64>(filter, C_SIZE) + 1, C_SIZE);
  return true;
}

/** Copies of the hashed key's fingerprint in its two buckets (one bucket when they coincide). */
// @ts-ignore: decorator
@inline function countKey(filter: usize): u32 {
  const fpBits = load<u32>(filter, C_FP_BITS);
  const mask = load<u32>(filter, C_BUCKETS) - 1;
  const i2 = altBucket(keyBucket, keyFp, mask);
  const n = copiesIn(filter, fpBits, keyBucket, keyFp);
  return i2 == keyBucket ? n : n + copiesIn(filter, fpBits, i2, keyFp);
}

/** Clears one copy of fp from bucket b; false when it holds none. */
// @ts-ignore: decorator
@inline function clearIn(filter: usize, fpBits: u32, b: u32, fp: u32): bool {
  for (let j: u32 = 0; j < BUCKET_SIZE; j++) {
    const s = b * BUCKET_SIZE + j;
    if (getSlot(filter, fpBits, s) == fp) {
      setSlot(filter, fpBits, s, 0);
      return true;
    }
  }
  return false;
}

/** Removes one copy of the hashed key's fingerprint; false when there is none. */
function removeHashed(filter: usize): bool {
  const fpBits = load<u32>(filter, C_FP_BITS);
  const mask = load<u32>(filter, C_BUCKETS) - 1;
  if (!clearIn(filter, fpBits, keyBucket, keyFp) && !clearIn(filter, fpBits, altBucket(keyBucket, keyFp, mask), keyFp)) return false;
  store<u64>(filter, load<u64>(filter, C_SIZE) - 1, C_SIZE);
  return true;
}

/** Runs `op` for key i, already hashed into keyFp and keyBucket; returns its answer byte (0 for count). */
// @ts-ignore: decorator
@inline function applyOp(filter: usize, op: u32, i: u32, out: usize, journal: usize): u32 {
  if (op == OP_COUNT) {
    store<u32>(out + (<usize>i << 2), countKey(filter));
    return 0;
  }
  let r: u32;
  if (op == OP_ADD) r = <u32>insert(filter, journal);
  else if (op == OP_HAS) r = <u32>(countKey(filter) > 0);
  else if (op == OP_TEST_AND_ADD) r = countKey(filter) > 0 ? 1 : insert(filter, journal) ? 0 : 2;
  else r = <u32>removeHashed(filter);
  store<u8>(out + i, <u8>r);
  return r;
}

/** `op` for one key of `len` bytes, its answer written to out[0] as cuckooRun does; returns the answer. */
export function cuckooKey(filter: usize, op: u32, key: usize, len: usize, out: usize): u32 {
  hashKey(filter, key, len);
  applyOp(filter, op, 0, out, 0);
  return op == OP_COUNT ? load<u32>(out) : <u32>load<u8>(out);
}

/** The loop of cuckooRun for one kind of source (see sourceHash). */
function runSource<T>(filter: usize, op: u32, src: usize, count: u32, out: usize, journal: usize, journalCapacity: u32): u32 {
  const seed = <u64>load<u32>(filter, C_SEED);
  let total: u32 = 0;
  let i: u32 = 0;
  if (journal != 0) {
    journalEntries = load<u32>(journal, J_ENTRIES);
    // Stop before a key whose insert might not fit in the journal; the caller empties it and goes on.
    for (; i < count && journalCapacity - journalEntries >= JOURNAL_ENTRIES_PER_KEY; i++) {
      useHash(filter, sourceHash<T>(src, i, seed));
      total += applyOp(filter, op, i, out, journal);
    }
    store<u32>(journal, journalEntries, J_ENTRIES);
    store<u32>(journal, i, J_KEYS);
    return total;
  }
  for (; i < count; i++) {
    useHash(filter, sourceHash<T>(src, i, seed));
    total += applyOp(filter, op, i, out, 0);
  }
  return total;
}

/**
 * Runs `op` over `count` keys from `source`: SOURCE_HASHES (the filter's
 * hash of each key, at `src`) or integer keys (SOURCE_U32/U64, mixed by
 * intHash with the filter's seed). `out` gets one byte per key (add: 1 =
 * stored, 0 = full; has: 1 = present; remove: 1 = removed) or, for OP_COUNT,
 * one u32 per key. Returns the sum of the bytes. With a `journal` (not 0;
 * room for `journalCapacity` entries of u32 slot and u32 fingerprint before
 * the write, at least JOURNAL_ENTRIES_PER_KEY), adds append each slot they
 * write to it, and the run stops early when the journal may not hold the
 * next key's writes: the journal header then tells how many keys ran.
 */
export function cuckooRun(filter: usize, op: u32, source: u32, src: usize, count: u32, out: usize, journal: usize, journalCapacity: u32): u32 {
  if (source == SOURCE_HASHES) return runSource<Hashed>(filter, op, src, count, out, journal, journalCapacity);
  if (source == SOURCE_U32) return runSource<u32>(filter, op, src, count, out, journal, journalCapacity);
  return runSource<u64>(filter, op, src, count, out, journal, journalCapacity);
}

/** Puts back the slot writes of a journal's `entries` entries at `at`, last first. */
export function cuckooUndo(filter: usize, at: usize, entries: u32): void {
  putBack(filter, load<u32>(filter, C_FP_BITS), at, entries);
}

/** Fingerprints stored. */
export function cuckooSize(filter: usize): f64 {
  return <f64>load<u64>(filter, C_SIZE);
}


/** Sets the fingerprint count after slots were copied in (deserialising). */
export function cuckooSetSize(filter: usize, size: f64): void {
  store<u64>(filter, <u64>size, C_SIZE);
}

/** Writes the key's fingerprint and its two buckets (u32 × 3) to `out`, for display. */
export function cuckooLocate(filter: usize, key: usize, len: usize, out: usize): void {
  hashKey(filter, key, len);
  store<u32>(out, keyFp);
  store<u32>(out, keyBucket, 4);
  store<u32>(out, altBucket(keyBucket, keyFp, load<u32>(filter, C_BUCKETS) - 1), 8);
}
