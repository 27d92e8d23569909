// `npm start`'s server (web/serve.mjs): a busy port is not fatal, a bad PORT
// is one line, and every response carries the cross-origin isolation headers
// that SharedArrayBuffer needs.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { SERVE, serve, type Served } from "./page-helpers.js";

const DEFAULT_PORT = 5173;
const running: Served[] = [];
const blockers: Server[] = [];
const folders: string[] = [];
/** Shells started by a test, and servers started under them that are still running: stopped here whatever a test found. */
const shells: ChildProcess[] = [];
const servers: number[] = [];

afterEach(() => {
  for (const { server } of running.splice(0)) server.kill();
  for (const blocker of blockers.splice(0)) blocker.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  for (const shell of shells.splice(0)) shell.kill();
  for (const pid of servers.splice(0)) {
    try {
      if (alive(pid)) process.kill(pid, "SIGTERM");
    } catch {
      // ended already
    }
  }
});

/** True while process `pid` runs: one that ended and waits to be reaped (a zombie) has ended. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Holds `port` on 127.0.0.1; resolves false when something else holds it already (it is busy either way). */
function occupy(port: number): Promise<boolean> {
  const blocker = createServer();
  return new Promise((resolve, reject) => {
    blocker.once("error", (error: NodeJS.ErrnoException) => (error.code === "EADDRINUSE" ? resolve(false) : reject(error)));
    blocker.listen(port, "127.0.0.1", () => {
      blockers.push(blocker);
      resolve(true);
    });
  });
}

