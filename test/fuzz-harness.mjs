// Seeded model-based random testing of every filter type over every key path.
// Takes the library as an argument so the same harness runs from vitest (over
// bindings/) and from a plain node loop over many seeds (over dist/).
import { rng } from "../bench/keys.mjs";

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });
const idOf = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");

export class Failure extends Error {}
function check(condition, message) {
  if (!condition) throw new Failure(message);
}
const describeKey = (key) => (key.str !== null ? JSON.stringify(key.str.length > 60 ? `${key.str.slice(0, 60)}…(${key.str.length})` : key.str) : `bytes[${key.bytes.length}]`);

/** A key: its UTF-8 bytes, a string that encodes to them (or null), and its model id. */
function fromString(str) {
  const bytes = encoder.encode(str);
  return { str, bytes, id: idOf(bytes) };
}
function fromBytes(bytes) {
  let str = null;
  try {
    const decoded = strictDecoder.decode(bytes);
    if (idOf(encoder.encode(decoded)) === idOf(bytes)) str = decoded;
  } catch {}
  return { str, bytes, id: idOf(bytes) };
}

const PIECES = ["a", "z", "0", "/", ".", "é", "例", "🙂", "\ud800", "\udfff", "\ud83d", "\r", " ", "\t", "\u0000", "\ufffd"];

/** Key generators: short, empty, non-ASCII, lone surrogates, raw bytes, with "\n" or "\r" inside, long (100 KB). */
function makeKeyFactory(random, tag, opts) {
  let serial = 0;
  const pool = [];
  const one = () => {
    const r = random();
    if (pool.length > 0 && r < 0.25) return pool[Math.floor(random() * pool.length)];
    let key;
    if (r < 0.5) key = fromString(`${tag}${serial++}`);
    else if (r < 0.53) key = fromString("");
    else if (r < 0.75) {
      let s = `${tag}${serial++}`;
      const n = Math.floor(random() * 12);
      for (let i = 0; i < n; i++) s = random() < 0.5 ? s + PIECES[Math.floor(random() * PIECES.length)] : PIECES[Math.floor(random() * PIECES.length)] + s;
      key = fromString(s);
    } else if (r < 0.8) {
      // A lone surrogate and its U+FFFD bytes are one key: sometimes hand the other spelling.
      const s = `${tag}${serial++}\ud800`;
      key = random() < 0.5 ? fromString(s) : fromBytes(encoder.encode(s));
      if (random() < 0.5 && key.str !== null) key = { ...key, str: `${tag}${serial - 1}\ufffd` };
    } else if (r < 0.95) {
      const bytes = new Uint8Array(Math.floor(random() * 48));
      for (let i = 0; i < bytes.length; i++) bytes[i] = random() < 0.1 ? [10, 13, 0, 255][Math.floor(random() * 4)] : Math.floor(random() * 256);
      const prefix = encoder.encode(`${tag}${serial++}`);
      const whole = new Uint8Array(prefix.length + bytes.length);
      whole.set(prefix);
      whole.set(bytes, prefix.length);
      key = fromBytes(whole);
    } else if (opts.huge && r > 0.997) {
      // Longer than the default 1 MiB batch area: by bytes, by a string whose 3-byte bound passes it but not its bytes, or CJK.
      const which = Math.floor(random() * 3);
      if (which === 0) {
        const bytes = new Uint8Array((1 << 20) + 1 + Math.floor(random() * 300000)).fill(97);
        bytes.set(encoder.encode(`${tag}${serial++}`));
        key = fromBytes(bytes);
      } else if (which === 1) key = fromString(`${tag}${serial++}` + "q".repeat(350_000 + Math.floor(random() * 10)));
      else key = fromString(`${tag}${serial++}` + "例".repeat(350_000 + Math.floor(random() * 10)));
    } else if (opts.long && random() < 0.1) {
      const length = 100_000 + Math.floor(random() * 1000);
      const s = `${tag}${serial++}:` + "x".repeat(length) + (random() < 0.5 ? "例" : "\ud800");
      key = fromString(s);
    } else key = fromString(`${tag}${serial++}-${"y".repeat(Math.floor(random() * 200))}`);
    if (pool.length < 4000) pool.push(key);
    else pool[Math.floor(random() * pool.length)] = key;
    return key;
  };
  return one;
}

const lineSafe = (key, crlf) => !key.bytes.includes(10) && (crlf || key.bytes[key.bytes.length - 1] !== 13);

function packKeys(keys) {
  const total = keys.reduce((sum, key) => sum + key.bytes.length, 0);
  const bytes = new Uint8Array(total);
  const ends = new Uint32Array(keys.length);
  let at = 0;
  keys.forEach((key, i) => {
    bytes.set(key.bytes, at);
    at += key.bytes.length;
    ends[i] = at;
  });
  return { bytes, ends };
}

function linesOf(keys, crlf, terminateLast) {
  const eol = crlf ? [13, 10] : [10];
  const total = keys.reduce((sum, key) => sum + key.bytes.length + eol.length, 0);
  const buffer = new Uint8Array(total);
  let at = 0;
  for (const key of keys) {
    buffer.set(key.bytes, at);
    at += key.bytes.length;
    buffer.set(eol, at);
    at += eol.length;
  }
  // A last line needs no "\n" (unless it is empty, which would then be no line at all, or ends in "\r").
  const last = keys[keys.length - 1];
  if (!terminateLast && last && last.bytes.length > 0 && !crlf && last.bytes[last.bytes.length - 1] !== 13) return buffer.subarray(0, total - 1);
  return buffer;
}

