// The binary fuse section's method, its tables and issue 18's checks: section 5
// of bench/RESULTS.md (`npm run bench`) and bench/FUSE.md (`npm run bench:fuse`).
import { execFileSync } from "node:child_process";
import { fuseTable } from "./merge.mjs";
import { fuseTargetsReport } from "./fuse-targets.mjs";

const fmt = (x) => x.toLocaleString("en-US");

/** The section's method, for runs at `n` keys and `large` integer keys (0: none), `peerKeys` keys for XorFilter. */
export function fuseMethod(n, large, peerKeys) {
  return (
    `${fmt(n)} URL keys (integer rows: 0 … n − 1). \`BinaryFuseFilter\` (8- and 16-bit fingerprints) is built from the whole batch ("build" rows: ns per key of the build) and queried, one key per call (\`has\`, as a blocklist asks about each request) and in batches; beside it, split-block filters sized for the same rates (2^-8 and 2^-16, \`powerOfTwo: false\`), and \`bloom-filters\`' pure-JS \`XorFilter\`, timed on the first ${fmt(peerKeys)} keys only (its rows give its cost per key). ` +
    `The FPR of the bloomkit rows is measured on ${fmt(16 * n)} absent keys of the same kind (16 chunks of ${fmt(n)}: at 2^-16, ${fmt(n)} probes expect ${fmt(Math.round(n * 2 ** -16))} hits, too few to tell a rate 30% off), that of \`XorFilter\` on ${fmt(peerKeys)}. ` +
    "The bloomkit rows are timed round-robin: 11 rounds, each running every one of their operations once (in the first round after 250 ms of warm-up passes of each, at least one) in an order turned by one each round, so a busy stretch of this shared machine falls on the fuse and split-block rows alike; each figure is the median of its 11 passes. `XorFilter` is timed once." +
    (large > 0
      ? ` Then the integer rows again at ${fmt(large)} keys (0 … ${fmt(large)} − 1; absent: ${fmt(large)} … ${fmt(2 * large)} − 1), where neither filter fits the caches, with the FPR on ${fmt(10 * large)} absent keys.`
      : "")
  );
}

/** The tables of the section: the rows at n keys (and XorFilter's, at fewer), then those at `large` keys when measured (fuse.mjs keeps large ≠ n). */
export function fuseTables(runs, n, large) {
  const atLarge = (r) => large > 0 && r.n === large;
  return [fuseTable(runs, (r) => !atLarge(r)), ...(large > 0 ? [`At ${fmt(large)} integer keys:`, fuseTable(runs, atLarge)] : [])].join("\n\n");
}

/** The commit the bench runs at, and whether the tracked files differ from it: taken before the run, as the build it measures. */
export function commitNow() {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { encoding: "utf8" }).trim() !== "";
    return dirty ? `${head} with uncommitted changes` : head;
  } catch {
    return "an unknown commit";
  }
}

/** bench/FUSE.md of one `npm run bench:fuse`: `runs` [{ label, env, fuse, peerKeys }] one per Node, `commit` what commitNow() said before the run. */
export function fuseMarkdown(runs, notRun, n, large, commit) {
  const env = runs[0].env;
  const nodesLine = runs.map((run) => `${run.label}: ${run.env.node}, V8 ${run.env.v8}`).join("; ");
  const notRunLines = notRun.map((missing) => `\n- ${missing.label} was not run: ${missing.reason}.`).join("");
  // With BENCH_REUSE_SUITES, the rows taken from an earlier run: not of the commit named above.
  const reused = runs
    .filter((run) => run.reusedFrom)
    .map((run) => `\n- ${run.label}'s rows are those of an earlier run, written at ${run.reusedFrom}${run.commit ? ` measuring ${run.commit}` : ""} (BENCH_REUSE_SUITES=1).`)
    .join("");
  return `# Binary fuse filters (\`npm run bench:fuse\`)

Written by \`npm run bench:fuse\` (bench/fuse.mjs) on ${env.date}, measuring ${commit}.

- Machine: ${env.cpu}, ${env.cores} cores, ${env.memory}; ${env.os}
- ${nodesLine}; each in a process of its own (\`node --expose-gc --single-threaded-gc\`), one after the other.${notRunLines}${reused}
- The machine is a 2-vCPU VM shared with other guests: absolute ns/key move between runs (up to 2.5× between the hosts this project has run on); the fuse and split-block rows of one Node are timed round-robin, so their ratio is the reliable figure.

${fuseMethod(n, large, runs[0].peerKeys)}

${fuseTables(runs, n, large)}

## Issue 18's targets

Bits per key and the FPR at every key count measured, the build from 10^7 integer keys, and every query of the binary fuse filter against the split-block filter of the same rate on the same keys in the same Node's run. A check is met only when it is met under every Node.

${fuseTargetsReport(runs, notRun)}
`;
}
