// `bloomkit dedup --redis … --name …` and `query --redis …`: several
// processes de-duplicating one stream between them through a filter kept in
// a real redis-server, and the CLI's one-line errors for it.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient } from "redis";
import { RedisBloomFilter } from "../bindings/redis/index.js";
import { rng } from "./helpers.js";
import { describeWithRedis, startRedis, type RedisServer } from "./redis-server.js";

const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
describeWithRedis("bloomkit with --redis", () => {
  let server: RedisServer;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), "bloomkit-cli-redis-"));
  const file = (name: string) => join(dir, name);

  beforeAll(async () => {
    server = await startRedis();
    url = `${server.url}/3`;
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function cli(args: string[], input?: string) {
    const result = spawnSync(process.execPath, [BIN, ...args], { input, encoding: "utf8" });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  /** Runs the CLI in the background (killed after `timeout` ms, if given); resolves with its exit code and stderr. */
  function cliAsync(args: string[], timeout?: number): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "ignore", "pipe"], timeout });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stderr })));
  }

  it("lets three processes de-duplicate one stream of URLs between them: every distinct URL kept exactly once", async () => {
    const random = rng(61);
    const lines = Array.from({ length: 30_000 }, () => `https://example.com/page/${Math.floor(random() * 12_000)}`);
    const distinct = new Set(lines);
    // The stream, dealt out to three workers as a crawler's queue would.
    const parts = [0, 1, 2].map((w) => lines.filter((_, i) => i % 3 === w));
    parts.forEach((part, w) => writeFileSync(file(`part${w}.txt`), part.join("\n") + "\n"));
    const created = cli(["dedup", file("part0.txt"), "-o", file("warm.txt"), "--redis", url, "--name", "crawl:seen", "--n", "20k", "--p", "1e-6"], "");
    expect(created.code).toBe(0);
    // Part 0 went through once already: the shared filter now holds it, so a second pass over it keeps nothing.
    const results = await Promise.all([0, 1, 2].map((w) => cliAsync(["dedup", file(`part${w}.txt`), "-o", file(`unique${w}.txt`), "--redis", url, "--name", "crawl:seen", "-q"])));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    const kept = [readFileSync(file("warm.txt"), "utf8"), ...[0, 1, 2].map((w) => readFileSync(file(`unique${w}.txt`), "utf8"))].flatMap((text) => text.split("\n").filter(Boolean));
    expect(readFileSync(file("unique0.txt"), "utf8")).toBe("");
    expect(kept.length).toBe(distinct.size);
    expect(new Set(kept).size).toBe(distinct.size);
    expect(results[1].stderr).toMatch(/the Bloom filter "crawl:seen" in Redis, [\d,]+ bits .*k = 20/);
    // query answers from the same filter.
    const asked = cli(["query", "--redis", url, "--name", "crawl:seen", lines[0], "https://example.com/never"]);
    expect(asked).toMatchObject({ code: 0, stdout: `${lines[0]}\tprobably present\nhttps://example.com/never\tdefinitely absent\n` });
    const piped = cli(["query", "--redis", url, "--name", "crawl:seen", "-"], `${lines[1]}\nnope\n`);
    expect(piped.stdout).toBe(`${lines[1]}\tprobably present\nnope\tdefinitely absent\n`);
    const around = cli(["query", "--redis", url, "--name", "crawl:seen", lines[0], "-", "https://example.com/never"], `${lines[1]}\n`);
    expect(around.stdout).toBe(`${lines[0]}\tprobably present\n${lines[1]}\tprobably present\nhttps://example.com/never\tdefinitely absent\n`);
    const redis = await createClient({ url }).connect();
    expect((await redis.keys("*")).sort()).toEqual(["{crawl:seen}:bits:0", "{crawl:seen}:meta"]);
    await redis.flushAll();
    await redis.quit();
  });

  it("says in one line what is wrong, and creates no output then", () => {
    writeFileSync(file("in.txt"), "a\nb\n");
    const missing = cli(["dedup", file("in.txt"), "-o", file("none.txt"), "--redis", url, "--name", "absent"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`bloomkit: there is no filter "absent" in Redis at ${url}: give --n (and --p) to create it\n`);
    expect(existsSync(file("none.txt"))).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes("none"))).toEqual([]);
    const refused = cli(["query", "--redis", `redis://127.0.0.1:${server.port + 1}`, "--name", "x", "a"]);
    expect(refused).toMatchObject({ code: 1, stderr: `bloomkit: cannot connect to Redis at redis://127.0.0.1:${server.port + 1}: connection refused\n` });
    expect(cli(["query", "--name", "x", "a"])).toMatchObject({ code: 2, stderr: "bloomkit: --name names a filter kept in Redis: give --redis URL too (see bloomkit query --help)\n" });
    expect(cli(["dedup", file("in.txt"), "--redis", url])).toMatchObject({ code: 2, stderr: "bloomkit: --redis needs --name NAME, the filter's name (see bloomkit dedup --help)\n" });
    expect(cli(["query", "--redis-timeout", "5", "a"])).toMatchObject({ code: 2, stderr: "bloomkit: --redis-timeout is for a filter kept in Redis: give --redis URL and --name too (see bloomkit query --help)\n" });
    for (const typed of ["0", "0x10", "", "-1", "1e-4", "86401", "1 s"]) {
      expect(cli(["dedup", file("in.txt"), "--redis", url, "--name", "x", "--redis-timeout", typed])).toMatchObject({
        code: 2,
        stderr: `bloomkit: --redis-timeout must be a number of seconds from 0.001 to 86400 (a day), got "${typed}" (see bloomkit dedup --help)\n`,
      });
    }
    expect(cli(["dedup", file("in.txt"), "--redis", url, "--name", "x", "--memory", "1MB"]).stderr).toMatch(/--memory is for a filter in this process/);
    expect(cli(["dedup", file("in.txt"), "--redis", "localhost:6379", "--name", "x"]).stderr).toMatch(/--redis must be a URL such as redis:\/\/127\.0\.0\.1:6379\/0, got "localhost:6379"/);
    expect(cli(["dedup", file("in.txt"), "-o", file("one.txt"), "--redis", url, "--name", "sized", "--n", "1000"]).code).toBe(0);
    const conflict = cli(["dedup", file("in.txt"), "-o", file("two.txt"), "--redis", url, "--name", "sized", "--n", "5000"]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/^bloomkit: Redis filter "sized": a filter of that name already exists in Redis with other parameters \(bits 71888 vs 14378, asked vs existing\)\n$/);
    expect(existsSync(file("two.txt"))).toBe(false);
  });

  it("gives up in one line on a server that takes the connection but never answers, rather than waiting for ever", async () => {
    // A Redis stopped (SIGSTOP), or another program on that port: the connection is made, and no reply ever comes.
    const silent = createServer((socket) => socket.on("data", () => {}));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    try {
      // Killed (code null) if it still waits long after its 10 s for connecting.
      const { code, stderr } = await cliAsync(["query", "--redis", `redis://127.0.0.1:${port}/0`, "--name", "x", "a"], 25_000);
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`^bloomkit: cannot connect to Redis at redis://127\\.0\\.0\\.1:${port}/0: no answer within 10 s\n$`));
    } finally {
      silent.close();
    }
  }, 30_000);

  it("gives up after --redis-timeout on a server that answers the connection's first commands and then nothing", async () => {
    // The filter's opening timed out, and the command then waited for ever for its connection to close: the closing
    // waits for the call the server never answered.
    const handshake = ["CLIENT", "HELLO", "SELECT", "PING"];
    const server = createServer((socket) =>
      socket.on("data", (data) => {
        // One reply per command of the handshake ("*2\r\n$6\r\nCLIENT\r\n…"); none for the filter's own.
        for (const [, name] of data.toString("latin1").matchAll(/\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n/g)) {
          if (handshake.includes(name.toUpperCase())) socket.write("+OK\r\n");
        }
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      for (const command of [["query", "a"], ["dedup", "-q"]]) {
        // Killed (code null) if it still waits long after its 1 s.
        const { code, stderr } = await cliAsync([...command, "--redis", `redis://127.0.0.1:${port}/0`, "--name", "x", "--redis-timeout", "1"], 8_000);
        expect(code, command[0]).toBe(1);
        expect(stderr, command[0]).toBe(`bloomkit: Redis at redis://127.0.0.1:${port}/0 did not answer within 1 s (--redis-timeout): the server is stopped, hung or overloaded\n`);
      }
    } finally {
      server.close();
    }
  }, 30_000);

  it("refuses a malformed --redis URL or --name as wrong usage, and query, which cannot create a filter, does not offer --n", () => {
    writeFileSync(file("in.txt"), "a\nb\n");
    for (const bad of [`redis://127.0.0.1:${server.port}/abc`, "redis://127.0.0.1:99999/0", "redis:///tmp/no.sock"]) {
      const result = cli(["dedup", file("in.txt"), "-o", file("bad-url.txt"), "--redis", bad, "--name", "x", "--n", "10"]);
      expect(result.code, bad).toBe(2);
      expect(result.stderr, bad).toMatch(new RegExp(`^bloomkit: --redis must be a URL such as redis://127\\.0\\.0\\.1:6379/0, got "${bad.replace(/[./]/g, "\\$&")}"`));
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(existsSync(file("bad-url.txt"))).toBe(false);
    const braces = cli(["dedup", file("in.txt"), "-o", file("braces.txt"), "--redis", url, "--name", "a{b}", "--n", "10"]);
    expect(braces.code).toBe(2);
    expect(braces.stderr).toMatch(/^bloomkit: --name must not contain "\{" or "\}"/);
    expect(cli(["query", "--redis", url, "--name", "nothing-here", "a"])).toMatchObject({ code: 1, stderr: `bloomkit: there is no filter "nothing-here" in Redis at ${url}\n` });
  });

  it("never shows the password of a --redis URL in its messages", async () => {
    writeFileSync(file("in.txt"), "a\nb\n");
    const own = await startRedis(["--requirepass", "s3cret"]);
    try {
      const cases: [string[], number, string][] = [
        [["query", "--redis", `redis://:s3cret@127.0.0.1:${own.port}/0`, "--name", "missing", "a"], 1, `there is no filter "missing" in Redis at redis://:***@127.0.0.1:${own.port}/0`],
        [["query", "--redis", `redis://default:wrong@127.0.0.1:${own.port}/0`, "--name", "x", "a"], 1, `cannot connect to Redis at redis://default:***@127.0.0.1:${own.port}/0: WRONGPASS`],
        [["dedup", file("in.txt"), "--redis", `redis://:s3cret@127.0.0.1:${own.port}/abc`, "--name", "x"], 2, `--redis must be a URL such as redis://127.0.0.1:6379/0, got "redis://:***@127.0.0.1:${own.port}/abc"`],
        // A "/" not escaped as %2F ends the host for a URL parser: the URL is refused, and the password still hidden.
        [["dedup", file("in.txt"), "--redis", `redis://:s3c/ret@127.0.0.1:${own.port}/0`, "--name", "x"], 2, `--redis must be a URL such as redis://127.0.0.1:6379/0, got "redis://:***@127.0.0.1:${own.port}/0"`],
      ];
      for (const [args, code, start] of cases) {
        const result = cli(args);
        expect(result.code, result.stderr).toBe(code);
        expect(result.stderr.startsWith(`bloomkit: ${start}`), result.stderr).toBe(true);
        expect(result.stderr).not.toMatch(/s3c|wrong@/);
      }
    } finally {
      await own.stop();
    }
  });

  it("refuses a --n and --p no filter in Redis takes as wrong usage, in the options' words, as dedup without --redis does", async () => {
    writeFileSync(file("in.txt"), "a\nb\n");
    for (const [args, message] of [
      [["--n", "10T", "--p", "1e-9"], "a filter for --n 10T at --p 1e-9 needs \\d+ bits \\(49\\.04 TiB\\); a filter holds at most \\d+ bits \\(32\\.00 GiB\\)"],
      [["--n", "1e15"], "a filter for --n 1e15 at p = 0\\.001 \\(the default --p\\) needs \\d+ bits .*"],
      [["--n", "10", "--p", "1e-100"], "--p 1e-100 needs k = 332 hash functions, more than the 256 a filter takes; the smallest p possible for --n 10 is 6\\.\\d+e-78"],
      [["--n", "1e308"], "a filter for --n 1e308 at p = 0\\.001 \\(the default --p\\) needs more bits than any filter holds"],
    ] as const) {
      const result = cli(["dedup", file("in.txt"), "-o", file("huge.txt"), "--redis", url, "--name", "huge", ...args]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^bloomkit: ${message} \\(see bloomkit dedup --help\\)\n$`));
      expect(result.stderr).not.toMatch(/expectedItems|falsePositiveRate/);
    }
    expect(existsSync(file("huge.txt"))).toBe(false);
    const redis = await createClient({ url }).connect();
    expect(await redis.keys("{huge}*")).toEqual([]);
    await redis.quit();
  });

  it("dedup into a filter whose every bit is set says it is saturated, rather than failing on its estimate of Infinity keys", async () => {
    writeFileSync(file("in.txt"), "a\nb\n");
    expect(cli(["dedup", file("in.txt"), "-o", file("first.txt"), "--redis", url, "--name", "full", "--n", "10", "--p", "0.5"]).code).toBe(0);
    const redis = await createClient({ url }).connect();
    try {
      const bits = Number(await redis.hGet("{full}:meta", "bits"));
      const bytes = Buffer.alloc(Math.ceil(bits / 8), 0xff);
      if (bits % 8 !== 0) bytes[bytes.length - 1] = (1 << bits % 8) - 1;
      await redis.set("{full}:bits:0", bytes);
      writeFileSync(file("more.txt"), "c\nd\ne\n");
      // Before the fix: "bloomkit: n must be a finite number ≥ 0, got NaN", exit 1.
      const full = cli(["dedup", file("more.txt"), "-o", file("none-new.txt"), "--redis", url, "--name", "full"]);
      expect(full.stderr).toMatch(/There are 3 repeated lines\.\nExpected distinct lines wrongly dropped as repeats \(false positives\): at most 3 lines: the filter is saturated, every bit set, so it cannot tell how many \(the Bloom filter "full" in Redis, 15 bits .*\); make a larger filter under another --name\n$/);
      expect(full.code).toBe(0);
      expect(readFileSync(file("none-new.txt"), "utf8")).toBe("");
      await redis.del(["{full}:meta", "{full}:bits:0"]);
    } finally {
      await redis.quit();
    }
  });

  it("says which lines the filter may hold when Redis refuses to add them mid-run: lines the output, left as it was, lacks", async () => {
    // Past maxmemory, Redis refuses every write after the first script call, which made the filter's bits.
    const own = await startRedis(["--maxmemory", "3mb", "--maxmemory-policy", "noeviction"]);
    try {
      const lines = Array.from({ length: 300_000 }, (_, i) => `https://full.example/${i}`);
      writeFileSync(file("full.txt"), lines.join("\n") + "\n");
      writeFileSync(file("full-out.txt"), "the old output\n");
      const args = ["dedup", file("full.txt"), "-o", file("full-out.txt"), "-q", "--redis", own.url, "--name", "full"];
      const failed = cli([...args, "--n", "5M", "--p", "0.01"]);
      expect(failed.code).toBe(1);
      // Before: "…cannot add keys: OOM command not allowed when used memory > 'maxmemory'." and nothing about the lines added.
      const said = /^bloomkit: Redis filter "full": cannot add keys: OOM [^\n]*; the filter "full" (?:holds the first ([\d,]+) lines and )?may hold some of the (?:first|next) ([\d,]+) lines, which the output, left as it was, lacks: a run again would take them for repeats\n$/.exec(failed.stderr);
      expect(said, failed.stderr).not.toBeNull();
      expect(readFileSync(file("full-out.txt"), "utf8")).toBe("the old output\n");
      const held = Number((said![1] ?? "0").replace(/,/g, ""));
      const maybe = Number(said![2].replace(/,/g, ""));
      // What the filter holds now, as a set: every line it holds lies among those the message names, and the first `held` are all in it.
      const redis = await createClient({ url: own.url }).connect();
      await redis.configSet("maxmemory", "0");
      await redis.quit();
      const asked = cli(["query", "--redis", own.url, "--name", "full", "-"], lines.join("\n") + "\n");
      const present = new Set(asked.stdout.split("\n").filter((line) => line.endsWith("\tprobably present")).map((line) => line.slice(0, -"\tprobably present".length)));
      expect(present.size).toBeGreaterThan(0);
      expect(lines.slice(0, held).every((line) => present.has(line))).toBe(true);
      const named = new Set(lines.slice(0, held + maybe));
      expect([...present].every((line) => named.has(line))).toBe(true);
      // As the message warns: a run again keeps every line but those.
      expect(cli(args).code).toBe(0);
      expect(readFileSync(file("full-out.txt"), "utf8")).toBe(lines.filter((line) => !present.has(line)).join("\n") + "\n");
    } finally {
      await own.stop();
    }
  });

  it("stopped by Ctrl-C mid-run, says which lines the filter holds that the output, left as it was, lacks", async () => {
    // It exited 130 saying nothing: the output was left as it was while the filter kept the lines sent, so a run
    // again dropped them as repeats, and nothing told the user.
    const own = await startRedis();
    try {
      const lines = Array.from({ length: 3_000_000 }, (_, i) => `https://stopped.example/${i}`);
      writeFileSync(file("stopped.txt"), lines.join("\n") + "\n");
      writeFileSync(file("stopped-out.txt"), "the old output\n");
      const child = spawn(process.execPath, [BIN, "dedup", file("stopped.txt"), "-o", file("stopped-out.txt"), "-q", "--redis", own.url, "--name", "stopped", "--n", "3M", "--p", "1e-6"], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (d) => (stderr += d));
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
      const probe = await createClient({ url: own.url }).connect();
      for (let i = 0; i < 400 && (await probe.exists("{stopped}:bits:0")) === 0; i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 300)); // some pieces in
      child.kill("SIGINT");
      expect(await ended).toEqual({ code: null, signal: "SIGINT" });
      const said = /^bloomkit: stopped: the filter "stopped" (?:holds the first ([\d,]+) lines(?: and )?)?(?:may hold some of the (?:first|next) ([\d,]+) lines)?, which the output, left as it was, lacks: a run again would take them for repeats\n$/.exec(stderr);
      expect(said, stderr).not.toBeNull();
      expect(readFileSync(file("stopped-out.txt"), "utf8")).toBe("the old output\n");
      const held = Number((said![1] ?? "0").replace(/,/g, ""));
      const maybe = Number((said![2] ?? "0").replace(/,/g, ""));
      expect(held + maybe).toBeGreaterThan(0);
      // The filter holds every one of the first `held` lines, and none past the lines named (p = 1e-6).
      const asked = cli(["query", "--redis", own.url, "--name", "stopped", "-"], lines.slice(0, held + maybe + 20_000).join("\n") + "\n");
      const answers = asked.stdout.split("\n").filter(Boolean).map((line) => line.endsWith("\tprobably present"));
      expect(answers.slice(0, held).every(Boolean)).toBe(true);
      expect(answers.slice(held + maybe).some(Boolean)).toBe(false);
      await probe.quit();
    } finally {
      await own.stop();
    }
  });

  it("gives up after --redis-timeout on a server that stops answering mid-run (frozen with SIGSTOP), in one line, saying what the filter holds", async () => {
    // The connection stays open and no reply comes: dedup and query waited for ever.
    const own = await startRedis();
    try {
      const lines = Array.from({ length: 3_000_000 }, (_, i) => `https://frozen.example/${i}`);
      writeFileSync(file("frozen.txt"), lines.join("\n") + "\n");
      writeFileSync(file("frozen-out.txt"), "the old output\n");
      const started = Date.now();
      const running = cliAsync(["dedup", file("frozen.txt"), "-o", file("frozen-out.txt"), "-q", "--redis", own.url, "--name", "frozen", "--n", "3M", "--redis-timeout", "1.5"], 60_000);
      const probe = await createClient({ url: own.url }).connect();
      for (let i = 0; i < 400 && (await probe.exists("{frozen}:bits:0")) === 0; i++) await new Promise((r) => setTimeout(r, 25));
      await probe.quit();
      own.process.kill("SIGSTOP");
      const { code, stderr } = await running;
      expect(code).toBe(1);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(stderr).toMatch(
        new RegExp(
          `^bloomkit: Redis at ${own.url.replace(/[./]/g, "\\$&")} did not answer within 1\\.5 s \\(--redis-timeout\\): the server is stopped, hung or overloaded; ` +
            `the filter "frozen" (holds the first [\\d,]+ lines and )?may hold some of the (first|next) [\\d,]+ lines, which the output, left as it was, lacks: a run again would take them for repeats\n$`,
        ),
      );
      expect(readFileSync(file("frozen-out.txt"), "utf8")).toBe("the old output\n");
      // query too, and opening a filter: the server answers nothing at all now.
      const asked = await cliAsync(["query", "--redis", own.url, "--name", "frozen", "--redis-timeout", "1", "a"], 60_000);
      expect(asked.code).toBe(1);
      expect(asked.stderr).toMatch(/^bloomkit: cannot connect to Redis at [^\n]*: no answer within 10 s\n$|^bloomkit: Redis at [^\n]* did not answer within 1 s \(--redis-timeout\)[^\n]*\n$/);
    } finally {
      own.process.kill("SIGCONT");
      await own.stop();
    }
  });

  it("to standard output, writes every line the filter answered before the next piece goes to Redis, so a run stopped or failing loses none without a word", async () => {
    // Answered lines waited in the output's buffer: Ctrl-C after the first lines of a pipe lost them with no note
    // (exit 130, nothing written), and a run again dropped them as repeats; a timeout said they were "written out".
    const own = await startRedis();
    try {
      const run = (name: string, extra: string[] = []) => {
        const child = spawn(process.execPath, [BIN, "dedup", "-q", "--redis", own.url, "--name", name, "--n", "1000", "--p", "1e-6", ...extra], { stdio: ["pipe", "pipe", "pipe"] });
        const got = { stdout: "", stderr: "" };
        child.stdout.on("data", (d) => (got.stdout += d));
        child.stderr.on("data", (d) => (got.stderr += d));
        const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
        return { child, got, ended };
      };
      /** Waits (up to 10 s) for `ready`. */
      const until = async (ready: () => boolean) => {
        for (let i = 0; i < 400 && !ready(); i++) await new Promise((r) => setTimeout(r, 25));
      };
      const first = ["a", "b", "c"];

      // Stopped by Ctrl-C while it waits for more input: the lines the filter holds are out, and nothing is left to say.
      const stopped = run("stdout-stopped");
      stopped.child.stdin.write(first.join("\n") + "\n");
      await until(() => stopped.got.stdout.length > 0);
      stopped.child.kill("SIGINT");
      expect(await stopped.ended).toEqual({ code: null, signal: "SIGINT" });
      expect(stopped.got).toEqual({ stdout: first.join("\n") + "\n", stderr: "" });

      // A server that stops answering after the first lines: they are out, and the note says so of them alone.
      const frozen = run("stdout-frozen", ["--redis-timeout", "1"]);
      frozen.child.stdin.write(first.join("\n") + "\n");
      await until(() => frozen.got.stdout.length > 0);
      own.process.kill("SIGSTOP");
      frozen.child.stdin.write("d\ne\n");
      const ended = await frozen.ended;
      own.process.kill("SIGCONT");
      expect(ended).toEqual({ code: 1, signal: null });
      expect(frozen.got.stdout).toBe(first.join("\n") + "\n");
      expect(frozen.got.stderr).toMatch(
        /^bloomkit: Redis at [^\n]* did not answer within 1 s \(--redis-timeout\): the server is stopped, hung or overloaded; the filter "stdout-frozen" holds the first 3 lines, written out, and may hold some of the next 2 lines, which were not: a run again would take those for repeats\n$/,
      );
    } finally {
      own.process.kill("SIGCONT");
      await own.stop();
    }
  });

  it("info of a file written from toBloomFilter() says its n is an estimate from the fill, as it says of a merge's", async () => {
    // Redis keeps no count: the copy's n is the fill estimate, which info called "keys added (that set a new bit)".
    const redis = await createClient({ url }).connect();
    const shared = await RedisBloomFilter.create(redis, "info:copy", 1000, 0.01);
    await shared.addMany(Array.from({ length: 500 }, (_, i) => `https://example.com/copy/${i}`));
    const copy = await shared.toBloomFilter();
    writeFileSync(file("copy.bloom"), copy.serialize());
    copy.dispose();
    await shared.drop();
    await redis.quit();
    expect(cli(["info", file("copy.bloom")]).stdout).toMatch(/^n [\d,]+ keys added \(that set a new bit; after a merge, union or intersection, or in a copy of a filter kept in Redis, an estimate from the fill\)$/m);
  });

  it("says in one line that the connection was lost when the server goes away mid-run, and writes no output", async () => {
    const own = await startRedis();
    try {
      const lines = Array.from({ length: 3_000_000 }, (_, i) => `https://lost.example/${i}`);
      writeFileSync(file("long.txt"), lines.join("\n") + "\n");
      writeFileSync(file("lost.txt"), "the old output\n");
      const running = cliAsync(["dedup", file("long.txt"), "-o", file("lost.txt"), "-q", "--redis", own.url, "--name", "lost", "--n", "3M"]);
      // The filter is made, then keys arrive: stop the server under them.
      const probe = await createClient({ url: own.url }).connect();
      for (let i = 0; i < 400 && (await probe.exists("{lost}:bits:0")) === 0; i++) await new Promise((r) => setTimeout(r, 25));
      await probe.quit();
      await own.stop();
      const { code, stderr } = await running;
      expect(code).toBe(1);
      expect(stderr).toMatch(
        new RegExp(`^bloomkit: lost the connection to Redis at ${own.url.replace(/[./]/g, "\\$&")} \\([a-z ]+\\); the filter "lost" (holds the first [\\d,]+ lines and )?may hold some of the (first|next) [\\d,]+ lines, which the output, left as it was, lacks: a run again would take them for repeats\n$`),
      );
      expect(readFileSync(file("lost.txt"), "utf8")).toBe("the old output\n");
    } finally {
      await own.stop();
    }
  });
});
