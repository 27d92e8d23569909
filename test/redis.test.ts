// RedisBloomFilter against a real redis-server (Debian's, started here on a
// free loopback port with persistence off): every operation answers as a
// local BloomFilter with the same parameters does, across processes,
// segments, uploads and downloads, and failures reach the caller in words.
import { spawn } from "node:child_process";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, createCluster, createSentinel } from "redis";
import { Redis as IoRedis } from "ioredis";
import { BloomFilter } from "../bindings/index.js";
import { REDIS_MAX_BITS, REDIS_SEGMENT_BITS, RedisBloomFilter, RedisFilterError, type NodeRedisClientLike } from "../bindings/redis/index.js";
import { redisOffset } from "../bindings/redis/bits.js";
import { PIECE_KEYS } from "../bindings/redis/pieces.js";
import { BATCH_SCRIPT } from "../bindings/redis/script.js";
import { CREATE_SCRIPT, PLACE_SCRIPT, UPLOAD_PIECE_SCRIPT } from "../bindings/redis/meta.js";
import { firstDifference, ones, urls } from "./helpers.js";
import { describeWithRedis, serverForBlock, startRedis, startSentinel, type NodeRedis, type RedisServer } from "./redis-server.js";
import { localTwin, sameAsLocal } from "./redis-model.js";

/** A node-redis-like client that passes every command on to `redis`, first calling `before` with it (which may act on Redis meanwhile). */
function relay(redis: NodeRedis, before: (args: string[]) => unknown): NodeRedisClientLike {
  return {
    async sendCommand(args, options) {
      await before(args.map(String));
      return redis.sendCommand(args as string[], options);
    },
  };
}

/** Calls of `command` Redis ran since CONFIG RESETSTAT, those inside scripts included (INFO commandstats). */
async function callsOf(redis: NodeRedis, command: string): Promise<number> {
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, "m").exec(await redis.info("commandstats"))?.[1] ?? 0);
}