const ROUTES = ["single", "manyStrings", "manyBytes", "manyMixed", "packed", "linesLF", "linesCRLF"];

/** Keys a route can carry (string routes need a string spelling; lines need no "\n"). */
function routeKeys(route, keys) {
  switch (route) {
    case "manyStrings":
      return keys.filter((key) => key.str !== null);
    case "linesLF":
    case "hashes":
    case "hashesInto":
    case "linesWithEnds":
    case "dedup":
    case "linesEach":
      return keys.filter((key) => lineSafe(key, false));
    case "linesCRLF":
      return keys.filter((key) => lineSafe(key, true));
    default:
      return keys;
  }
}

/** The same bytes in a view at a random offset of a larger buffer, sometimes a SharedArrayBuffer, sometimes a Buffer. */
function viewOf(bytes, random) {
  const r = random();
  if (r < 0.6) return bytes;
  const offset = Math.floor(random() * 9);
  const Backing = r < 0.75 ? SharedArrayBuffer : ArrayBuffer;
  const whole = new Uint8Array(new Backing(bytes.length + offset + 3));
  whole.set(bytes, offset);
  const view = whole.subarray(offset, offset + bytes.length);
  return r > 0.9 ? Buffer.from(view.buffer, view.byteOffset, view.length) : view;
}
function endsView(ends, random) {
  if (random() < 0.6) return ends;
  const whole = new Uint32Array(ends.length + 3);
  whole.set(ends, 2);
  return whole.subarray(2, 2 + ends.length);
}

/** Runs method family op ("has", "add", "testAndAdd", "remove", "count", "tryAdd") over keys via route; returns answers (numbers) or null. */
function runRoute(filter, op, keys, route, random) {
  const num = (value) => (typeof value === "boolean" ? Number(value) : value);
  const pick = (key) => (key.str !== null && random() < 0.5 ? key.str : viewOf(key.bytes, random));
  const arr = (result) => (result && typeof result.length === "number" && typeof result !== "string" ? Array.from(result) : null);
  switch (route) {
    case "single": {
      const out = keys.map((key) => num(filter[op](pick(key))));
      return op === "add" ? null : out;
    }
    case "manyStrings":
      return arr(filter[`${op}Many`](keys.map((key) => key.str)));
    case "manyBytes":
      return arr(filter[`${op}Many`](keys.map((key) => viewOf(key.bytes, random))));
    case "manyMixed":
      return arr(filter[`${op}Many`](keys.map(pick)));
    case "packed": {
      const { bytes, ends } = packKeys(keys);
      return arr(filter[`${op}Packed`](viewOf(bytes, random), endsView(ends, random)));
    }
    case "linesLF":
    case "linesCRLF": {
      const buffer = linesOf(keys, route === "linesCRLF", random() < 0.5);
      const out = arr(filter[`${op}Lines`](viewOf(buffer, random)));
      if (out !== null) check(out.length === keys.length, `${op}Lines gave ${out.length} answers for ${keys.length} lines`);
      return out;
    }
    case "hashes": {
      const buffer = linesOf(keys, random() < 0.5, random() < 0.5);
      const { hashes, ends } = filter.hashLines(buffer);
      check(hashes.length === keys.length && ends.length === keys.length, `hashLines gave ${hashes.length} hashes for ${keys.length} lines`);
      if (op === "add") {
        filter.addHashes(hashes);
        return null;
      }
      return arr(filter[`${op}Hashes`](hashes));
    }
    case "hashesInto": {
      const buffer = linesOf(keys, random() < 0.5, random() < 0.5);
      const room = Math.floor(random() * (keys.length + 3));
      const into = { hashes: new BigUint64Array(room), ends: new Uint32Array(room) };
      const { hashes, ends } = filter.hashLines(buffer, into);
      check(hashes.length === keys.length && ends.length === keys.length, `hashLines into gave ${hashes.length} hashes for ${keys.length} lines`);
      const plain = filter.hashLines(buffer);
      check(plain.hashes.every((h, i) => h === hashes[i]) && plain.ends.every((e, i) => e === ends[i]), "hashLines with and without into differ");
      if (op === "add") {
        filter.addHashes(hashes);
        return null;
      }
      const out = new Uint8Array(keys.length + Math.floor(random() * 4));
      return Array.from(filter[`${op}Hashes`](hashes, out));
    }
    case "linesWithEnds": {
      const crlf = random() < 0.5;
      const buffer = linesOf(keys, crlf, random() < 0.5);
      const { answers, ends } = filter.testAndAddLinesWithEnds(buffer);
      let at = 0;
      keys.forEach((key, i) => {
        at = Math.min(buffer.length, at + key.bytes.length + (crlf ? 2 : 1));
        check(ends[i] === at, `testAndAddLinesWithEnds: end ${i} is ${ends[i]}, expected ${at}`);
      });
      check(answers.length === keys.length, `testAndAddLinesWithEnds gave ${answers.length} answers for ${keys.length} lines`);
      return Array.from(answers);
    }
    case "dedup": {
      const crlf = random() < 0.5;
      const buffer = linesOf(keys, crlf, random() < 0.5);
      const parts = [];
      let lines = 0;
      let fresh = 0;
      filter.dedupLines(buffer, (newLines, newCount, lineCount) => {
        parts.push(newLines.slice());
        fresh += newCount;
        lines += lineCount;
      });
      check(lines === keys.length, `dedupLines counted ${lines} lines for ${keys.length}`);
      const all = Buffer.concat(parts);
      // The new lines are a subsequence of the buffer's lines, as they were: match them in order.
      const out = [];
      let at = 0;
      let from = 0;
      for (const key of keys) {
        const end = Math.min(buffer.length, from + key.bytes.length + (crlf ? 2 : 1));
        const raw = buffer.subarray(from, end);
        if (at + raw.length <= all.length && Buffer.from(raw).equals(all.subarray(at, at + raw.length))) {
          out.push(0);
          at += raw.length;
        } else out.push(1);
        from = end;
      }
      check(at === all.length && out.filter((a) => a === 0).length === fresh, `dedupLines: new lines do not match the buffer's (${at} of ${all.length} bytes, ${fresh} new)`);
      return out;
    }
    case "linesEach": {
      const buffer = linesOf(keys, random() < 0.5, random() < 0.5);
      const out = [];
      filter[`${op}LinesEach`](buffer, (answers) => out.push(...answers));
      check(out.length === keys.length, `${op}LinesEach gave ${out.length} answers for ${keys.length} lines`);
      return out;
    }
  }
  throw new Error(route);
}

