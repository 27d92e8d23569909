// `node examples/small-filter-rates.mjs`: the false-positive rate of small
// filters with many hashes (a low p), measured on 1,000,000 keys never added,
// against the formula's. Double hashing (h1 + i·h2) picks k bits from two
// hashes; when m is a few thousand bits, the keys whose h2 steps by less than
// one bit of the m fall on fewer than k bits, and the measured rate exceeds
// the formula's many times over. Past some tens of thousands of bits it is
// back near the formula.
import { BloomFilter, ScalableBloomFilter } from "bloomkit";

const probes = Array.from({ length: 1_000_000 }, (_, i) => `https://absent.example/${i}`);
const measure = (filter) => {
  let hits = 0;
  for (const hit of filter.hasMany(probes)) hits += hit;
  return hits / probes.length;
};
const keys = (n) => Array.from({ length: n }, (_, i) => `https://present.example/${i}`);

console.log("BloomFilter.create(n, p) holding n keys");
console.log("n        p      m        k   formula   measured");
for (const [n, p] of [[100, 1e-6], [1_000, 1e-6], [100, 1e-4], [10_000, 1e-4]]) {
  const filter = BloomFilter.create(n, p).addMany(keys(n));
  console.log(`${String(n).padEnd(8)} ${String(p).padEnd(6)} ${String(filter.bits).padEnd(8)} ${String(filter.hashes).padEnd(3)} ${filter.falsePositiveRate().toExponential(2).padEnd(9)} ${measure(filter).toExponential(2)}`);
  filter.dispose();
}
console.log("\nScalableBloomFilter.create(n0, p) grown to 100 · n0 keys");
console.log("n0       p      layers  measured");
for (const [n, p] of [[100, 1e-4], [1_000, 1e-4], [1_000, 1e-2]]) {
  const filter = ScalableBloomFilter.create(n, p);
  filter.addMany(keys(100 * n));
  console.log(`${String(n).padEnd(8)} ${String(p).padEnd(6)} ${String(filter.layers).padEnd(7)} ${measure(filter).toExponential(2)}`);
  filter.dispose();
}
