// Issue 18's targets for the binary fuse filter, checked against the fuse
// section of each Node's run (bench/fuse.mjs): bits per key and measured FPR
// at every key count measured, the build from 10^7 integer keys, and every
// query against the split-block filter of the same rate on the same keys in
// the same run. A target is met only when it is met under every Node.
import { table } from "./report.mjs";

/** The rows' library names (bench/fuse.mjs writes them): a fuse filter and the split-block filter of its rate. */
export const fuseLib = (bits) => `bloomkit BinaryFuseFilter ${bits}-bit`;
export const splitBlockLib = (bits) => `bloomkit SplitBlockBloomFilter p = 2^-${bits}`;
/** Bits per key at most, by fingerprint width. */
const MAX_BITS_PER_KEY = { 8: 9.2, 16: 18.4 };
/** The measured FPR within this share of 2^-bits. */
const FPR_TOLERANCE = 0.3;
/** ns per key of a build from 10^7 integer keys, at most. */
const MAX_BUILD_NS = 250;
const BUILD_KEYS = 10_000_000;
/** The key counts the issue sets the sizes and rates at; a reduced run measures others, and those are not checked. */
const SIZED_AT = [1_000_000, 10_000_000];

const fmtN = (n) => (n >= 1e6 && n % 1e6 === 0 ? `10^${Math.round(Math.log10(n))}` : n.toLocaleString("en-US"));

/** The checks: { target, subject, each: per run { measured, met } or undefined where the run did not measure it }. */
function checks(runs) {
  const list = [];
  const rowsOf = (run) => run.fuse ?? [];
  const find = (run, lib, op, n) => rowsOf(run).find((r) => r.lib === lib && r.op === op && r.n === n);
  const counts = [...new Set(runs.flatMap((run) => rowsOf(run).filter((r) => r.lib.startsWith("bloomkit BinaryFuse")).map((r) => r.n)))].sort((a, b) => a - b);
  for (const bits of [8, 16]) {
    for (const n of counts.filter((count) => SIZED_AT.includes(count))) {
      // One row per key kind carries the quality of the filter built from that kind of key.
      const kinds = [...new Map(runs.flatMap((run) => rowsOf(run).filter((r) => r.lib === fuseLib(bits) && r.n === n).map((r) => [r.keyKind, r.op]))).entries()];
      if (kinds.length === 0) continue;
      const anyOp = kinds[0][1];
      list.push({
        target: `bits/key ≤ ${MAX_BITS_PER_KEY[bits]}`,
        subject: `${bits}-bit, ${fmtN(n)} keys`,
        each: runs.map((run) => {
          const row = find(run, fuseLib(bits), anyOp, n);
          return row && { measured: row.bitsPerKey.toFixed(2), met: row.bitsPerKey <= MAX_BITS_PER_KEY[bits] };
        }),
      });
      const expected = 2 ** -bits;
      for (const [kind, op] of kinds) {
        list.push({
          target: `FPR within ±${FPR_TOLERANCE * 100}% of 2^-${bits}`,
          subject: `${bits}-bit, ${fmtN(n)} keys, ${kind} keys`,
          each: runs.map((run) => {
            const row = find(run, fuseLib(bits), op, n);
            if (!row) return undefined;
            const off = row.fpr / expected - 1;
            // Rows cached before the probes were counted have none.
            const probes = Number.isFinite(row.probes) ? `${row.probes.toLocaleString("en-US")} probes` : "probes not recorded";
            return { measured: `${row.fpr.toExponential(2)} (${off >= 0 ? "+" : ""}${(off * 100).toFixed(1)}%, ${probes})`, met: Math.abs(off) <= FPR_TOLERANCE };
          }),
        });
      }
    }
    list.push({
      target: `build ≤ ${MAX_BUILD_NS} ns/key`,
      subject: `${bits}-bit, buildInts of ${fmtN(BUILD_KEYS)} keys`,
      each: runs.map((run) => {
        const row = find(run, fuseLib(bits), "buildInts (u32)", BUILD_KEYS);
        return row && { measured: `${row.nsPerKey.toFixed(1)} ns`, met: row.nsPerKey <= MAX_BUILD_NS };
      }),
    });
    for (const n of counts) {
      const queries = [...new Set(runs.flatMap((run) => rowsOf(run).filter((r) => r.lib === fuseLib(bits) && r.n === n && r.op.startsWith("has")).map((r) => r.op)))];
      for (const op of queries) {
        list.push({
          target: "query at least as fast as split-block",
          subject: `${bits}-bit, ${fmtN(n)} keys, ${op}`,
          each: runs.map((run) => {
            const fuse = find(run, fuseLib(bits), op, n);
            const sb = find(run, splitBlockLib(bits), op, n);
            return fuse && sb && { measured: `${fuse.nsPerKey.toFixed(1)} against ${sb.nsPerKey.toFixed(1)} ns`, met: fuse.nsPerKey <= sb.nsPerKey };
          }),
        });
      }
    }
  }
  return list;
}

/** "met", "missed", or "not measured" when a run lacks the check or a Node was not run. */
function verdict(check, notRun) {
  if (notRun.length > 0 || check.each.some((e) => e === undefined)) return "not measured";
  return check.each.every((e) => e.met) ? "met" : "missed";
}

/** Markdown: the checks per Node, with the result, and a line counting those met. `runs`: [{ label, fuse }]. */
export function fuseTargetsReport(runs, notRun = []) {
  const list = checks(runs);
  const header = ["target", "filter and keys"];
  for (const run of runs) header.push(`measured ${run.label}`);
  header.push("result");
  const body = list.map((check) => [check.target, check.subject, ...check.each.map((e) => (e ? e.measured : "—")), verdict(check, notRun)]);
  const met = list.filter((check) => verdict(check, notRun) === "met").length;
  const lines = [`${met} of ${list.length} of issue 18's checks met under ${runs.map((run) => run.label).join(" and ")}.`];
  for (const { label } of notRun) lines.push(`${label} was not run, so no check counts as met.`);
  return [table(header, body), lines.join(" ")].join("\n\n");
}
