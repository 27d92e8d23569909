// The split-block Bloom filter in plain C, the reference point of
// `npm run bench`: the same algorithm as assembly/split-block.ts (Apache
// Parquet's: xxh64 with seed 0, block from the high 32 bits, eight salted
// bits in one 32-byte block; integer keys mixed as intHash does), compiled
// with gcc -O3 -march=native against Debian's libxxhash. It reads the packed
// URL keys the benchmark writes and prints one JSON line of ns per key (the
// mean of 5 passes after a warm-up, as tinybench times bloomkit) and the hits.
//
// usage: sbbf <keys file> <probes file> <blocks> <huge blocks> <ints>
// A keys file is: u32 count, count u32 end offsets, then the bytes.
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

static const uint32_t SALT[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

typedef struct { uint32_t count; uint32_t *ends; uint8_t *bytes; } Keys;

static Keys readKeys(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  Keys k;
  if (fread(&k.count, 4, 1, f) != 1) exit(1);
  k.ends = malloc((size_t)k.count * 4);
  if (fread(k.ends, 4, k.count, f) != k.count) exit(1);
  size_t len = k.count ? k.ends[k.count - 1] : 0;
  k.bytes = malloc(len + 1);
  if (fread(k.bytes, 1, len, f) != len) exit(1);
  fclose(f);
  return k;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

/** The block of a hash in a filter of `blocks` blocks, as the specification computes it. */
static inline uint32_t *blockOf(uint32_t *data, uint64_t blocks, uint64_t h) {
  return data + (((h >> 32) * blocks) >> 32) * 8;
}

static inline void insert(uint32_t *data, uint64_t blocks, uint64_t h) {
  uint32_t *b = blockOf(data, blocks, h);
  uint32_t key = (uint32_t)h;
  for (int i = 0; i < 8; i++) b[i] |= 1U << ((key * SALT[i]) >> 27);
}

static inline int contains(const uint32_t *b, uint64_t h) {
  uint32_t key = (uint32_t)h;
  uint32_t miss = 0;
  for (int i = 0; i < 8; i++) miss |= ~b[i] & (1U << ((key * SALT[i]) >> 27));
  return miss == 0;
}

/** splitmix64's finaliser over key + (seed + 1)·φ, seed 0: bloomkit's intHash. */
static inline uint64_t intHash(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/** Queries packed keys; returns ns per key and the hits in *hits. */
static double queryPacked(const uint32_t *data, uint64_t blocks, const Keys *k, uint32_t *hits) {
  double t = now();
  uint32_t start = 0, n = 0;
  for (uint32_t i = 0; i < k->count; i++) {
    uint64_t h = XXH64(k->bytes + start, k->ends[i] - start, 0);
    n += contains(blockOf((uint32_t *)data, blocks, h), h);
    start = k->ends[i];
  }
  *hits = n;
  return (now() - t) / k->count;
}

/** Queries integer keys from..from+count; with `ahead`, prefetches the block of the key that many places ahead. */
static double queryInts(const uint32_t *data, uint64_t blocks, uint32_t from, uint32_t count, int ahead, uint32_t *hits) {
  double t = now();
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (ahead) __builtin_prefetch(blockOf((uint32_t *)data, blocks, intHash(from + i + ahead)));
    uint64_t h = intHash(from + i);
    n += contains(blockOf((uint32_t *)data, blocks, h), h);
  }
  *hits = n;
  return (now() - t) / count;
}

/* Timed passes after one warm-up pass; each figure is their mean, as tinybench reports bloomkit's. */
#define PASSES 5

/** One query of the benchmark: packed keys against the small filter, or integer keys from..from+count against the huge one. */
typedef struct {
  const Keys *keys;
  uint32_t from, count;
  int ahead;
} Query;

static const uint32_t *smallData, *hugeData;
static uint64_t smallBlocks, hugeBlocks;

/** One pass of `q`: ns per key; its hits in *hits. */
static double runOnce(const Query *q, uint32_t *hits) {
  if (q->keys) return queryPacked(smallData, smallBlocks, q->keys, hits);
  return queryInts(hugeData, hugeBlocks, q->from, q->count, q->ahead, hits);
}

/** The mean ns per key of `q` over PASSES passes after a warm-up, all passes of one query in a row (as tinybench runs a task). */
static double timeQuery(const Query *q, uint32_t *hits) {
  runOnce(q, hits);
  double total = 0;
  for (int pass = 0; pass < PASSES; pass++) total += runOnce(q, hits);
  return total / PASSES;
}

int main(int argc, char **argv) {
  if (argc != 6) { fprintf(stderr, "usage: sbbf keys probes blocks hugeBlocks ints\n"); return 2; }
  Keys keys = readKeys(argv[1]), probes = readKeys(argv[2]);
  uint64_t blocks = strtoull(argv[3], 0, 10), huge = strtoull(argv[4], 0, 10);
  uint32_t ints = (uint32_t)strtoul(argv[5], 0, 10);
  uint32_t *small = aligned_alloc(64, blocks * 32), *large = aligned_alloc(64, huge * 32);
  memset(small, 0, blocks * 32);
  memset(large, 0, huge * 32);
  uint32_t start = 0;
  for (uint32_t i = 0; i < keys.count; i++) {
    insert(small, blocks, XXH64(keys.bytes + start, keys.ends[i] - start, 0));
    start = keys.ends[i];
  }
  for (uint32_t i = 0; i < ints; i++) insert(large, huge, intHash(i));
  smallData = small, smallBlocks = blocks, hugeData = large, hugeBlocks = huge;
  uint32_t hm = 0, ha = 0, im = 0, ia = 0, pa = 0;
  double members = timeQuery(&(Query){&keys, 0, 0, 0}, &hm);
  double absent = timeQuery(&(Query){&probes, 0, 0, 0}, &ha);
  double hugeMembers = timeQuery(&(Query){0, 0, ints, 8}, &im);
  double hugeAbsent = timeQuery(&(Query){0, ints, ints, 8}, &ia);
  double plainAbsent = timeQuery(&(Query){0, ints, ints, 0}, &pa);
  // Untimed: the 1 GiB filter answers none of its absent integer keys, so its hits cannot show two integer
  // paths apart. The small filter's blocks, filled with the integers 0 … count − 1 instead, answer some of
  // count … 2·count − 1 present: those hits must be bloomkit's too.
  uint32_t sm = 0, sa = 0;
  memset(small, 0, blocks * 32);
  for (uint32_t i = 0; i < keys.count; i++) insert(small, blocks, intHash(i));
  queryInts(small, blocks, 0, keys.count, 0, &sm);
  queryInts(small, blocks, keys.count, keys.count, 0, &sa);
  printf("{\"hasPackedMembers\":%.2f,\"hasPackedAbsent\":%.2f,\"hugeHasIntsMembers\":%.2f,\"hugeHasIntsAbsent\":%.2f,"
         "\"hugeHasIntsAbsentNoPrefetch\":%.2f,\"memberHits\":%u,\"absentHits\":%u,\"hugeMemberHits\":%u,\"hugeAbsentHits\":%u,"
         "\"hugeAbsentHitsNoPrefetch\":%u,\"smallIntMemberHits\":%u,\"smallIntAbsentHits\":%u}\n",
         members, absent, hugeMembers, hugeAbsent, plainAbsent, hm, ha, im, ia, pa, sm, sa);
  return 0;
}
