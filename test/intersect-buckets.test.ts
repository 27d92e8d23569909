// `bloomkit intersect --exact` holds one bucket of A at a time in a Set; a
// bucket over the memory's budget is split again. Run in this process, so
// that every bucket it reads can be checked against the budget (a quarter of
// --memory in bytes, and the lines a Set in half of it holds), with the 25%
// over it that a split leaves alone.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bucketBudget, exact, linesFitting, SPLIT_TOLERANCE, type BucketRead } from "../cli/intersect.js";
import { closeInput, openInput } from "../cli/input.js";
import { Output } from "../cli/io.js";
import { rng } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "bloomkit-buckets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

/** Runs --exact on files of lines `a` and `b` under `memory` bytes; returns the lines written, the summary and every bucket read. */
async function intersectExact(a: string[], b: string[], memory: number) {
  writeFileSync(file("a.txt"), a.join("\n") + "\n");
  writeFileSync(file("b.txt"), b.join("\n") + "\n");
  const inputs = [await openInput(file("a.txt")), await openInput(file("b.txt"))];
  const buckets = mkdtempSync(join(dir, "scratch-"));
  const out = new Output(file("out.txt"));
  const read: BucketRead[] = [];
  const summary = await exact(inputs[0], inputs[1], memory, { dir: buckets, remove: () => rmSync(buckets, { recursive: true, force: true }) }, out, true, (bucket) => read.push(bucket));
  inputs.forEach(closeInput);
  await out.close();
  return { written: readFileSync(file("out.txt"), "utf8").split("\n").slice(0, -1), summary, read };
}

describe("intersect --exact: every bucket it reads fits the memory", () => {
  const url = (random: () => number) => (i: number) => `https://example.com/a/${i}/page?x=${Math.floor(random() * 1e9)}`;
  const short = () => (i: number) => i.toString(36);
  it.each([
    // 512 buckets from the start (A's size over a quarter of the memory is more), each several times over: split once or more.
    ["URLs over 512 buckets' worth", url, 40_000, 16 * 1024, 7],
    // Short lines, where the lines a Set holds bind before the bytes do.
    ["short lines, bound by the lines a Set holds", short, 150_000, 64 * 1024, 11],
  ])("%s", async (_name, lineOf, lines, memory, seed) => {
    const random = rng(seed);
    const a = Array.from({ length: lines }, (_, i) => lineOf(random)(i));
    const b = Array.from({ length: lines / 4 }, (_, i) => (i % 3 === 0 ? a[Math.floor(random() * a.length)] : `other-${i}`));
    const { written, summary, read } = await intersectExact(a, b, memory);

    const inA = new Set(a);
    const expected = [...new Set(b.filter((line) => inA.has(line)))];
    expect(written.sort()).toEqual(expected.sort());
    expect(summary).toMatch(/splits? of a bucket too large for the memory$/);
    // Every line of A was read once, in one bucket, and some buckets come of a split.
    expect(read.reduce((sum, bucket) => sum + bucket.lines, 0)).toBe(lines);
    expect(read.some((bucket) => bucket.depth > 0)).toBe(true);
    const budget = bucketBudget(memory);
    for (const bucket of read) {
      expect(bucket.bytes, `a bucket of ${bucket.lines} lines`).toBeLessThanOrEqual(SPLIT_TOLERANCE * budget.bytes);
      expect(bucket.lines, `a bucket of ${bucket.bytes} bytes`).toBeLessThanOrEqual(SPLIT_TOLERANCE * linesFitting(budget, bucket.bytes / Math.max(1, bucket.lines)));
    }
  }, 60_000);
});