/** Every configuration under test. */
export function configs(lib) {
  const { BloomFilter, SplitBlockBloomFilter, CountingBloomFilter, CuckooFilter, ScalableBloomFilter } = lib;
  /** The three ways back from a record, each passing on the round trip's options ({ shared: true } only for shared configurations). */
  const readers = (Type) => ({ load: (b, o) => Type.deserialize(b, o), loadChunks: (p, o) => Type.deserializeChunks(p, o), fromBase64: (t, o) => Type.fromBase64(t, o) });
  const bloom = (name, make, extra = {}) => ({ name, make, kind: "set", ints: true, hashes: true, each: true, dedup: true, ...readers(BloomFilter), ...extra });
  const indep = { ints: false, hashes: false };
  return [
    bloom("bloom xxh3", (n) => BloomFilter.create(n, 0.01)),
    bloom("bloom xxh64 seed", (n) => BloomFilter.create(n, 0.001, { hash: "xxh64", seed: 7 })),
    bloom("bloom murmur3_128", (n) => BloomFilter.create(n, 0.01, { hash: "murmur3_128", seed: 3 }), { hashes: false }),
    bloom("bloom fnv1a_64", (n) => BloomFilter.create(n, 0.01, { hash: "fnv1a_64" })),
    bloom("bloom independent djb/sdbm/fnv1a_32", (n) => BloomFilter.create(n, 0.01, { hash: ["djb", "sdbm", "fnv1a_32"] }), indep),
    bloom("bloom independent 7", (n) => BloomFilter.create(n, 0.01, { hash: ["murmur3_32", "fnv1a_32", "xxh32", "djb", "sdbm", "bkdr", "ap"] }), indep),
    bloom("bloom shared", (n) => BloomFilter.create(n, 0.01, { shared: true }), { shared: true }),
    bloom("bloom shared independent", (n) => BloomFilter.create(n, 0.01, { hash: ["djb", "sdbm", "fnv1a_32"], shared: true }), { ...indep, shared: true, noHuge: true }),
    bloom("bloom foldable", (n) => BloomFilter.create(n, 0.01, { foldable: true }), { fold: true }),
    bloom("bloom foldable independent", (n) => BloomFilter.create(n, 0.01, { foldable: true, hash: ["djb", "sdbm", "fnv1a_32"] }), { ...indep, fold: true }),
    bloom("bloom union", (n) => BloomFilter.create(n, 0.01), { algebra: true }),
    bloom("bloom union independent", (n) => BloomFilter.create(n, 0.01, { hash: ["djb", "sdbm", "fnv1a_32"] }), { ...indep, algebra: true }),
    {
      name: "split-block",
      make: (n) => SplitBlockBloomFilter.create(n, 0.01),
      kind: "set",
      ints: true,
      hashes: true,
      each: true,
      dedup: true,
      ...readers(SplitBlockBloomFilter),
    },
    {
      name: "split-block shared",
      make: (n) => SplitBlockBloomFilter.create(n, 0.01, { shared: true }),
      kind: "set",
      ints: true,
      hashes: true,
      each: true,
      dedup: true,
      shared: true,
      ...readers(SplitBlockBloomFilter),
    },
    ...[4, 8, 16].map((counterBits) => ({
      name: `counting ${counterBits}`,
      make: (n) => CountingBloomFilter.create(n, 0.01, { counterBits }),
      kind: "counting",
      ints: true,
      ...readers(CountingBloomFilter),
    })),
    {
      name: "counting independent",
      make: (n) => CountingBloomFilter.create(n, 0.01, { counterBits: 8, hash: ["djb", "sdbm", "fnv1a_32"] }),
      kind: "counting",
      ints: false,
      ...readers(CountingBloomFilter),
    },
    ...["xxh3", "xxh64", "murmur3_128"].map((hash) => ({
      name: `cuckoo ${hash}`,
      make: (n) => CuckooFilter.create(n, hash === "xxh64" ? 0.1 : 0.001, { hash }),
      kind: "cuckoo",
      ints: true,
      ...readers(CuckooFilter),
    })),
    {
      name: "cuckoo tiny",
      make: () => CuckooFilter.withSize(4, 8),
      kind: "cuckoo",
      ints: true,
      ...readers(CuckooFilter),
    },
    {
      name: "scalable",
      make: (n) => ScalableBloomFilter.create(Math.max(1, n >> 6), 0.01),
      kind: "set",
      ints: true,
      each: true,
      ...readers(ScalableBloomFilter),
    },
    {
      name: "scalable independent",
      make: (n) => ScalableBloomFilter.create(Math.max(1, n >> 6), 0.01, { hash: ["djb", "sdbm", "fnv1a_32"] }),
      kind: "set",
      ints: false,
      each: true,
      ...readers(ScalableBloomFilter),
    },
    // Double hashing (strategy 0), the default before triple hashing: records written with it keep it, so every
    // path of its own stepping (h3 = 0) is run against the model too. After the others, so their seeds stay.
    bloom("bloom double", (n) => BloomFilter.create(n, 0.01, { strategy: "double" })),
    bloom("bloom double murmur3_128", (n) => BloomFilter.create(n, 0.01, { strategy: "double", hash: "murmur3_128", seed: 3 }), { hashes: false }),
    bloom("bloom shared double", (n) => BloomFilter.create(n, 0.01, { strategy: "double", shared: true }), { shared: true }),
    bloom("bloom foldable double", (n) => BloomFilter.create(n, 0.01, { strategy: "double", foldable: true }), { fold: true }),
    bloom("bloom union double", (n) => BloomFilter.create(n, 0.01, { strategy: "double" }), { algebra: true }),
    ...[4, 16].map((counterBits) => ({
      name: `counting ${counterBits} double`,
      make: (n) => CountingBloomFilter.create(n, 0.01, { counterBits, strategy: "double" }),
      kind: "counting",
      ints: true,
      ...readers(CountingBloomFilter),
    })),
    {
      name: "scalable double",
      make: (n) => ScalableBloomFilter.create(Math.max(1, n >> 6), 0.01, { strategy: "double" }),
      kind: "set",
      ints: true,
      each: true,
      ...readers(ScalableBloomFilter),
    },
  ];
}

