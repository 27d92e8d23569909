// What the CLI may use: --memory is honoured up to the memory the machine has
// free, and sizes are rounded to what a filter of that many bits accepts.
import { availableParallelism, freemem } from "node:os";
import { MAX_FILTER_BITS, MAX_SEGMENT_BITS } from "bloomkit";
import { CliError } from "./args.js";
import { formatBytes } from "./words.js";

/** Bytes the system can still give this process (a container's limit included where Node knows it). */
export function freeMemory(): number {
  const available = (process as { availableMemory?: () => number }).availableMemory?.();
  return available !== undefined && available > 0 ? Math.min(available, freemem() || available) : freemem();
}

/** --memory as given, or a one-line error when the machine cannot give that much now. */
export function checkMemory(memory: number): number {
  const free = freeMemory();
  if (memory > free) throw new CliError(`--memory ${formatBytes(memory)} is more than the ${formatBytes(free)} of memory free on this machine`);
  return memory;
}

/**
 * The largest m ≤ `bits` that BloomFilter.withSize takes: any m up to one
 * segment (one wasm memory), above that a multiple of 64 times the segments.
 */
export function bloomBits(bits: number): number {
  const m = Math.max(64, Math.min(MAX_FILTER_BITS, Math.floor(bits)));
  if (m <= MAX_SEGMENT_BITS) return m;
  const segments = Math.ceil(m / MAX_SEGMENT_BITS);
  return Math.floor(m / (64 * segments)) * 64 * segments;
}

/** Cores to use by default. */
export function cores(): number {
  return availableParallelism();
}
