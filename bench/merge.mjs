// The tables of `npm run bench` with one suite run per Node side by side:
// per Node the timing columns (ns/key, Mops/s, the ratio to the peer of the
// same run), then the quality columns once ("a / b" where the Nodes differ,
// such as a JS Set's heap). A "run" is one suite's JSON (bench/filters.mjs):
// { label, env, meta, rows, deletable, fuse }.
import { table, wallRange } from "./report.mjs";

/** A number's cell, or "" for a measurement the row does not have (NaN, or null after JSON). */
const number = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits) : "");
const percent = (x, digits) => (Number.isFinite(x) ? `${(x * 100).toFixed(digits)}%` : "");
const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "");

/** "Node 20" for a suite run under Node v20.x. */
export function runLabel(env) {
  return `Node ${env.node.replace(/^v/, "").split(".")[0]}`;
}

/** One cell for a value every run has: shown once when the runs agree, else "a / b" in run order. */
export function once(values) {
  return values.every((v) => v === values[0]) ? values[0] : values.join(" / ");
}

/**
 * The rows of every run lined up by library and operation, in the first run's
 * order (then any row only a later run has): [{ lib, op, each: [row or undefined per run] }].
 */
export function lineUp(lists) {
  const keyOf = (r) => `${r.lib}\u0000${r.op}`;
  const order = [];
  const seen = new Set();
  for (const list of lists) {
    for (const r of list) {
      if (seen.has(keyOf(r))) continue;
      seen.add(keyOf(r));
      order.push({ lib: r.lib, op: r.op, key: keyOf(r) });
    }
  }
  const maps = lists.map((list) => new Map(list.map((r) => [keyOf(r), r])));
  return order.map(({ lib, op, key }) => ({ lib, op, each: maps.map((m) => m.get(key)) }));
}

/** The peer row a row of the filter sections is compared with: `bloomfilter` in the same section, the same kind of operation, on URL strings. */
export function peerRow(rows, r) {
  if (r.lib === "(baseline)") return undefined;
  const peerLib = r.section === "huge" ? rows.find((p) => p.section === "huge" && p.lib.startsWith("bloomfilter"))?.lib : "bloomfilter";
  return rows.find((p) => p.section === r.section && p.lib === peerLib && p.kind === r.kind && p.keyKind === "string");
}

/** The timing cells of one run's row: ns/key, Mops/s, and the peer's time over this row's. */
function timing(r, peer) {
  if (!r) return ["—", "—", "—"];
  return [number(r.nsPerKey, 1), number(1e3 / r.nsPerKey, 2), peer ? ratio(peer.nsPerKey / r.nsPerKey) : ""];
}

/** A filter table: `pick(run)` selects the run's rows, `peerOf(run, row)` the row each is compared with. */
function filterTableOf(runs, pick, peerOf, peerName) {
  const header = ["library", "operation"];
  for (const run of runs) header.push(`ns/key ${run.label}`, `Mops/s ${run.label}`, `vs ${peerName} ${run.label}`);
  header.push("bits/key", "measured FPR", "keys stored", "false negatives");
  const body = lineUp(runs.map(pick)).map(({ lib, op, each }) => {
    const cells = [lib, op];
    each.forEach((r, i) => cells.push(...timing(r, r && peerOf(runs[i], r))));
    const present = each.filter(Boolean);
    cells.push(
      once(present.map((r) => number(r.bitsPerKey, 2))),
      once(present.map((r) => percent(r.fpr, 3))),
      once(present.map((r) => percent(r.stored, 1))),
      once(present.map((r) => percent(r.falseNegatives, 2))),
    );
    return cells;
  });
  return table(header, body);
}

/** Sections 1–3 ("small", "large", "huge"): every row against `bloomfilter` of the same run. */
export function filterTable(runs, section) {
  return filterTableOf(runs, (run) => run.rows.filter((r) => r.section === section), (run, r) => peerRow(run.rows, r), "bloomfilter");
}

/** Section 4: each deletable structure against `bloom-filters`' structure of the same kind in the same run. */
export function deletableTable(runs) {
  const peerOf = (run, r) => {
    const peerLib = r.lib.includes("Counting") ? "bloom-filters CountingBloomFilter" : "bloom-filters CuckooFilter";
    return run.deletable.find((p) => p.lib === peerLib && p.kind === r.kind && p.keyKind === "string");
  };
  return filterTableOf(runs, (run) => run.deletable, peerOf, "bloom-filters");
}

/**
 * Section 5, binary fuse filters, the rows `pick` takes (every row when it is not given): ns/key and Mops/s per run,
 * bits/key, the FPR and the absent keys it was measured on once.
 */
