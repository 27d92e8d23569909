// `bloomkit build --type fuse8|fuse16`, and query/info on its file: the real binary in a child process.
import { spawnSync } from "node:child_process";
import { constants as bufferConstants } from "node:buffer";
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BinaryFuseFilter, deserialize } from "../bindings/index.js";
import { urls } from "./helpers.js";

const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "bloomkit-cli-fuse-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

function run(args: string[], input?: string | Buffer) {
  const result = spawnSync(process.execPath, [BIN, ...args], { input, maxBuffer: 1 << 30 });
  return { code: result.status, stdout: result.stdout.toString("utf8"), stderr: result.stderr.toString("utf8") };
}

describe("bloomkit build --type fuse8|fuse16", () => {
  // Repeats, CRLF, an empty line, Chinese, no final newline.
  const keys = [...urls(30_000, "cli-fuse", 201), "", "布隆过滤器"];
  const lines = [...keys, ...keys.slice(0, 5_000)].map((key, i) => (i % 7 === 0 ? `${key}\r` : key));
  writeFileSync(file("keys.txt"), lines.join("\n"));
  const absent = urls(20_000, "cli-fuse-absent", 202);

  it.each([8, 16] as const)("fuse%i: the file holds the filter of exactly the input's distinct lines; query and info read it", (bits) => {
    const out = file(`keys.fuse${bits}`);
    const built = run(["build", file("keys.txt"), "-o", out, "--type", `fuse${bits}`]);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stderr).toContain(`${out}: type BinaryFuseFilter, 35,002 lines read`);
    const filter = deserialize(readFileSync(out));
    expect(filter).toBeInstanceOf(BinaryFuseFilter);
    // The same record the library builds from the distinct keys.
    expect(filter.serialize()).toEqual(BinaryFuseFilter.build(keys, { fingerprintBits: bits }).serialize());

    const queried = run(["query", out, keys[0], keys[29_999], "布隆过滤器", "surely-not-a-key"]);
    expect(queried.stdout).toBe(`${keys[0]}\tprobably present\n${keys[29_999]}\tprobably present\n布隆过滤器\tprobably present\nsurely-not-a-key\tdefinitely absent\n`);
    const piped = run(["query", out, "-"], [...keys.slice(100, 3_100), ...absent].join("\r\n") + "\n");
    const answers = piped.stdout.split("\n").slice(0, -1).map((line) => line.split("\t")[1]);
    expect(answers.slice(0, 3_000).every((answer) => answer === "probably present")).toBe(true);
    const falsePositives = answers.slice(3_000).filter((answer) => answer === "probably present").length;
    expect(falsePositives).toBeLessThanOrEqual(Math.ceil(20_000 * 2 ** -bits * 2) + 2);

    const info = run(["info", out]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(new RegExp(`^type BinaryFuseFilter\\nn 30,002 distinct keys .*\\nm \\d+\\.\\d\\d bits per key, ${bits}-bit fingerprints\\nFPR ${bits === 8 ? "0.391%" : "0.00153%"} \\(2\\^-${bits}\\)\\n$`));
  });

  it("reads standard input, and rejects --n and --p, which do not apply", () => {
    const piped = run(["build", "-", "-o", file("stdin.fuse"), "--type", "fuse8"], "a\nb\nc\n");
    expect(piped.code, piped.stderr).toBe(0);
    expect(run(["query", file("stdin.fuse"), "a", "c"]).stdout).toBe("a\tprobably present\nc\tprobably present\n");
    for (const option of ["--n", "--p"]) {
      const result = run(["build", file("keys.txt"), "-o", file("x.fuse"), "--type", "fuse16", option, "0.1"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`${option} does not apply to --type fuse16`));
    }
  });

  it("info of a filter of one key says key, not keys", () => {
    writeFileSync(file("one.txt"), "only\n");
    expect(run(["build", file("one.txt"), "-o", file("one.fuse"), "--type", "fuse16"]).code).toBe(0);
    expect(run(["info", file("one.fuse")]).stdout).toMatch(/^type BinaryFuseFilter\nn 1 distinct key \(static/);
  });

  it("an empty input gives an empty filter that answers absent", () => {
    writeFileSync(file("empty.txt"), "");
    expect(run(["build", file("empty.txt"), "-o", file("empty.fuse"), "--type", "fuse8"]).code).toBe(0);
    expect(run(["query", file("empty.fuse"), "anything"]).stdout).toBe("anything\tdefinitely absent\n");
    // m is what the file holds, as for every type: the empty layout's 12 fingerprints, all 0.
    expect(deserialize(readFileSync(file("empty.fuse"))).bits).toBe(96);
    expect(run(["info", file("empty.fuse")]).stdout).toBe("type BinaryFuseFilter\nn 0 distinct keys (static: built once, cannot be added to)\nm 96 bits, 8-bit fingerprints, all 0\nFPR 0 (empty: every key is absent)\n");
  });

  // Node 20 holds at most 4 GiB in one buffer, and Buffer.concat said so in its own words ("The value of "size" is out of range").
  it.skipIf(bufferConstants.MAX_LENGTH >= 5 * 2 ** 30)("an input larger than one buffer of this Node is refused before it is read", () => {
    const big = file("big.txt");
    truncateSync((writeFileSync(big, ""), big), 5 * 2 ** 30); // sparse: takes no disk
    const result = run(["build", big, "-o", file("big.fuse"), "--type", "fuse8"]);
    rmSync(big);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`bloomkit: ${big} is 5.00 GiB; a fuse build holds its whole input in one buffer, and this Node (${process.version}) holds at most 4.00 GiB in one (Node 22 and later hold more)\n`);
    expect(existsSync(file("big.fuse"))).toBe(false);
  });

  it("a damaged file is a one-line error", () => {
    writeFileSync(file("small.fuse"), BinaryFuseFilter.build(["x", "y", "z"]).serialize());
    const bytes = readFileSync(file("small.fuse"));
    bytes[bytes.length - 20] ^= 1;
    writeFileSync(file("damaged.fuse"), bytes);
    const result = run(["info", file("damaged.fuse")]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/damaged.fuse cannot be read as a bloomkit filter: corrupted: the payload checksum does not match/);
  });
});
