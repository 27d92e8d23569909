// The README's examples run as written, and their `// value` comments hold.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { WASM_BASE64, WASM_SHARED_BASE64 } from "../bindings/wasm-bytes.generated.js";

const root = new URL("..", import.meta.url);
const readme = readFileSync(new URL("README.md", root), "utf8");
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]);

/**
 * Turns `expr; // value` lines into checks, where the value is true, false, a
 * number, a bigint (`123n`), `Uint8Array [..]`/`Uint32Array [..]`, or a list
 * `key: value, …` of the result's fields (numbers as written: the result's,
 * rounded to as many significant digits, must equal them); and
 * `console.log(a, b); // x y` (numbers, or an object literal) into a check of
 * what it prints. Other comments stay comments.
 */
function withChecks(code: string): string {
  const lines = code.split("\n").map((line) => {
    const logged = /^console\.log\((.+)\);\s*\/\/\s*(\{.*\}|-?[\d.]+(?: -?[\d.]+)*)\s*$/.exec(line);
    if (logged) {
      const [, args, expected] = logged;
      const want = expected.startsWith("{") ? `(${expected})` : `[${expected.split(" ").join(", ")}]`;
      return `check(${JSON.stringify(line.trim())}, ${expected.startsWith("{") ? args : `[${args}]`}, ${want});`;
    }
    const fields = /^(?!\s*(?:const|let|if|import)\b)(.+?);\s*\/\/\s*((?:\w+: -?[\d.]+(?:e-?\d+)?)(?:, \w+: -?[\d.]+(?:e-?\d+)?)*)\s*$/.exec(line);
    if (fields) {
      const [, expression, list] = fields;
      const want = Object.fromEntries(list.split(", ").map((field) => field.split(": ")));
      return `checkFields(${JSON.stringify(line.trim())}, ${expression}, ${JSON.stringify(want)});`;
    }
    const match = /^(?!\s*(?:const|let|if|import)\b)(.+?);\s*\/\/\s*(true|false|-?\d+n|-?[\d.]+(?:e-?\d+)?|Uint(?:8|32)Array \[[\d, ]*\])(?![\w.])/.exec(line);
    if (!match) return line;
    const [, expression, expected] = match;
    if (/^-?\d+n$/.test(expected)) return `check(${JSON.stringify(line.trim())}, String(${expression}) + "n", ${JSON.stringify(expected)});`;
    const typed = /^(Uint(?:8|32)Array) (\[.*\])$/.exec(expected);
    if (typed) return `check(${JSON.stringify(line.trim())}, typed(${expression}), [${JSON.stringify(typed[1])}, ${typed[2]}]);`;
    return `check(${JSON.stringify(line.trim())}, ${expression}, ${expected});`;
  });
  const header = code.includes("from \"bloomkit\"") ? "" : 'import { BloomFilter, optimal, falsePositiveRateFor } from "bloomkit";\n';
  const check =
    `function check(line, got, want) { if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(line + " gave " + JSON.stringify(got)); }\n` +
    `function typed(array) { return [array.constructor.name, Array.from(array)]; }\n` +
    `function checkFields(line, got, want) {\n` +
    `  for (const [key, text] of Object.entries(want)) {\n` +
    `    const digits = text.replace(/^-?0*\\.?0*/, "").replace(/e.*$/, "").replace(".", "").length;\n` +
    `    if (typeof got[key] !== "number" || Number(got[key].toPrecision(Math.max(1, digits))) !== Number(text)) throw new Error(line + " gave " + key + " = " + got[key]);\n` +
    `  }\n` +
    `}\n`;
  return header + check + lines.join("\n");
}

/**
 * Runs an example with TMPDIR at a new directory, so files it writes there
 * (the streaming example's) are removed afterwards; returns their names.
 */
