// bloomkit/redis: a Bloom filter kept in Redis, shared by many processes and
// machines. Imported apart from the main entry, which loads no Redis code.
export { RedisBloomFilter, RedisFilterError, REDIS_SEGMENT_BITS, REDIS_MAX_SEGMENTS, REDIS_MAX_BITS, type RedisBloomFilterOptions } from "./bloom.js";
export type { RedisClientLike, NodeRedisClientLike, NodeRedisClusterLike, IoRedisLike } from "./client.js";
