// RedisBloomFilter on a Redis Cluster: three redis-server --cluster-enabled
// on loopback ports, joined by redis-cli --cluster create, driven through
// node-redis's createCluster. A filter's keys share the hash tag {name}, so
// every script call (KEYS = the segments' strings) lands on one node.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient, createCluster } from "redis";
import { RedisBloomFilter } from "../bindings/redis/index.js";
import { ones, urls } from "./helpers.js";
import { describeWithRedis, startRedis, type RedisServer } from "./redis-server.js";
import { sameAsLocal } from "./redis-model.js";

describeWithRedis("RedisBloomFilter on a Redis Cluster", () => {
  const nodes: RedisServer[] = [];
  let cluster: ReturnType<typeof createCluster>;

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) nodes.push(await startRedis(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000"]));
    const created = spawnSync("redis-cli", ["--cluster", "create", ...nodes.map((n) => `127.0.0.1:${n.port}`), "--cluster-replicas", "0", "--cluster-yes"], { encoding: "utf8" });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${created.stdout}${created.stderr}`);
    // Wait until every node agrees that all 16,384 slots are served.
    for (const node of nodes) {
      const client = await createClient({ url: node.url }).connect();
      for (let tries = 0; !/cluster_state:ok/.test(await client.clusterInfo()); tries++) {
        if (tries > 200) throw new Error(`the cluster did not become ready on port ${node.port}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await client.quit();
    }
    cluster = createCluster({ rootNodes: nodes.map((n) => ({ url: n.url })) });
    await cluster.connect();
  });

  afterAll(async () => {
    await cluster?.quit();
    for (const node of nodes) await node.stop();
  });

  it("answers as a local filter, with filters whose slots lie on each of the three nodes", async () => {
    // Names whose hash tags fall on different masters.
    const names = ["crawl:seen", "a", "b", "c", "d", "e"];
    const owners = new Set<string>();
    for (const [i, name] of names.entries()) {
      // A bits key left without a meta hash: create() deletes every key a segment can have (64) in the script that
      // writes the meta hash, which a cluster allows only because they all share the hash tag, hence one node.
      await cluster.set(`{${name}}:bits:63`, "left over");
      const filter = await RedisBloomFilter.create(cluster, name, 4000, 0.01, { segmentBits: 2 ** 13 } as object);
      expect(await cluster.exists(`{${name}}:bits:63`)).toBe(0);
      expect(filter.segmentCount).toBeGreaterThan(1);
      (await sameAsLocal(filter, 20 + i, 12)).dispose();
      const master = cluster.getSlotMaster(slotOf(name));
      owners.add(`${master.host}:${master.port}`);
      const opened = await RedisBloomFilter.open(cluster, name);
      const probes = urls(1000, `cluster-${name}`, 30 + i);
      expect(await opened.hasMany(probes)).toEqual(await filter.hasMany(probes));
      await filter.drop();
    }
    expect(owners.size).toBe(3);
  });

  it("uploads, downloads and test-and-adds on the cluster", async () => {
    const filter = await RedisBloomFilter.create(cluster, "cluster:copy", 10_000, 0.001);
    const keys = urls(10_000, "cluster-copy", 40);
    // While 10,000 new keys fill a filter made for them at p = 0.001, about 1.2 are expected
    // to hear "present" (the sum of the FPR at each fill); 9 or more has probability 5·10⁻⁶.
    expect(ones(await filter.testAndAddMany(keys))).toBeLessThan(9);
    const local = await filter.toBloomFilter();
    expect(ones(local.hasMany(keys))).toBe(keys.length);
    const copy = await RedisBloomFilter.fromBloomFilter(cluster, "cluster:copy2", local);
    expect(ones(await copy.hasMany(keys))).toBe(keys.length);
    expect(await copy.size()).toBe(await filter.size());
    local.dispose();
    await filter.drop();
    await copy.drop();
  });
});

/** The cluster slot of a key whose hash tag is `tag`: CRC16 (XMODEM) mod 16384, as the cluster spec defines it. */
function slotOf(tag: string): number {
  let crc = 0;
  for (const byte of new TextEncoder().encode(tag)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}
