// `npm run bench`: the suite (bench/filters.mjs) once under the running Node
// and once under Node 24, the current LTS (bench/node24.mjs fetches it into
// bench/.cache/ when the running Node is another), each in its own process
// writing its rows as JSON, and the binary fuse section (bench/fuse.mjs) under
// each in a process of its own; then, once in the same bench run, the plain-C
// split-block filter on the same keys (bench/c.mjs) and `bloomkit dedup`
// under each Node against `sort -u` and awk (bench/cli.mjs). Prints the
// tables with the Nodes side by side and issue 14's targets, and writes
// bench/RESULTS.md and bench/results.svg.
// BENCH_KEYS=n: sections 1 and 4 at n keys under both Nodes, the C program
// and dedup at a reduced size; prints the same and writes nothing.
// BENCH_REUSE_SUITES=1: takes each Node's rows from the JSON its last run
// left in bench/.cache/ instead of running the suite (and the fuse section)
// again (after a later part failed, or to redo the report).
import { writeFileSync } from "node:fs";
import { cSection } from "./c.mjs";
import { dedupRuns, gnuTimeMissing } from "./cli.mjs";
import { cTable, dedupTable, deletableTable, filterTable, runLabel } from "./merge.mjs";
import { fuseTables } from "./fuse-markdown.mjs";
import { fuseTargetsReport } from "./fuse-targets.mjs";
import { resultsMarkdown } from "./results-markdown.mjs";
import { nodes, runJson } from "./runs.mjs";
import { barsSvg } from "./svg.mjs";
import { targetsReport } from "./targets.mjs";
import { crawlFile } from "./url-files.mjs";

const FULL = process.env.BENCH_KEYS === undefined;
const SMALL = Number(process.env.BENCH_KEYS ?? 1_000_000);
const DEDUP_LINES = FULL ? 10_000_000 : Math.max(100_000, 10 * SMALL);
const suitePath = new URL("./filters.mjs", import.meta.url).pathname;
const fusePath = new URL("./fuse.mjs", import.meta.url).pathname;
const fmt = (x) => x.toLocaleString("en-US");

/** The suite under one Node, and in a full run its binary fuse section in a process of its own: its rows with the Node's label. */
function runSuite(node) {
  const run = { size: FULL ? "full" : SMALL, reuse: Boolean(process.env.BENCH_REUSE_SUITES), note: FULL ? "" : `, BENCH_KEYS=${SMALL}` };
  const suite = runJson(node, suitePath, "suite", { ...run, args: ["--expose-gc", "--max-old-space-size=16384"] });
  if (!FULL) return { ...suite, label: runLabel(suite.env) };
  // Collections in this thread only: see the comment on ROUNDS in bench/fuse.mjs.
  const fuse = runJson(node, fusePath, "fuse", { ...run, args: ["--expose-gc", "--single-threaded-gc"] });
  return { ...suite, label: runLabel(suite.env), fuse: fuse.rows, fuseReusedFrom: fuse.reusedFrom, meta: { ...suite.meta, fusePeerKeys: fuse.peerKeys, fuseLarge: fuse.large ?? 0 } };
}

/** The dedup runs of target 6 on the crawl log, or { skipped } without GNU time. */
async function dedupSection(list) {
  const missing = gnuTimeMissing();
  if (missing) return { skipped: missing };
  const input = await crawlFile(DEDUP_LINES);
  return { ...dedupRuns(input, list), lines: DEDUP_LINES };
}

const { list, notRun } = nodes();
for (const missing of notRun) console.error(`${missing.label} is not run: ${missing.reason}`);
const runs = list.map(runSuite);
const meta = runs[0].meta;
// C does not depend on Node: once, on the suite's keys and filter sizes (at a reduced size in a reduced run).
const c = cSection({ n: SMALL, p: meta.p, hugeBlocks: meta.gibBlocks, ints: FULL ? meta.large : SMALL });
const dedup = await dedupSection(list);

const tables = {
  small: filterTable(runs, "small"),
  large: FULL ? filterTable(runs, "large") : "",
  huge: FULL ? filterTable(runs, "huge") : "",
  deletable: deletableTable(runs),
  fuse: FULL ? `${fuseTables(runs, SMALL, meta.fuseLarge)}\n\n${fuseTargetsReport(runs, notRun)}` : "",
  // A part not run has no table: the targets and RESULTS.md say why.
  c: c.skipped ? "" : cTable(runs, c),
  dedup: dedup.skipped ? "" : dedupTable(dedup),
};
const targets = targetsReport(runs, { c, dedup, notRun: notRun.map((missing) => missing.label) });
console.log(Object.values(tables).filter(Boolean).join("\n\n"));
console.log(`\n${targets}`);

if (!FULL) {
  console.log(`\nBENCH_KEYS=${SMALL}: a reduced run (C at ${fmt(SMALL)} keys, dedup of ${fmt(DEDUP_LINES)} lines); bench/RESULTS.md and bench/results.svg left as they are`);
  process.exit(0);
}

// Chart: ns/key at 1e6 for every row of the first Node's run, grouped by operation kind.
const groups = ["add", "query (members)", "query (absent)"].map((kind) => ({
  title: `${kind}, ${fmt(SMALL)} keys, ${runs[0].label}`,
  bars: runs[0].rows
    .filter((r) => r.section === "small" && r.kind === kind)
    .map((r) => ({ label: `${r.lib.replace("bloomkit ", "")}: ${r.op}`, value: r.nsPerKey, highlight: r.lib.startsWith("bloomkit") })),
}));
writeFileSync(new URL("./results.svg", import.meta.url), barsSvg({ title: `ns per key under ${runs[0].label} (log scale; blue: bloomkit, grey: peers)`, unit: "ns", groups }));
writeFileSync(new URL("./RESULTS.md", import.meta.url), resultsMarkdown({ runs, notRun, c, dedup, tables, targets }));
console.log("\nwrote bench/RESULTS.md and bench/results.svg");