/**
 * One seeded run of `steps` operations on a filter of configuration `config`
 * against an exact model. Throws Failure (or the library's error) on the
 * first broken property; returns a log of the steps for reproduction.
 */
export async function runSeed(lib, config, seed, { steps = 40, big = true, long = true, log = [] } = {}) {
  const random = rng(seed);
  const nextKey = makeKeyFactory(random, `s${seed}-`, { long, huge: long && !config.noHuge });
  const capacity = [200, 5000, 60000][Math.floor(random() * 3)];
  let filter = config.make(capacity);
  let isShared = !!config.shared;
  const model = new Map(); // id -> copies (set-like: 0/1)
  const keysById = new Map();
  const intModel = new Map(); // bigint -> copies
  const counts = config.kind !== "set";
  const isCuckoo = config.kind === "cuckoo";
  const note = (text) => log.push(text);
  const held = () => [...model.entries()].filter(([, n]) => n > 0).map(([id]) => keysById.get(id));
  /** Copies the model holds in all: a cuckoo filter's size exactly (every stored add is one fingerprint, every remove one less). */
  const copiesHeld = () => [...model.values(), ...intModel.values()].reduce((sum, n) => sum + n, 0);

  const batchOf = () => {
    const r = random();
    let n;
    if (big && r < 0.08) n = 16384 + Math.floor(random() * 3000) - 1500;
    else if (big && r < 0.12) n = 12000; // with 100-byte keys: over 1 MiB
    else n = Math.floor(random() * 40);
    const keys = [];
    if (n === 12000) for (let i = 0; i < n; i++) keys.push(fromString(`${seed}-wide-${keys.length}-${random()}-${"w".repeat(80)}`));
    else for (let i = 0; i < n; i++) keys.push(nextKey());
    return keys;
  };
  const intBatch = () => {
    const n = big && random() < 0.08 ? 16384 + Math.floor(random() * 3000) - 1500 : Math.floor(random() * 30);
    const out = [];
    const known = [...intModel.keys()];
    for (let i = 0; i < n; i++) {
      if (known.length && random() < 0.3) out.push(known[Math.floor(random() * known.length)]);
      else if (random() < 0.5) out.push(BigInt(Math.floor(random() * 2 ** 32)));
      else out.push((BigInt(Math.floor(random() * 2 ** 32)) << 32n) | BigInt(Math.floor(random() * 2 ** 32)));
    }
    return out;
  };
  const record = (key) => keysById.set(key.id, key);
  const snapshot = () => (counts ? Buffer.from(filter.serialize()) : null);

  const routesFor = (op) => {
    const routes = [...ROUTES];
    if (config.hashes && (op === "has" || op === "add" || op === "testAndAdd")) routes.push("hashes", "hashesInto");
    if (config.dedup && op === "testAndAdd") routes.push("linesWithEnds", "dedup");
    if (config.each && (op === "has" || op === "testAndAdd")) routes.push("linesEach");
    return routes;
  };

  /** Every route answers has() the same for probes, and no held key answers absent. */
  const checkProbes = (target, probes, where) => {
    if (isCuckoo) check(target.size === copiesHeld(), `${where}: size ${target.size}, the model holds ${copiesHeld()} copies`);
    const reference = Array.from(target.hasMany(probes.map((key) => key.bytes)));
    probes.forEach((key, i) => {
      if ((model.get(key.id) ?? 0) > 0) check(reference[i] === 1, `${where}: false negative for ${describeKey(key)} (hasMany bytes)`);
    });
    const answerOf = new Map(probes.map((key, i) => [key.id, reference[i]]));
    for (const route of routesFor("has")) {
      const keys = routeKeys(route, probes);
      const got = runRoute(target, "has", keys, route, random);
      keys.forEach((key, i) => check(got[i] === answerOf.get(key.id), `${where}: has via ${route} of ${describeKey(key)} answered ${got[i]}, hasMany bytes ${answerOf.get(key.id)}`));
    }
    if (counts) {
      const countRef = Array.from(target.countMany(probes.map((key) => key.bytes)));
      probes.forEach((key, i) => {
        const copies = model.get(key.id) ?? 0;
        const bound = isCuckoo ? Math.min(copies, 8) : config.name.startsWith("counting 4") ? Math.min(copies, 15) : Math.min(copies, 255);
        check(countRef[i] >= bound, `${where}: count of ${describeKey(key)} is ${countRef[i]}, model ${copies}`);
        check((countRef[i] > 0) === (reference[i] === 1), `${where}: count ${countRef[i]} but has ${reference[i]} for ${describeKey(key)}`);
      });
      if (config.kind === "counting" && random() < 0.3) {
        const bloom = target.toBloomFilter();
        const got = Array.from(bloom.hasMany(probes.map((key) => key.bytes)));
        probes.forEach((key, i) => check(got[i] === reference[i], `${where}: toBloomFilter answers ${got[i]} for ${describeKey(key)}, the counting filter ${reference[i]}`));
        bloom.dispose();
      }
      for (const route of ["single", "packed", "linesCRLF"]) {
        const keys = routeKeys(route, probes);
        const got = runRoute(target, "count", keys, route, random);
        const countOf = new Map(probes.map((key, i) => [key.id, countRef[i]]));
        keys.forEach((key, i) => check(got[i] === countOf.get(key.id), `${where}: count via ${route} of ${describeKey(key)}: ${got[i]} vs ${countOf.get(key.id)}`));
      }
    }
    return reference;
  };
  const checkInts = (target, ints, where) => {
    if (!config.ints || ints.length === 0) return null;
    const wide = Array.from(target.hasInts(BigUint64Array.from(ints)));
    ints.forEach((value, i) => {
      if ((intModel.get(value) ?? 0) > 0) check(wide[i] === 1, `${where}: false negative for integer ${value}`);
    });
    const small = ints.filter((value) => value < 2n ** 32n);
    const narrow = Array.from(target.hasInts(Uint32Array.from(small, Number)));
    const wideOf = new Map(ints.map((value, i) => [value, wide[i]]));
    small.forEach((value, i) => check(narrow[i] === wideOf.get(value), `${where}: hasInts u32 ${value} = ${narrow[i]}, u64 ${wideOf.get(value)}`));
    return wide;
  };
  const probeSet = (extra = []) => {
    const h = held();
    const probes = [...extra];
    for (let i = 0; i < Math.min(300, h.length); i++) probes.push(h[Math.floor(random() * h.length)]);
    for (let i = 0; i < 30; i++) probes.push(fromString(`absent-${seed}-${Math.floor(random() * 1e9)}`));
    return probes;
  };

  /** Applies the model's effect of adds (plain or testAndAdd answers) of keys. */
  const applyAdds = (keys, answers, where, testAndAdd) => {
    const seen = new Set();
    keys.forEach((key, i) => {
      record(key);
      const before = model.get(key.id) ?? 0;
      if (testAndAdd) check(!(before > 0 || seen.has(key.id)) || answers[i] === 1, `${where}: testAndAdd of held ${describeKey(key)} answered ${answers[i]}`);
      seen.add(key.id);
      if (!counts) model.set(key.id, 1);
      else if (isCuckoo && testAndAdd) model.set(key.id, before + (answers[i] === 0 ? 1 : 0));
      else model.set(key.id, before + 1);
    });
  };

  for (let step = 0; step < steps; step++) {
    const op = random();
    const where = `${config.name} seed ${seed} step ${step}`;
    if (op < 0.3) {
      const route = routesFor("add")[Math.floor(random() * routesFor("add").length)];
      const keys = routeKeys(route, batchOf());
      note(`${step}: add ${keys.length} via ${route}`);
      const before = snapshot();
      const tryAdd = isCuckoo && random() < 0.3 && route !== "hashes";
      if (isCuckoo && route === "single") {
        // One key at a time: a full filter refuses that key alone, changing nothing.
        keys.forEach((key, i) => {
          record(key);
          const one = snapshot();
          const value = key.str !== null && random() < 0.5 ? key.str : key.bytes;
          let stored;
          try {
            stored = tryAdd ? filter.tryAdd(value) : (filter.add(value), true);
          } catch (error) {
            if (!(error instanceof RangeError)) throw error;
            stored = false;
          }
          if (stored) model.set(key.id, (model.get(key.id) ?? 0) + 1);
          else check(one.equals(Buffer.from(filter.serialize())), `${where}: a refused single add of ${describeKey(key)} (#${i}) changed the filter`);
        });
        continue;
      }
      let answers;
      try {
        answers = runRoute(filter, tryAdd ? "tryAdd" : "add", keys, route, random);
      } catch (error) {
        if (!(isCuckoo && error instanceof RangeError)) throw error;
        check(before.equals(Buffer.from(filter.serialize())), `${where}: a refused add via ${route} changed the filter`);
        note(`${step}: (cuckoo full: refused, unchanged)`);
        continue;
      }
      if (tryAdd) {
        check(answers.length === keys.length, `${where}: tryAdd answers`);
        keys.forEach((key, i) => {
          record(key);
          if (answers[i] === 1) model.set(key.id, (model.get(key.id) ?? 0) + 1);
        });
      } else applyAdds(keys, null, where, false);
    } else if (op < 0.5) {
      const route = routesFor("testAndAdd")[Math.floor(random() * routesFor("testAndAdd").length)];
      const keys = routeKeys(route, batchOf());
      note(`${step}: testAndAdd ${keys.length} via ${route}`);
      const before = snapshot();
      let answers;
      if (isCuckoo && route === "single") {
        const seen = new Set();
        keys.forEach((key, i) => {
          record(key);
          const one = snapshot();
          const held = (model.get(key.id) ?? 0) > 0;
          const had = held || seen.has(key.id);
          let answer;
          try {
            answer = filter.testAndAdd(key.str !== null && random() < 0.5 ? key.str : key.bytes);
          } catch (error) {
            if (!(error instanceof RangeError)) throw error;
            check(one.equals(Buffer.from(filter.serialize())), `${where}: a refused testAndAdd of ${describeKey(key)} (#${i}) changed the filter`);
            return;
          }
          if (had) check(answer === true, `${where}: testAndAdd of ${held ? "held" : "earlier stored"} ${describeKey(key)} (#${i}) answered ${answer}`);
          seen.add(key.id);
          if (!answer) model.set(key.id, (model.get(key.id) ?? 0) + 1);
        });
        continue;
      }
      try {
        answers = runRoute(filter, "testAndAdd", keys, route, random);
      } catch (error) {
        if (!(isCuckoo && error instanceof RangeError)) throw error;
        if (route === "single") throw new Failure(`${where}: single testAndAdd is run key by key`);
        check(before.equals(Buffer.from(filter.serialize())), `${where}: a refused testAndAdd via ${route} changed the filter`);
        note(`${step}: (cuckoo full)`);
        continue;
      }
      check(answers.length === keys.length, `${where}: ${answers.length} answers for ${keys.length} keys`);
      applyAdds(keys, answers, where, true);
    } else if (op < 0.6 && config.ints) {
      const ints = intBatch();
      const wide = random() < 0.5 || ints.some((value) => value >= 2n ** 32n);
      const array = wide ? BigUint64Array.from(ints) : Uint32Array.from(ints, Number);
      const test = random() < 0.5;
      note(`${step}: ${test ? "testAndAddInts" : "addInts"} ${ints.length} ${wide ? "u64" : "u32"}`);
      const before = snapshot();
      let answers;
      try {
        answers = test ? Array.from(filter.testAndAddInts(array)) : (filter.addInts(array), null);
      } catch (error) {
        if (!(isCuckoo && error instanceof RangeError)) throw error;
        check(before.equals(Buffer.from(filter.serialize())), `${where}: a refused int batch changed the filter`);
        continue;
      }
      const seen = new Set();
      ints.forEach((value, i) => {
        const had = intModel.get(value) ?? 0;
        if (test) check(!(had > 0 || seen.has(value)) || answers[i] === 1, `${where}: testAndAddInts of held ${value} answered ${answers[i]}`);
        seen.add(value);
        if (!counts) intModel.set(value, 1);
        else if (isCuckoo && test) intModel.set(value, had + (answers[i] === 0 ? 1 : 0));
        else intModel.set(value, had + 1);
      });
    } else if (op < 0.7 && counts) {
      // Removes of keys held: each succeeds, and every other held key stays.
      const h = held();
      const take = new Map();
      const keys = [];
      for (let i = 0; i < Math.min(h.length, Math.floor(random() * 40)); i++) {
        const key = h[Math.floor(random() * h.length)];
        const n = (take.get(key.id) ?? 0) + 1;
        if (n > model.get(key.id)) continue;
        take.set(key.id, n);
        keys.push(key);
      }
      const route = ["single", "manyBytes", "manyMixed", "packed", "linesLF", "linesCRLF"][Math.floor(random() * 6)];
      const useKeys = routeKeys(route, keys);
      note(`${step}: remove ${useKeys.length} via ${route}`);
      const answers = runRoute(filter, "remove", useKeys, route, random);
      useKeys.forEach((key, i) => check(answers[i] === 1, `${where}: remove via ${route} of held ${describeKey(key)} answered ${answers[i]}`));
      for (const key of useKeys) model.set(key.id, model.get(key.id) - 1);
      // Removes of keys never added that count 0 (no fingerprint or counter of theirs is there): each answers 0 and nothing changes.
      const strangers = Array.from({ length: Math.floor(random() * 20) }, (_, i) => fromString(`never-${seed}-${step}-${i}`));
      const strangerCounts = filter.countMany(strangers.map((key) => key.bytes));
      const zero = strangers.filter((_, i) => strangerCounts[i] === 0);
      if (zero.length) {
        const strangerRoute = ["single", "manyMixed", "packed", "linesLF"][Math.floor(random() * 4)];
        const unchanged = snapshot();
        const got = runRoute(filter, "remove", routeKeys(strangerRoute, zero), strangerRoute, random);
        check(got.every((answer) => answer === 0), `${where}: remove via ${strangerRoute} of keys never added, counting 0, answered ${got}`);
        check(unchanged.equals(Buffer.from(filter.serialize())), `${where}: removes via ${strangerRoute} of keys never added changed the filter`);
      }
      if (config.ints && intModel.size && random() < 0.5) {
        const ints = [...intModel.entries()].filter(([, n]) => n > 0).map(([v]) => v).slice(0, 10);
        const got = Array.from(filter.removeInts(BigUint64Array.from(ints)));
        ints.forEach((value, i) => check(got[i] === 1, `${where}: removeInts of held ${value} answered ${got[i]}`));
        for (const value of ints) intModel.set(value, intModel.get(value) - 1);
      }
    } else if (op < 0.82) {
      note(`${step}: check`);
      checkProbes(filter, probeSet(), where);
      checkInts(filter, [...intModel.keys()].slice(0, 200).concat([5n, 2n ** 40n]), where);
    } else if (op < 0.92) {
      // Round trip in the middle of the sequence; go on with the copy.
      const way = ["bytes", "chunks", "base64", "shared"][Math.floor(random() * (isShared ? 4 : 3))];
      note(`${step}: round trip via ${way}`);
      const probes = probeSet();
      const ints = [...intModel.keys()].slice(0, 100).concat([7n, 2n ** 50n]);
      const answers = checkProbes(filter, probes, where);
      const intAnswers = checkInts(filter, ints, where);
      const bytes = filter.serialize();
      const options = config.shared && random() < 0.5 ? { shared: true } : undefined;
      let copy;
      if (way === "bytes") copy = config.load(bytes, options);
      else if (way === "chunks") copy = await config.loadChunks([...filter.serializeChunks(1 + Math.floor(random() * 100000))], options);
      else if (way === "base64") copy = config.fromBase64(filter.toBase64(), options);
      else copy = filter.constructor.fromShared(filter.share());
      check(Buffer.from(copy.serialize()).equals(Buffer.from(bytes)), `${where}: bytes after ${way} round trip differ`);
      check(copy.size === filter.size, `${where}: size after ${way} round trip: ${copy.size} vs ${filter.size}`);
      const copyAnswers = checkProbes(copy, probes, `${where} (copy via ${way})`);
      check(copyAnswers.every((a, i) => a === answers[i]), `${where}: copy via ${way} answers differently`);
      const copyInts = checkInts(copy, ints, `${where} (copy)`);
      if (intAnswers) check(copyInts.every((a, i) => a === intAnswers[i]), `${where}: copy via ${way} answers ints differently`);
      if (way !== "shared") filter.dispose();
      if (way !== "shared") isShared = options !== undefined;
      filter = copy;
    } else if (op < 0.96 && config.fold && filter.maxFoldFactor >= 2) {
      const factor = 2 ** (1 + Math.floor(random() * Math.min(3, Math.log2(filter.maxFoldFactor))));
      note(`${step}: fold ${factor}`);
      const folded = filter.fold(factor);
      check(folded.bits * factor === filter.bits, `${where}: folded bits`);
      filter.dispose();
      filter = folded;
      isShared = false;
      checkProbes(filter, probeSet(), `${where} (folded)`);
    } else if (op < 0.96 && config.algebra) {
      // Union with (or intersection with) a filter of another key set.
      const other = config.make(capacity);
      const keys = batchOf();
      other.addMany(keys.map((key) => key.bytes));
      const otherIds = new Set(keys.map((key) => key.id));
      const otherInts = new Set();
      if (config.ints) {
        const ints = intBatch();
        other.addInts(BigUint64Array.from(ints));
        for (const value of ints) otherInts.add(value);
      }
      const intersect = random() < 0.3;
      note(`${step}: ${intersect ? "intersect" : "union"} with ${keys.length} keys`);
      const result = intersect ? filter.intersect(other) : filter.union(other);
      if (intersect) {
        for (const [id, n] of model) if (n > 0 && !otherIds.has(id)) model.set(id, 0);
        for (const [value] of intModel) if (!otherInts.has(value)) intModel.set(value, 0);
      } else {
        for (const key of keys) {
          record(key);
          model.set(key.id, 1);
        }
        for (const value of otherInts) intModel.set(value, 1);
      }
      other.dispose();
      filter.dispose();
      filter = result;
      checkProbes(filter, probeSet(keys), `${where} (after ${intersect ? "intersect" : "union"})`);
    }
  }
  checkProbes(filter, probeSet(held()), `${config.name} seed ${seed} at the end`);
  checkInts(filter, [...intModel.keys()], `${config.name} seed ${seed} at the end`);
  filter.dispose();
  return log;
}

