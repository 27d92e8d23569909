// `npm run bench:strings`: the ways to move a batch of JS strings into wasm
// memory as UTF-8 with their end offsets, the work addMany/hasMany do before
// any hashing. Chunks of 16,384 keys, as bindings/keys.ts sends them; strings
// built by template literals (V8 ropes, as most programs make them) and flat
// ones (split from one text, as read from a file). Writes bench/STRINGS.md.
import { writeFileSync } from "node:fs";
import { Bench } from "tinybench";
import { BloomFilter } from "bloomkit";
import { machine, progress, table } from "./report.mjs";
import { urls } from "./keys.mjs";

const N = 1_000_000;
const CHUNK = 1 << 14;
const memory = new Uint8Array(new WebAssembly.Memory({ initial: 256 }).buffer);
const asBuffer = Buffer.from(memory.buffer);
const ends = new Uint32Array(CHUNK);
const encoder = new TextEncoder();

/** Runs `write(keys, from, to)` over every chunk; it fills `memory` from 0 and `ends`. */
const chunked = (keys, write) => () => {
  for (let from = 0; from < keys.length; from += CHUNK) write(keys, from, Math.min(keys.length, from + CHUNK));
};

/** The chunk's end offsets from string lengths: byte offsets only when every key is ASCII. */
function charEnds(keys, from, to) {
  let chars = 0;
  for (let i = from; i < to; i++) ends[i - from] = chars += keys[i].length;
  return chars;
}

/** When a chunk is not all ASCII, the concatenating ways redo it key by key. */
function perKeyUtf8Write(keys, from, to) {
  let used = 0;
  for (let i = from; i < to; i++) ends[i - from] = used += asBuffer.utf8Write(keys[i], used);
}

const ways = {
  "Buffer#utf8Write per key (bloomkit's path in Node)": perKeyUtf8Write,
  "TextEncoder#encodeInto per key (bloomkit's path in browsers)": (keys, from, to) => {
    let used = 0;
    for (let i = from; i < to; i++) ends[i - from] = used += encoder.encodeInto(keys[i], memory.subarray(used, used + keys[i].length * 3)).written;
  },
  "Array#join + one encodeInto (ASCII: written = length)": (keys, from, to) => {
    const chars = charEnds(keys, from, to);
    if (encoder.encodeInto(keys.slice(from, to).join(""), memory.subarray(0, chars * 3)).written !== chars) perKeyUtf8Write(keys, from, to);
  },
  "Array#join + byteLength check + one latin1Write": (keys, from, to) => {
    const chars = charEnds(keys, from, to);
    const text = keys.slice(from, to).join("");
    if (Buffer.byteLength(text, "utf8") === chars) asBuffer.latin1Write(text, 0);
    else perKeyUtf8Write(keys, from, to);
  },
  "Array#join only (no write: the floor of joining)": (keys, from, to) => {
    charEnds(keys, from, to);
    keys.slice(from, to).join("");
  },
  "charCodeAt loop (ASCII assumed, no check)": (keys, from, to) => {
    let at = 0;
    for (let i = from; i < to; i++) {
      const key = keys[i];
      for (let c = 0; c < key.length; c++) memory[at++] = key.charCodeAt(c);
      ends[i - from] = at;
    }
  },
};

// ASCII keys (the non-ASCII host replaced) so that every way gives the same bytes.
progress("building keys");
const asciiUrls = () => urls(N, "member", 1).map((key) => key.replace("博客", "blog"));
const flat = asciiUrls().join("\n").split("\n");
const kinds = { "template-built (ropes)": asciiUrls, "flat (split from one text)": () => flat };

const rows = [];
for (const [kind, make] of Object.entries(kinds)) {
  const bench = new Bench({ iterations: 7, time: 0, warmupIterations: 1 });
  // Ropes are flattened in place by the first pass that reads them: each pass gets fresh ones.
  let keys;
  const fresh = { beforeEach: () => (keys = make()) };
  for (const [name, write] of Object.entries(ways)) bench.add(name, () => chunked(keys, write)(), fresh);
  const filter = BloomFilter.create(N, 0.01);
  bench.add("BloomFilter#hasMany (encode, hash and test)", () => filter.hasMany(keys), fresh);
  progress(`timing ${kind}`);
  await bench.run();
  filter.dispose();
  for (const t of bench.tasks) rows.push([kind, t.name, ((t.result.latency.mean * 1e6) / N).toFixed(1)]);
}
const result = table(["strings", "way", "ns/key"], rows);
console.log(result);

const env = machine();
writeFileSync(
  new URL("./STRINGS.md", import.meta.url),
  `# Moving strings into wasm memory

Written by \`npm run bench:strings\` (bench/strings.mjs) on ${env.date}: ${env.cpu}, ${env.cores} cores; Node ${env.node}, V8 ${env.v8}.

${N.toLocaleString("en-US")} URL-like ASCII keys (≈ ${Math.round(flat.reduce((s, k) => s + k.length, 0) / N)} bytes each), in chunks of ${CHUNK.toLocaleString("en-US")} keys as \`addMany\` sends them: each way writes a chunk's UTF-8 bytes into a wasm memory and its end offsets into a Uint32Array. Template-built strings are V8 ropes that the first read flattens, so every pass gets new ones; flat strings are split from one text, as lines read from a file are. Mean of 7 passes after a warm-up. The last row is the whole \`hasMany\` of a filter for the same keys.

${result}
`,
);
console.log("\nwrote bench/STRINGS.md");
