// `node bench/ab.mjs <old dist> <new dist> [bloom|counting|cuckoo]`: two builds of
// bloomkit (each a dist/ folder, e.g. of a `git worktree` at another commit,
// built) loaded in one process and timed in turn, 9 rounds alternating which
// goes first; prints the median ns/key of each row and new/old. What
// bench/CHECKS.md quotes for a change to a kernel, where a full run
// cannot tell a few percent from the hour-to-hour drift of this machine.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [oldDist, newDist, only] = process.argv.slice(2);
if (!oldDist || !newDist) {
  console.error("usage: node bench/ab.mjs <old dist> <new dist> [bloom|counting|cuckoo]");
  process.exit(2);
}
const load = (dist) => import(pathToFileURL(resolve(dist, "index.js")).href);
const builds = { old: await load(oldDist), new: await load(newDist) };
const N = 1_000_000;
const keys = Array.from({ length: N }, (_, i) => `https://www.example.com/path/${i}/page-${(i * 2654435761) >>> 0}.html`);
const ints = Uint32Array.from({ length: N }, (_, i) => Math.imul(i, 2654435761) >>> 0);
const aints = Uint32Array.from({ length: N }, (_, i) => (Math.imul(i, 2246822519) ^ 0x5bd1e995) >>> 0);
const time = (f) => { const t = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - t) / N; };
const rows = {};
const rec = (b, name, v) => ((rows[name] ??= { old: [], new: [] })[b]).push(v);

for (let r = 0; r < 9; r++) for (const b of r % 2 ? ["old", "new"] : ["new", "old"]) {
  const { BloomFilter, CountingBloomFilter, CuckooFilter } = builds[b];
  if (!only || only === "bloom") {
    const bi = BloomFilter.create(N, 0.01);
    rec(b, "bloom addInts", time(() => bi.addInts(ints)));
    rec(b, "bloom hasInts members", time(() => bi.hasInts(ints)));
    rec(b, "bloom hasInts absent", time(() => bi.hasInts(aints)));
    bi.dispose();
    const bs = BloomFilter.create(N, 0.01);
    rec(b, "bloom addMany", time(() => bs.addMany(keys)));
    rec(b, "bloom hasMany", time(() => bs.hasMany(keys)));
    bs.dispose();
  }
  if (!only || only === "counting") {
    const c = CountingBloomFilter.create(N, 0.01);
    rec(b, "counting addInts", time(() => c.addInts(ints)));
    rec(b, "counting hasInts absent", time(() => c.hasInts(aints)));
    rec(b, "counting removeInts", time(() => c.removeInts(ints)));
    c.dispose();
  }
  if (only === "cuckoo") {
    // Not in the default set: the cuckoo filter's rows, one key per call among them, for a change to its bindings.
    const ci = CuckooFilter.create(N, 0.01);
    rec(b, "cuckoo addInts", time(() => ci.addInts(ints)));
    rec(b, "cuckoo hasInts members", time(() => ci.hasInts(ints)));
    rec(b, "cuckoo hasInts absent", time(() => ci.hasInts(aints)));
    ci.dispose();
    const cs = CuckooFilter.create(N, 0.01);
    rec(b, "cuckoo add", time(() => { for (const key of keys) cs.add(key); }));
    rec(b, "cuckoo has", time(() => { for (const key of keys) cs.has(key); }));
    cs.dispose();
    const cm = CuckooFilter.create(N, 0.01);
    rec(b, "cuckoo addMany", time(() => cm.addMany(keys)));
    rec(b, "cuckoo hasMany", time(() => cm.hasMany(keys)));
    cm.dispose();
  }
}
const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
for (const [k, v] of Object.entries(rows)) console.log(k.padEnd(26), "old", med(v.old).toFixed(1).padStart(6), "new", med(v.new).toFixed(1).padStart(6), "ratio", (med(v.new) / med(v.old)).toFixed(2));
