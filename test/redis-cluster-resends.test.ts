// bloomkit/redis through an ioredis Cluster when a connection is lost after
// Redis ran a call but before its reply came. The Cluster sends a call cut
// off so again on its own (after retryDelayOnFailover, 100 ms by default),
// whatever its nodes' autoResendUnfulfilledCommands says; the second run of
// a testAndAdd finds the keys the first one added and answers "present" for
// keys nobody heard as new. A one-node cluster on a real redis-server, reached
// through a loopback proxy that can cut a connection once a call has gone
// through to Redis (ioredis's natMap sends the cluster's node address to it).
import { createServer, connect, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient } from "redis";
import { Cluster } from "ioredis";
import { RedisBloomFilter, RedisFilterError } from "../bindings/redis/index.js";
import { commandsOf } from "../bindings/redis/client.js";
import { describeWithRedis, startRedis, type NodeRedis, type RedisServer } from "./redis-server.js";

/** How long the proxy lets Redis run a call it passed on before it cuts the connection, dropping the reply. */
const RUN_MS = 100;

/** A loopback proxy to `port`; cutAfter(marker) cuts the next connection whose client sends `marker`, once Redis had RUN_MS to run it. */
function cuttingProxy(port: number): Promise<{ port: number; cutAfter(marker: string): void; close(): Promise<void> }> {
  let marker: string | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    sockets.add(client).add(upstream);
    let cut = false;
    client.on("data", (data) => {
      upstream.write(data);
      if (marker !== undefined && data.includes(marker)) {
        marker = undefined;
        cut = true;
        setTimeout(() => (client.destroy(), upstream.destroy()), RUN_MS);
      }
    });
    upstream.on("data", (data) => cut || client.write(data));
    for (const socket of [client, upstream]) {
      socket.on("error", () => {});
      socket.on("close", () => (client.destroy(), upstream.destroy(), sockets.delete(socket)));
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as { port: number }).port,
        cutAfter: (text) => (marker = text),
        close: () => new Promise<void>((done) => (sockets.forEach((s) => s.destroy()), server.close(() => done()))),
      }),
    ),
  );
}

describeWithRedis("bloomkit/redis through an ioredis Cluster whose connection is cut after Redis ran a call", () => {
  let node: RedisServer;
  let admin: NodeRedis;
  let proxy: Awaited<ReturnType<typeof cuttingProxy>>;

  beforeAll(async () => {
    node = await startRedis(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000", "--cluster-announce-ip", "127.0.0.1"]);
    admin = await createClient({ url: node.url }).connect();
    await admin.sendCommand(["CLUSTER", "ADDSLOTSRANGE", "0", "16383"]);
    for (let tries = 0; !/cluster_state:ok/.test(await admin.clusterInfo()); tries++) {
      if (tries > 200) throw new Error("the one-node cluster did not become ready");
      await new Promise((r) => setTimeout(r, 50));
    }
    proxy = await cuttingProxy(node.port);
  });

  afterAll(async () => {
    await proxy?.close();
    await admin?.quit();
    await node?.stop();
  });

  /** An ioredis Cluster reaching the node through the proxy only. */
  const clusterWith = (options: object) =>
    new Cluster([{ host: "127.0.0.1", port: proxy.port }], { natMap: { [`127.0.0.1:${node.port}`]: { host: "127.0.0.1", port: proxy.port } }, ...options });

  it("a Cluster whose nodes do not resend still sends a cut-off call again: testAndAdd refuses it, before writing anything", async () => {
    const cluster = clusterWith({ redisOptions: { autoResendUnfulfilledCommands: false } });
    try {
      const filter = await RedisBloomFilter.create(cluster, "cluster-resends", 1000, 0.001);
      proxy.cutAfter("BITFIELD");
      // Before the fix: Redis ran the call, the Cluster sent it again, and the second run answered all three new keys "present".
      const outcome = await filter.testAndAddMany(["a", "b", "c"]).then(
        (answers) => answers,
        (error: unknown) => error,
      );
      expect(outcome).not.toEqual(new Uint8Array([1, 1, 1]));
      expect(outcome).toBeInstanceOf(TypeError);
      expect(commandsOf(cluster).resends).toBe(true);
      expect((outcome as Error).message).toMatch(/^testAndAddMany needs an ioredis client made with autoResendUnfulfilledCommands: false .*and an ioredis Cluster made with retryDelayOnFailover: 0 too/);
      expect(await filter.hasMany(["a", "b", "c"])).toEqual(new Uint8Array([0, 0, 0]));
      await filter.drop();
    } finally {
      proxy.cutAfter("never sent: no cut pending");
      cluster.disconnect();
    }
  }, 20_000);

  it("with retryDelayOnFailover: 0 too, a cut-off testAndAdd rejects, saying its keys may have been added, and ran once", async () => {
    const cluster = clusterWith({ retryDelayOnFailover: 0, redisOptions: { autoResendUnfulfilledCommands: false } });
    try {
      expect(commandsOf(cluster).resends).toBe(false);
      const filter = await RedisBloomFilter.create(cluster, "cluster-careful", 1000, 0.001);
      await admin.configResetStat();
      proxy.cutAfter("BITFIELD");
      const outcome = await filter.testAndAddMany(["a", "b", "c"]).then(
        (answers) => answers,
        (error: unknown) => error,
      );
      expect(outcome).toBeInstanceOf(RedisFilterError);
      expect((outcome as Error).message).toMatch(/^Redis filter "cluster-careful": cannot add keys \(the connection failed with calls in flight, which may or may not have added their keys\)/);
      // Redis ran it (once): the keys are there.
      expect(Number(/^cmdstat_eval:calls=(\d+)/m.exec(await admin.info("commandstats"))?.[1])).toBe(1);
      expect(await (await RedisBloomFilter.open(admin, "cluster-careful")).hasMany(["a", "b", "c"])).toEqual(new Uint8Array([1, 1, 1]));
      await admin.del(["{cluster-careful}:meta", "{cluster-careful}:bits:0"]);
    } finally {
      cluster.disconnect();
    }
  }, 20_000);
});
