// The URL files the CLI benchmarks read (bench:cli, bench:threads): a crawl
// log with 23% repeats, and a second file that shares half its lines
// with it. Written once into bench/.cache/ from fixed seeds.
import { execFileSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync } from "node:fs";
import { progress } from "./report.mjs";
import { rng } from "./keys.mjs";

const cache = new URL("./.cache/", import.meta.url).pathname;
mkdirSync(cache, { recursive: true });

const hosts = ["www.example.com", "news.example.org", "shop.example.net", "blog.example.io", "cdn.example.cn"];

/** The URL of crawl id `id`: the same in both files. */
function urlOf(id) {
  const r = rng(id);
  return `https://${hosts[id % 5]}/${Math.floor(r() * 1e9).toString(36)}/${id}?ref=${Math.floor(r() * 1e6)}`;
}

/** Writes `lines` URLs to `path` once (through a partial file renamed at the end), line i being the URL of id pick(random, i). */
async function writeOnce(path, lines, seed, pick) {
  if (existsSync(path)) return path;
  const random = rng(seed);
  const out = createWriteStream(`${path}.partial`);
  let batch = [];
  for (let i = 0; i < lines; i++) {
    batch.push(urlOf(pick(random, i)));
    if (batch.length === 100_000) {
      if (!out.write(batch.join("\n") + "\n")) await new Promise((resolve) => out.once("drain", resolve));
      batch = [];
      progress(`writing ${path}: ${((100 * i) / lines).toFixed(0)}%`);
    }
  }
  out.write(batch.join("\n") + (batch.length ? "\n" : ""));
  await new Promise((resolve) => out.end(resolve));
  execFileSync("mv", [`${path}.partial`, path]);
  return path;
}

/**
 * The crawl log of `lines` lines: line i holds URL number i, or with
 * probability 0.3 the number of an earlier line j. That is a repeat only when
 * line j held its own number, so 23% of the lines are repeats (2,307,972 of
 * 10,000,000; 7,692,028 distinct).
 */
export function crawlFile(lines) {
  return writeOnce(`${cache}urls-${lines}.txt`, lines, 2026, (random, i) => (i > 0 && random() < 0.3 ? Math.floor(random() * i) : i));
}

/** The second file of the intersect runs: as many lines, half of them lines of the first file (ids below `lines`), half URLs it never has. */
export function crawlFileB(lines) {
  return writeOnce(`${cache}urls-b-${lines}.txt`, lines, 2027, (random, i) => (random() < 0.5 ? Math.floor(random() * lines) : lines + i));
}
