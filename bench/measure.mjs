// Times one library on one data set: adds, queries of members and of absent
// keys, for string, packed-byte and integer keys, each with the false-positive
// rate and bits per key measured on the same kind of key.
import { Bench } from "tinybench";
import { progress } from "./report.mjs";

/** Sum of a 0/1 array. */
function ones(flags) {
  let total = 0;
  for (let i = 0; i < flags.length; i++) total += flags[i];
  return total;
}

/** Heap bytes a fill adds (needs node --expose-gc): for structures with no fixed table, such as a Set. */
function heapGrowth(fill) {
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  const filled = fill();
  globalThis.gc();
  return { filled, bytes: process.memoryUsage().heapUsed - before };
}

/**
 * String keys, per key: fill, check that no stored key is lost, count false
 * positives on the probes. A cuckoo filter's add returns false when it is
 * full: those keys were never stored. Needs node --expose-gc for a lib whose
 * bits are measured from the heap.
 */
export function stringQuality(lib, keys, probes) {
  // Which keys were stored, in an array made before the heap is measured: an array of the stored keys grown in the
  // fill would count as the structure's own memory (a JS Set's bits/key: 249 instead of 168 at 10^6 keys).
  const accepted = new Uint8Array(keys.length);
  const { filled: f, bytes } = heapGrowth(() => {
    const f = lib.make();
    for (let i = 0; i < keys.length; i++) accepted[i] = lib.add(f, keys[i]) !== false ? 1 : 0;
    return f;
  });
  // Each key's answer, kept so that the batch queries can be held to the same answers (batchAnswers).
  const memberAnswers = new Uint8Array(keys.length);
  const probeAnswers = new Uint8Array(probes.length);
  let falseNegatives = 0;
  for (let i = 0; i < keys.length; i++) {
    memberAnswers[i] = lib.has(f, keys[i]) ? 1 : 0;
    if (accepted[i] === 1 && memberAnswers[i] === 0) falseNegatives++;
  }
  const stored = ones(accepted);
  // bloomkit must never lose a key; a peer that does is reported, not hidden.
  if (falseNegatives > 0 && lib.batch) throw new Error(`${lib.name} has ${falseNegatives} false negatives`);
  for (let i = 0; i < probes.length; i++) probeAnswers[i] = lib.has(f, probes[i]) ? 1 : 0;
  const bits = lib.bitsOf ? lib.bitsOf(f) : bytes * 8;
  return { filter: f, fpr: ones(probeAnswers) / probes.length, bitsPerKey: bits / keys.length, stored: stored / keys.length, falseNegatives: falseNegatives / stored, memberAnswers, probeAnswers };
}

/**
 * The string rows' FPR and false negatives are measured with the one-key `has`; the hasMany and hasPacked rows show
 * them too, so their answers must be the same, key for key (a batch path that lost a key would otherwise show 0.00%).
 */
function batchAnswers(lib, quality, data) {
  const f = quality.filter;
  const { packedKeys: pk, packedProbes: pp } = data;
  const checks = [
    ["hasPacked (members)", quality.memberAnswers, () => f.hasPacked(pk.bytes, pk.ends)],
    ["hasPacked (absent)", quality.probeAnswers, () => f.hasPacked(pp.bytes, pp.ends)],
  ];
  if (!lib.skipStrings) checks.push(["hasMany (members)", quality.memberAnswers, () => f.hasMany(data.keys)], ["hasMany (absent)", quality.probeAnswers, () => f.hasMany(data.probes)]);
  for (const [op, expected, query] of checks) {
    const answers = query();
    let differ = 0;
    for (let i = 0; i < expected.length; i++) if (answers[i] !== expected[i]) differ++;
    if (differ > 0) throw new Error(`${lib.name}: ${op} answers ${differ} keys otherwise than has`);
  }
}

/** Integer keys, in batches: the same checks. */
function intQuality(lib, memberInts, absentInts) {
  const { filled: f, bytes } = heapGrowth(() => {
    const f = lib.make();
    lib.ints.add(f, memberInts);
    return f;
  });
  const falseNegatives = memberInts.length - ones(lib.ints.has(f, memberInts));
  if (falseNegatives > 0 && lib.batch) throw new Error(`${lib.name} has ${falseNegatives} false negatives on integer keys`);
  const bits = lib.bitsOf ? lib.bitsOf(f) : bytes * 8;
  return { filter: f, fpr: ones(lib.ints.has(f, absentInts)) / absentInts.length, bitsPerKey: bits / memberInts.length, stored: 1, falseNegatives: falseNegatives / memberInts.length };
}