/** A port free a moment ago: the server would take the next one if it were not, and the test would say so. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const free = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

describe("npm start's server", () => {
  it("takes the next free port when the default one is busy, and says so", async () => {
    await occupy(DEFAULT_PORT);
    const served = await serve([]);
    running.push(served);
    const port = Number(new URL(served.url).port);
    expect(port).toBeGreaterThan(DEFAULT_PORT);
    expect(served.said).toContain(`port ${DEFAULT_PORT} is in use, so using ${port}`);
    expect((await fetch(served.url)).status).toBe(200);
  });

  it("does the same for a busy PORT", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const busy = (probe.address() as { port: number }).port;
    blockers.push(probe);
    const served = await serve([], { PORT: String(busy) });
    running.push(served);
    expect(Number(new URL(served.url).port)).not.toBe(busy);
    expect(served.said).toContain(`port ${busy} is in use`);
  });

  it("under npm start, ends when the shell that started it is stopped; started by hand or by another npm script, it stays", async () => {
    /** The server under `sh -c`, as npm start runs it (the "&& true" keeps sh from handing its process over to node). */
    const underShell = async (lifecycle: string | undefined) => {
      const env = { ...process.env, PORT: undefined, npm_lifecycle_event: lifecycle };
      const shell = spawn("sh", ["-c", `"${process.execPath}" "${SERVE}" --port 0 && true`], { stdio: ["ignore", "pipe", "inherit"], env });
      shells.push(shell);
      let said = "";
      shell.stdout.on("data", (chunk: Buffer) => (said += chunk.toString("utf8")));
      for (let waited = 0; !said.includes("http://"); waited += 50) {
        if (waited > 10_000) throw new Error(`the server said nothing: ${said}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = said.match(/http:\/\/\S+/)![0];
      // The server is the shell's one child (Linux: the CI's machine and this one).
      const node = Number(readFileSync(`/proc/${shell.pid}/task/${shell.pid}/children`, "utf8").trim());
      expect(node).toBeGreaterThan(0);
      servers.push(node);
      shell.kill("SIGTERM");
      return { url, node, said: () => said };
    };
    const started = await underShell("start");
    for (let waited = 0; alive(started.node) && waited < 5_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(started.node)).toBe(false);
    await expect(fetch(started.url)).rejects.toThrow();
    expect(started.said()).toContain("npm start has ended, so the server stops");
    // Not npm start: a server someone started by hand, or from another npm script, and left running is theirs to stop.
    for (const lifecycle of [undefined, "test"]) {
      const stays = await underShell(lifecycle);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(alive(stays.node), String(lifecycle)).toBe(true);
      expect((await fetch(stays.url)).status).toBe(200);
    }
  });

  it("prints the address it listens on, 127.0.0.1 (localhost may be ::1 first, where another server can answer)", async () => {
    const served = await serve(["--port", "0"]);
    running.push(served);
    expect(served.said).toMatch(/^bloomkit page: http:\/\/127\.0\.0\.1:\d+\/$/m);
    expect(new URL(served.url).hostname).toBe("127.0.0.1");
    expect((await fetch(served.url)).status).toBe(200);
  });

  it("takes --port=N as it takes --port N", async () => {
    const free = await freePort();
    const served = await serve([`--port=${free}`]);
    running.push(served);
    expect(Number(new URL(served.url).port)).toBe(free);
    expect((await fetch(served.url)).status).toBe(200);
  });

  it.each([
    ["PORT=abc", [], { PORT: "abc" }],
    ["PORT=70000", [], { PORT: "70000" }],
    ["--port -1", ["--port", "-1"], {}],
    ["--port", ["--port"], {}],
    ["--port=", ["--port="], {}],
    ["--port=abc", ["--port=abc"], {}],
    ["--port=70000", ["--port=70000"], {}],
    ["--port=1 --port 2", ["--port=1", "--port", "2"], {}],
    ["--prot 8123", ["--prot", "8123"], {}],
    ["8123", ["8123"], {}],
  ])(
    "refuses %s in one line with exit code 2",
    (_, args, env) => {
      const run = spawnSync(process.execPath, [SERVE, ...(args as string[])], { env: { ...process.env, PORT: undefined, ...env }, encoding: "utf8", timeout: 10_000 });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe("");
      const lines = run.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^bloomkit page: (PORT|--port|unknown argument) /);
      expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    },
  );

  // npm (11.19 here) keeps a --port written before `--` for itself: `npm start --port 8123` runs the server with
  // just "8123" and npm_config_port=true, `npm start --port=8123` with nothing and npm_config_port=8123. Both
  // are taken as the --port the user typed: the first was refused as an unknown argument, the second ignored for 5173.
  it.each([
    ["npm start --port N", true],
    ["npm start --port=N", false],
  ])("%s, the --port npm keeps for itself, is the port served on", async (_, spaced) => {
    const port = await freePort();
    const served = await serve(spaced ? [String(port)] : [], { npm_config_port: spaced ? "true" : String(port) });
    running.push(served);
    expect(Number(new URL(served.url).port)).toBe(port);
    expect((await fetch(served.url)).status).toBe(200);
  });

  it("takes a --port given after -- even where npm has a port setting of its own", async () => {
    const served = await serve(["--port", "0"], { npm_config_port: "8123" });
    running.push(served);
    expect((await fetch(served.url)).status).toBe(200);
  });

  it("serves from a checkout whose path has a space in it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "bloomkit page "));
    folders.push(folder);
    for (const part of ["web", "dist"]) cpSync(fileURLToPath(new URL(`../${part}/`, import.meta.url)), join(folder, part), { recursive: true });
    const served = await serve(["--port", "0"], {}, join(folder, "web", "serve.mjs"));
    running.push(served);
    for (const path of ["/", "/web/app.js", "/dist/index.js"]) expect((await fetch(new URL(path, served.url))).status, path).toBe(200);
  });

  it("sends COOP same-origin and COEP require-corp on every response, and serves an icon", async () => {
    const served = await serve(["--port", "0"]);
    running.push(served);
    for (const [path, status] of [["/", 200], ["/dist/index.js", 200], ["/web/app.js", 200], ["/favicon.ico", 200], ["/no-such-file", 404], ["/dist/..%2Fpackage.json", 404], ["/%E0%A4%A", 404]] as const) {
      const response = await fetch(new URL(path, served.url));
      expect(response.status, path).toBe(status);
      expect(response.headers.get("cross-origin-opener-policy"), path).toBe("same-origin");
      expect(response.headers.get("cross-origin-embedder-policy"), path).toBe("require-corp");
    }
    const icon = await fetch(new URL("/favicon.ico", served.url));
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(await icon.text()).toMatch(/^<svg /);
  });
});
