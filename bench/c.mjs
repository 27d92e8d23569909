// The plain-C reference point of `npm run bench` (bench/c/sbbf.c): compiled
// with gcc -O3 -march=native against Debian's libxxhash into bench/.cache/
// when both are installed, skipped with a note otherwise. C does not depend
// on Node: the bench runs it once, beside the suites of every Node.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { SplitBlockBloomFilter } from "bloomkit";
import { pack, urls } from "./keys.mjs";
import { progress } from "./report.mjs";

const cache = new URL("./.cache/", import.meta.url).pathname;
const source = new URL("./c/sbbf.c", import.meta.url).pathname;
const binary = `${cache}sbbf-c`;

/** Why the C program cannot be built here, or undefined when it can. */
function missing() {
  if (spawnSync("gcc", ["--version"]).status !== 0) return "gcc is not installed";
  if (!existsSync("/usr/include/xxhash.h")) return "libxxhash-dev is not installed (apt-get install libxxhash-dev)";
  return undefined;
}

/** Writes packed keys as the C program reads them: u32 count, the u32 ends, the bytes. */
function writeKeys(path, packed) {
  const head = new Uint32Array(1 + packed.ends.length);
  head[0] = packed.ends.length;
  head.set(packed.ends, 1);
  writeFileSync(path, Buffer.concat([Buffer.from(head.buffer), Buffer.from(packed.bytes)]));
}

/**
 * Runs the C split-block filter on the same packed keys and probes, in a
 * filter of `blocks` blocks, and integer keys 0 … ints − 1 in one of
 * `hugeBlocks` blocks: ns per key for each query, and the hits (the false
 * positives of the same algorithm must be the same as bloomkit's). Returns
 * { skipped: reason } where it cannot be built.
 */
export function cReference({ packedKeys, packedProbes, blocks, hugeBlocks, ints }) {
  const reason = missing();
  if (reason) return { skipped: reason };
  mkdirSync(cache, { recursive: true });
  progress("C reference: compiling");
  // After an hour of the suite, a C program that does not build or run is a skipped section with its reason, not a crash.
  try {
    execFileSync("gcc", ["-O3", "-march=native", "-o", binary, source, "-lxxhash"], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    return { skipped: `gcc could not build bench/c/sbbf.c: ${firstLine(error)}` };
  }
  writeKeys(`${cache}c-keys.bin`, packedKeys);
  writeKeys(`${cache}c-probes.bin`, packedProbes);
  progress("C reference: running");
  try {
    const out = execFileSync(binary, [`${cache}c-keys.bin`, `${cache}c-probes.bin`, String(blocks), String(hugeBlocks), String(ints)], { encoding: "utf8" });
    return JSON.parse(out);
  } catch (error) {
    return { skipped: `the C program failed: ${firstLine(error)}` };
  }
}

/** The first line of a failed command's error output, or of its message. */
function firstLine(error) {
  const text = String(error.stderr ?? "").trim() || String(error.message);
  return text.split("\n")[0];
}

/** Sum of a 0/1 array. */
function ones(flags) {
  let total = 0;
  for (let i = 0; i < flags.length; i++) total += flags[i];
  return total;
}

/**
 * The C section: the C program on the suite's own keys (n URL keys and n
 * absent ones, as bench/filters.mjs makes them) in a split-block filter of
 * SplitBlockBloomFilter.create(n, p)'s blocks, and integer keys 0 … ints − 1
 * (absent: ints … 2·ints − 1) in one of `hugeBlocks` blocks, as section 3's
 * 1 GiB filter; beside it bloomkit's hits on the same filters, built here,
 * which must be the same counts. Returns { skipped: reason } without gcc or libxxhash.
 */
export function cSection({ n, p, hugeBlocks, ints }) {
  const reason = missing();
  if (reason) return { skipped: reason };
  progress("C reference: building keys");
  const encoder = new TextEncoder();
  const packedKeys = pack(urls(n, "member", 1).map((key) => encoder.encode(key)));
  const packedProbes = pack(urls(n, "absent", 2).map((key) => encoder.encode(key)));
  const small = SplitBlockBloomFilter.create(n, p).addPacked(packedKeys.bytes, packedKeys.ends);
  const blocks = small.blocks;
  const bloomkit = {
    memberHits: ones(small.hasPacked(packedKeys.bytes, packedKeys.ends)),
    absentHits: ones(small.hasPacked(packedProbes.bytes, packedProbes.ends)),
  };
  small.dispose();
  progress("C reference: bloomkit's hits in the large filter");
  const memberInts = Uint32Array.from({ length: ints }, (_, i) => i);
  const absentInts = Uint32Array.from({ length: ints }, (_, i) => ints + i);
  const huge = SplitBlockBloomFilter.withSize(hugeBlocks).addInts(memberInts);
  bloomkit.hugeMemberHits = ones(huge.hasInts(memberInts));
  bloomkit.hugeAbsentHits = ones(huge.hasInts(absentInts));
  huge.dispose();
  // The small filter's blocks with the integers 0 … n − 1: unlike the 1 GiB filter, it answers some absent integers present.
  const smallMembers = Uint32Array.from({ length: n }, (_, i) => i);
  const smallInts = SplitBlockBloomFilter.withSize(blocks).addInts(smallMembers);
  bloomkit.smallIntMemberHits = ones(smallInts.hasInts(smallMembers));
  bloomkit.smallIntAbsentHits = ones(smallInts.hasInts(Uint32Array.from({ length: n }, (_, i) => n + i)));
  smallInts.dispose();
  const c = cReference({ packedKeys, packedProbes, blocks, hugeBlocks, ints });
  return { n, ints, blocks, hugeBlocks, c, bloomkit };
}
