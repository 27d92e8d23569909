// `bloomkit query f.bloom KEY …`: a key given as an argument is asked as the
// bytes it was typed in, as the same key on standard input is; a file name
// typed in bytes that are not UTF-8 is refused, not taken for another name.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "bloomkit-query-keys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

/** Runs `bloomkit query FILTER` with arguments given as printf formats, so that they can hold any byte (Node's own arguments are UTF-8). */
function queryWith(filter: string, formats: string[]): { code: number | null; stdout: Buffer; stderr: string } {
  const args = formats.map((format) => `"$(printf '${format}')"`).join(" ");
  const result = spawnSync("sh", ["-c", `exec "$0" "$1" query "$2" ${args}`, process.execPath, BIN, filter]);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.toString("utf8") };
}

describe("query's key arguments", () => {
  // Latin-1 and GBK keys, as an old crawl log holds them, beside UTF-8 ones.
  const keys = [Buffer.from("caf\xe9", "latin1"), Buffer.from([0xb1, 0xb1, 0xbe, 0xa9]), Buffer.from("北京"), Buffer.from("plain")];
  const lines = file("keys.txt");
  writeFileSync(lines, Buffer.concat(keys.flatMap((key) => [key, Buffer.from("\n")])));
  const filter = file("keys.bloom");
  expect(spawnSync(process.execPath, [BIN, "build", lines, "-q", "-o", filter]).status).toBe(0);

  it("asks a key that is not UTF-8 as its bytes, prints those bytes, and answers as for the same line on standard input", () => {
    const formats = ["caf\\351", "\\261\\261\\276\\251", "北京", "plain", "caf\\352"];
    const { code, stdout, stderr } = queryWith(filter, formats);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    // "caf\xe9" was read as "caf\uFFFD" and answered "definitely absent": a false negative, which a filter never gives.
    const fromStdin = spawnSync(process.execPath, [BIN, "query", filter, "-"], { input: Buffer.concat([...keys, Buffer.from("caf\xea", "latin1")].flatMap((key) => [key, Buffer.from("\n")])) });
    expect(stdout.equals(fromStdin.stdout)).toBe(true);
    expect(stdout.toString("latin1").split("\n").slice(0, 4).every((line) => line.endsWith("\tprobably present"))).toBe(true);
  });
});

describe("query's output of a key argument holding a control character", () => {
  const lines = file("plain.txt");
  writeFileSync(lines, "plain\n");
  const filter = file("plain.bloom");
  expect(spawnSync(process.execPath, [BIN, "build", lines, "-q", "-o", filter]).status).toBe(0);

  it("prints one line per key: a newline, carriage return or escape in the key is written as \\n, \\r or \\xHH (as messages print names), a tab and other bytes as they are", () => {
    // A key made to look like an answer, with a line of its own after it.
    const forged = "absent\\tprobably present\\nnext";
    const { code, stdout, stderr } = queryWith(filter, [forged, "a\\rb", "clear\\033[2J", "caf\\351\\nx", "tab\\tkey", "plain"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const printed = stdout.toString("latin1").split("\n");
    expect(printed.pop()).toBe("");
    // The key is what comes before the last tab, its answer what follows it.
    expect(printed.map((line) => line.slice(0, line.lastIndexOf("\t")))).toEqual(["absent\tprobably present\\nnext", "a\\rb", "clear\\x1b[2J", "caf\xe9\\nx", "tab\tkey", "plain"]);
    expect(printed.map((line) => line.slice(line.lastIndexOf("\t") + 1)).every((answer) => answer === "probably present" || answer === "definitely absent")).toBe(true);
    expect(printed[5]).toBe("plain\tprobably present");
  });
});

describe("query's key arguments that are negative numbers", () => {
  const lines = file("numbers.txt");
  writeFileSync(lines, "-1\n-42\n");
  const filter = file("numbers.bloom");
  expect(spawnSync(process.execPath, [BIN, "build", lines, "-q", "-o", filter]).status).toBe(0);

  it("asks -1 as it asks -42: a key, not an unknown option", () => {
    // -1 was refused as "unknown option -1" (exit 2), while -42 and -1.5 were asked.
    const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, "query", filter, "-1", "-42", "-7"], { encoding: "utf8" });
    expect(stderr).toBe("");
    expect(status).toBe(0);
    const printed = stdout.split("\n");
    expect(printed.slice(0, 2)).toEqual(["-1\tprobably present", "-42\tprobably present"]);
    expect(printed[2]).toMatch(/^-7\t(probably present|definitely absent)$/);
  });
});

