// Writes examples/urls-sample.txt: 10,000 crawler-style URLs, about a quarter
// of them repeats of earlier ones, from a fixed seed (run once; the file is committed).
import { writeFileSync } from "node:fs";
import { rng } from "../bench/keys.mjs";

const random = rng(20261121);
const pick = (list) => list[Math.floor(random() * list.length)];

const hosts = ["www.example.com", "news.example.org", "blog.example.net", "shop.example.cn", "wiki.example.io", "例子.中国"];
const sections = ["article", "item", "tag", "user", "search", "doc", "新闻", "category"];
const words = ["bloom", "filter", "hash", "crawler", "url", "dedup", "布隆过滤器", "数据", "wasm", "cache"];

const unique = [];
const lines = [];
while (lines.length < 10_000) {
  if (unique.length > 100 && random() < 0.25) {
    lines.push(pick(unique)); // a repeat, as a crawler meets links again
    continue;
  }
  const path = `/${pick(sections)}/${Math.floor(random() * 1e6)}/${pick(words)}-${pick(words)}`;
  const query = random() < 0.4 ? `?page=${1 + Math.floor(random() * 50)}&ref=${pick(words)}` : "";
  const url = `${random() < 0.8 ? "https" : "http"}://${pick(hosts)}${path}${query}`;
  unique.push(url);
  lines.push(url);
}
writeFileSync(new URL("../examples/urls-sample.txt", import.meta.url), lines.join("\n") + "\n");
console.log(`wrote ${lines.length} lines, ${new Set(lines).size} unique`);
