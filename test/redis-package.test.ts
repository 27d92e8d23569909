// bloomkit/redis as users get it: its own subpath export, typed for the
// clients it takes, and never loaded by the main entry.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("..", import.meta.url);

describe("bloomkit/redis package", () => {
  it("keeps Redis out of the main entry: bloomkit loads no Redis code, bloomkit/redis is its own export", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(Object.keys(manifest.exports["./redis"])).toEqual(["types", "default"]);
    expect(manifest.peerDependenciesMeta.redis.optional).toBe(true);
    expect(manifest.dependencies?.redis).toBeUndefined(); // no runtime dependency at all
    // Follow the main entry's imports through the bindings' sources.
    const seen = new Set<string>();
    const visit = (url: URL) => {
      if (seen.has(url.href)) return;
      seen.add(url.href);
      const source = readFileSync(url, "utf8");
      for (const [, spec] of source.matchAll(/(?:import|export)[^"';]*?from\s+"([^"]+)"/g)) {
        expect(spec).not.toMatch(/redis/);
        if (spec.startsWith(".")) visit(new URL(spec.replace(/\.js$/, ".ts"), url));
      }
    };
    visit(new URL("../bindings/index.ts", import.meta.url));
    expect(seen.size).toBeGreaterThan(10);
  });

  it("imports from \"bloomkit/redis\" in plain Node, beside the main entry", () => {
    const script = `
      import { RedisBloomFilter, REDIS_SEGMENT_BITS } from "bloomkit/redis";
      const { BloomFilter } = await import("bloomkit");
      console.log(JSON.stringify({ create: typeof RedisBloomFilter.create, limit: REDIS_SEGMENT_BITS, local: typeof BloomFilter.create }));
    `;
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
    expect(JSON.parse(output)).toEqual({ create: "function", limit: 2 ** 32, local: "function" });
  });

  it("accepts node-redis clients and clusters and ioredis clients and clusters in TypeScript, and nothing else", () => {
    const dir = mkdtempSync(join(new URL(".", root).pathname, ".redis-types-"));
    try {
      writeFileSync(
        join(dir, "clients.ts"),
        `
        import { createClient, createCluster } from "redis";
        import { Redis, Cluster } from "ioredis";
        import { RedisBloomFilter } from "bloomkit/redis";
        export async function all(): Promise<Uint8Array> {
          const client = await createClient({ url: "redis://127.0.0.1:1" }).connect();
          await RedisBloomFilter.open(createCluster({ rootNodes: [] }), "n");
          await RedisBloomFilter.open(new Redis(), "n");
          await RedisBloomFilter.open(new Cluster([]), "n");
          // @ts-expect-error: not a Redis client
          await RedisBloomFilter.open({}, "n");
          const filter: RedisBloomFilter = await (await RedisBloomFilter.create(client, "n", 1000, 0.01, { hash: "xxh3", seed: 1 })).add("x");
          return filter.testAndAddMany(["a"]);
        }
        `,
      );
      const tsc = new URL("../node_modules/typescript/bin/tsc", import.meta.url).pathname;
      const args = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--skipLibCheck", "--types", "node", join(dir, "clients.ts")];
      expect(execFileSync(process.execPath, [tsc, ...args], { cwd: root, encoding: "utf8" })).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