export function fuseTable(runs, pick = () => true) {
  const header = ["library", "operation", "keys", "n"];
  for (const run of runs) header.push(`ns/key ${run.label}`, `Mops/s ${run.label}`);
  header.push("bits/key", "measured FPR", "FPR probes");
  const rowsOf = (run) => (run.fuse ?? []).filter(pick);
  const body = lineUp(runs.map(rowsOf)).map(({ lib, op, each }) => {
    const present = each.filter(Boolean);
    const cells = [lib, op, present[0].keyKind, once(present.map((r) => r.n.toLocaleString("en-US")))];
    for (const r of each) cells.push(...timing(r, undefined).slice(0, 2));
    cells.push(
      once(present.map((r) => number(r.bitsPerKey, 2))),
      once(present.map((r) => (Number.isFinite(r.fpr) ? r.fpr.toExponential(2) : ""))),
      once(present.map((r) => (Number.isFinite(r.probes) ? r.probes.toLocaleString("en-US") : ""))),
    );
    return cells;
  });
  return table(header, body);
}

/** bloomkit's hits in one run's rows for the C section's query `op`, from the row's measured FPR (absent keys) or false negatives (members). */
function hitsInRun(run, section, lib, op, keys) {
  const row = run.rows.find((r) => r.section === section && r.lib === lib && r.op === op);
  if (!row) return undefined;
  return Math.round(op.includes("absent") ? row.fpr * keys : (1 - row.falseNegatives) * keys);
}

/**
 * The C section: C's ns/key beside bloomkit's matching rows of each run and
 * bloomkit's time over C's, and the hits: C's, bloomkit's on the same filters
 * (counted by cSection), and those each run's rows imply; "same" when all agree.
 */
export function cTable(runs, c) {
  const { n, ints } = c;
  const sb = "bloomkit SplitBlockBloomFilter";
  const gib = `${sb} (1 GiB)`;
  const lines = [
    ["hasPacked (members)", `${n.toLocaleString("en-US")} keys`, "small", sb, c.c.hasPackedMembers, c.c.memberHits, c.bloomkit.memberHits, n],
    ["hasPacked (absent)", `${n.toLocaleString("en-US")} keys`, "small", sb, c.c.hasPackedAbsent, c.c.absentHits, c.bloomkit.absentHits, n],
    ["hasInts (u32, members)", "1 GiB, prefetch", "huge", gib, c.c.hugeHasIntsMembers, c.c.hugeMemberHits, c.bloomkit.hugeMemberHits, ints],
    ["hasInts (u32, absent)", "1 GiB, prefetch", "huge", gib, c.c.hugeHasIntsAbsent, c.c.hugeAbsentHits, c.bloomkit.hugeAbsentHits, ints],
    ["hasInts (u32, absent)", "1 GiB, no prefetch", "huge", gib, c.c.hugeHasIntsAbsentNoPrefetch, c.c.hugeAbsentHitsNoPrefetch, c.bloomkit.hugeAbsentHits, ints],
  ];
  const header = ["query", "C filter", "C ns/key"];
  for (const run of runs) header.push(`bloomkit ns/key ${run.label}`, `bloomkit ÷ C ${run.label}`);
  header.push("C hits", "bloomkit hits", "same");
  const body = lines.map(([op, filter, section, lib, cNs, cHits, ourHits, keys]) => {
    const cells = [op, filter, cNs.toFixed(1)];
    for (const run of runs) {
      const row = run.rows.find((r) => r.section === section && r.lib === lib && r.op === op);
      cells.push(row ? row.nsPerKey.toFixed(1) : "—", row ? ratio(row.nsPerKey / cNs) : "—");
    }
    const implied = runs.map((run) => ({ label: run.label, hits: hitsInRun(run, section, lib, op, keys) })).filter((h) => h.hits !== undefined);
    const same = cHits === ourHits && implied.every((h) => h.hits === cHits);
    const counts = [`C ${cHits}`, `bloomkit ${ourHits}`, ...implied.map((h) => `${h.label}'s rows ${h.hits}`)].join(", ");
    cells.push(cHits.toLocaleString("en-US"), ourHits.toLocaleString("en-US"), same ? "same" : `NO: ${counts}`);
    return cells;
  });
  return table(header, body);
}

/** The dedup runs: one row per command and Node (sort -u and awk run once), speed-up against the faster of them and peak memory against awk's. */
export function dedupTable(dedup) {
  const fasterPeer = Math.min(dedup.sort.seconds, dedup.awk.seconds);
  const line = (command, node, r, ours) => [
    command,
    node,
    r.seconds.toFixed(2),
    wallRange(r),
    (dedup.sizeMB / r.seconds).toFixed(1),
    r.peakMB.toFixed(0),
    ours ? ratio(fasterPeer / r.seconds) : "",
    ours ? `${((100 * r.peakMB) / dedup.awk.peakMB).toFixed(1)}%` : "",
  ];
  const body = [
    ...dedup.bloomkit.map((d) => line(d.label, d.node, d, true)),
    line(dedup.sort.label, "", dedup.sort, false),
    line(dedup.awk.label, "", dedup.awk, false),
  ];
  return table(["command", "Node", "wall s", "runs", "MB/s", "peak MB", "speed-up vs faster peer", "memory vs awk"], body);
}