const encoder = new TextEncoder();
// CI installs redis-server (.ci/run); elsewhere the file is skipped without it.
describeWithRedis("RedisBloomFilter", () => {
  let server: RedisServer;
  let redis: NodeRedis;
  serverForBlock((started, client) => ((server = started), (redis = client)));

  it("answers every operation as a local BloomFilter with the same m, k, hash and seed", async () => {
    const filter = await RedisBloomFilter.create(redis, "model:default", 5000, 0.01);
    expect([filter.name, filter.bits, filter.hashes, filter.hash, filter.seed, filter.segmentCount]).toEqual(["model:default", 47926, 7, "xxh3", 0, 1]);
    const reference = BloomFilter.create(5000, 0.01);
    expect([filter.bits, filter.hashes]).toEqual([reference.bits, reference.hashes]);
    (await sameAsLocal(filter, 1)).dispose();
    await filter.drop();
  });

  it("uses the chosen hash and seed (murmur3_128 gives its own second hash, xxh64)", async () => {
    for (const [hash, seed] of [["murmur3_128", 7], ["xxh64", 123456789], ["fnv1a_64", 0]] as const) {
      const filter = await RedisBloomFilter.create(redis, `model:${hash}`, 2000, 0.001, { hash, seed });
      expect([filter.hash, filter.seed, filter.hashes]).toEqual([hash, seed, 10]);
      (await sameAsLocal(filter, 2, 15)).dispose();
      await filter.drop();
    }
  });

  it("sets the bits a local filter sets, at the Redis offsets of bloomkit's bit order", async () => {
    const filter = await RedisBloomFilter.create(redis, "order", 1000, 0.01);
    const local = localTwin(filter);
    await filter.add("one key");
    for (const bit of local.positions("one key")) {
      expect(await redis.getBit("{order}:bits:0", redisOffset(bit))).toBe(1);
      // Redis counts from the most significant bit of a byte: byte bit >> 3 holds bloomkit's bit (bit & 7).
      const byte = (await redis.sendCommand(["GETRANGE", "{order}:bits:0", String(bit >> 3), String(bit >> 3)], { typeMapping: { 36: Buffer } })) as Buffer;
      expect((byte[0] >> (bit & 7)) & 1).toBe(1);
    }
    expect(await redis.bitCount("{order}:bits:0")).toBe(new Set(local.positions("one key")).size);
    expect([0, 1, 6, 7, 8, 15, 2 ** 32 - 1].map(redisOffset)).toEqual([7, 6, 1, 0, 15, 8, 2 ** 32 - 8]);
    local.dispose();
    await filter.drop();
  });

  it("splits a filter over several Redis keys by key hash, as a local filter in as many segments routes keys", async () => {
    // A test-sized segment limit (2^16 bits): the arithmetic is that of 2^32-bit strings.
    const filter = await RedisBloomFilter.create(redis, "split", 50_000, 0.01, { segmentBits: 2 ** 16 } as object);
    expect(filter.segmentCount).toBe(8);
    expect(filter.bits % (64 * 8)).toBe(0);
    expect(filter.bits / 8).toBeLessThanOrEqual(2 ** 16);
    const local = await sameAsLocal(filter, 3, 30);
    expect(local.segmentCount).toBe(8);
    const lengths = await Promise.all(Array.from({ length: 8 }, (_, s) => redis.strLen(`{split}:bits:${s}`)));
    expect(lengths.every((bytes) => bytes > 0 && bytes <= filter.bits / 8 / 8)).toBe(true);
    await filter.drop();
    local.dispose();
  });

  it("sizes filters past 2^32 bits into strings of at most 512 MiB, offsets below 2^32", async () => {
    const filter = await RedisBloomFilter.create(redis, "huge", 1e9, 0.01);
    expect(filter.bits).toBeGreaterThan(REDIS_SEGMENT_BITS);
    expect(filter.segmentCount).toBe(Math.ceil(filter.bits / REDIS_SEGMENT_BITS));
    expect(filter.bits / filter.segmentCount).toBeLessThanOrEqual(REDIS_SEGMENT_BITS);
    expect((filter.bits / filter.segmentCount) % 64).toBe(0);
    const params = await redis.hGetAll("{huge}:meta");
    expect(params).toMatchObject({ format: "bloomkit:bloom", version: "2", strategy: "triple", bits: String(filter.bits), segments: String(filter.segmentCount), hash: "xxh3", seed: "0" });
    // Queries read (and allocate) nothing; offsets near the top of a string must be accepted.
    expect(ones(await filter.hasMany(urls(2000, "huge", 5)))).toBe(0);
    expect(await redis.exists(["{huge}:bits:0", "{huge}:bits:1", "{huge}:bits:2"])).toBe(0);
    await filter.drop();
    expect(REDIS_MAX_BITS).toBe(64 * 2 ** 32);
    await expect(RedisBloomFilter.create(redis, "too-big", 1e12, 0.001)).rejects.toThrow(/holds at most 274877906944 bits/);
  });

  it("moves whole bit arrays: toBloomFilter, fromBloomFilter, with identical answers and bytes", async () => {
    const keys = urls(20_000, "upload", 9);
    const probes = urls(20_000, "upload-probe", 10);
    const local = BloomFilter.create(20_000, 0.01, { hash: "murmur3_128", seed: 99 });
    local.addMany(keys);
    const up = await RedisBloomFilter.fromBloomFilter(redis, "uploaded", local);
    expect([up.bits, up.hashes, up.hash, up.seed, up.segmentCount]).toEqual([local.bits, local.hashes, "murmur3_128", 99, 1]);
    expect(await up.hasMany(probes)).toEqual(local.hasMany(probes));
    expect(ones(await up.hasMany(keys))).toBe(keys.length);
    const down = await up.toBloomFilter();
    expect(firstDifference(down.bitArray(), local.bitArray())).toBe(-1);
    expect(down.size).toBe(Math.round(local.estimatedCount()));
    // The copy is an ordinary filter: it serializes and reads back with the same answers.
    const again = BloomFilter.deserialize(down.serialize());
    expect(again.hasMany(probes)).toEqual(local.hasMany(probes));
    // A filter in segments goes up and down too.
    const split = await RedisBloomFilter.create(redis, "split-source", 30_000, 0.01, { segmentBits: 2 ** 16 } as object);
    await split.addMany(keys);
    const splitLocal = await split.toBloomFilter();
    expect(splitLocal.segmentCount).toBe(split.segmentCount);
    expect(BloomFilter.deserialize(splitLocal.serialize()).hasMany(probes)).toEqual(await split.hasMany(probes));
    const copy = await RedisBloomFilter.fromBloomFilter(redis, "split-copy", splitLocal);
    expect(copy.segmentCount).toBe(split.segmentCount);
    expect(await copy.hasMany(probes)).toEqual(await split.hasMany(probes));
    expect(await copy.testAndAddMany(probes)).toEqual(splitLocal.testAndAddMany(probes));
    await expect(RedisBloomFilter.fromBloomFilter(redis, "uploaded", local)).rejects.toThrow(/"uploaded": a filter of that name already exists/);
    // Two uploads under one new name at once: one wins whole, the other is refused and leaves nothing behind.
    const other = BloomFilter.create(20_000, 0.01, { hash: "murmur3_128", seed: 99 });
    other.addMany(probes);
    const race = await Promise.allSettled([RedisBloomFilter.fromBloomFilter(redis, "raced", local), RedisBloomFilter.fromBloomFilter(redis, "raced", other)]);
    expect(race.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const winner = race[0].status === "fulfilled" ? local : other;
    const raced = await RedisBloomFilter.open(redis, "raced");
    expect(firstDifference((await raced.toBloomFilter()).bitArray(), winner.bitArray())).toBe(-1);
    expect((await redis.keys("{raced}*")).sort()).toEqual(["{raced}:bits:0", "{raced}:meta"]);
    await raced.drop();
    other.dispose();
    for (const f of [local, down, again, splitLocal]) f.dispose();
    for (const f of [up, split, copy]) await f.drop();
  });

  it("a copy of a filter of one hash (p = 0.5) serializes to a record that reads back", async () => {
    // With k = 1 the fill's estimate, −m · ln(1 − X/m), is always more than the X set bits; the copy took it
    // as its size, and deserialize refused its record: "count = 599 keys, but 953 of 1443 bits are clear".
    const filter = await RedisBloomFilter.create(redis, "one-hash", 1000, 0.5);
    expect(filter.hashes).toBe(1);
    const keys = urls(600, "one-hash", 11);
    await filter.addMany(keys);
    const copy = await filter.toBloomFilter();
    const again = BloomFilter.deserialize(copy.serialize());
    expect(again.size).toBe(copy.size);
    expect(ones(again.hasMany(keys))).toBe(keys.length);
    await filter.drop();
  });

  it("an upload cut off leaves keys that expire; one whose segment expired places nothing; a placed filter never expires", async () => {
    // A filter in 3 segments (each its own Redis string), as a local copy.
    const source = await RedisBloomFilter.create(redis, "expiring-source", 10_000, 0.01, { segmentBits: 2 ** 15 } as object);
    expect(source.segmentCount).toBe(3);
    await source.addMany(urls(5_000, "expiring", 21));
    const local = await source.toBloomFilter();
    await source.drop();
    const placed = await RedisBloomFilter.fromBloomFilter(redis, "kept", local);
    expect(await Promise.all(["{kept}:meta", "{kept}:bits:0", "{kept}:bits:1", "{kept}:bits:2"].map((key) => redis.pTTL(key)))).toEqual([-1, -1, -1, -1]);
    await placed.drop();
    /** The script call that puts an upload in place (the pieces of bits are script calls too). */
    const placing = (args: string[]) => args[0] === "EVAL" && args[1] === PLACE_SCRIPT;
    // The connection lost as the filter is put in place: the clean-up fails too, and the uploaded keys stay, expiring.
    const cut = relay(redis, (args) => {
      if (placing(args) || args[0] === "DEL") throw new Error("Socket closed unexpectedly");
    });
    await expect(RedisBloomFilter.fromBloomFilter(cut, "cut", local)).rejects.toThrow(/"cut": cannot upload the filter: Socket closed unexpectedly/);
    const left = await redis.keys("{cut}:upload:*");
    expect(left).toHaveLength(3);
    for (const key of left) expect(await redis.pTTL(key)).toBeGreaterThan(23 * 3600 * 1000);
    await redis.del(left);
    // The connection lost right after the first piece of bits reached Redis: that key expires too (its
    // expiry was a command of its own, which never came, and the key stayed for good).
    let sent = 0;
    const early = relay(redis, (args) => {
      if (args[0] !== "EXISTS" && sent++ >= 1) throw new Error("Socket closed unexpectedly");
    });
    await expect(RedisBloomFilter.fromBloomFilter(early, "early", local)).rejects.toThrow(/"early": cannot upload the filter: Socket closed unexpectedly/);
    const first = await redis.keys("{early}:upload:*");
    expect(first).toHaveLength(1);
    expect(await redis.pTTL(first[0])).toBeGreaterThan(23 * 3600 * 1000);
    await redis.del(first);
    // A segment's upload gone (expired) before the filter is put in place: nothing is placed, no filter lacking its keys.
    const expiring = relay(redis, async (args) => {
      if (placing(args)) await redis.del((await redis.keys("{late}:upload:*"))[1]);
    });
    await expect(RedisBloomFilter.fromBloomFilter(expiring, "late", local)).rejects.toThrow(/"late": cannot upload the filter: a segment uploaded expired before the filter was put in place \(uploads live 24 h\); nothing was placed/);
    expect(await redis.keys("{late}*")).toEqual([]);
    local.dispose();
  });

  it("open() of a filter dropped between its two reads says there is no such filter", async () => {
    await RedisBloomFilter.create(redis, "vanishing", 1000, 0.01);
    const dropping = relay(redis, async (args) => {
      if (args[0] === "HGETALL") await (await RedisBloomFilter.open(redis, "vanishing")).drop();
    });
    await expect(RedisBloomFilter.open(dropping, "vanishing")).rejects.toThrow('Redis filter "vanishing": there is no such filter in Redis (no key {vanishing}:meta); create it with RedisBloomFilter.create');
  });

  it("refuses filters it cannot keep: folded, independent hashes, segments above 2^32 bits", async () => {
    const folded = BloomFilter.create(1000, 0.01, { foldable: true }).fold(2);
    await expect(RedisBloomFilter.fromBloomFilter(redis, "folded", folded)).rejects.toThrow(RangeError);
    const independent = BloomFilter.create(1000, 0.01, { hash: ["murmur3_32", "xxh32"] });
    await expect(RedisBloomFilter.fromBloomFilter(redis, "independent", independent)).rejects.toThrow(/independent/);
    await expect(RedisBloomFilter.create(redis, "independent", 1000, 0.01, { hash: ["murmur3_32", "xxh32"] as never })).rejects.toThrow(TypeError);
    expect(await redis.keys("*")).toEqual([]);
  });

  it("opens a filter by name from Redis, and create with the same parameters opens it too", async () => {
    const first = await RedisBloomFilter.create(redis, "crawl:seen", 10_000, 0.001, { seed: 5 });
    await first.addMany(["a", "b"]);
    const opened = await RedisBloomFilter.open(redis, "crawl:seen");
    expect(opened.toJSON()).toEqual(first.toJSON());
    expect(inspect(opened)).toBe('RedisBloomFilter {name: "crawl:seen", bits: 143776, hashes: 10, hash: "xxh3", seed: 5, strategy: "triple", segments: 1}');
    expect(await opened.hasMany(["a", "b", "c"])).toEqual(new Uint8Array([1, 1, 0]));
    const again = await RedisBloomFilter.create(redis, "crawl:seen", 10_000, 0.001, { seed: 5 });
    expect(await again.has("a")).toBe(true);
    await first.drop();
    expect(await redis.keys("*")).toEqual([]);
    await expect(first.has("a")).rejects.toThrow(/was dropped/);
  });

  it("throws clear errors for missing, foreign and conflicting filters, naming them", async () => {
    await expect(RedisBloomFilter.open(redis, "nothing")).rejects.toThrow('Redis filter "nothing": there is no such filter in Redis (no key {nothing}:meta)');
    await redis.set("{string}:meta", "hello");
    await expect(RedisBloomFilter.open(redis, "string")).rejects.toThrow('Redis filter "string": Redis key {string}:meta holds a string, not a bloomkit filter');
    await expect(RedisBloomFilter.create(redis, "string", 10, 0.1)).rejects.toThrow(/holds a string, not a bloomkit filter/);
    await redis.hSet("{other}:meta", { format: "someone-else" });
    await expect(RedisBloomFilter.open(redis, "other")).rejects.toThrow(/is not a bloomkit filter: its format field is "someone-else"/);
    await redis.hSet("{future}:meta", { format: "bloomkit:bloom", version: "3" });
    await expect(RedisBloomFilter.open(redis, "future")).rejects.toThrow(/layout version "3"; this bloomkit reads versions 1 and 2/);
    await RedisBloomFilter.create(redis, "sized", 1000, 0.01);
    const conflict = RedisBloomFilter.create(redis, "sized", 2000, 0.01);
    await expect(conflict).rejects.toThrow(RedisFilterError);
    await expect(RedisBloomFilter.create(redis, "sized", 2000, 0.01)).rejects.toThrow(/already exists in Redis with other parameters \(bits 19171 vs 9586/);
    await expect(RedisBloomFilter.create(redis, "sized", 1000, 0.01, { seed: 1 })).rejects.toThrow(/seed 1 vs 0/);
    await expect(RedisBloomFilter.create(redis, "sized", 1000, 0.01, { hash: "xxh64" })).rejects.toThrow(/other parameters \(hash xxh64 vs xxh3/);
    await redis.flushAll();
  });

  it("create without a hash opens a filter made with xxh64, the earlier default, and keeps indexing it by xxh64", async () => {
    const older = await RedisBloomFilter.create(redis, "crawl:before-xxh3", 5000, 0.01, { hash: "xxh64" });
    const keys = urls(2000, "before-xxh3", 61);
    await older.addMany(keys);
    const upgraded = await RedisBloomFilter.create(redis, "crawl:before-xxh3", 5000, 0.01);
    expect(upgraded.hash).toBe("xxh64");
    expect(ones(await upgraded.hasMany(keys))).toBe(keys.length);
    const more = urls(500, "after-xxh3", 62);
    await upgraded.addMany(more);
    const local = BloomFilter.create(5000, 0.01, { hash: "xxh64" }).addMany([...keys, ...more]);
    const downloaded = await upgraded.toBloomFilter();
    expect(downloaded.hash).toBe("xxh64");
    expect(firstDifference(downloaded.bitArray(), local.bitArray())).toBe(-1);
    // Other parameters than the hash still have to match.
    await expect(RedisBloomFilter.create(redis, "crawl:before-xxh3", 5000, 0.01, { seed: 2 })).rejects.toThrow(/seed 2 vs 0/);
    await expect(RedisBloomFilter.create(redis, "crawl:before-xxh3", 5000, 0.01, { hash: "xxh3" })).rejects.toThrow(/hash xxh3 vs xxh64/);
    await upgraded.drop();
  });

  it("checks its arguments before anything reaches Redis", async () => {
    await expect(RedisBloomFilter.create({} as never, "x", 10, 0.1)).rejects.toThrow(/redis must be a connected Redis client/);
    // Its sendCommand takes (isReadonly, args): before, create failed with "Cannot read properties of undefined (reading 'length')".
    const sentinel = createSentinel({ name: "master", sentinelRootNodes: [{ host: "127.0.0.1", port: server.port }] });
    for (const call of [() => RedisBloomFilter.create(sentinel as never, "x", 10, 0.1), () => RedisBloomFilter.open(sentinel as never, "x")]) {
      await expect(call()).rejects.toThrow(new TypeError("redis must be a connected Redis client (node-redis 5's createClient or createCluster, or ioredis), got a node-redis Sentinel (createSentinel), which bloomkit does not take: connect createClient to the master the Sentinel names (getMasterNode())"));
    }
    await expect(RedisBloomFilter.create(redis, "" as string, 10, 0.1)).rejects.toThrow("name must not be empty");
    await expect(RedisBloomFilter.create(redis, "a{b}", 10, 0.1)).rejects.toThrow(/must not contain "\{" or "\}"/);
    await expect(RedisBloomFilter.create(redis, 5 as never, 10, 0.1)).rejects.toThrow("name must be a string, got 5");
    await expect(RedisBloomFilter.create(redis, "x", -1, 0.1)).rejects.toThrow("expectedItems must be a positive finite number, got -1");
    await expect(RedisBloomFilter.create(redis, "x", 10, 1.5)).rejects.toThrow("falsePositiveRate must be between 0 and 1 (exclusive), got 1.5");
    await expect(RedisBloomFilter.create(redis, "x", 0.01, 1000)).rejects.toThrow(
      new RangeError('falsePositiveRate must be between 0 and 1 (exclusive), got 1000, and expectedItems = 0.01 looks like the rate: the count of keys comes first, as in RedisBloomFilter.create(redis, "x", 1000, 0.01)'),
    );
    // The options a user may give, and only those: segmentBits is the tests' own way to split small filters.
    await expect(RedisBloomFilter.create(redis, "x", 10, 0.1, { sead: 1 } as never)).rejects.toThrow(new TypeError('unknown option "sead" in options; known options: seed, hash, strategy'));
    const filter = await RedisBloomFilter.create(redis, "x", 100, 0.1);
    await filter.add("kept");
    await expect(filter.addMany(["fine", 7 as never])).rejects.toThrow("keys[1] must be a string or a Uint8Array, got 7");
    await expect(filter.add(null as never)).rejects.toThrow("key must be a string or a Uint8Array, got null");
    await expect(filter.addLines("text" as never)).rejects.toThrow(/buffer must be a Uint8Array/);
    await expect(filter.addInts([1, 2] as never)).rejects.toThrow(/keys must be a Uint32Array or a BigUint64Array/);
    // A buffer or integer array whose buffer was transferred (posted to a worker) reads as empty: refused as a local
    // filter refuses it, not answered as a batch of no keys.
    const transferred = <T extends Uint8Array | Uint32Array | BigUint64Array>(view: T): T => {
      structuredClone(view.buffer, { transfer: [view.buffer as ArrayBuffer] });
      return view;
    };
    await expect(filter.hasLines(transferred(encoder.encode("kept\n")))).rejects.toThrow(new TypeError("buffer must be readable, got a Uint8Array whose buffer was transferred (detached)"));
    await expect(filter.addLines(transferred(encoder.encode("fine\n")))).rejects.toThrow(/^buffer must be readable/);
    await expect(filter.hasInts(transferred(Uint32Array.of(1)))).rejects.toThrow(new TypeError("keys must be readable, got a Uint32Array whose buffer was transferred (detached)"));
    await expect(filter.testAndAddInts(transferred(BigUint64Array.of(1n)))).rejects.toThrow(/^keys must be readable/);
    // A failed call changed nothing: "fine" was not added before keys[1] was found bad.
    expect(await filter.hasMany(["kept", "fine"])).toEqual(new Uint8Array([1, 0]));
    await filter.drop();
  });

  it("refuses a name with a lone surrogate, which Redis would keep as another name's keys", async () => {
    // Sent as UTF-8, a lone surrogate becomes U+FFFD: "\ud800", "\udfff" and "\ufffd" would all be the keys {\ufffd}:….
    const names = ["\ufffd", "a\ud800", "\udfff", "x\udc00\ud800"];
    const made = await RedisBloomFilter.create(redis, names[0], 100, 0.1);
    await made.add("only in the first");
    const local = BloomFilter.create(10, 0.1);
    for (const name of names.slice(1)) {
      await expect(RedisBloomFilter.create(redis, name, 100, 0.1), JSON.stringify(name)).rejects.toThrow(new RangeError(`name must be text without lone surrogates (sent as UTF-8, each would become U+FFFD, the keys of another name), got ${JSON.stringify(name)}`));
      await expect(RedisBloomFilter.open(redis, name)).rejects.toThrow(/^name must be text without lone surrogates/);
      await expect(RedisBloomFilter.fromBloomFilter(redis, name, local)).rejects.toThrow(/^name must be text without lone surrogates/);
    }
    // A pair (an emoji) is text: its own filter.
    const emoji = await RedisBloomFilter.create(redis, "seen:\ud83d\ude00", 100, 0.1);
    expect(await emoji.has("only in the first")).toBe(false);
    await emoji.drop();
    await made.drop();
    local.dispose();
  });

  describe("a node-redis Sentinel lease", () => {
    let master: RedisServer;
    let sentinelServer: RedisServer;
    let sentinel: ReturnType<typeof createSentinel>;
    beforeAll(async () => {
      master = await startRedis();
      sentinelServer = await startSentinel(master.port, "leased");
      sentinel = await createSentinel({ name: "leased", sentinelRootNodes: [{ host: "127.0.0.1", port: sentinelServer.port }] }).connect();
    });
    afterAll(async () => {
      await sentinel?.close();
      await sentinelServer?.stop();
      await master?.stop();
    });

    it("is refused in words, as its Sentinel is", async () => {
      const refused = new TypeError(
        "redis must be a connected Redis client (node-redis 5's createClient or createCluster, or ioredis), got a node-redis Sentinel lease (acquire() or use()), which bloomkit does not take: " +
          "connect createClient to the master the Sentinel names (getMasterNode())",
      );
      const refuses = async (lease: object) => {
        // Its sendCommand takes (isReadonly, args) too: before, create and open failed with "Cannot read properties of undefined (reading 'length')".
        await expect(RedisBloomFilter.create(lease as never, "x", 10, 0.1)).rejects.toThrow(refused);
        await expect(RedisBloomFilter.open(lease as never, "x")).rejects.toThrow(refused);
        const local = BloomFilter.create(10, 0.1);
        await expect(RedisBloomFilter.fromBloomFilter(lease as never, "x", local)).rejects.toThrow(refused);
        local.dispose();
      };
      const lease = await sentinel.acquire();
      try {
        // A lease that works: the refusal is bloomkit's, not a broken connection's.
        expect(await lease.sendCommand(false, ["PING"])).toBe("PONG");
        await refuses(lease);
      } finally {
        lease.release();
      }
      await sentinel.use(refuses);
      // Nothing was written through it.
      expect(await sentinel.sendCommand(false, ["DBSIZE"])).toBe(0);
    });
  });

  it("takes batches larger than one piece, keys longer than one chunk, and empty batches", async () => {
    const filter = await RedisBloomFilter.create(redis, "big-batch", 100_000, 0.01);
    const local = localTwin(filter);
    const keys = urls(70_000, "big-batch", 11);
    expect(await filter.testAndAddMany(keys)).toEqual(local.testAndAddMany(keys));
    const text = encoder.encode(urls(60_000, "big-lines", 12).join("\n"));
    expect(await filter.testAndAddLines(text)).toEqual(local.testAndAddLines(text));
    const long = ["x".repeat(3 << 20), "y"];
    expect(await filter.testAndAddMany(long)).toEqual(local.testAndAddMany(long));
    expect(await filter.hasMany([])).toEqual(new Uint8Array(0));
    expect(await filter.hasLines(new Uint8Array(0))).toEqual(new Uint8Array(0));
    expect(await filter.hasInts(new BigUint64Array([1n, 2n ** 64n - 1n]))).toEqual(local.hasInts(new BigUint64Array([1n, 2n ** 64n - 1n])));
    local.dispose();
    await filter.drop();
  });

  it("sends its script again when Redis has forgotten it (SCRIPT FLUSH, a restart or a failover)", async () => {
    const filter = await RedisBloomFilter.create(redis, "flushed", 50_000, 0.01);
    const local = localTwin(filter);
    const keys = urls(40_000, "flushed", 15);
    for (let round = 0; round < 2; round++) {
      await redis.scriptFlush();
      expect(await filter.testAndAddMany(keys.slice(round * 20_000, round * 20_000 + 30_000))).toEqual(local.testAndAddMany(keys.slice(round * 20_000, round * 20_000 + 30_000)));
    }
    await redis.scriptFlush();
    expect(await filter.hasMany(keys)).toEqual(local.hasMany(keys));
    local.dispose();
    await filter.drop();
  });

  it("keeps a batch's pieces in order when Redis forgets its script mid-batch and another client loads it again", async () => {
    // A failover to a replica that never ran the script: this client's pieces in flight find it
    // missing, while another client (another instance of the same service) loads it. The first piece
    // to find it missing is sent again; a piece sent behind it must not run before it.
    const filter = await RedisBloomFilter.create(redis, "reordered", 50_000, 0.01);
    const local = localTwin(filter);
    const other = await createClient({ url: server.url }).connect();
    const shared = urls(200, "reordered-shared", 16);
    // Three pieces of PIECE_KEYS: the same 200 keys in the second and third, so their answers depend on the order.
    const keys = [...urls(PIECE_KEYS, "reordered-first", 17), ...urls(PIECE_KEYS - 200, "reordered-second", 18), ...shared, ...shared, ...urls(PIECE_KEYS - 200, "reordered-third", 19)];
    let scriptCalls = 0;
    let secondSent = () => {};
    const second = new Promise<void>((resolve) => (secondSent = resolve));
    let firstRan = () => {};
    const first = new Promise<void>((resolve) => (firstRan = resolve));
    const slowReplies: NodeRedisClientLike = {
      async sendCommand(args, options) {
        const name = String(args[0]);
        if (name !== "EVALSHA" && name !== "EVAL") return redis.sendCommand(args as string[], options);
        const call = ++scriptCalls;
        if (call === 2) {
          // The second piece: Redis has forgotten the script; its reply comes back late, after the third piece is sent.
          await redis.scriptFlush();
          const reply = redis.sendCommand(args as string[], options);
          await reply.then(firstRan, firstRan);
          await other.sendCommand(["SCRIPT", "LOAD", BATCH_SCRIPT]);
          await second;
          return reply;
        }
        if (call === 3) {
          await first;
          await new Promise((resolve) => setTimeout(resolve, 20)); // the other client's SCRIPT LOAD first
          const reply = redis.sendCommand(args as string[], options);
          secondSent();
          return reply;
        }
        return redis.sendCommand(args as string[], options);
      },
    };
    await redis.sendCommand(["SCRIPT", "LOAD", BATCH_SCRIPT]); // the first piece finds it
    const reordering = await RedisBloomFilter.open(slowReplies, "reordered");
    expect(await reordering.testAndAddMany(keys)).toEqual(local.testAndAddMany(keys));
    expect(scriptCalls).toBeGreaterThanOrEqual(3);
    await other.quit();
    local.dispose();
    await filter.drop();
  });

  it("gives the same answers through ioredis", async () => {
    // Without resending cut-off calls, which testAndAdd needs (test/redis-lost-replies.test.ts).
    const io = new IoRedis(server.port, "127.0.0.1", { lazyConnect: true, autoResendUnfulfilledCommands: false });
    await io.connect();
    try {
      const filter = await RedisBloomFilter.create(io, "io", 5000, 0.01, { segmentBits: 2 ** 13 } as object);
      expect(filter.segmentCount).toBeGreaterThan(1);
      (await sameAsLocal(filter, 4, 20)).dispose();
      // One filter, two kinds of client.
      const same = await RedisBloomFilter.open(redis, "io");
      const probes = urls(2000, "io-probe", 13);
      expect(await same.hasMany(probes)).toEqual(await filter.hasMany(probes));
      await expect(RedisBloomFilter.open(io, "absent")).rejects.toThrow(/no such filter/);
      await filter.drop();
    } finally {
      io.disconnect();
    }
  });

  it("gives the same answers through a node-redis client speaking RESP3, whose HGETALL is an object without a prototype", async () => {
    const resp3 = await createClient({ url: server.url, RESP: 3 }).connect();
    try {
      const filter = await RedisBloomFilter.create(resp3, "resp3", 5000, 0.01);
      const opened = await RedisBloomFilter.open(resp3, "resp3");
      expect(opened.toJSON()).toEqual(filter.toJSON());
      (await sameAsLocal(opened, 5, 20)).dispose();
      const copy = await opened.toBloomFilter();
      const uploaded = await RedisBloomFilter.fromBloomFilter(resp3, "resp3-copy", copy);
      expect((await RedisBloomFilter.open(resp3, "resp3-copy")).toJSON()).toMatchObject({ bits: filter.bits, hashes: filter.hashes });
      copy.dispose();
      await uploaded.drop();
      await opened.drop();
      expect(await redis.keys("{resp3*")).toEqual([]);
    } finally {
      await resp3.quit();
    }
  });

  it("a server whose strings are shorter than the filter's (proto-max-bulk-len) is named as the cause, and nothing is written", async () => {
    const small = await startRedis(["--proto-max-bulk-len", "1mb"]);
    const client = await createClient({ url: small.url }).connect();
    try {
      // 9,585,059 bits: one string of 1,198,133 bytes, more than the server's 1 MiB.
      const filter = await RedisBloomFilter.create(client, "long", 1e6, 0.01);
      for (const call of [() => filter.addMany(["a", "b"]), () => filter.hasMany(["a"])]) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(RedisFilterError);
        expect((error as Error).message).toMatch(
          /^Redis filter "long": cannot (add|query) keys: this Redis server refuses bit offsets past its strings' longest \(its proto-max-bulk-len\), and this filter's strings are 1198133 bytes; raise proto-max-bulk-len to at least that, or use a filter of fewer bits: /,
        );
      }
      expect(await client.exists("{long}:bits:0")).toBe(0);
      await client.configSet("proto-max-bulk-len", "2mb");
      expect(await filter.testAndAddMany(["a", "b", "a"])).toEqual(new Uint8Array([0, 0, 1]));
    } finally {
      await client.quit();
      await small.stop();
    }
  });

  it("tells exactly one of four processes test-and-adding the same new key at once that it was absent", async () => {
    const filter = await RedisBloomFilter.create(redis, "race", 40_000, 1e-6);
    const worker = new URL("./fixtures/redis-worker.mjs", import.meta.url).pathname;
    // Overlapping ranges: every key is added by two, three or four of the workers.
    const ranges = [[0, 12_000], [2_000, 12_000], [4_000, 12_000], [6_000, 12_000]];
    const outputs = ranges.map(([first, count], w) => {
      const child = spawn(process.execPath, [worker, server.url, "race", String(first), String(count), String(w + 1)], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      return new Promise<string[]>((resolve, reject) => child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`worker ${w} exited ${code}`)))));
    });
    // All four wait on the list; one push each lets them go together.
    while ((await redis.clientList()).filter((c) => c.cmd === "blpop").length < 4) await new Promise((r) => setTimeout(r, 20));
    await redis.rPush("race:go", ["go", "go", "go", "go"]);
    const absent = await Promise.all(outputs);
    const told = new Map<string, number>();
    for (const list of absent) for (const key of list) told.set(key, (told.get(key) ?? 0) + 1);
    expect([...told.values()].filter((n) => n > 1)).toEqual([]);
    const all = Array.from({ length: 18_000 }, (_, i) => `key-${i}`);
    // At p = 10^-6 a new key is taken for present about 0.02 times in 18,000.
    expect(all.filter((key) => !told.has(key)).length).toBeLessThanOrEqual(1);
    expect(ones(await filter.hasMany(all))).toBe(all.length);
    // They really raced: each of the four was first for some of the keys all four add (6,000 to 11,999).
    expect(absent.map((list) => list.filter((key) => Number(key.slice(4)) >= 6_000 && Number(key.slice(4)) < 12_000).length).every((n) => n > 0)).toBe(true);
    await filter.drop();
  });

  it("rejects with an error naming the filter when the server goes away mid-batch, and afterwards", async () => {
    const own = await startRedis();
    const client = createClient({ url: own.url, socket: { reconnectStrategy: false } });
    const events: string[] = [];
    client.on("error", (error: Error) => events.push(error.message));
    await client.connect();
    const filter = await RedisBloomFilter.create(client, "crawl:seen", 1e6, 0.001);
    const batch = filter.testAndAddMany(urls(300_000, "gone", 14));
    setTimeout(() => own.process.kill("SIGKILL"), 5);
    const error = await batch.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RedisFilterError);
    expect((error as RedisFilterError).filterName).toBe("crawl:seen");
    expect((error as Error).message).toMatch(/^Redis filter "crawl:seen": cannot add keys/);
    await expect(filter.has("x")).rejects.toThrow(/^Redis filter "crawl:seen": cannot query keys/);
    await expect(filter.size()).rejects.toThrow(/^Redis filter "crawl:seen": cannot count its bits/);
    await expect(filter.toBloomFilter()).rejects.toThrow(/^Redis filter "crawl:seen": cannot read its bits/);
    await expect(RedisBloomFilter.open(client, "crawl:seen")).rejects.toThrow(/^Redis filter "crawl:seen": cannot open it/);
    await own.stop();
    expect(events.length).toBeGreaterThan(0);
  });

  it("with node-redis's disableOfflineQueue, a call made while the server is down rejects instead of waiting for it", async () => {
    const own = await startRedis();
    const client = createClient({ url: own.url, disableOfflineQueue: true, socket: { reconnectStrategy: () => 50 } });
    client.on("error", () => {});
    await client.connect();
    const filter = await RedisBloomFilter.create(client, "outage", 1000, 0.01);
    await filter.add("before");
    await own.stop();
    await new Promise<void>((resolve) => (client.isReady ? client.once("end", resolve).once("reconnecting", resolve) : resolve()));
    await expect(filter.has("before")).rejects.toThrow(/^Redis filter "outage": cannot query keys/);
    await expect(filter.size()).rejects.toThrow(/^Redis filter "outage": cannot count its bits/);
    client.destroy();
  });

  it("a node-redis client or cluster never connected, or closed since, is told to connect first; nothing was sent", async () => {
    const connectFirst = "connect the client first (await client.connect())";
    const client = createClient({ url: server.url });
    await expect(RedisBloomFilter.open(client, "unconnected")).rejects.toThrow(`Redis filter "unconnected": cannot open it: the client is not connected (node-redis's isOpen is false): ${connectFirst}`);
    await expect(RedisBloomFilter.create(client, "unconnected", 1000, 0.01)).rejects.toThrow(`cannot create it: the client is not connected (node-redis's isOpen is false): ${connectFirst}`);
    // A cluster never connected failed inside node-redis, with "Cannot read properties of undefined (reading 'master')".
    const cluster = createCluster({ rootNodes: [{ url: server.url }] });
    await expect(RedisBloomFilter.open(cluster, "unconnected")).rejects.toThrow(`cannot open it: the client is not connected (node-redis's isOpen is false): ${connectFirst}`);
    // Following the hint works; a handle whose client was closed since says no command went out, not that keys "may or may not" have been added.
    await client.connect();
    const filter = await RedisBloomFilter.create(client, "unconnected", 1000, 0.01);
    await filter.add("before");
    await client.quit();
    await expect(filter.add("after")).rejects.toThrow(`Redis filter "unconnected": cannot add keys: the client is not connected (node-redis's isOpen is false): ${connectFirst}`);
    await expect(filter.has("before")).rejects.toThrow(`cannot query keys: the client is not connected`);
    const reopened = await RedisBloomFilter.open(redis, "unconnected");
    expect(await reopened.hasMany(["before", "after"])).toEqual(new Uint8Array([1, 0]));
    await reopened.drop();
  });

  it("an ioredis client made with lazyConnect connects on its first command; with enableOfflineQueue: false it is told to connect first", async () => {
    const lazy = new IoRedis(server.port, "127.0.0.1", { lazyConnect: true });
    const offline = new IoRedis(server.port, "127.0.0.1", { lazyConnect: true, enableOfflineQueue: false });
    try {
      expect(lazy.status).toBe("wait");
      const filter = await RedisBloomFilter.create(lazy, "lazy", 1000, 0.01);
      await filter.add("k");
      expect(lazy.status).toBe("ready");
      // Without the offline queue ioredis said only "Stream isn't writeable and enableOfflineQueue options is false".
      await expect(RedisBloomFilter.open(offline, "lazy")).rejects.toThrow(
        `Redis filter "lazy": cannot open it: the client is not connected (an ioredis client made with lazyConnect and enableOfflineQueue: false): connect the client first (await client.connect())`,
      );
      await offline.connect();
      expect(await (await RedisBloomFilter.open(offline, "lazy")).has("k")).toBe(true);
      await filter.drop();
    } finally {
      lazy.disconnect();
      offline.disconnect();
    }
  });

  it("reports a Redis error reply as a rejection naming the filter", async () => {
    const filter = await RedisBloomFilter.create(redis, "wrongtype", 1000, 0.01);
    // Someone else's value where the bits belong: Redis answers WRONGTYPE, the script stops, nothing is added.
    await redis.sAdd("{wrongtype}:bits:0", "member");
    await expect(filter.add("k")).rejects.toThrow(/^Redis filter "wrongtype": cannot add keys: .*WRONGTYPE/);
    await redis.flushAll();
  });

  it("a reply of a shape Redis never gives is refused with a RedisFilterError naming the command and showing the reply", async () => {
    // Redis itself never answers so: a thin wrapper around the real client (every command still reaches the real
    // server and runs) hands back `reply` in place of Redis's answer to the first command `match` picks, as a
    // client of another version or a proxy in front of Redis might.
    const replacing = (match: (args: string[]) => boolean, reply: unknown): NodeRedisClientLike => {
      let done = false;
      return {
        async sendCommand(args, options) {
          const answer = await redis.sendCommand(args as string[], options);
          if (done || !match(args.map(String))) return answer;
          done = true;
          return reply;
        },
      };
    };
    const script = (text: string) => (args: string[]) => args[0] === "EVAL" && args[1] === text;
    /** STATE_SCRIPT in `mode` (its mode is its third argument from the end), sent by EVALSHA or EVAL. */
    const state = (mode: string) => (args: string[]) => /^EVAL(SHA)?$/.test(args[0]) && args[args.length - 3] === mode;
    const filter = await RedisBloomFilter.create(redis, "shapes", 1_000, 0.01);
    await filter.addMany(["a", "b"]);
    const local = await filter.toBloomFilter();
    const open = (client: NodeRedisClientLike) => RedisBloomFilter.open(client, "shapes");
    const cases: [string, (args: string[]) => boolean, unknown, (client: NodeRedisClientLike) => Promise<unknown>, RegExp][] = [
      ["create, a status", script(CREATE_SCRIPT), "OK", (c) => RedisBloomFilter.create(c, "shapes", 1_000, 0.01), /^Redis filter "shapes": cannot create it: the create script \(EVAL\) answered "OK", not /],
      ["create, nothing", script(CREATE_SCRIPT), null, (c) => RedisBloomFilter.create(c, "shapes", 1_000, 0.01), /^Redis filter "shapes": cannot create it: the create script \(EVAL\) answered null, not /],
      ["create, no strings", script(CREATE_SCRIPT), [1, 2], (c) => RedisBloomFilter.create(c, "shapes", 1_000, 0.01), /^Redis filter "shapes": cannot create it: the create script \(EVAL\) answered an array of length 2, not /],
      ["open, TYPE", (a) => a[0] === "TYPE", 5, open, /^Redis filter "shapes": cannot open it: TYPE answered 5, not /],
      ["open, HGETALL", (a) => a[0] === "HGETALL", null, open, /^Redis filter "shapes": cannot open it: HGETALL answered null, not /],
      ["open, HGETALL odd", (a) => a[0] === "HGETALL", ["format"], open, /^Redis filter "shapes": cannot open it: HGETALL answered an array of length 1, not /],
      ["upload, EXISTS", (a) => a[0] === "EXISTS", "no", (c) => RedisBloomFilter.fromBloomFilter(c, "shapes-copy", local), /^Redis filter "shapes-copy": cannot upload the filter: EXISTS answered "no", not /],
      ["upload, a piece", script(UPLOAD_PIECE_SCRIPT), "OK", (c) => RedisBloomFilter.fromBloomFilter(c, "shapes-copy", local), /^Redis filter "shapes-copy": cannot upload the filter: the upload script \(EVAL\) answered "OK", not /],
      ["upload, placing", script(PLACE_SCRIPT), "OK", (c) => RedisBloomFilter.fromBloomFilter(c, "shapes-copy", local), /^Redis filter "shapes-copy": cannot upload the filter .*: the place script \(EVAL\) answered "OK", not /],
      ["size, CHECK", state("CHECK"), null, async (c) => (await open(c)).size(), /^Redis filter "shapes": cannot count its bits: the check script \(EVALSHA\) answered null, not "OK"$/],
      ["copy, GETRANGE", (a) => a[0] === "GETRANGE", "text", async (c) => (await open(c)).toBloomFilter(), /^Redis filter "shapes": cannot read its bits: GETRANGE answered "text", not /],
      ["drop, DROP", state("DROP"), "gone", async (c) => (await open(c)).drop(), /^Redis filter "shapes": cannot drop it: the drop script \(EVALSHA\) answered "gone", not /],
      ["has, a number", (a) => a[0] === "EVALSHA" && a.includes("GET"), 1, async (c) => (await open(c)).has("a"), /^Redis filter "shapes": cannot query keys: the batch script \(EVALSHA\) answered 1, not /],
      ["add, too short", script(BATCH_SCRIPT), "", async (c) => (await open(c)).addMany(["a", "b"]), /^Redis filter "shapes": cannot add keys \(.*\): the batch script \(EVAL\) answered "", not /],
      ["add, not 0 or 1", script(BATCH_SCRIPT), "12", async (c) => (await open(c)).testAndAddMany(["a", "b"]), /^Redis filter "shapes": cannot add keys \(.*\): the batch script \(EVAL\) answered "12", not /],
    ];
    for (const [what, match, reply, call, message] of cases) {
      const outcome = await call(replacing(match, reply)).then(() => undefined, (error: unknown) => error);
      expect(outcome, what).toBeInstanceOf(RedisFilterError);
      expect((outcome as Error).message, what).toMatch(message);
      // Redis ran the command: put back what the case changed.
      if (what === "drop, DROP") await RedisBloomFilter.fromBloomFilter(redis, "shapes", local);
      if (what === "upload, placing") await (await RedisBloomFilter.open(redis, "shapes-copy")).drop();
    }
    // A batch whose reply could not be read does not blame the connection.
    const unread = await (await open(replacing(script(BATCH_SCRIPT), 7))).add("c").catch((error: Error) => error);
    expect((unread as Error).message).not.toMatch(/connection failed/);
    expect(await redis.keys("{shapes-copy}*")).toEqual([]);
    local.dispose();
    // `filter`'s own was dropped by the DROP case and uploaded again: a handle of its own drops it.
    await (await open(redis)).drop();
    expect(await redis.keys("{shapes}*")).toEqual([]);
  });

  it("a batch whose keys span segments, one of them not a string, sets no bit in any (the types are checked first)", async () => {
    const filter = await RedisBloomFilter.create(redis, "spanning", 20_000, 0.01, { segmentBits: 2 ** 14 } as object);
    expect(filter.segmentCount).toBeGreaterThan(2);
    await filter.addMany(urls(2_000, "spanning-before", 81));
    const last = `{spanning}:bits:${filter.segmentCount - 1}`;
    await redis.del(last);
    await redis.rPush(last, "not bits");
    const before = await Promise.all(Array.from({ length: filter.segmentCount - 1 }, (_, s) => redis.get(`{spanning}:bits:${s}`)));
    await expect(filter.addMany(urls(100, "spanning-after", 82))).rejects.toThrow(/^Redis filter "spanning": cannot add keys: WRONGTYPE Redis key \{spanning\}:bits:\d+ holds a list/);
    const after = await Promise.all(Array.from({ length: filter.segmentCount - 1 }, (_, s) => redis.get(`{spanning}:bits:${s}`)));
    expect(after).toEqual(before);
    await redis.flushAll();
  });

  it("a batch whose first call is refused does not say no key was added when calls sent after it added theirs", async () => {
    const filter = await RedisBloomFilter.create(redis, "first-refused", 100_000, 0.01, { segmentBits: 2 ** 19 } as object);
    expect(filter.segmentCount).toBe(2);
    // Which segment each key goes to: a twin whose segment 1 has every bit set holds exactly the keys routed there.
    const twin = localTwin(filter);
    twin.segmentBytes(1).fill(0xff);
    twin.bitsWritten();
    const pool = urls(40_000, "first-refused", 83);
    const routed = twin.hasMany(pool);
    twin.dispose();
    const toOne = pool.filter((_, i) => routed[i] === 1);
    const toZero = pool.filter((_, i) => routed[i] === 0);
    // The first call's keys all go to segment 1, which is not a string; the three calls after it touch segment 0 alone.
    await redis.rPush("{first-refused}:bits:1", "not bits");
    const later = toZero.slice(0, 3 * PIECE_KEYS);
    const error = await filter.addMany([...toOne.slice(0, PIECE_KEYS), ...later]).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    const added = ones(await filter.hasMany(later));
    // Before: "cannot add keys: WRONGTYPE …" while 12,288 keys of the batch were in the filter.
    expect(added).toBeGreaterThan(0);
    expect(error?.message).toMatch(/^Redis filter "first-refused": cannot add keys \(none of the first call's keys were added; later ones may or may not be\): WRONGTYPE /);
    await redis.flushAll();
  });

  it("a stale handle neither reads nor deletes a filter made again under its name with other segments", async () => {
    const stale = await RedisBloomFilter.create(redis, "regrown", 1_000, 0.01);
    await stale.add("old key");
    await (await RedisBloomFilter.open(redis, "regrown")).drop();
    const fresh = await RedisBloomFilter.create(redis, "regrown", 100_000, 0.01, { segmentBits: 2 ** 16 } as object);
    expect(fresh.segmentCount).toBeGreaterThan(1);
    const keys = urls(300, "regrown", 84);
    await fresh.addMany(keys);
    const before = (await redis.keys("{regrown}:*")).sort();
    await expect(stale.drop()).rejects.toThrow(/cannot drop it: GONE/);
    await expect(stale.toBloomFilter()).rejects.toThrow(/cannot read its bits: GONE/);
    expect((await redis.keys("{regrown}:*")).sort()).toEqual(before);
    expect(ones(await fresh.hasMany(keys))).toBe(keys.length);
    await fresh.drop();
    expect(await redis.keys("{regrown}:*")).toEqual([]);
  });

  it("create() over bits keys left without a meta hash starts from no bits; over an existing filter it keeps them", async () => {
    // Bits keys left behind with no {name}:meta (deleted by hand, evicted under maxmemory, or written by a
    // bloomkit without the identity check), longer than the new filter's segments, at indices it uses and not.
    const bytes = Math.ceil(2 ** 14 / 8);
    for (const s of [0, 1, 2, 5, 63]) await redis.set(`{leftover}:bits:${s}`, Buffer.alloc(bytes * 4, 0xff));
    const filter = await RedisBloomFilter.create(redis, "leftover", 3_000, 0.01, { segmentBits: 2 ** 14 } as object);
    expect(filter.segmentCount).toBe(2);
    const keys = urls(1_000, "leftover", 88);
    const probes = urls(2_000, "leftover-probe", 89);
    const fresh = localTwin(filter);
    expect(await filter.size()).toBe(0);
    expect(ones(await filter.hasMany(probes))).toBe(0);
    await filter.addMany(keys);
    fresh.addMany(keys);
    expect(await filter.hasMany(probes)).toEqual(fresh.hasMany(probes));
    expect(await filter.size()).toBe(Math.round(fresh.estimatedCount()));
    const copy = await filter.toBloomFilter();
    expect(firstDifference(copy.bitArray(), fresh.bitArray())).toBe(-1);
    // Every key a segment can have was deleted as the meta hash was written, those this filter does not use too.
    expect((await redis.keys("{leftover}:*")).sort()).toEqual(["{leftover}:bits:0", "{leftover}:bits:1", "{leftover}:meta"]);
    // create() of the filter that now exists opens it: its bits stay.
    const before = await Promise.all([0, 1].map((s) => redis.get(`{leftover}:bits:${s}`)));
    const opened = await RedisBloomFilter.create(redis, "leftover", 3_000, 0.01, { segmentBits: 2 ** 14 } as object);
    expect(await Promise.all([0, 1].map((s) => redis.get(`{leftover}:bits:${s}`)))).toEqual(before);
    expect(ones(await opened.hasMany(keys))).toBe(keys.length);
    copy.dispose();
    fresh.dispose();
    await filter.drop();
    expect(await redis.keys("{leftover}:*")).toEqual([]);
  });

  it("fromBloomFilter() clears every bits key a segment can have, and drop() deletes them all, not only its segments'", async () => {
    // Bits keys left without a meta hash, at indices the uploaded filter (one segment) does not use.
    const local = BloomFilter.create(1_000, 0.01);
    local.addMany(urls(500, "placed-over", 90));
    for (const s of [0, 7, 63]) await redis.set(`{placed-over}:bits:${s}`, Buffer.alloc(4096, 0xff));
    const placed = await RedisBloomFilter.fromBloomFilter(redis, "placed-over", local);
    expect((await redis.keys("{placed-over}:*")).sort()).toEqual(["{placed-over}:bits:0", "{placed-over}:meta"]);
    expect(firstDifference((await placed.toBloomFilter()).bitArray(), local.bitArray())).toBe(-1);
    // Bits keys past a filter's segments beside its meta hash (written by hand, or left under it by a bloomkit
    // that did not clear them): drop() deletes every key of the name, leaving nothing a later filter would find.
    await redis.set("{placed-over}:bits:9", "stale");
    await placed.drop();
    expect(await redis.keys("{placed-over}*")).toEqual([]);
    local.dispose();
  });

  it("a handle that dropped its filter refuses every later call with a TypeError", async () => {
    const filter = await RedisBloomFilter.create(redis, "gone", 1_000, 0.01);
    await filter.drop();
    for (const call of [() => filter.size(), () => filter.has("a"), () => filter.addMany(["a"]), () => filter.toBloomFilter(), () => filter.drop()]) {
      await expect(call()).rejects.toThrow(new TypeError('the Redis filter "gone" was dropped by this handle; it can no longer be used'));
    }
  });

  it("size() is Infinity when every bit is set, and damaged bits are refused rather than counted or copied", async () => {
    // 9,586 bits: the last of 1,199 bytes holds 2 of them; its other 6 bits lie past the filter's end.
    const filter = await RedisBloomFilter.create(redis, "damaged", 1_000, 0.01);
    expect(filter.bits % 8).toBe(2);
    const bytes = Math.ceil(filter.bits / 8);
    const full = Buffer.alloc(bytes, 0xff);
    full[bytes - 1] = 0b11;
    await redis.set("{damaged}:bits:0", full);
    expect(await filter.size()).toBe(Infinity);
    const local = await filter.toBloomFilter();
    expect(local.fillRatio).toBe(1);
    local.dispose();
    const corrupt = /^Redis filter "damaged": cannot (count|read) its bits: CORRUPT Redis key \{damaged\}:bits:0 /;
    for (const [damage, why] of [
      [Buffer.alloc(bytes, 0xff), /has bits set past the end of the filter/],
      [Buffer.concat([full, Buffer.from([0])]), /holds 1200 bytes; the filter keeps 1199 there/],
    ] as const) {
      await redis.set("{damaged}:bits:0", damage);
      for (const call of [() => filter.size(), () => filter.toBloomFilter()]) {
        const failure = call();
        await expect(failure).rejects.toThrow(corrupt);
        await expect(failure).rejects.toThrow(why);
      }
    }
    // A damaged filter can still be dropped.
    await filter.drop();
    expect(await redis.keys("{damaged}:*")).toEqual([]);
  });

  it("size() counts the bits with BITCOUNTs of its own over at most 16 MiB each, between two checks, and none inside a script", async () => {
    // Three segments of 22.9 MiB (under a test-sized limit of 2^28 bits): each is counted in two ranges, 16 MiB and the rest.
    const filter = await RedisBloomFilter.create(redis, "counted", 60_000_000, 0.01, { segmentBits: 2 ** 28 } as object);
    const segments = filter.segmentCount;
    const bytes = filter.bits / segments / 8;
    expect(segments).toBe(3);
    expect(bytes > 2 ** 24 && bytes < 2 ** 25).toBe(true);
    const keys = Array.from({ length: segments }, (_, s) => `{counted}:bits:${s}`);
    for (const key of keys) {
      for (const [at, byte] of [[0, 0x01], [2 ** 24 - 1, 0x80], [2 ** 24, 0xff], [bytes - 1, 0x0f]]) await redis.setRange(key, at, Buffer.from([byte]));
    }
    const set = segments * (1 + 1 + 8 + 4);
    const sent: string[][] = [];
    const watched = await RedisBloomFilter.open(relay(redis, (args) => sent.push(args)), "counted");
    await redis.configResetStat();
    sent.length = 0;
    expect(await watched.size()).toBe(Math.round((-filter.bits / filter.hashes) * Math.log1p(-set / filter.bits)));
    // The checks (EVALSHA, or EVAL after it) come first and last, the counts between them.
    const names = sent.map(([name]) => name);
    const first = names.indexOf("BITCOUNT");
    const last = names.lastIndexOf("BITCOUNT");
    expect(first).toBeGreaterThan(0);
    expect(names.slice(0, first).every((name) => /^EVAL(SHA)?$/.test(name))).toBe(true);
    expect(names.slice(last + 1)).toContain("EVALSHA");
    expect(names.slice(last + 1).every((name) => /^EVAL(SHA)?$/.test(name))).toBe(true);
    const ranges = keys.flatMap((key) => [[key, "0", String(2 ** 24 - 1)], [key, String(2 ** 24), String(bytes - 1)]]);
    expect(sent.slice(first, last + 1).map(([, ...range]) => range)).toEqual(ranges);
    // Redis ran no BITCOUNT but these: none inside a script, where a 512 MiB segment holds every other client for 0.2 s.
    expect(await callsOf(redis, "bitcount")).toBe(ranges.length);
    await filter.drop();
  });

  it("size() takes a count a client gives as digits, and refuses any other reply to a BITCOUNT rather than sum it", async () => {
    const filter = await RedisBloomFilter.create(redis, "replies", 1_000, 0.01);
    await filter.addMany(urls(500, "replies", 87));
    const truth = await filter.size();
    /** The filter as seen through a client that answers each BITCOUNT with `reply(count)` (the count Redis gave). */
    const through = (reply: (count: unknown) => unknown) =>
      RedisBloomFilter.open(
        {
          async sendCommand(args, options) {
            const answer = await redis.sendCommand(args as string[], options);
            return String(args[0]).toUpperCase() === "BITCOUNT" ? reply(answer) : answer;
          },
        },
        "replies",
      );
    expect(await (await through((count) => String(count))).size()).toBe(truth);
    expect(await (await through((count) => BigInt(count as number))).size()).toBe(truth);
    for (const bad of [(count: unknown) => ` ${count} `, () => "", (count: unknown) => `${count}.0`, () => "1e3", () => -1, () => 1.5, () => null, () => Buffer.from("12")]) {
      await expect((await through(bad)).size()).rejects.toThrow(/^Redis filter "replies": cannot count its bits: BITCOUNT answered .*, not a count of bits$/);
    }
    await filter.drop();
  });

  it("size() rejects when the filter is dropped, made again under its name, or damaged while its bits are being counted", async () => {
    const gone = /GONE the filter was dropped, or made again under its name, since this handle opened it; open it again$/;
    // Five segments of 7,192 bytes (under a test-sized limit of 2^16 bits).
    const make = () => RedisBloomFilter.create(redis, "recounted", 30_000, 0.01, { segmentBits: 2 ** 16 } as object);
    const cases = [
      ["dropped", gone],
      ["made again", gone],
      ["damaged", /CORRUPT Redis key \{recounted\}:bits:0 holds 7193 bytes; the filter keeps 7192 there$/],
    ] as const;
    for (const [meanwhile, why] of cases) {
      const original = await make();
      expect([original.segmentCount, original.bits / original.segmentCount / 8]).toEqual([5, 7192]);
      await original.addMany(urls(2_000, "recounted-before", 86));
      let fresh: RedisBloomFilter | undefined;
      let raced = false;
      // Just before the first BITCOUNT reaches Redis, another client drops the filter (and makes it again), or damages it.
      const racing = relay(redis, async ([name]) => {
        if (name !== "BITCOUNT" || raced) return;
        raced = true;
        if (meanwhile === "damaged") return redis.setRange("{recounted}:bits:0", 7192, "x");
        await (await RedisBloomFilter.open(redis, "recounted")).drop();
        if (meanwhile === "made again") fresh = await (await make()).addMany(urls(3_000, "recounted-after", 87));
      });
      const counting = (await RedisBloomFilter.open(racing, "recounted")).size();
      await expect(counting).rejects.toThrow(RedisFilterError);
      await expect(counting).rejects.toThrow(/^Redis filter "recounted": cannot count its bits: /);
      await expect(counting).rejects.toThrow(why);
      expect(raced).toBe(true);
      // The filter made meanwhile is whole, and a handle to it counts it.
      if (fresh) {
        const local = localTwin(fresh).addMany(urls(3_000, "recounted-after", 87));
        expect(await fresh.size()).toBe(Math.round(local.estimatedCount()));
        local.dispose();
      }
      const left = await redis.keys("{recounted}:*");
      if (left.length > 0) await redis.del(left);
    }
  });

  it("opens only meta fields written exactly as bloomkit writes them (every call compares them as text)", async () => {
    const original = await RedisBloomFilter.create(redis, "meta", 1_000, 0.01, { hash: "xxh64" });
    const fields = await redis.hGetAll("{meta}:meta");
    const cases: [string, string, RegExp][] = [
      ["seed", "", /seed = "" is not a whole number from 0 to 4294967295/],
      ["seed", "4294967296", /seed = "4294967296" is not a whole number/],
      ["bits", "1e3", /bits = "1e3" is not a whole number from 1 to/],
      ["bits", "0x100", /bits = "0x100" is not a whole number/],
      ["hashes", "07", /hashes = "07" is not a whole number from 1 to 256/],
      ["segments", " 1", /" 1" segments/],
      ["hash", "fnv1a_32", /hash = "fnv1a_32" gives 32 bits; a filter kept in Redis uses triple hashing, which needs 64 or 128/],
      ["strategy", "independent", /strategy = "independent" is not one a layout version 2 filter has \(triple\)/],
      // bloomkit writes a double-hashing filter as version 1, with no strategy field: opened, a version 2 "double"
      // failed every call after it with GONE (its batches compare the fields they expect, with no strategy field).
      ["strategy", "double", /strategy = "double" is not one a layout version 2 filter has \(triple\)/],
      ["strategy", "", /strategy = "" is not one a layout version 2 filter has/],
      ["version", "1", /strategy = "triple" is not one a layout version 1 filter has \(none\)/],
      ["hash", "md5", /hash = "md5" is not a hash this bloomkit knows/],
    ];
    for (const [field, value, why] of cases) {
      await redis.hSet("{meta}:meta", field, value);
      await expect(RedisBloomFilter.open(redis, "meta")).rejects.toThrow(why);
      await expect(RedisBloomFilter.create(redis, "meta", 1_000, 0.01)).rejects.toThrow(why);
      await redis.hSet("{meta}:meta", field, fields[field]);
    }
    await redis.hSet("{meta}:meta", { hash: "fnv1a_64", seed: "5" });
    await expect(RedisBloomFilter.open(redis, "meta")).rejects.toThrow(/seed = 5, but fnv1a_64 takes no seed/);
    await redis.hSet("{meta}:meta", fields);
    expect((await RedisBloomFilter.open(redis, "meta")).toJSON()).toEqual(original.toJSON());
    await original.drop();
  });

  it("opens filters made before triple hashing (layout version 1: double hashing) as they are, and writes them so", async () => {
    // What a bloomkit before triple hashing wrote: no strategy field, version 1.
    const old = await RedisBloomFilter.create(redis, "old", 2_000, 0.001, { strategy: "double" });
    expect(old.strategy).toBe("double");
    const fields = await redis.hGetAll("{old}:meta");
    expect(fields.version).toBe("1");
    expect(fields.strategy).toBeUndefined();
    const keys = urls(2_000, "old-keys", 91);
    await old.addMany(keys);
    // Its bits are those of a local double-hashing filter, and a worker that upgraded opens it as it is.
    const local = BloomFilter.withSize(old.bits, old.hashes, { strategy: "double" }).addMany(keys);
    expect(firstDifference((await old.toBloomFilter()).bitArray(), local.bitArray())).toBe(-1);
    const reopened = await RedisBloomFilter.create(redis, "old", 2_000, 0.001);
    expect(reopened.strategy).toBe("double");
    expect((await RedisBloomFilter.open(redis, "old")).strategy).toBe("double");
    expect(ones(await reopened.hasMany(keys))).toBe(keys.length);
    await expect(RedisBloomFilter.create(redis, "old", 2_000, 0.001, { strategy: "triple" })).rejects.toThrow(/other parameters \(strategy triple vs double, asked vs existing\)/);
    // A triple-hashing filter is version 2: a bloomkit that knows only version 1 refuses it rather than testing other bits.
    const fresh = await RedisBloomFilter.create(redis, "fresh", 2_000, 0.001);
    expect(fresh.strategy).toBe("triple");
    expect(await redis.hGetAll("{fresh}:meta")).toMatchObject({ version: "2", strategy: "triple" });
    await expect(RedisBloomFilter.create(redis, "fresh", 2_000, 0.001, { strategy: "double" })).rejects.toThrow(/strategy double vs triple/);
    // An upload keeps the local filter's strategy.
    const up = await RedisBloomFilter.fromBloomFilter(redis, "up-double", local);
    expect(up.strategy).toBe("double");
    expect((await redis.hGetAll("{up-double}:meta")).version).toBe("1");
    expect(ones(await up.hasMany(keys))).toBe(keys.length);
    local.dispose();
    await Promise.all([old.drop(), fresh.drop(), up.drop()]);
  });

  it("names create()'s arguments when no filter reaches the rate, and offers no strategy it does not take", async () => {
    // The same refusal as a local filter's, in the same words.
    const local = (() => {
      try {
        BloomFilter.create(10, 1e-300);
      } catch (error) {
        return error as RangeError;
      }
    })();
    expect(local?.message).toMatch(/^falsePositiveRate = 1e-300 needs k = \d+ hash functions.*possible for expectedItems = 10 is /);
    await expect(RedisBloomFilter.create(redis, "x", 10, 1e-300)).rejects.toThrow(local);
    const thirtyTwo = RedisBloomFilter.create(redis, "x", 10, 0.1, { hash: "fnv1a_32" });
    await expect(thirtyTwo).rejects.toThrow(/options.hash "fnv1a_32" gives 32 bits; triple hashing needs a 64- or 128-bit hash \(fnv1a_64, murmur3_128, xxh64, xxh3\)$/);
    for (const strategy of ["independent", "quadruple"]) {
      await expect(RedisBloomFilter.create(redis, "x", 10, 0.1, { strategy } as object)).rejects.toThrow(
        new RangeError(`options.strategy must be "triple" or "double" (a filter kept in Redis uses one key hash), got "${strategy}"`),
      );
    }
    expect(await redis.keys("{x}:*")).toEqual([]);
  });

  it("a handle whose filter was dropped, or dropped and made again under its name, stops: no bits written, no false answers", async () => {
    for (const remake of [false, true]) {
      const old = await RedisBloomFilter.create(redis, "remade", 1_000, 0.01);
      await old.addMany(["a", "b"]);
      const stale = await RedisBloomFilter.open(redis, "remade");
      await old.drop();
      const fresh = remake ? await RedisBloomFilter.create(redis, "remade", 1_000, 0.01) : undefined;
      for (const call of [
        () => stale.addMany(urls(500, "remade-keys", 83)),
        () => stale.hasMany(["a", "b"]),
        () => stale.testAndAdd("c"),
        () => stale.size(),
        () => stale.toBloomFilter(),
        () => stale.drop(),
      ]) {
        await expect(call()).rejects.toThrow(
          /^Redis filter "remade": cannot (add keys|query keys|count its bits|read its bits|drop it): .*dropped, or made again under its name, since this handle opened it; open it again/,
        );
      }
      // Nothing the stale handle tried reached Redis: the new filter (or no filter) holds no bit of those keys.
      const keys = await redis.keys("{remade}:*");
      if (fresh) {
        expect(keys.sort()).toEqual(["{remade}:meta"]);
        expect(ones(await fresh.hasMany(urls(500, "remade-keys", 83)))).toBe(0);
        await fresh.add("new");
        expect(await (await RedisBloomFilter.open(redis, "remade")).has("new")).toBe(true);
        await fresh.drop();
      } else expect(keys).toEqual([]);
    }
  });
});
