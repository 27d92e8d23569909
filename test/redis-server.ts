// Starts Debian's redis-server on a free loopback port with persistence off,
// for the tests of bloomkit/redis; stop() ends it (and only it).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe } from "vitest";
import { createClient } from "redis";
import { createServer } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly process: ChildProcess;
  /** Ends the server and waits for it to exit. */
  stop(): Promise<void>;
}

/** True when redis-server is on the PATH (.ci/run installs it). */
export function haveRedisServer(): boolean {
  return spawnSync("redis-server", ["--version"]).status === 0;
}

/** describe for tests that need redis-server: skipped where it is missing, never in CI (.ci/run installs it: missing there is a failure). */
export const describeWithRedis = haveRedisServer() || process.env.CI ? describe : describe.skip;

/** A connected node-redis client. */
export type NodeRedis = Awaited<ReturnType<ReturnType<typeof createClient>["connect"]>>;

/** A server of their own and a node-redis client on it for the tests of the describe block this is called in: both started before them, ended after. */
export function serverForBlock(ready: (server: RedisServer, redis: NodeRedis) => void): void {
  let server: RedisServer | undefined;
  let redis: NodeRedis | undefined;
  beforeAll(async () => {
    server = await startRedis();
    redis = await createClient({ url: server.url }).connect();
    ready(server, redis);
  });
  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });
}

/** A port nobody listens on now (`port` 0: any such port the system picks). */
export function freePort(port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(port, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A cluster node also listens on its port + 10000 (the cluster bus), so both must be free. */
const CLUSTER_BUS_OFFSET = 10000;
const HIGHEST_PORT = 65535;

/** A port that is free now and, for a cluster node, whose bus port is free too. */
async function portFor(cluster: boolean): Promise<number> {
  for (let tries = 0; ; tries++) {
    const port = await freePort();
    if (!cluster) return port;
    if (port + CLUSTER_BUS_OFFSET <= HIGHEST_PORT && (await freePort(port + CLUSTER_BUS_OFFSET).then(() => true, () => false))) return port;
    if (tries > 100) throw new Error("no free pair of ports (port and port + 10000) for a cluster node");
  }
}

/** Another process can take a port between the probe and the server's bind; then a new port is tried. */
const START_ATTEMPTS = 5;

/** Waits until `child` prints a line matching `ready`, or fails when it exits first. */
function waitFor(child: ChildProcess, ready: RegExp, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (data: Buffer) => {
      output += data.toString();
      if (ready.test(output)) {
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${what} exited (${code}) before it was ready:\n${output}`)));
  });
}

/** Starts redis-server with `extra` arguments (cluster mode, say) on a free port, in a temporary folder of its own. */
export function startRedis(extra: string[] = []): Promise<RedisServer> {
  return launch(extra, /Ready to accept connections/, "redis-server");
}

/**
 * Starts a Redis Sentinel (redis-server --sentinel) that watches the master on
 * `masterPort` under the name `masterName`, on a free port, in a temporary
 * folder of its own: a Sentinel needs a config file it can rewrite.
 */
export function startSentinel(masterPort: number, masterName = "master"): Promise<RedisServer> {
  const config = (dir: string) => {
    const file = join(dir, "sentinel.conf");
    writeFileSync(file, `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 1\n`);
    return file;
  };
  // A Sentinel never prints "Ready to accept connections"; it prints this once it listens.
  return launch(["--sentinel"], new RegExp(`\\+monitor master ${masterName} `), "redis-sentinel", config);
}

/** Starts redis-server (given the config file `config` writes into its folder, if any) and waits for `ready` in its output. */
async function launch(extra: string[], ready: RegExp, what: string, config?: (dir: string) => string): Promise<RedisServer> {
  const cluster = extra.includes("--cluster-enabled");
  for (let attempt = 1; ; attempt++) {
    const port = await portFor(cluster);
    const dir = mkdtempSync(join(tmpdir(), "bloomkit-redis-"));
    // A config file has to come first.
    const args = [...(config ? [config(dir)] : []), "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, ...extra];
    const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "inherit"] });
    try {
      await waitFor(child, ready, `${what} on port ${port}`);
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      if (attempt < START_ATTEMPTS && /Address already in use/.test(String(error))) continue;
      throw error;
    }
    return running(child, port, dir);
  }
}

/** The handle of a server that is ready. */
function running(child: ChildProcess, port: number, dir: string): RedisServer {
  let exited = child.exitCode !== null || child.signalCode !== null;
  const exit = exited ? Promise.resolve() : new Promise<void>((resolve) => child.once("exit", () => ((exited = true), resolve())));
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    process: child,
    async stop() {
      if (!exited) child.kill("SIGKILL");
      await exit;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
