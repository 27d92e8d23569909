// `npm run demo` (or `node examples/demo.mjs [file] [p]`, after `npm run build`): the classic
// crawler de-duplication program, with bloomkit. Reads a file of URLs, one a line (default: the
// bundled urls-sample.txt, with repeats), keeps the first occurrence of each, and reports the
// filter's parameters (p defaults to 0.01) and its false-positive rate, predicted and measured.
import { readFileSync } from "node:fs";
import { BloomFilter, falsePositiveRateFor, optimal } from "bloomkit";

// A file that cannot be read, or a p the filter refuses, is one line on stderr and exit code 1, as in the CLI.
process.on("uncaughtException", (error) => {
  const reasons = { ENOENT: "no such file", EISDIR: "a folder, not a file", EACCES: "not allowed to read" };
  console.error(`demo: ${error.code in reasons ? `${reasons[error.code]}: ${error.path ?? process.argv[2]}` : error.message}`);
  process.exit(1);
});

const file = process.argv[2] ?? new URL("./urls-sample.txt", import.meta.url);
const p = Number(process.argv[3] ?? 0.01);
if (Number.isNaN(p) || process.argv[3]?.trim() === "") throw new Error(`p must be a number such as 0.01, got "${process.argv[3]}"`);
const lines = readFileSync(file, "utf8").split("\n").filter((line) => line.length > 0);
if (lines.length === 0) throw new Error(`${file} has no lines to de-duplicate`);
const exactUnique = new Set(lines).size;
const fmt = (x) => x.toLocaleString("en-US");
const pct = (x) => `${(x * 100).toFixed(3)}%`;

// Size for the distinct URLs we expect (here known; a crawler would estimate it).
const filter = BloomFilter.create(exactUnique, p);
const plan = optimal({ n: exactUnique, p });
const repeats = filter.testAndAddMany(lines); // 1 = seen before (or a false positive)
let flagged = 0;
for (const flag of repeats) flagged += flag;
const kept = lines.length - flagged;

// Each new URL meets the filter as full as it is then: the expected loss is Σ p(i), not n·p.
let expectedDropped = 0;
for (let i = 1; i < exactUnique; i++) expectedDropped += falsePositiveRateFor(i, filter.bits, filter.hashes);

// Probe with URLs that were never added: every "present" answer is a false positive.
const probes = Array.from({ length: 200_000 }, (_, i) => `https://probe.example.com/never-added/${i}?q=${i * 7919}`);
let falsePositives = 0;
for (const hit of filter.hasMany(probes)) falsePositives += hit;

console.log(`bloomkit demo: de-duplicating ${typeof file === "string" ? file : "examples/urls-sample.txt"}`);
console.log(`  lines            ${fmt(lines.length)} (${fmt(exactUnique)} distinct, counted exactly with a Set)`);
console.log(`  filter           n = ${fmt(exactUnique)}, p = ${p}: m = ${fmt(filter.bits)} bits (${fmt(plan.bytes)} bytes), k = ${filter.hashes}, ${plan.bitsPerItem.toFixed(2)} bits/key`);
console.log(`  kept             ${fmt(kept)} lines; ${fmt(flagged)} flagged as repeats`);
console.log(`  wrongly dropped  ${fmt(exactUnique - kept)} distinct URLs, false positives during de-dup (expected ${expectedDropped.toFixed(1)})`);
console.log(`  fill ratio       ${filter.fillRatio.toFixed(4)}; estimated count ${fmt(Math.round(filter.estimatedCount()))}`);
console.log(`  FPR at capacity  formula ${pct(plan.p)}; from fill ${pct(filter.falsePositiveRate())}; measured ${pct(falsePositives / probes.length)} on ${fmt(probes.length)} URLs never added`);
filter.dispose();
