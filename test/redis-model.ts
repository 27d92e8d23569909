// The model test of a RedisBloomFilter: a seeded random sequence of every
// operation on it and on a local twin, shared by the single-server and the
// cluster tests.
import { expect } from "vitest";
import { BloomFilter } from "../bindings/index.js";
import { resolveHashing } from "../bindings/hashing.js";
import type { RedisBloomFilter } from "../bindings/redis/index.js";
import { firstDifference, ones, rng, urls } from "./helpers.js";

const encoder = new TextEncoder();

/** A local filter with the Redis filter's parameters and segments. */
export function localTwin(filter: RedisBloomFilter): BloomFilter {
  return BloomFilter.inSegments(filter.bits, filter.hashes, resolveHashing({ hash: filter.hash, seed: filter.seed, strategy: filter.strategy }), filter.segmentCount);
}

/**
 * A seeded random sequence of every operation, on the Redis filter and on
 * its local twin: identical answers each time, and no false negative
 * against an exact Set.
 */
export async function sameAsLocal(filter: RedisBloomFilter, seed: number, steps = 40): Promise<BloomFilter> {
  const local = localTwin(filter);
  const random = rng(seed);
  const added = new Set<string>();
  const addedInts = new Set<number>();
  const pool = urls(3000, `model-${seed}`, seed);
  const pick = (n: number) => Array.from({ length: n }, () => pool[Math.floor(random() * pool.length)]);
  const pickInts = (n: number) => Uint32Array.from({ length: n }, () => Math.floor(random() * 5000));
  for (let step = 0; step < steps; step++) {
    const op = Math.floor(random() * 11);
    const keys = pick(1 + Math.floor(random() * 300));
    const lines = encoder.encode(keys.join(random() < 0.5 ? "\n" : "\r\n") + (random() < 0.5 ? "\n" : ""));
    const ints = pickInts(1 + Math.floor(random() * 300));
    switch (op) {
      case 0:
        expect(await filter.add(keys[0])).toBe(filter);
        local.add(keys[0]);
        added.add(keys[0]);
        break;
      case 1:
        expect(await filter.has(keys[0])).toBe(local.has(keys[0]));
        break;
      case 2:
        expect(await filter.testAndAdd(keys[0])).toBe(local.testAndAdd(keys[0]));
        added.add(keys[0]);
        break;
      case 3:
        expect(await filter.addMany(keys)).toBe(filter);
        local.addMany(keys);
        keys.forEach((key) => added.add(key));
        break;
      case 4:
        expect(await filter.hasMany(keys)).toEqual(local.hasMany(keys));
        break;
      case 5:
        expect(await filter.testAndAddMany(keys)).toEqual(local.testAndAddMany(keys));
        keys.forEach((key) => added.add(key));
        break;
      case 6:
        expect(await filter.addLines(lines)).toBe(filter);
        local.addLines(lines);
        keys.forEach((key) => added.add(key));
        break;
      case 7:
        expect(await filter.hasLines(lines)).toEqual(local.hasLines(lines));
        break;
      case 8:
        expect(await filter.testAndAddLines(lines)).toEqual(local.testAndAddLines(lines));
        keys.forEach((key) => added.add(key));
        break;
      case 9:
        expect(await filter.addInts(ints)).toBe(filter);
        local.addInts(ints);
        ints.forEach((key) => addedInts.add(key));
        break;
      case 10:
        expect(await filter.hasInts(ints)).toEqual(local.hasInts(ints));
        expect(await filter.testAndAddInts(ints)).toEqual(local.testAndAddInts(ints));
        ints.forEach((key) => addedInts.add(key));
        break;
    }
  }
  expect(ones(await filter.hasMany([...added]))).toBe(added.size);
  expect(ones(await filter.hasInts(Uint32Array.from(addedInts)))).toBe(addedInts.size);
  const probes = urls(5000, `probe-${seed}`, seed + 1);
  expect(await filter.hasMany(probes)).toEqual(local.hasMany(probes));
  // The bits themselves, byte for byte, and the estimate from them.
  const copy = await filter.toBloomFilter();
  expect(firstDifference(copy.bitArray(), local.bitArray())).toBe(-1);
  expect(await filter.size()).toBe(Math.round(local.estimatedCount()));
  copy.dispose();
  return local;
}