describe("query's key arguments that start with -", () => {
  const lines = file("dashed.txt");
  writeFileSync(lines, "-foo\n--bar\n-q\n");
  const filter = file("dashed.bloom");
  expect(spawnSync(process.execPath, [BIN, "build", lines, "-q", "-o", filter]).status).toBe(0);
  const query = (...args: string[]) => spawnSync(process.execPath, [BIN, "query", ...args], { encoding: "utf8" });

  it.each([
    ["-foo", 'unknown option -foo; a key that starts with "-" goes after --: bloomkit query f.bloom -- -foo'],
    ["--bar", 'unknown option --bar; a key that starts with "-" goes after --: bloomkit query f.bloom -- --bar'],
    ["-quiet", 'unknown option -quiet; did you mean --quiet? A key that starts with "-" goes after --: bloomkit query f.bloom -- -quiet'],
  ])("refuses %s as an unknown option and says where such a key goes, on one line", (key, message) => {
    // It said only "unknown option -foo": nothing told the user how to ask about such a key.
    expect(query(filter, key)).toMatchObject({ status: 2, stdout: "", stderr: `bloomkit: ${message} (see bloomkit query --help)\n` });
  });

  it("asks such keys after --, as the message says", () => {
    expect(query(filter, "--", "-foo", "--bar", "-q")).toMatchObject({ status: 0, stderr: "", stdout: "-foo\tprobably present\n--bar\tprobably present\n-q\tprobably present\n" });
  });

  it("query --help says so", () => {
    expect(query("--help").stdout).toContain('a key that starts with "-" goes after --');
  });

  it("other commands' unknown options say nothing of keys", () => {
    expect(spawnSync(process.execPath, [BIN, "info", "-foo"], { encoding: "utf8" }).stderr).toBe("bloomkit: unknown option -foo (see bloomkit info --help)\n");
  });
});

describe("a file name typed in bytes that are not UTF-8", () => {
  // Node reads "caf\xe9.txt" as "caf\uFFFD.txt": another name, which may be another file.
  const latin1 = (name: string) => Buffer.concat([Buffer.from(dir + "/"), Buffer.from(name, "latin1")]);
  writeFileSync(latin1("caf\xe9.txt"), "a\nb\n");
  writeFileSync(file("caf\uFFFD.txt"), "other\n");
  writeFileSync(file("out\uFFFD.bloom"), "kept");
  writeFileSync(file("in.txt"), "a\n");

  /** bloomkit run in the test's folder, an argument with a backslash given as a printf format (any other, an option among them, as it is). */
  function bloomkit(formats: string[]) {
    const args = formats.map((format) => (format.includes("\\") ? `"$(printf '${format}')"` : `'${format}'`)).join(" ");
    const result = spawnSync("sh", ["-c", `cd "$2" && exec "$0" "$1" ${args}`, process.execPath, BIN, dir], { encoding: "utf8" });
    return { code: result.status, stderr: result.stderr };
  }

  it("as an input is refused, naming its bytes, and the file named with U+FFFD in their place is not read", () => {
    // It read caf\uFFFD.txt ("1 line read") when there was one, and said "no such file" of caf\xe9.txt when not.
    const { code, stderr } = bloomkit(["build", "caf\\351.txt", "-o", "x.bloom"]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      "bloomkit: cannot read caf\\xe9.txt: its name is not UTF-8, and Node reads the command line as UTF-8 (it would read caf\uFFFD.txt); rename it, or give it as standard input (- < FILE)\n",
    );
    expect(existsSync(file("x.bloom"))).toBe(false);
  });

  it("as an output is refused before anything is read, and the file named with U+FFFD in their place is left as it was", () => {
    // It wrote out\uFFFD.bloom, replacing it.
    const { code, stderr } = bloomkit(["build", "in.txt", "-o", "out\\351.bloom"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^bloomkit: cannot write out\\xe9\.bloom: its name is not UTF-8, .*\(-o - > FILE\)\n$/);
    // Given as --output=NAME too (its dashes in octal: printf takes a format starting with - for an option).
    expect(bloomkit(["build", "in.txt", "\\055\\055output=out\\351.bloom"]).stderr).toMatch(/^bloomkit: cannot write out\\xe9\.bloom: its name is not UTF-8, /);
    expect(readFileSync(file("out\uFFFD.bloom"), "utf8")).toBe("kept");
    expect(existsSync(latin1("out\xe9.bloom"))).toBe(false);
  });

  it("as intersect's --tmp folder is refused, and no bucket files go to the folder named with U+FFFD in their place", () => {
    mkdirSync(latin1("tmp\xe9"));
    mkdirSync(file("tmp\uFFFD"));
    const { code, stderr } = bloomkit(["intersect", "in.txt", "in.txt", "--exact", "--tmp", "tmp\\351"]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      "bloomkit: cannot write in tmp\\xe9: its name is not UTF-8, and Node reads the command line as UTF-8 (it would write in tmp\uFFFD); give a folder whose name is UTF-8\n",
    );
    expect(readdirSync(file("tmp\uFFFD"))).toEqual([]);
  });
});
