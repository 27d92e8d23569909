// `bloomkit dedup` reports how many distinct lines its filter wrongly dropped
// as repeats. Driven as a user runs it, on files where the truth is known,
// from a filter that barely fills to one that saturates: the reported number
// must be the measured loss within a stated tolerance.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rng } from "./helpers.js";

const BIN = new URL("../dist/cli/main.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "bloomkit-dedup-loss-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 400,000 crawler-like lines, a fifth of them repeats of earlier ones; returns the distinct count. */
function crawl(path: string): number {
  const random = rng(15);
  const lines: string[] = [];
  let distinct = 0;
  for (let i = 0; i < 400_000; i++) {
    const id = i > 0 && random() < 0.2 ? Math.floor(random() * distinct) : distinct++;
    lines.push(`https://example.com/page/${id}?x=${id % 7}`);
  }
  writeFileSync(path, lines.join("\n") + "\n");
  return distinct;
}

const input = join(dir, "crawl.txt");
const distinct = crawl(input);

/** Runs dedup; the lines kept and the loss it reported (NaN when it reports none). */
function dedup(args: string[]): { kept: number; reported: number; stderr: string } {
  const output = join(dir, "out.txt");
  const result = spawnSync(process.execPath, [BIN, "dedup", input, "-o", output, "-q", ...args]);
  const stderr = result.stderr.toString();
  expect(result.status, stderr).toBe(0);
  const kept = readFileSync(output, "utf8").split("\n").length - 1;
  const reported = Number(/wrongly dropped as repeats \(false positives\):\D*([\d.,]+)/.exec(stderr)?.[1]?.replace(/,/g, ""));
  return { kept, reported, stderr };
}

describe("dedup's reported loss is the loss measured", () => {
  // Tolerance: 3% of the loss, plus 4 standard deviations of a Poisson count of that size, plus 5 lines.
  const tolerance = (lost: number) => 0.03 * lost + 4 * Math.sqrt(lost) + 5;

  it.each([
    ["--memory 64KB (split-block, filled to about 95%)", ["--memory", "64KB"]],
    ["--memory 64KB --type bloom", ["--memory", "64KB", "--type", "bloom"]],
    ["--memory 1MB (hardly any loss)", ["--memory", "1MB"]],
    ["--memory 256KB --type bloom", ["--memory", "256KB", "--type", "bloom"]],
  ])("%s", (_, args) => {
    const { kept, reported, stderr } = dedup(args);
    const lost = distinct - kept;
    expect(Number.isFinite(reported), stderr).toBe(true);
    expect(Math.abs(reported - lost), `reported ${reported}, lost ${lost}: ${stderr}`).toBeLessThanOrEqual(tolerance(lost));
  });

  it.each([
    ["--memory 32 (one split-block block)", ["--memory", "32"]],
    ["--memory 32 --type bloom", ["--memory", "32", "--type", "bloom"]],
  ])("%s: a saturated filter says so, and its bound holds the loss", (_, args) => {
    const { kept, reported, stderr } = dedup(args);
    const lost = distinct - kept;
    // Every bit set: the filter cannot tell how many distinct lines it saw; the report must say so and not understate the loss.
    expect(stderr).toMatch(/saturated/);
    expect(reported, stderr).toBeGreaterThanOrEqual(lost);
  });
});