function runExample(script: string): string[] {
  const scratch = mkdtempSync(join(tmpdir(), "bloomkit-readme-"));
  try {
    // os.tmpdir() reads TMPDIR on POSIX, TEMP or TMP on Windows.
    const env = { ...process.env, TMPDIR: scratch, TEMP: scratch, TMP: scratch };
    execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8", stdio: "pipe", env });
    return readdirSync(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

describe("README", () => {
  it("has examples to run, one of them writing a file", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    expect(blocks.some((code) => code.includes("tmpdir()"))).toBe(true);
  });

  it("shows the tables examples/grow-and-fold.mjs prints (it is deterministic: fixed keys and probes)", () => {
    const tables = [...readme.matchAll(/```\n((?:bits {7}fold|keys {6}layers)[\s\S]*?)```/g)].map((match) => match[1]);
    expect(tables).toHaveLength(2);
    const printed = execFileSync(process.execPath, ["examples/grow-and-fold.mjs"], { cwd: root, encoding: "utf8" });
    for (const table of tables) expect(printed).toContain(table);
  });

  it("npm run demo's program de-duplicates its sample as a Set does, give or take the false positives it reports, and says what is wrong with its arguments in one line", () => {
    const demo = (...args: string[]) => spawnSync(process.execPath, ["examples/demo.mjs", ...args], { cwd: root, encoding: "utf8" });
    const ran = demo();
    expect(ran.status, ran.stderr).toBe(0);
    const sample = readFileSync(new URL("examples/urls-sample.txt", root), "utf8").split("\n").filter((line) => line.length > 0);
    const distinct = new Set(sample).size;
    expect(ran.stdout).toContain(`(${distinct.toLocaleString("en-US")} distinct, counted exactly with a Set)`);
    const [, kept, flagged] = /kept +([\d,]+) lines; ([\d,]+) flagged/.exec(ran.stdout)!.map((x) => Number(x.replaceAll(",", "")));
    const [, dropped] = /wrongly dropped +(\d+) distinct/.exec(ran.stdout)!.map(Number);
    expect(kept + flagged).toBe(sample.length);
    expect(kept).toBe(distinct - dropped); // no false negative: every repeat flagged, only false positives lost
    const empty = join(mkdtempSync(join(tmpdir(), "bloomkit-demo-")), "empty.txt");
    writeFileSync(empty, "");
    for (const [args, message] of [
      [["/no/such/urls.txt"], "demo: no such file: /no/such/urls.txt\n"],
      [["examples/urls-sample.txt", "1"], /^demo: falsePositiveRate must be between 0 and 1 \(exclusive\), got 1;.*\n$/],
      [["examples/urls-sample.txt", "abc"], 'demo: p must be a number such as 0.01, got "abc"\n'],
      [["examples/urls-sample.txt", ""], 'demo: p must be a number such as 0.01, got ""\n'],
      [["examples"], "demo: a folder, not a file: examples\n"],
      [[empty], `demo: ${empty} has no lines to de-duplicate\n`],
    ] as const) {
      const failed = demo(...args);
      expect(failed.status, args.join(" ")).toBe(1);
      expect(failed.stderr).toMatch(message);
      expect(failed.stdout).toBe("");
    }
    rmSync(dirname(empty), { recursive: true });
  });

  it.each(blocks.map((code, i) => [i + 1, code]))("example %i runs as written", (_i, code) => {
    const script = withChecks(code as string);
    expect(script).toMatch(/check\(/); // every block asserts something
    const left = runExample(script);
    // The streaming example writes its filter to a file; the others write none.
    expect(left).toEqual((code as string).includes("tmpdir()") ? [expect.stringMatching(/^seen-\d+\.bloom$/)] : []);
  });
});

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

const cli = (args: string[], input?: string) =>
  execFileSync(process.execPath, [new URL("dist/cli/main.js", root).pathname, ...args], { cwd: root, encoding: "utf8", input, stdio: "pipe" });

describe("README statements", () => {
  it("links only to headings that exist", () => {
    const prose = readme.replace(/```[\s\S]*?```/g, "");
    const anchors = new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchor(match[1])));
    const links = [...prose.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]);
    expect(links.length).toBeGreaterThan(10);
    expect(links.filter((link) => !anchors.has(link))).toEqual([]);
  });

  it("shows what console.log prints for a filter", () => {
    const quoted = /`BloomFilter\.create\(1000, 0\.01\)\.add\("x"\)` logs `(BloomFilter \{[^`]*\})`/.exec(readme);
    expect(quoted).not.toBeNull();
    const printed = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", 'import { inspect } from "node:util"; import { BloomFilter } from "bloomkit"; process.stdout.write(inspect(BloomFilter.create(1000, 0.01).add("x")));'],
      { cwd: root, encoding: "utf8" },
    );
    expect(printed).toBe(quoted![1]);
  });

  it("quotes the errors the library throws for the calls it describes", () => {
    const block = /```\n(RangeError: cannot allocate[\s\S]*?)```/.exec(readme)![1].trim().split("\n");
    const script = `
      import { BloomFilter } from "bloomkit";
      const message = (fn) => { try { fn(); } catch (error) { return error.constructor.name + ": " + error.message; } return "no error"; };
      const keys = Array(40003).fill("a"); keys[40002] = 7;
      console.log(JSON.stringify([
        message(() => BloomFilter.create(1e12, 0.01)),
        message(() => BloomFilter.create(1000, 1e-300)),
        message(() => BloomFilter.create(1000, 0.01).addMany(keys)),
      ]));`;
    const thrown: string[] = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" }));
    // The first line depends on the machine's free memory; its shape is checked.
    expect(block[0]).toMatch(/^RangeError: cannot allocate [\d.]+ GiB for a Bloom filter of \d+ bits \([\d.]+ GiB\): only [\d.]+ GiB of memory is free on this machine$/);
    expect(block.slice(1)).toEqual(thrown);
  });

  it("gives the size of the wasm the module compiles, and of the shared build", () => {
    const sizes = /compiles its ([\d.]+) KiB of wasm[\s\S]*?another ([\d.]+) KiB/.exec(readme);
    expect(sizes).not.toBeNull();
    const kib = (base64: string) => Math.round(Buffer.from(base64, "base64").length / 1024);
    expect([Number(sizes![1]), Number(sizes![2])]).toEqual([kib(WASM_BASE64), kib(WASM_SHARED_BASE64)]);
  });

  it("names every public member of the filter classes and every value the entries export", () => {
    // What the README names in code: identifiers in `…` spans and code blocks.
    const named = new Set([...readme.matchAll(/`+([^`]+)`+/g)].flatMap((match) => match[1].match(/[A-Za-z_]\w*/g) ?? []));
    const declared = (file: string) => readFileSync(new URL(`dist/${file}.d.ts`, root), "utf8");
    const classes = { BloomFilter: "bloom-filter", ScalableBloomFilter: "scalable-bloom-filter", CountingBloomFilter: "counting-bloom-filter", CuckooFilter: "cuckoo-filter", SplitBlockBloomFilter: "split-block-bloom-filter", BinaryFuseFilter: "binary-fuse-filter", RedisBloomFilter: "redis/bloom" };
    const unnamed: string[] = [];
    for (const [name, file] of Object.entries(classes)) {
      const body = declared(file).split(`export declare class ${name} `)[1].split("\n}\n")[0];
      const members = new Set([...body.matchAll(/^ {4}(?:static |get |readonly )*([A-Za-z]\w*)[(:<?]/gm)].map((match) => match[1]));
      expect(members.size, name).toBeGreaterThan(8);
      for (const member of members) if (member !== "constructor" && !named.has(member)) unnamed.push(`${name}.${member}`);
    }
    const entries = declared("index") + declared("redis/index");
    const values = [...entries.matchAll(/export \{([^}]*)\}/g)].flatMap((match) => match[1].split(",").map((part) => part.trim())).filter((part) => part && !part.startsWith("type "));
    expect(values).toContain("BloomFilter");
    for (const value of values) if (!named.has(value)) unnamed.push(value);
    expect(unnamed).toEqual([]);
  });

  it("shows the output of the calc command it runs", () => {
    const shown = /```\n\$ bloomkit (calc [^\n]*)\n([\s\S]*?)```/.exec(readme)!;
    expect(cli(shown[1].split(" ")).trim()).toBe(shown[2].trim());
  });

  it("uses only commands and options that exist in the command line's examples", () => {
    const block = /```sh\n(bloomkit dedup[\s\S]*?)```/.exec(readme)![1];
    const commands = block
      .split("\n")
      .map((line) => line.replace(/#.*$/, ""))
      .flatMap((line) => [...line.matchAll(/bloomkit (\w+)([^|]*)/g)])
      .map((match) => ({ command: match[1], flags: [...match[2].matchAll(/(?<=\s)(--?[a-z][\w-]*)/g)].map((flag) => flag[1]) }));
    expect(commands.length).toBeGreaterThanOrEqual(9);
    for (const { command, flags } of commands) {
      const help = cli([command, "--help"]);
      for (const flag of flags) expect(help, `bloomkit ${command} ${flag}`).toContain(flag);
    }
  });

  it("names every dependency of package.json where it says what each is for", () => {
    const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
    const paragraph = /\nDependencies:[\s\S]*?(?=\n\n|(?![\s\S]))/.exec(readme)![0];
    const named = [...Object.keys(pkg.devDependencies ?? {}), ...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
    expect(named.filter((name) => !paragraph.includes(`\`${name}\``))).toEqual([]);
    for (const name of [...paragraph.matchAll(/`([@\w][\w./-]*)`/g)].map((match) => match[1]).filter((name) => /^[@a-z]/.test(name) && !name.includes("/redis"))) {
      expect(named, `the README names ${name}`).toContain(name);
    }
  });
});
