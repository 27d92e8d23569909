// Issue 6's targets, checked against the rows of one `npm run bench` run, with
// the measurements of that run that show what limits a missed one.
import { table } from "./report.mjs";

const fmt = (x) => x.toFixed(1);

/** The row of `lib` and `op` in `section`, or undefined. */
function find(rows, section, lib, op) {
  return rows.find((r) => r.section === section && r.lib === lib && r.op === op);
}

/**
 * Markdown: a table of the targets (each against the same run's `bloomfilter`
 * row of the same kind) and, for every one missed, the floor measured in the
 * run that keeps it out of reach. `sbbf` = { measured, expected } FPR; `bytesPerKey` of the URL keys.
 */
export function targetsReport(rows, { sbbf, bytesPerKey }) {
  const peer = (section, kind) => rows.find((r) => r.section === section && r.lib === "bloomfilter" && r.kind === kind && r.keyKind === "string");
  const checks = [];
  const check = (target, section, lib, op, wantRatio, wantNs) => {
    const row = find(rows, section, lib, op);
    if (!row) return;
    const base = peer(section === "huge" ? "large" : section, row.kind);
    const ratio = base ? base.nsPerKey / row.nsPerKey : NaN;
    const met = wantNs !== undefined && wantRatio === undefined ? row.nsPerKey < wantNs : ratio >= wantRatio;
    checks.push({ target, lib: lib.replace("bloomkit ", ""), op, ns: row.nsPerKey, ratio, met });
  };
  for (const lib of ["bloomkit BloomFilter", "bloomkit SplitBlockBloomFilter"]) {
    check("strings ≥ 2×", "small", lib, "addMany", 2);
    check("strings ≥ 2×", "small", lib, "hasMany (absent)", 2);
    check("strings ≥ 2×", "small", lib, "hasMany (members)", 2);
  }
  for (const lib of ["bloomkit BloomFilter", "bloomkit SplitBlockBloomFilter"]) {
    check("packed bytes ≥ 10×", "small", lib, "addPacked", 10);
    check("packed bytes ≥ 10×", "small", lib, "hasPacked (absent)", 10);
    check("packed bytes ≥ 10×", "small", lib, "hasPacked (members)", 10);
  }
  for (const lib of ["bloomkit BloomFilter", "bloomkit SplitBlockBloomFilter"]) {
    check("u32 keys ≥ 40×", "small", lib, "addInts (u32)", 40);
    check("u32 keys ≥ 40×", "small", lib, "hasInts (u32, absent)", 40);
    check("u32 keys ≥ 40×", "small", lib, "hasInts (u32, members)", 40);
  }
  for (const lib of ["bloomkit BloomFilter (1 GiB)", "bloomkit SplitBlockBloomFilter (1 GiB)"]) {
    check("u32 keys < 40 ns, 1 GiB filter", "huge", lib, "addInts (u32)", undefined, 40);
    check("u32 keys < 40 ns, 1 GiB filter", "huge", lib, "hasInts (u32, absent)", undefined, 40);
    check("u32 keys < 40 ns, 1 GiB filter", "huge", lib, "hasInts (u32, members)", undefined, 40);
  }
  const sbbfMet = Math.abs(sbbf.measured - sbbf.expected) / sbbf.expected <= 0.1;
  const body = checks.map((c) => [c.target, c.lib, c.op, fmt(c.ns), Number.isNaN(c.ratio) ? "" : `${c.ratio.toFixed(2)}×`, c.met ? "met" : "missed"]);
  body.push([
    "split-block FPR within 10% of the spec",
    "SplitBlockBloomFilter",
    `FPR ${(sbbf.measured * 100).toFixed(3)}% vs ${(sbbf.expected * 100).toFixed(3)}%`,
    "",
    "",
    sbbfMet ? "met" : "missed",
  ]);

  // The floors, from the same run.
  const small = (lib, op) => find(rows, "small", lib, op);
  const encode = small("(baseline)", "UTF-8 encode only");
  const hashOnly = small("(baseline)", "xxh64 of the packed keys only");
  const jsAdd = peer("small", "add");
  const jsAbsent = peer("small", "query (absent)");
  const notes = [];
  const missed = (prefix) => checks.some((c) => c.target.startsWith(prefix) && !c.met);
  if (missed("strings") && encode && jsAdd) {
    notes.push(
      `- **Strings.** Writing the strings into a buffer as UTF-8, and nothing else, takes ${fmt(encode.nsPerKey)} ns/key in this run ` +
        `(one \`Buffer#utf8Write\` per key, the cheapest way measured: [STRINGS.md](STRINGS.md)); \`bloomfilter\`'s whole add takes ${fmt(jsAdd.nsPerKey)} and its query of an absent key ${fmt(jsAbsent.nsPerKey)}. ` +
        `So a string path cannot be more than ${(jsAdd.nsPerKey / encode.nsPerKey).toFixed(2)}× faster on adds before it hashes anything. ` +
        `The rest of a batch row is the wasm work (the packed rows) and the per-key JavaScript around the encoder.`,
    );
  }
  if (missed("packed") && hashOnly && jsAdd) {
    notes.push(
      `- **Packed bytes.** xxh64 of the same ${bytesPerKey}-byte keys alone, in one wasm call per chunk, takes ${fmt(hashOnly.nsPerKey)} ns/key here; ` +
        `10× \`bloomfilter\` would leave ${fmt(jsAdd.nsPerKey / 10)} ns/key for the hash and the filter together. ` +
        `A standard filter then touches k = 7 words at random (the split-block filter one 32-byte block), which the rows for integer keys, whose hash is three multiplies, price on their own.`,
    );
  }
  if (missed("u32 keys ≥")) {
    const std = small("bloomkit BloomFilter", "hasInts (u32, absent)");
    const sb = small("bloomkit SplitBlockBloomFilter", "hasInts (u32, absent)");
    if (std && sb) {
      notes.push(
        `- **Integer keys.** The hash is three multiplies; what remains is memory: the standard filter reads up to k = 7 words at random per key ` +
          `(${fmt(std.nsPerKey)} ns/key for absent keys) where the split-block filter reads one 32-byte block with SIMD (${fmt(sb.nsPerKey)} ns/key). ` +
          `Where the standard filter misses, the split-block filter is the one to use for integer keys.`,
      );
    }
  }
  if (missed("u32 keys < 40")) {
    const parts = ["bloomkit BloomFilter", "bloomkit SplitBlockBloomFilter"].map((lib) => {
      const inCache = find(rows, "large", lib, "hasInts (u32, absent)");
      const huge = find(rows, "huge", `${lib} (1 GiB)`, "hasInts (u32, absent)");
      return inCache && huge ? `${lib.replace("bloomkit ", "")} ${fmt(inCache.nsPerKey)} → ${fmt(huge.nsPerKey)} ns/key` : "";
    });
    notes.push(
      "- **1 GiB filters.** Every key's words or block miss the caches and the TLB; the grouped loops overlap sixteen keys' misses. " +
        `The same keys' absent queries in section 2's filters against the 1 GiB ones price the misses: ${parts.filter(Boolean).join(", ")}.`,
    );
  }
  if (!sbbfMet) notes.push(`- **Split-block FPR** is off by more than 10%: measured ${(sbbf.measured * 100).toFixed(3)}%, expected ${(sbbf.expected * 100).toFixed(3)}%.`);
  return `${table(["target", "filter", "operation", "ns/key", "vs bloomfilter", "result"], body)}\n\n${notes.join("\n")}`;
}
