// bench/libs.mjs's peers, as bench/measure.mjs measures their quality for
// bench/RESULTS.md: their bits/key count at least what they hold. Run in a
// child process, since the heap is measured after gc() (node --expose-gc).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

/** bits/key of bench/libs.mjs's deletable filters at `n` keys, measured as section 4 measures them, in its order. */
function deletableBitsPerKey(n: number): Record<string, number> {
  const script = `
    import { optimal } from "bloomkit";
    import { deletableLibs } from "./bench/libs.mjs";
    import { stringQuality } from "./bench/measure.mjs";
    import { urls } from "./bench/keys.mjs";
    const n = ${n}, p = 0.01;
    const keys = urls(n, "member", 1), probes = urls(n, "absent", 2);
    const out = {};
    for (const lib of deletableLibs(n, p, optimal({ n, p }))) out[lib.name] = stringQuality(lib, keys, probes).bitsPerKey;
    console.log(JSON.stringify(out));
  `;
  return JSON.parse(execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { cwd: root, encoding: "utf8" }));
}

describe("bench/libs.mjs: the deletable filters' bits/key", () => {
  it("bloom-filters' counting filter counts at least the two 64-bit numbers it holds per counter; bloomkit's its 4-bit counters", async () => {
    const n = 2_000;
    const bloomFilters = (await import("bloom-filters")).default;
    const { optimal } = await import("bloomkit");
    const { m, k } = optimal({ n, p: 0.01 });
    // What one counter of bloom-filters' counting filter is: [bit, count].
    const counter = (new bloomFilters.CountingBloomFilter(m, k) as unknown as { _filter: unknown[][] })._filter[0];
    expect(counter).toEqual([0, 0]);
    const bits = deletableBitsPerKey(n);
    expect(bits["bloom-filters CountingBloomFilter"]).toBeGreaterThanOrEqual((counter.length * 64 * m) / n);
    expect(bits["bloomkit CountingBloomFilter"]).toBeCloseTo((4 * m) / n, 6);
  });
});
