// RedisBloomFilter on a Redis Cluster whose client reads from replicas
// (node-redis createCluster({ useReplicas: true }) sends read-only commands
// to the master and its replicas in turn; an ioredis Cluster made with
// scaleReads: "slave" sends those it knows as read-only to a replica). A replica applies the master's
// writes some time later: whatever a handle reads must come from the master,
// or it misses keys whose add already returned. The replica is held behind
// with CLIENT PAUSE … WRITE, which stops it applying the replication stream
// while it still answers reads.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Cluster } from "ioredis";
import { createClient, createCluster } from "redis";
import { RedisBloomFilter } from "../bindings/redis/index.js";
import { ones, urls } from "./helpers.js";
import { describeWithRedis, startRedis, type NodeRedis, type RedisServer } from "./redis-server.js";

/** Polls `ready` every 50 ms, up to 10 s. */
async function until(what: string, ready: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; !(await ready()); tries++) {
    if (tries > 200) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeWithRedis("RedisBloomFilter on a cluster read through replicas", () => {
  let master: RedisServer;
  let replica: RedisServer;
  let replicaClient: NodeRedis;
  let cluster: ReturnType<typeof createCluster>;
  let ioCluster: Cluster;

  beforeAll(async () => {
    const options = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000"];
    master = await startRedis(options);
    replica = await startRedis(options);
    const primary = await createClient({ url: master.url }).connect();
    replicaClient = await createClient({ url: replica.url }).connect();
    // One master serving every slot, one replica of it.
    await primary.sendCommand(["CLUSTER", "ADDSLOTSRANGE", "0", "16383"]);
    await primary.sendCommand(["CLUSTER", "MEET", "127.0.0.1", String(replica.port)]);
    const id = String(await primary.sendCommand(["CLUSTER", "MYID"]));
    await until("the replica to know the master", async () => String(await replicaClient.sendCommand(["CLUSTER", "NODES"])).includes(id));
    await replicaClient.sendCommand(["CLUSTER", "REPLICATE", id]);
    await until("the replica to sync", async () => /master_link_status:up/.test(await replicaClient.info("replication")));
    // The client learns the replica from CLUSTER SLOTS: wait until the master lists it there.
    await until("the cluster", async () => /cluster_state:ok/.test(await primary.clusterInfo()) && ((await primary.sendCommand(["CLUSTER", "SLOTS"])) as unknown[][])[0]?.length === 4);
    await primary.quit();
    cluster = createCluster({ rootNodes: [{ url: master.url }], useReplicas: true });
    await cluster.connect();
    ioCluster = new Cluster([{ host: "127.0.0.1", port: master.port }], { scaleReads: "slave", retryDelayOnFailover: 0, redisOptions: { autoResendUnfulfilledCommands: false } });
    await new Promise((resolve, reject) => ioCluster.once("ready", resolve).once("error", reject));
  }, 30_000);

  afterAll(async () => {
    await cluster?.quit();
    await ioCluster?.quit();
    await replicaClient?.quit();
    await master?.stop();
    await replica?.stop();
  });

  /** Runs `body` while the replica applies none of the master's writes. */
  async function replicaBehind(body: () => Promise<void>): Promise<void> {
    await replicaClient.sendCommand(["CLIENT", "PAUSE", "5000", "WRITE"]);
    try {
      await body();
    } finally {
      await replicaClient.sendCommand(["CLIENT", "UNPAUSE"]);
    }
  }

  it("opens a filter just made (its meta hash is read from the master)", async () => {
    await replicaBehind(async () => {
      const filter = await RedisBloomFilter.create(cluster, "replicated:open", 10_000, 0.01);
      // Read-only commands go to master and replica in turn: four opens meet both more than once.
      for (let i = 0; i < 4; i++) expect((await RedisBloomFilter.open(cluster, "replicated:open")).bits).toBe(filter.bits);
    });
  });

  it("copies every key added before toBloomFilter() (the bits are read from the master)", async () => {
    const filter = await RedisBloomFilter.create(cluster, "replicated:copy", 10_000, 0.01);
    const keys = urls(2000, "replicated", 1);
    await replicaBehind(async () => {
      await filter.addMany(keys);
      for (let i = 0; i < 2; i++) {
        const copy = await filter.toBloomFilter();
        expect(ones(copy.hasMany(keys))).toBe(keys.length);
        copy.dispose();
      }
    });
  });

  // ioredis looks a command's name up in its command table as given, and that table is lower-case:
  // bloomkit's upper-case names read as no read-only command, so each goes to the master.
  it("opens a filter just made through an ioredis Cluster with scaleReads: \"slave\"", async () => {
    await replicaBehind(async () => {
      const filter = await RedisBloomFilter.create(ioCluster, "replicated:io-open", 10_000, 0.01);
      expect((await RedisBloomFilter.open(ioCluster, "replicated:io-open")).bits).toBe(filter.bits);
    });
  });

  it("copies every key added before toBloomFilter() through an ioredis Cluster with scaleReads: \"slave\"", async () => {
    const filter = await RedisBloomFilter.create(ioCluster, "replicated:io-copy", 10_000, 0.01);
    const keys = urls(2000, "replicated-io", 1);
    await replicaBehind(async () => {
      await filter.addMany(keys);
      expect(ones(await filter.hasMany(keys))).toBe(keys.length);
      const copy = await filter.toBloomFilter();
      expect(ones(copy.hasMany(keys))).toBe(keys.length);
      copy.dispose();
    });
  });
});
