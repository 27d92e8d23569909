// `node examples/small-filter-rates.mjs` (after `npm run build`; about two minutes): the false-positive rate of filters
// at a low p, measured on keys never added, against the rate the filter's fill
// predicts ((X/m)^k, `falsePositiveRate()`, the rate ideal hashing would give
// with those bits set), with triple hashing (the default) and double hashing
// (the default before it).
// Double hashing (h1 + i·h2) picks k bits from two hashes; a key whose step
// h2 is near m/b for a small b (a step of less than a bit, of half the
// filter, of a third…) puts its k bits on about b of them, and is a false
// positive as often as b bits are all set. That adds about 3/(k·m) to the
// rate (2 to 5 times 1/(k·m) in the tables below): many times the formula's rate where p is
// below it, in a small filter or at a very low p. Triple hashing
// (h1 + i·h2 + i(i−1)/2·h3) needs h3 near as well, which is a factor m rarer.
import { BloomFilter, ScalableBloomFilter } from "bloomkit";

const STRATEGIES = ["triple", "double"];
const probes = Array.from({ length: 1_000_000 }, (_, i) => `https://absent.example/${i}`);
const measure = (filter) => {
  let hits = 0;
  for (const hit of filter.hasMany(probes)) hits += hit;
  return hits / probes.length;
};
const keys = (n) => Array.from({ length: n }, (_, i) => `https://present.example/${i}`);
const column = (value, width) => String(value).padEnd(width);

console.log("BloomFilter.create(n, p) holding n keys, measured on 1,000,000 keys never added");
console.log("n        p         m        k   from fill triple    double    3/(k·m)");
for (const [n, p] of [[100, 1e-6], [1_000, 1e-6], [100, 1e-4], [10_000, 1e-4]]) {
  const rates = [];
  let fromFill;
  for (const strategy of STRATEGIES) {
    const filter = BloomFilter.create(n, p, { strategy }).addMany(keys(n));
    fromFill ??= filter.falsePositiveRate(); // the first filter's, triple hashing's
    rates.push(measure(filter).toExponential(2));
    filter.dispose();
  }
  const { bits, hashes } = BloomFilter.sizeFor(n, p);
  console.log(`${column(n, 8)} ${column(p, 9)} ${column(bits, 8)} ${column(hashes, 3)} ${column(fromFill.toExponential(2), 9)} ${column(rates[0], 9)} ${column(rates[1], 9)} ${(3 / (hashes * bits)).toExponential(2)}`);
}
console.log("\nBloomFilter.create(n, p) for a few keys, many filters each, 2,000,000 probes in all (triple hashing):");
console.log("the formula reads low for filters of tens of bits");
console.log("n        p         m        k   measured  / p");
for (const p of [1e-2, 1e-3]) {
  for (const n of [1, 10, 100, 1_000]) {
    const filters = Math.max(20, 4_000 / n);
    const perFilter = 2_000_000 / filters;
    let hits = 0;
    for (let t = 0; t < filters; t++) {
      const filter = BloomFilter.create(n, p).addMany(Array.from({ length: n }, (_, i) => `https://present.example/${t}/${i}`));
      for (const hit of filter.hasMany(probes.slice(0, perFilter))) hits += hit;
      filter.dispose();
    }
    const { bits, hashes } = BloomFilter.sizeFor(n, p);
    const rate = hits / 2_000_000;
    console.log(`${column(n, 8)} ${column(p, 9)} ${column(bits, 8)} ${column(hashes, 3)} ${column(rate.toExponential(2), 9)} ${(rate / p).toFixed(2)}`);
  }
}
console.log("\nLarger filters at a lower p, measured on 2^27 (2^29 for the last) integer keys never added");
console.log("n        p         m        k   from fill triple    double    3/(k·m)");
for (const [n, p, rounds] of [[10_000, 1e-6, 128], [10_000, 1e-8, 128], [100_000, 1e-8, 512]]) {
  const rates = [];
  let fromFill;
  for (const strategy of STRATEGIES) {
    const filter = BloomFilter.create(n, p, { strategy }).addInts(BigUint64Array.from({ length: n }, (_, i) => BigInt(i)));
    fromFill ??= filter.falsePositiveRate();
    let next = 1n << 62n; // probes apart from the keys 0 … n − 1, the same for both strategies
    const batch = new BigUint64Array(1 << 20);
    let hits = 0;
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < batch.length; i++) batch[i] = next++;
      for (const hit of filter.hasInts(batch)) hits += hit;
    }
    rates.push((hits / (rounds * batch.length)).toExponential(2));
    filter.dispose();
  }
  const { bits, hashes } = BloomFilter.sizeFor(n, p);
  console.log(`${column(n, 8)} ${column(p, 9)} ${column(bits, 8)} ${column(hashes, 3)} ${column(fromFill.toExponential(2), 9)} ${column(rates[0], 9)} ${column(rates[1], 9)} ${(3 / (hashes * bits)).toExponential(2)}`);
}
console.log("\nScalableBloomFilter.create(n0, p) grown to 100 · n0 keys");
console.log("n0       p         layers  triple    double");
for (const [n, p] of [[100, 1e-4], [1_000, 1e-4], [1_000, 1e-2]]) {
  const rates = [];
  let layers;
  for (const strategy of STRATEGIES) {
    const filter = ScalableBloomFilter.create(n, p, { strategy });
    filter.addMany(keys(100 * n));
    layers = filter.layers;
    rates.push(measure(filter).toExponential(2));
    filter.dispose();
  }
  console.log(`${column(n, 8)} ${column(p, 9)} ${column(layers, 7)} ${column(rates[0], 9)} ${rates[1]}`);
}
console.log("\nScalableBloomFilter.create(n0, p) from a first layer of a few keys, grown to eight layers:");
console.log("40 filters, each measured on 50,000 keys never added (no layer has fewer than 1,021 bits)");
console.log("n0       p         measured  / p    bits/key");
const fewProbes = probes.slice(0, 50_000);
for (const [n0, p] of [[1, 1e-2], [1, 1e-3], [1, 1e-4], [4, 1e-2], [4, 1e-3], [4, 1e-4]]) {
  let hits = 0;
  let bits = 0;
  const added = n0 * (2 ** 8 - 1); // n0 · (1 + 2 + … + 128): eight layers, full
  for (let t = 0; t < 40; t++) {
    const filter = ScalableBloomFilter.create(n0, p);
    filter.addMany(Array.from({ length: added }, (_, i) => `https://present.example/${t}/${i}`));
    for (const hit of filter.hasMany(fewProbes)) hits += hit;
    bits += filter.bits;
    filter.dispose();
  }
  const rate = hits / (40 * fewProbes.length);
  console.log(`${column(n0, 8)} ${column(p, 9)} ${column(rate.toExponential(2), 9)} ${column((rate / p).toFixed(2), 6)} ${(bits / (40 * added)).toFixed(1)}`);
}