/** A binary fuse filter built from a random set by a random route answers present for every member on every route. */
export async function runFuseSeed(lib, seed, { big = true, long = true } = {}) {
  const { BinaryFuseFilter } = lib;
  const random = rng(seed);
  const nextKey = makeKeyFactory(random, `f${seed}-`, { long });
  const n = big && random() < 0.3 ? 16384 + Math.floor(random() * 5000) : Math.floor(random() * 300);
  const keys = Array.from({ length: n }, nextKey);
  const fingerprintBits = random() < 0.5 ? 8 : 16;
  const way = ["many", "bytes", "packed", "lines"][Math.floor(random() * 4)];
  let filter;
  let members = keys;
  if (way === "many") filter = BinaryFuseFilter.build(keys.map((key) => (key.str !== null && random() < 0.5 ? key.str : key.bytes)), { fingerprintBits });
  else if (way === "bytes") filter = BinaryFuseFilter.build(keys.map((key) => key.bytes), { fingerprintBits });
  else if (way === "packed") {
    const { bytes, ends } = packKeys(keys);
    filter = BinaryFuseFilter.buildPacked(bytes, ends, { fingerprintBits });
  } else {
    members = keys.filter((key) => lineSafe(key, true));
    filter = BinaryFuseFilter.buildLines(linesOf(members, true, random() < 0.5), { fingerprintBits });
  }
  const ints = Array.from({ length: Math.floor(random() * 500) }, () => BigInt(Math.floor(random() * 2 ** 32)));
  const where = `fuse seed ${seed} (${way}, ${members.length} keys)`;
  check(filter.size === new Set(members.map((key) => key.id)).size, `${where}: size ${filter.size}`);
  const probes = [...members, ...Array.from({ length: 50 }, (_, i) => fromString(`absent-${i}`))];
  const reference = Array.from(filter.hasMany(probes.map((key) => key.bytes)));
  members.forEach((key, i) => check(reference[i] === 1, `${where}: false negative for ${describeKey(key)}`));
  const answerOf = new Map(probes.map((key, i) => [key.id, reference[i]]));
  for (const route of ROUTES) {
    const subset = routeKeys(route, probes);
    const got = runRoute(filter, "has", subset, route, random);
    subset.forEach((key, i) => check(got[i] === answerOf.get(key.id), `${where}: has via ${route} of ${describeKey(key)}`));
  }
  const copy = random() < 0.5 ? BinaryFuseFilter.deserialize(filter.serialize()) : await BinaryFuseFilter.deserializeChunks([...filter.serializeChunks(1 + Math.floor(random() * 5000))]);
  check(Array.from(copy.hasMany(probes.map((key) => key.bytes))).every((a, i) => a === reference[i]), `${where}: copy answers differently`);
  if (ints.length) {
    const fromInts = BinaryFuseFilter.buildInts(random() < 0.5 ? Uint32Array.from(ints, Number) : BigUint64Array.from(ints), { fingerprintBits });
    check(Array.from(fromInts.hasInts(BigUint64Array.from(ints))).every((a) => a === 1), `${where}: buildInts false negative`);
    check(Array.from(fromInts.hasInts(Uint32Array.from(ints, Number))).every((a) => a === 1), `${where}: buildInts u32 false negative`);
    fromInts.dispose();
  }
  copy.dispose();
  filter.dispose();
}

