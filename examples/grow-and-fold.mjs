// `node examples/grow-and-fold.mjs` (after `npm run build`): a scalable filter grown to 100× its
// initial capacity, and a foldable filter folded by 2, 4 and 8 (to a half, a
// quarter and an eighth of its bits), each with its false-positive rate
// measured on 1,000,000 keys never added.
import { BloomFilter, ScalableBloomFilter } from "bloomkit";

const probes = Array.from({ length: 1_000_000 }, (_, i) => `https://absent.example/${i}`);
const measure = (filter) => {
  let hits = 0;
  for (const hit of filter.hasMany(probes)) hits += hit;
  return hits / probes.length;
};
const pct = (x) => `${(x * 100).toFixed(3)}%`;

console.log("ScalableBloomFilter.create(1000, 0.01): growth 2, tightening 0.85");
console.log("keys      layers  bits/key  expected  measured");
const scalable = ScalableBloomFilter.create(1000, 0.01);
let added = 0;
for (const target of [1_000, 10_000, 50_000, 100_000]) {
  const keys = Array.from({ length: target - added }, (_, i) => `https://present.example/${added + i}`);
  scalable.addMany(keys);
  added = target;
  console.log(`${String(target).padEnd(10)}${String(scalable.layers).padEnd(8)}${(scalable.bits / target).toFixed(2).padEnd(10)}${pct(scalable.expectedFalsePositiveRate()).padEnd(10)}${pct(measure(scalable))}`);
}

console.log("\nBloomFilter.create(100_000, 0.01, { foldable: true }) with 20,000 keys, folded");
console.log("bits       fold  formula   measured");
const keys = Array.from({ length: 20_000 }, (_, i) => `https://present.example/${i}`);
const foldable = BloomFilter.create(100_000, 0.01, { foldable: true }).addMany(keys);
for (const factor of [1, 2, 4, 8]) {
  const filter = factor === 1 ? foldable : foldable.fold(factor);
  console.log(`${String(filter.bits).padEnd(11)}${String(factor).padEnd(6)}${pct(filter.expectedFalsePositiveRate(keys.length)).padEnd(10)}${pct(measure(filter))}`);
}
