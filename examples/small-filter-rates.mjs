// `node examples/small-filter-rates.mjs`: the false-positive rate of filters
// at a low p, measured on keys never added, against the formula's. Double
// hashing (h1 + i·h2) picks k bits from two hashes; a key whose step h2 is
// near m/b for a small b (a step of less than a bit, of half the filter, of
// a third…) puts its k bits on about b of them, and is a false positive as
// often as b bits are all set. That adds about 3/(k·m) to the rate (2 to 5
// in the tables below): many times the formula's rate where p is below it,
// in a small filter or at a very low p.
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
console.log("\nLarger filters at a lower p, measured on 2^27 (2^29 for the last) integer keys never added");
console.log("n        p      m        k   formula   measured  3/(k·m)");
let next = 1n << 62n; // probes apart from the keys 0 … n − 1
for (const [n, p, rounds] of [[10_000, 1e-6, 128], [10_000, 1e-8, 128], [100_000, 1e-8, 512]]) {
  const filter = BloomFilter.create(n, p).addInts(BigUint64Array.from({ length: n }, (_, i) => BigInt(i)));
  const batch = new BigUint64Array(1 << 20);
  let hits = 0;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < batch.length; i++) batch[i] = next++;
    for (const hit of filter.hasInts(batch)) hits += hit;
  }
  const rate = hits / (rounds * batch.length);
  console.log(`${String(n).padEnd(8)} ${String(p).padEnd(6)} ${String(filter.bits).padEnd(8)} ${String(filter.hashes).padEnd(3)} ${filter.falsePositiveRate().toExponential(2).padEnd(9)} ${rate.toExponential(2).padEnd(9)} ${(3 / (filter.hashes * filter.bits)).toExponential(2)}`);
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
