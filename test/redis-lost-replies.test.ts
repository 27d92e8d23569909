// bloomkit/redis when a connection is lost with a call in flight, against a
// real redis-server: Redis may have run the call although no reply came. A
// client that then sends it again (ioredis's default) would make the second
// run answer "present" for the keys the first one added, so testAndAdd
// refuses such a client; and an add cut off so says its keys may be there.
import { expect, it } from "vitest";
import { createClient } from "redis";
import { Cluster, Redis as IoRedis } from "ioredis";
import { RedisBloomFilter, RedisFilterError } from "../bindings/redis/index.js";
import { commandsOf } from "../bindings/redis/client.js";
import { describeWithRedis, serverForBlock, type NodeRedis, type RedisServer } from "./redis-server.js";

describeWithRedis("bloomkit/redis and replies lost with the connection", () => {
  let server: RedisServer;
  let admin: NodeRedis;
  serverForBlock((started, client) => ((server = started), (admin = client)));

  it("testAndAdd and its batch forms refuse an ioredis client that sends cut-off calls again, before writing anything", async () => {
    const io = new IoRedis(server.port, "127.0.0.1");
    const careful = new IoRedis(server.port, "127.0.0.1", { autoResendUnfulfilledCommands: false });
    try {
      const filter = await RedisBloomFilter.create(io, "resends", 1000, 0.01);
      const calls: [string, () => Promise<unknown>][] = [
        ["testAndAdd", () => filter.testAndAdd("k1")],
        ["testAndAddMany", () => filter.testAndAddMany(["k1", "k2"])],
        ["testAndAddLines", () => filter.testAndAddLines(new TextEncoder().encode("k1\nk2\n"))],
        ["testAndAddInts", () => filter.testAndAddInts(new Uint32Array([1, 2]))],
      ];
      for (const [method, call] of calls) {
        const refused = await call().then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(TypeError);
        expect((refused as Error).message).toBe(
          `${method} needs an ioredis client made with autoResendUnfulfilledCommands: false (for a Cluster, in redisOptions), and an ioredis Cluster made with retryDelayOnFailover: 0 too: ` +
            `otherwise (ioredis's defaults) a call whose reply a lost connection cut off ` +
            `is sent again, and that second run finds the keys the first one added, so a new key is told "present" and no client hears it as new. ` +
            "add, has and their batch forms do not depend on it",
        );
      }
      expect(await filter.size()).toBe(0);
      // add and has do not depend on it; a client made without resending takes testAndAdd.
      await filter.add("k1");
      expect(await filter.hasMany(["k1", "k2"])).toEqual(new Uint8Array([1, 0]));
      const same = await RedisBloomFilter.open(careful, "resends");
      expect(await same.testAndAddMany(["k1", "k2", "k2"])).toEqual(new Uint8Array([1, 0, 1]));
      await same.drop();
    } finally {
      io.disconnect();
      careful.disconnect();
    }
  });

  it("an ioredis Cluster resends unless its redisOptions say otherwise and its retryDelayOnFailover is 0 (test/redis-cluster-resends.test.ts); node-redis clients never do", () => {
    const at = [{ host: "127.0.0.1", port: server.port }];
    const clusters = [
      new Cluster(at, { lazyConnect: true }),
      new Cluster(at, { lazyConnect: true, redisOptions: { autoResendUnfulfilledCommands: false } }),
      new Cluster(at, { lazyConnect: true, retryDelayOnFailover: 0 }),
      new Cluster(at, { lazyConnect: true, retryDelayOnFailover: 0, redisOptions: { autoResendUnfulfilledCommands: false } }),
    ];
    try {
      expect(clusters.map((cluster) => commandsOf(cluster).resends)).toEqual([true, true, true, false]);
      expect(commandsOf(admin).resends).toBe(false);
    } finally {
      for (const cluster of clusters) cluster.disconnect();
    }
  });

  it("an add cut off by a lost connection says its keys may or may not have been added (here Redis had not run it)", async () => {
    const client = await createClient({ url: server.url })
      .on("error", () => {}) // the kill below: node-redis reports it here too, then reconnects
      .connect();
    try {
      const filter = await RedisBloomFilter.create(client, "cut-off", 1000, 0.001);
      const id = String(await client.sendCommand(["CLIENT", "ID"]));
      // Writes held (CLIENT PAUSE), the add waits in Redis; its connection is killed there, and Redis is let go.
      await admin.sendCommand(["CLIENT", "PAUSE", "10000", "WRITE"]);
      const added = filter.testAndAddMany(["a", "b", "c"]).then(
        () => undefined,
        (error: unknown) => error,
      );
      while (!/ flags=\w*b/.test(String(await admin.sendCommand(["CLIENT", "LIST", "ID", id])))) await new Promise((resolve) => setTimeout(resolve, 5));
      await admin.sendCommand(["CLIENT", "KILL", "ID", id]);
      await admin.sendCommand(["CLIENT", "UNPAUSE"]);
      const error = await added;
      expect(error).toBeInstanceOf(RedisFilterError);
      expect((error as Error).message).toMatch(/^Redis filter "cut-off": cannot add keys \(the connection failed with calls in flight, which may or may not have added their keys\): /);
      const reopened = await RedisBloomFilter.open(admin, "cut-off");
      expect(await reopened.hasMany(["a", "b", "c"])).toEqual(new Uint8Array([0, 0, 0]));
      await reopened.drop();
    } finally {
      client.destroy();
    }
  });

  it("a batch Redis refused in a reply is not called a lost connection: that call wrote nothing", async () => {
    const stale = await RedisBloomFilter.create(admin, "replied", 1000, 0.01);
    await (await RedisBloomFilter.open(admin, "replied")).drop();
    const again = await RedisBloomFilter.create(admin, "replied", 2000, 0.01);
    const error = await stale.addMany(["x"]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RedisFilterError);
    expect((error as Error).message).toBe('Redis filter "replied": cannot add keys: GONE the filter was dropped, or made again under its name, since this handle opened it; open it again');
    expect(await again.has("x")).toBe(false);
    await again.drop();
  });
});