/**
 * Rows { lib, op, kind, keys, nsPerKey, fpr, bitsPerKey, stored, falseNegatives }
 * for `lib` on `data` = { keys, probes, packedKeys, packedProbes, memberInts, absentInts };
 * `passes` timed passes after one warm-up (one pass, no warm-up, for a slow library). No gc() between
 * passes: measured in a process holding 3·10^6 strings, a gc() right before a pass made split-block hasInts of
 * 10^6 keys take 21.3 ms instead of 5.2 (BloomFilter 41.4 against 17.1), the collector's helper threads still
 * at work on this 2-core machine during the pass (with --single-threaded-gc: 6.6 against 6.8).
 * A lib with `skipStrings` is timed on packed bytes and integers only (its FPR is still measured on strings).
 */
export async function measure(lib, data, passes) {
  const n = data.keys.length;
  const label = `${lib.name}, ${n.toLocaleString("en-US")} keys`;
  progress(`${label}: filling and probing`);
  const strings = stringQuality(lib, data.keys, data.probes);
  if (lib.batch) batchAnswers(lib, strings, data);
  strings.memberAnswers = strings.probeAnswers = undefined;
  const ints = lib.ints && data.memberInts ? intQuality(lib, data.memberInts, data.absentInts) : undefined;

  // One warm-up exactly (tinybench otherwise warms up for 250 ms as well: 2–3 passes at 10^6 keys). The slow
  // library's one pass is not cold all the same: the fill and probes of its FPR measurement above ran its code first.
  const bench = new Bench(lib.slow ? { iterations: 1, time: 0, warmup: false } : { iterations: passes, time: 0, warmupIterations: 1, warmupTime: 0 });
  const meta = new Map();
  /** setup: "empty" (a new filter each pass, dropped after), "full" (new and filled), or a filter to reuse. */
  const task = (op, kind, quality, fn, setup) => {
    let filter;
    meta.set(op, { kind, quality });
    bench.add(op, () => fn(filter), {
      beforeEach: () => {
        if (setup === "empty" || setup === "full") filter = lib.make();
        if (setup === "full") lib.fill(filter, data.keys);
      },
      afterEach: () => (setup === "empty" || setup === "full") && lib.drop(filter),
      beforeAll: () => {
        if (typeof setup === "object") filter = setup;
      },
    });
  };
  const { keys, probes } = data;
  const timeStrings = !lib.skipStrings;
  if (timeStrings) task("add", "add", strings, (f) => {
    for (const key of keys) lib.add(f, key);
  }, "empty");
  if (timeStrings) task("query (members)", "query (members)", strings, (f) => {
    for (const key of keys) lib.has(f, key);
  }, strings.filter);
  if (timeStrings) task("query (absent)", "query (absent)", strings, (f) => {
    for (const key of probes) lib.has(f, key);
  }, strings.filter);
  if (lib.remove) {
    task("remove", "remove", strings, (f) => {
      for (const key of keys) lib.remove(f, key);
    }, "full");
  }
  if (lib.batch) {
    const { packedKeys: pk, packedProbes: pp } = data;
    if (timeStrings) {
      task("addMany", "add", strings, (f) => f.addMany(keys), "empty");
      task("hasMany (members)", "query (members)", strings, (f) => f.hasMany(keys), strings.filter);
      task("hasMany (absent)", "query (absent)", strings, (f) => f.hasMany(probes), strings.filter);
    }
    task("addPacked", "add", strings, (f) => f.addPacked(pk.bytes, pk.ends), "empty");
    task("hasPacked (members)", "query (members)", strings, (f) => f.hasPacked(pk.bytes, pk.ends), strings.filter);
    task("hasPacked (absent)", "query (absent)", strings, (f) => f.hasPacked(pp.bytes, pp.ends), strings.filter);
    if (lib.remove) task("removeMany", "remove", strings, (f) => f.removeMany(keys), "full");
  }
  if (ints) {
    const { memberInts, absentInts } = data;
    const batch = lib.batch ? "Ints" : "";
    task(`add${batch} (u32)`, "add", ints, (f) => lib.ints.add(f, memberInts), "empty");
    task(`has${batch} (u32, members)`, "query (members)", ints, (f) => lib.ints.has(f, memberInts), ints.filter);
    task(`has${batch} (u32, absent)`, "query (absent)", ints, (f) => lib.ints.has(f, absentInts), ints.filter);
  }
  progress(`${label}: timing`);
  await bench.run();
  lib.drop(strings.filter);
  if (ints) lib.drop(ints.filter);
  return bench.tasks.map((t) => {
    if (!t.result || t.result.state !== "completed") throw new Error(`${lib.name} ${t.name} did not complete: ${t.result?.error ?? t.result?.state}`);
    const { kind, quality } = meta.get(t.name);
    const keyKind = quality === ints ? "int" : /Packed/.test(t.name) ? "bytes" : "string";
    const { fpr, bitsPerKey, stored, falseNegatives } = quality;
    return { lib: lib.name, op: t.name, kind, keyKind, n, nsPerKey: (t.result.latency.mean * 1e6) / n, fpr, bitsPerKey, stored, falseNegatives };
  });
}
