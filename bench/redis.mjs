// `npm run bench:redis`: keys per second of testAndAddMany on a Bloom filter
// kept in Redis, over loopback, with 1, 4 and 16 clients at once (each its
// own connection, all in this process), against a naive client that sends
// one SETBIT per bit (a key's k SETBITs pipelined, one round trip per key),
// and against the other transport considered: the batch's bits sent by the
// client as one BITFIELD command (bloomkit sends them to a Lua script as one
// binary argument instead: bindings/redis/script.ts).
// Starts its own redis-server (Debian's) on a free port, persistence off.
// Each cell: keys per second, and in brackets the Redis server's CPU time per
// key (INFO cpu), what every client of one shared server pays for, and a
// steadier number than the rate on a busy machine.
// BENCH_SECONDS sets the time per row (default 2).
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";
import { BloomFilter } from "bloomkit";
import { RedisBloomFilter } from "bloomkit/redis";
import { machine, progress, table } from "./report.mjs";
import { urls } from "./keys.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const BATCH = 10_000;
const N = 10_000_000;
const P = 0.001;
const CLIENTS = [1, 4, 16];

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const dir = mkdtempSync(join(tmpdir(), "bloomkit-bench-redis-"));
const server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], { stdio: ["ignore", "pipe", "inherit"] });
await new Promise((resolve, reject) => {
  let out = "";
  server.stdout.on("data", (d) => {
    out += d;
    if (out.includes("Ready to accept connections")) resolve();
  });
  server.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
});
const url = `redis://127.0.0.1:${port}`;

progress("building keys");
const keys = urls(400_000, "bench", 7);
const batches = [];
for (let i = 0; i + BATCH <= keys.length; i += BATCH) batches.push(keys.slice(i, i + BATCH));

/** Seconds of CPU the Redis server has used (user + system): what a batch costs the one server every client shares. */
async function serverSeconds() {
  const info = await admin.info("cpu");
  return Number(/used_cpu_user:([\d.]+)/.exec(info)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)[1]);
}

/** Runs `clients` loops of `step(client, batch)` for SECONDS; keys per second over all of them, and Redis CPU µs per key. */
async function measure(clients, connect, step, keysPerBatch = BATCH) {
  const conns = await Promise.all(Array.from({ length: clients }, connect));
  const cpuBefore = await serverSeconds();
  let done = 0;
  const end = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    conns.map(async (conn, c) => {
      for (let i = c; performance.now() < end; i += clients) {
        await step(conn, batches[i % batches.length]);
        done += keysPerBatch;
      }
    }),
  );
  const rate = done / ((performance.now() - started) / 1000);
  const cpu = ((await serverSeconds()) - cpuBefore) * 1e6 / done;
  await Promise.all(conns.map((conn) => (conn.redis ?? conn).quit()));
  return { rate, cpu };
}

const admin = await createClient({ url }).connect();
const shape = BloomFilter.create(N, P);
const { bits, hashes } = shape;
const rows = [];
const rates = {};

for (const clients of CLIENTS) {
  progress(`bloomkit, ${clients} clients`);
  await admin.flushAll();
  rates[`bloomkit ${clients}`] = await measure(
    clients,
    async () => {
      const redis = await createClient({ url }).connect();
      return { redis, filter: await RedisBloomFilter.create(redis, "bench", N, P) };
    },
    ({ filter }, batch) => filter.testAndAddMany(batch),
  );

  progress(`BITFIELD from the client, ${clients} clients`);
  await admin.flushAll();
  rates[`bitfield ${clients}`] = await measure(
    clients,
    () => createClient({ url }).connect(),
    async (redis, batch) => {
      const indices = shape.indices({ kind: "keys", keys: batch });
      const args = ["BITFIELD", "bench-bitfield"];
      for (let i = 0; i < indices.length; i++) args.push("SET", "u1", String(indices[i] - 2 * (indices[i] % 8) + 7), "1");
      const old = await redis.sendCommand(args);
      if (old.length !== indices.length) throw new Error("BITFIELD answered for the wrong number of bits");
    },
  );

  progress(`naive SETBIT, ${clients} clients`);
  await admin.flushAll();
  rates[`naive ${clients}`] = await measure(
    clients,
    () => createClient({ url }).connect(),
    async (redis, batch) => {
      // Only a tenth of each batch: the naive client is slow, and its rate is per key all the same.
      for (let i = 0; i < batch.length; i += 10) {
        const old = await Promise.all(shape.positions(batch[i]).map((bit) => redis.setBit("bench-naive", bit, 1)));
        void old.every((b) => b === 1);
      }
    },
    BATCH / 10,
  );
}

/**
 * What Redis itself allows: its CPU per BITFIELD SET u1 operation (reading
 * and parsing the command, running it, replying), alone on the server, with
 * the commands built before the clock starts. At k operations a key, one
 * whole core of Redis serves at most 1 / (k · that) keys a second, whatever
 * the client and transport.
 */
progress("Redis's own cost of one BITFIELD operation");
await admin.flushAll();
await admin.setBit("bench-floor", bits - 1, 0);
const FLOOR_COMMANDS = 20;
const FLOOR_OPERATIONS = 20_000;
const floorCommands = batches.slice(0, FLOOR_COMMANDS).map((batch) => {
  const indices = shape.indices({ kind: "keys", keys: batch.slice(0, FLOOR_OPERATIONS / hashes) });
  const args = ["BITFIELD", "bench-floor"];
  for (let i = 0; i < indices.length; i++) args.push("SET", "u1", String(indices[i]), "1");
  return args;
});
const floorStart = await serverSeconds();
for (const args of floorCommands) await admin.sendCommand(args);
const floorMicros = ((await serverSeconds()) - floorStart) * 1e6 / (FLOOR_COMMANDS * FLOOR_OPERATIONS);

await admin.quit();
server.kill("SIGKILL");
await new Promise((resolve) => server.once("exit", resolve));
rmSync(dir, { recursive: true, force: true });

const fmt = (x) => Math.round(x).toLocaleString("en-US");
const cell = ({ rate, cpu }) => `${fmt(rate)} (${cpu.toFixed(1)} µs)`;
for (const clients of CLIENTS) {
  const naive = rates[`naive ${clients}`];
  rows.push([
    String(clients),
    cell(rates[`bloomkit ${clients}`]),
    cell(rates[`bitfield ${clients}`]),
    cell(naive),
    `${(rates[`bloomkit ${clients}`].rate / naive.rate).toFixed(1)}×`,
  ]);
}
const m = machine();
console.log(`Redis 7 on loopback, ${m.cpu} (${m.cores} cores), Node ${m.node}, ${m.date}; filter n = ${N.toLocaleString("en-US")}, p = ${P} (m = ${bits} bits, k = ${hashes}); batches of ${BATCH.toLocaleString("en-US")} URL keys; ${SECONDS} s a row.\n`);
console.log(table(["clients", "bloomkit keys/s (Redis CPU/key)", "one BITFIELD from the client", "naive SETBIT", "bloomkit / naive"], rows));
console.log(
  `\nRedis alone: ${floorMicros.toFixed(2)} µs of its CPU per BITFIELD SET u1 operation (${FLOOR_COMMANDS} commands of ${fmt(FLOOR_OPERATIONS)}, built beforehand); ` +
    `at k = ${hashes}, one whole core of Redis serves at most ${fmt(1e6 / (hashes * floorMicros))} keys a second whatever the client.`,
);
