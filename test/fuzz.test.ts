// Seeded model-based random testing (test/fuzz-harness.mjs): every filter type
// and hashing strategy (triple, the default, and double, which records written
// before it keep), every key path (single keys as strings or bytes, arrays
// of strings, bytes or both, packed, lines with "\n" and "\r\n", integers,
// key hashes, the line callbacks, dedupLines), round trips in the middle of a
// sequence, folds, unions and intersections, against an exact model: no false
// negatives on any path, every path answers as hasMany does, testAndAdd says
// "present" for every key held, removes of held keys succeed and keep the rest,
// a refused cuckoo batch changes nothing, a cuckoo filter's size is the copies
// the model holds, removes of keys never added that count 0 answer 0 and change
// nothing, copies answer as the original.
// Keys include empty ones, lone surrogates (and their U+FFFD bytes), raw bytes
// with "\n" and "\r" inside, views at offsets, and 100 KB keys. A plain node
// loop over dist/ runs many more seeds: node test/fuzz-seeds.mjs (its head says how).
import { describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { configs, runBigSweep, runFuseSeed, runSeed } from "./fuzz-harness.mjs";

const all = configs(lib) as { name: string }[];

describe("seeded model-based fuzzing", () => {
  it.each(all.map((config, i) => ({ name: config.name, config, seed: 1000 + i })))("$name", async ({ config, seed }) => {
    await runSeed(lib, config, seed, { steps: 30, big: false });
    expect(true).toBe(true);
  });
  it.each(["bloom independent djb/sdbm/fnv1a_32", "bloom shared independent", "scalable", "counting 4", "cuckoo xxh3", "split-block shared"].map((name, i) => ({ name, seed: 77 + i })))(
    "$name with batches over 16,384 keys and 1 MiB",
    async ({ name, seed }) => {
      await runSeed(lib, all.find((config) => config.name === name), seed, { steps: 6, big: true });
    },
  );
  // Every route with one batch past both chunk limits: packed chunks of independent-strategy keys at offsets past the
  // batch area's address lost their bytes when copied to a shared area or a new layer (fixed in 8341006); this catches it.
  // (node scratch-sweep: every configuration over every route; here the byte-reading ones over the batch routes.)
  it.each(["bloom shared independent", "scalable independent"])("%s: batch routes with batches past both chunk limits", (name) => {
    runBigSweep(lib, all.find((config) => config.name === name), 5, { keys: 17000, routes: ["packed", "linesCRLF", "manyBytes"] });
  });
  it("BinaryFuseFilter over every route", async () => {
    for (let seed = 1; seed < 12; seed++) await runFuseSeed(lib, seed, { big: seed % 4 === 0 });
  });
});
