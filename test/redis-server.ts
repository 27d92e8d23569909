// Starts Debian's redis-server on a free loopback port with persistence off,
// for the tests of bloomkit/redis; stop() ends it (and only it).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
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

/** A port nobody listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

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
export async function startRedis(extra: string[] = []): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "bloomkit-redis-"));
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, ...extra], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await waitFor(child, /Ready to accept connections/, `redis-server on port ${port}`);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once("exit", () => ((exited = true), resolve())));
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
