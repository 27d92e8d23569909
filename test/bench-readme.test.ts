// The README's speed figures ("Benchmarks", "Where it stands") are those of the
// checked-in reports: each is worked out here again from bench/RESULTS.md and
// bench/FUSE.md, rounded as the README writes it. A new full run rewrites the
// reports; this fails until the README says what that run measured.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("..", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");
const readmeText = read("README.md");
/** The README with its lines joined, for sentences that wrap. */
const readme = readmeText.replace(/\s+/g, " ");
const results = read("bench/RESULTS.md");
const fuse = read("bench/FUSE.md");

type Row = Record<string, string>;

/** The rows of every Markdown table in `text` between `from` and `to` (either omitted: the start or the end), as { header: cell }. */
function tableRows(text: string, from?: string, to?: string): Row[] {
  const start = from === undefined ? 0 : text.indexOf(from);
  const end = to === undefined ? text.length : text.indexOf(to, start);
  expect(start, `${from} in the report`).toBeGreaterThanOrEqual(0);
  expect(end, `${to} in the report`).toBeGreaterThan(start);
  const rows: Row[] = [];
  let header: string[] | undefined;
  for (const line of text.slice(start, end).split("\n").map((text) => text.trim())) {
    if (!line.startsWith("|")) {
      header = undefined;
      continue;
    }
    const cells = line.split("|").slice(1, -1).map((cell) => cell.trim());
    if (header === undefined) header = cells;
    else if (!/^:?-+:?$/.test(cells[0])) rows.push(Object.fromEntries(header.map((name, i) => [name, cells[i]])));
  }
  return rows;
}

const NODES = ["Node 20", "Node 24"];
const section1 = tableRows(results, "## 1. Every filter type", "## 2.");

/** Section 1's row of `lib` and `op`. */
function row(lib: string, op: string): Row {
  const found = section1.find((r) => r.library === lib && r.operation === op);
  if (!found) throw new Error(`bench/RESULTS.md section 1 has no row ${lib} ${op}`);
  return found;
}

/** How the README writes a range of ratios: "a–b×", or "a×" when both ends round alike, at the README's digits. */
function matches(written: string, ratios: number[]): boolean {
  const parts = /^([\d.]+)(?:–([\d.]+))?×$/.exec(written);
  if (!parts) throw new Error(`not a ratio: ${written}`);
  const [, low, high = low] = parts;
  const digits = (text: string) => text.split(".")[1]?.length ?? 0;
  return Math.min(...ratios).toFixed(digits(low)) === low && Math.max(...ratios).toFixed(digits(high)) === high;
}

/** The median of `xs`: the middle one, or the mean of the middle two. */
function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const bk = (name: string) => `bloomkit ${name}`;
const SINGLE = ["add", "query (members)", "query (absent)"];
const BATCH = ["addMany", "hasMany (members)", "hasMany (absent)"];

describe("README, where it stands: bench/RESULTS.md's figures", () => {
  // Each line of the README's table: the filters its "a / b" cells name, in order, and the rows each range covers.
  const lines: [string, string[], string[]][] = [
    ["`addMany`/`hasMany` strings, standard / split-block", [bk("BloomFilter"), bk("SplitBlockBloomFilter")], BATCH],
    ["single-key `add`/`has` strings, standard / split-block", [bk("BloomFilter"), bk("SplitBlockBloomFilter")], SINGLE],
    ["`addPacked`/`hasPacked`, standard", [bk("BloomFilter")], ["addPacked", "hasPacked (members)", "hasPacked (absent)"]],
    ["`hasInts` (u32), standard / split-block", [bk("BloomFilter"), bk("SplitBlockBloomFilter")], ["hasInts (u32, members)", "hasInts (u32, absent)"]],
    ["scalable / counting / cuckoo, single key", [bk("ScalableBloomFilter"), bk("CountingBloomFilter"), bk("CuckooFilter")], SINGLE],
    ["scalable / counting / cuckoo, `addMany`/`hasMany`", [bk("ScalableBloomFilter"), bk("CountingBloomFilter"), bk("CuckooFilter")], BATCH],
    ["counting / cuckoo `addInts`", [bk("CountingBloomFilter"), bk("CuckooFilter")], ["addInts (u32)"]],
  ];
  const table = tableRows(readmeText, "| path | Node 20 | Node 24 |");

  it.each(lines)("%s", (path, libs, ops) => {
    const line = table.find((r) => r.path === path);
    expect(line, `the README's line ${path}`).toBeDefined();
    for (const node of NODES) {
      const cells = line![node].split(" / ");
      expect(cells).toHaveLength(libs.length);
      libs.forEach((lib, i) => {
        const ratios = ops.map((op) => Number.parseFloat(row(lib, op)[`vs bloomfilter ${node}`]));
        expect(matches(cells[i], ratios), `${lib} under ${node}: README ${cells[i]}, RESULTS.md ${ratios.join(", ")}`).toBe(true);
      });
    }
  });

  it("hasInts against bloomfilter's own integer calls", () => {
    const sentence = /`hasInts` is ([\d.–]+×) \/ ([\d.–]+×) for the standard filter and ([\d.–]+×) \/ ([\d.–]+×) for the split-block filter/.exec(readme);
    expect(sentence).not.toBeNull();
    const [, ...cells] = sentence!;
    // Time over time from Mops/s, the column with the most digits: bloomfilter's has(number) over bloomkit's hasInts.
    const ratios = (lib: string, node: string) =>
      ["members", "absent"].map((kind) => Number(row(lib, `hasInts (u32, ${kind})`)[`Mops/s ${node}`]) / Number(row("bloomfilter", `has (u32, ${kind})`)[`Mops/s ${node}`]));
    const expected = [ratios(bk("BloomFilter"), "Node 20"), ratios(bk("BloomFilter"), "Node 24"), ratios(bk("SplitBlockBloomFilter"), "Node 20"), ratios(bk("SplitBlockBloomFilter"), "Node 24")];
    cells.forEach((cell, i) => expect(matches(cell, expected[i]), `README ${cell}, RESULTS.md ${expected[i].map((x) => x.toFixed(3)).join(", ")}`).toBe(true));
  });
});

describe("README, bench:fuse: bench/FUSE.md's run against section 5 of bench/RESULTS.md's", () => {
  it("its rows' time over the same rows of the later run: range and median per Node", () => {
    const sentence = /its rows took ([\d.–]+×) the time of the same rows in section 5 of the suite's run of [\d-]+ above, median ([\d.]+)× under Node 20 and ([\d.]+)× under Node 24/.exec(readme);
    expect(sentence).not.toBeNull();
    const [, range, ...medians] = sentence!;
    const section5 = tableRows(results, "## 5. Static sets", "| target ");
    const fuseRows = tableRows(fuse, undefined, "## Issue 18");
    const ratios = NODES.map((node) =>
      fuseRows.map((f) => {
        const later = section5.find((r) => r.library === f.library && r.operation === f.operation && r.n === f.n);
        if (!later) throw new Error(`section 5 has no row ${f.library} ${f.operation} at ${f.n}`);
        return Number(f[`ns/key ${node}`]) / Number(later[`ns/key ${node}`]);
      }),
    );
    expect(matches(range, ratios.flat()), `README ${range}`).toBe(true);
    NODES.forEach((node, i) => expect(median(ratios[i]).toFixed(1), `the median under ${node}`).toBe(medians[i]));
  });
});