/**
 * Every adding route (add and testAndAdd) in turn with one batch past both
 * chunk limits (over 16,384 keys and 1 MiB of key bytes, a tenth of them held
 * already), then every query route over all keys held: the combinations of
 * a path with a chunk at an offset past the batch area's address.
 */
export function runBigSweep(lib, config, seed, { keys: perBatch = 20000, routes = null } = {}) {
  const random = rng(seed);
  let filter = config.make(perBatch * 8);
  const held = [];
  const heldIds = new Set();
  let serial = 0;
  const fresh = () => fromString(`${seed}/${serial++}/${"v".repeat(80 + Math.floor(random() * 40))}${random() < 0.05 ? "\ud800" : ""}`);
  const ops = [];
  for (const route of [...ROUTES, ...(config.hashes ? ["hashes"] : [])]) ops.push(["add", route]);
  for (const route of [...ROUTES, ...(config.each ? ["linesEach"] : []), ...(config.dedup ? ["dedup"] : [])]) ops.push(["testAndAdd", route]);
  for (const [op, route] of ops) {
    if (routes !== null && !routes.includes(route)) continue;
    const where = `${config.name} seed ${seed}: ${op} via ${route}`;
    const keys = Array.from({ length: perBatch }, () => (held.length && random() < 0.1 ? held[Math.floor(random() * held.length)] : fresh()));
    const answers = runRoute(filter, op, keys, route, random);
    if (op === "testAndAdd") {
      const seen = new Set();
      keys.forEach((key, i) => {
        if (heldIds.has(key.id) || seen.has(key.id)) check(answers[i] === 1, `${where}: testAndAdd of held key ${i} answered ${answers[i]}`);
        seen.add(key.id);
      });
    }
    for (const key of keys)
      if (!heldIds.has(key.id)) {
        heldIds.add(key.id);
        held.push(key);
      }
    const got = filter.hasMany(held.map((key) => key.bytes));
    const missing = got.reduce((sum, answer) => sum + (answer === 1 ? 0 : 1), 0);
    check(missing === 0, `${where}: ${missing} of ${held.length} held keys answer absent`);
  }
  for (const route of ["single", "manyStrings", "manyMixed", "packed", "linesLF", "linesCRLF", ...(config.hashes ? ["hashes"] : []), ...(config.each ? ["linesEach"] : [])]) {
    if (routes !== null && !routes.includes(route)) continue;
    const got = runRoute(filter, "has", held, route, random);
    const missing = got.reduce((sum, answer) => sum + (answer === 1 ? 0 : 1), 0);
    check(missing === 0, `${config.name} seed ${seed}: has via ${route}: ${missing} of ${held.length} held keys answer absent`);
  }
  filter.dispose();
}
