// The URL files the CLI benchmarks read (bench:cli, bench:threads): a crawl
// log with about 30% repeats, and a second file that shares half its lines
// with it. Written once into bench/.cache/ from fixed seeds.
import { execFileSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync } from "node:fs";
import { progress } from "./report.mjs";
import { rng } from "./keys.mjs";

const cache = new URL("./.cache/", import.meta.url).pathname;
mkdirSync(cache, { recursive: true });

/** The crawl log of `LINES` lines in bench/.cache/, written once: URLs from a fixed seed, each line a repeat of an earlier one with probability 0.3. */
export async function crawlFile(LINES) {
  const input = `${cache}urls-${LINES}.txt`;
  if (existsSync(input)) return input;
  const random = rng(2026);
  const hosts = ["www.example.com", "news.example.org", "shop.example.net", "blog.example.io", "cdn.example.cn"];
  const out = createWriteStream(`${input}.partial`);
  let batch = [];
  for (let i = 0; i < LINES; i++) {
    const id = i > 0 && random() < 0.3 ? Math.floor(random() * i) : i;
    const r = rng(id);
    batch.push(`https://${hosts[id % 5]}/${Math.floor(r() * 1e9).toString(36)}/${id}?ref=${Math.floor(r() * 1e6)}`);
    if (batch.length === 100_000) {
      if (!out.write(batch.join("\n") + "\n")) await new Promise((resolve) => out.once("drain", resolve));
      batch = [];
      progress(`writing ${input}: ${((100 * i) / LINES).toFixed(0)}%`);
    }
  }
  out.write(batch.join("\n") + (batch.length ? "\n" : ""));
  await new Promise((resolve) => out.end(resolve));
  execFileSync("mv", [`${input}.partial`, input]);
  return input;
}

/** The second file of the intersect runs, written once: as many lines, half of them lines of the first file, half new ones. */
export async function crawlFileB(LINES) {
  const path = `${cache}urls-b-${LINES}.txt`;
  if (existsSync(path)) return path;
  const random = rng(2027);
  const hosts = ["www.example.com", "news.example.org", "shop.example.net", "blog.example.io", "cdn.example.cn"];
  const out = createWriteStream(`${path}.partial`);
  let batch = [];
  for (let i = 0; i < LINES; i++) {
    // The same URL as line `id` of the first file (ids below LINES), or a URL the first file never has.
    const id = random() < 0.5 ? Math.floor(random() * LINES) : LINES + i;
    const r = rng(id);
    batch.push(`https://${hosts[id % 5]}/${Math.floor(r() * 1e9).toString(36)}/${id}?ref=${Math.floor(r() * 1e6)}`);
    if (batch.length === 100_000) {
      if (!out.write(batch.join("\n") + "\n")) await new Promise((resolve) => out.once("drain", resolve));
      batch = [];
      progress(`writing ${path}: ${((100 * i) / LINES).toFixed(0)}%`);
    }
  }
  out.write(batch.join("\n") + (batch.length ? "\n" : ""));
  await new Promise((resolve) => out.end(resolve));
  execFileSync("mv", [`${path}.partial`, path]);
  return path;
}
