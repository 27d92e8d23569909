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
 * Turns `expr; // value` lines whose value is true, false, a number or
 * `Uint8Array [..]` into checks; other comments stay comments.
 */
function withChecks(code: string): string {
  const lines = code.split("\n").map((line) => {
    const match = /^(?!\s*(?:const|let|if|import)\b)(.+?);\s*\/\/\s*(true|false|-?[\d.]+(?:e-?\d+)?|Uint8Array \[[\d, ]*\])\b(?!\s*\w)/.exec(line);
    if (!match) return line;
    const [, expression, expected] = match;
    const value = expected.startsWith("Uint8Array") ? `Array.from(${expression})` : expression;
    const want = expected.startsWith("Uint8Array") ? expected.slice("Uint8Array ".length) : expected;
    return `check(${JSON.stringify(line.trim())}, ${value}, ${want});`;
  });
  const header = code.includes("from \"bloomkit\"") ? "" : 'import { BloomFilter, optimal, falsePositiveRateFor } from "bloomkit";\n';
  const check = `function check(line, got, want) { if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(line + " gave " + JSON.stringify(got)); }\n`;
  return header + check + lines.join("\n");
}

/**
 * Runs an example with TMPDIR at a new directory, so files it writes there
 * (the streaming example's) are removed afterwards; returns their names.
 */
function runExample(script: string): string[] {
  const scratch = mkdtempSync(join(tmpdir(), "bloomkit-readme-"));
  try {
    execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8", stdio: "pipe", env: { ...process.env, TMPDIR: scratch } });
    return readdirSync(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

describe("README", () => {
  it("has examples to run", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });

  it.each(blocks.map((code, i) => [i + 1, code]))("example %i runs as written", (_i, code) => {
    const script = withChecks(code as string);
    expect(script).toMatch(/check\(/); // every block asserts something
    runExample(script);
  });

  it("runs the example that writes a file in a directory removed afterwards", () => {
    const code = blocks.find((block) => block.includes("tmpdir()"));
    expect(code).toBeDefined();
    expect(runExample(withChecks(code as string))).toEqual([expect.stringMatching(/^seen-\d+\.bloom$/)]);
  });
});
