// The README's examples run as written, and their `// value` comments hold.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

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

  it.each(blocks.map((code, i) => [i + 1, code]))("example %i runs as written", (_i, code) => {
    const script = withChecks(code as string);
    expect(script).toMatch(/check\(/); // every block asserts something
    const left = runExample(script);
    // The streaming example writes its filter to a file; the others write none.
    expect(left).toEqual((code as string).includes("tmpdir()") ? [expect.stringMatching(/^seen-\d+\.bloom$/)] : []);
  });
});
