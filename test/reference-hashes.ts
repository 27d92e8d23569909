// Independent reference implementations of the hash family, written from the
// algorithms' published descriptions (xxHash's xxhash_spec.md and xxhash.h,
// SMHasher's MurmurHash3.cpp, FNV's specification, the classic C string hashes
// as the crawler program in the Chinese article prints them), in plain
// JavaScript with BigInt for 64-bit arithmetic. Deliberately slow and literal:
// they share no code with assembly/, so a test comparing the two compares two
// implementations, and each is pinned in the tests to published values too.
import type { HashName } from "../bindings/index.js";

const M64 = (1n << 64n) - 1n;
const M32 = 0xffffffff;

const u64 = (x: bigint) => x & M64;
const rotl64 = (x: bigint, r: number) => u64((x << BigInt(r)) | (x >> BigInt(64 - r)));
const rotl32 = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0;
const mul32 = (a: number, b: number) => Math.imul(a, b) >>> 0;
const le32 = (p: Uint8Array, i: number) => (p[i] | (p[i + 1] << 8) | (p[i + 2] << 16) | (p[i + 3] << 24)) >>> 0;
const le64 = (p: Uint8Array, i: number) => BigInt(le32(p, i)) | (BigInt(le32(p, i + 4)) << 32n);

// ---------- FNV (Fowler/Noll/Vo) ----------
export function fnv1_32(p: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const c of p) h = (mul32(h, 0x01000193) ^ c) >>> 0;
  return h;
}
export function fnv1a_32(p: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const c of p) h = mul32(h ^ c, 0x01000193);
  return h;
}
export function fnv1a_64(p: Uint8Array): bigint {
  let h = 0xcbf29ce484222325n;
  for (const c of p) h = u64((h ^ BigInt(c)) * 0x100000001b3n);
  return h;
}

// ---------- MurmurHash3 (SMHasher's MurmurHash3.cpp) ----------
export function murmur3_32(p: Uint8Array, seed: number): number {
  const c1 = 0xcc9e2d51, c2 = 0x1b873593;
  const len = p.length;
  const nblocks = len >>> 2;
  let h1 = seed >>> 0;
  for (let i = 0; i < nblocks; i++) {
    let k1 = le32(p, i * 4);
    k1 = mul32(k1, c1);
    k1 = rotl32(k1, 15);
    k1 = mul32(k1, c2);
    h1 = (h1 ^ k1) >>> 0;
    h1 = rotl32(h1, 13);
    h1 = (mul32(h1, 5) + 0xe6546b64) >>> 0;
  }
  const tail = nblocks * 4;
  let k1 = 0;
  switch (len & 3) {
    case 3: k1 ^= p[tail + 2] << 16; // falls through
    case 2: k1 ^= p[tail + 1] << 8; // falls through
    case 1:
      k1 ^= p[tail];
      k1 = mul32(k1 >>> 0, c1);
      k1 = rotl32(k1, 15);
      k1 = mul32(k1, c2);
      h1 = (h1 ^ k1) >>> 0;
  }
  h1 = (h1 ^ len) >>> 0;
  h1 ^= h1 >>> 16;
  h1 = mul32(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = mul32(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 >>> 0;
}

function fmix64(k: bigint): bigint {
  k ^= k >> 33n;
  k = u64(k * 0xff51afd7ed558ccdn);
  k ^= k >> 33n;
  k = u64(k * 0xc4ceb9fe1a85ec53n);
  return k ^ (k >> 33n);
}

/** MurmurHash3_x64_128: [h1, h2], the canonical output's two little-endian u64 halves. */
export function murmur3_128(p: Uint8Array, seed: number): [bigint, bigint] {
  const c1 = 0x87c37b91114253d5n, c2 = 0x4cf5ad432745937fn;
  const len = p.length;
  const nblocks = len >>> 4;
  let h1 = BigInt(seed >>> 0), h2 = BigInt(seed >>> 0);
  for (let i = 0; i < nblocks; i++) {
    let k1 = le64(p, i * 16), k2 = le64(p, i * 16 + 8);
    k1 = u64(k1 * c1); k1 = rotl64(k1, 31); k1 = u64(k1 * c2); h1 ^= k1;
    h1 = rotl64(h1, 27); h1 = u64(h1 + h2); h1 = u64(h1 * 5n + 0x52dce729n);
    k2 = u64(k2 * c2); k2 = rotl64(k2, 33); k2 = u64(k2 * c1); h2 ^= k2;
    h2 = rotl64(h2, 31); h2 = u64(h2 + h1); h2 = u64(h2 * 5n + 0x38495ab5n);
  }
  const tail = nblocks * 16;
  let k1 = 0n, k2 = 0n;
  const rest = len & 15;
  for (let i = rest - 1; i >= 8; i--) k2 ^= BigInt(p[tail + i]) << BigInt((i - 8) * 8);
  if (rest > 8) { k2 = u64(k2 * c2); k2 = rotl64(k2, 33); k2 = u64(k2 * c1); h2 ^= k2; }
  for (let i = Math.min(rest, 8) - 1; i >= 0; i--) k1 ^= BigInt(p[tail + i]) << BigInt(i * 8);
  if (rest > 0) { k1 = u64(k1 * c1); k1 = rotl64(k1, 31); k1 = u64(k1 * c2); h1 ^= k1; }
  h1 ^= BigInt(len); h2 ^= BigInt(len);
  h1 = u64(h1 + h2); h2 = u64(h2 + h1);
  h1 = fmix64(h1); h2 = fmix64(h2);
  h1 = u64(h1 + h2); h2 = u64(h2 + h1);
  return [h1, h2];
}

// ---------- xxHash32 / xxHash64 (xxhash_spec.md) ----------
const P32_1 = 0x9e3779b1, P32_2 = 0x85ebca77, P32_3 = 0xc2b2ae3d, P32_4 = 0x27d4eb2f, P32_5 = 0x165667b1;

export function xxh32(p: Uint8Array, seed: number): number {
  seed >>>= 0;
  const len = p.length;
  let i = 0;
  let acc: number;
  const round = (a: number, lane: number) => mul32(rotl32((a + mul32(lane, P32_2)) >>> 0, 13), P32_1);
  if (len >= 16) {
    let a1 = (seed + P32_1 + P32_2) >>> 0, a2 = (seed + P32_2) >>> 0, a3 = seed, a4 = (seed - P32_1) >>> 0;
    for (; i + 16 <= len; i += 16) {
      a1 = round(a1, le32(p, i)); a2 = round(a2, le32(p, i + 4)); a3 = round(a3, le32(p, i + 8)); a4 = round(a4, le32(p, i + 12));
    }
    acc = (rotl32(a1, 1) + rotl32(a2, 7) + rotl32(a3, 12) + rotl32(a4, 18)) >>> 0;
  } else {
    acc = (seed + P32_5) >>> 0;
  }
  acc = (acc + len) >>> 0;
  for (; i + 4 <= len; i += 4) acc = mul32(rotl32((acc + mul32(le32(p, i), P32_3)) >>> 0, 17), P32_4);
  for (; i < len; i++) acc = mul32(rotl32((acc + mul32(p[i], P32_5)) >>> 0, 11), P32_1);
  acc ^= acc >>> 15; acc = mul32(acc, P32_2);
  acc ^= acc >>> 13; acc = mul32(acc, P32_3);
  acc ^= acc >>> 16;
  return acc >>> 0;
}

const P64_1 = 0x9e3779b185ebca87n, P64_2 = 0xc2b2ae3d27d4eb4fn, P64_3 = 0x165667b19e3779f9n;
const P64_4 = 0x85ebca77c2b2ae63n, P64_5 = 0x27d4eb2f165667c5n;

const round64 = (acc: bigint, lane: bigint) => u64(rotl64(u64(acc + u64(lane * P64_2)), 31) * P64_1);
const merge64 = (acc: bigint, a: bigint) => u64(u64((acc ^ round64(0n, a)) * P64_1) + P64_4);
function avalanche64(h: bigint): bigint {
  h ^= h >> 33n; h = u64(h * P64_2);
  h ^= h >> 29n; h = u64(h * P64_3);
  return h ^ (h >> 32n);
}

/** XXH64 with a 64-bit seed. */
export function xxh64(p: Uint8Array, seed: bigint): bigint {
  seed = u64(seed);
  const len = p.length;
  let i = 0;
  let acc: bigint;
  if (len >= 32) {
    let a1 = u64(seed + P64_1 + P64_2), a2 = u64(seed + P64_2), a3 = seed, a4 = u64(seed - P64_1);
    for (; i + 32 <= len; i += 32) {
      a1 = round64(a1, le64(p, i)); a2 = round64(a2, le64(p, i + 8)); a3 = round64(a3, le64(p, i + 16)); a4 = round64(a4, le64(p, i + 24));
    }
    acc = u64(rotl64(a1, 1) + rotl64(a2, 7) + rotl64(a3, 12) + rotl64(a4, 18));
    acc = merge64(acc, a1); acc = merge64(acc, a2); acc = merge64(acc, a3); acc = merge64(acc, a4);
  } else {
    acc = u64(seed + P64_5);
  }
  acc = u64(acc + BigInt(len));
  for (; i + 8 <= len; i += 8) acc = u64(u64(rotl64(acc ^ round64(0n, le64(p, i)), 27) * P64_1) + P64_4);
  if (i + 4 <= len) { acc = u64(u64(rotl64(acc ^ u64(BigInt(le32(p, i)) * P64_1), 23) * P64_2) + P64_3); i += 4; }
  for (; i < len; i++) acc = u64(rotl64(acc ^ u64(BigInt(p[i]) * P64_5), 11) * P64_1);
  return avalanche64(acc);
}

// ---------- XXH3-64 with seed (xxhash_spec.md, XXH3_64bits_withSeed) ----------
// The default secret as the spec prints it: a copy apart from assembly/xxh3-secret.ts on purpose, so a wrong byte there shows here.
const kSecret = Uint8Array.from([
  0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
  0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
  0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
  0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
  0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
  0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
  0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
  0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
  0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
  0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
  0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
  0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
]);

function mulFold(a: bigint, b: bigint): bigint {
  const product = a * b; // exact 128-bit product
  return u64(product) ^ (product >> 64n);
}
function xxh3Avalanche(h: bigint): bigint {
  h ^= h >> 37n;
  h = u64(h * 0x165667919e3779f9n);
  return h ^ (h >> 32n);
}
function rrmxmx(h: bigint, len: number): bigint {
  h ^= rotl64(h, 49) ^ rotl64(h, 24);
  h = u64(h * 0x9fb21c651e98df25n);
  h ^= u64((h >> 35n) + BigInt(len));
  h = u64(h * 0x9fb21c651e98df25n);
  return h ^ (h >> 28n);
}
const swap32 = (x: number) => (((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24)) >>> 0;
function swap64(x: bigint): bigint {
  let r = 0n;
  for (let i = 0; i < 8; i++) r = (r << 8n) | ((x >> BigInt(8 * i)) & 0xffn);
  return r;
}
function mix16(p: Uint8Array, i: number, s: Uint8Array, si: number, seed: bigint): bigint {
  return mulFold(le64(p, i) ^ u64(le64(s, si) + seed), le64(p, i + 8) ^ u64(le64(s, si + 8) - seed));
}

/** XXH3_64bits_withSeed with a 64-bit seed. */
export function xxh3(p: Uint8Array, seed: bigint): bigint {
  seed = u64(seed);
  const len = p.length;
  const s = kSecret;
  if (len === 0) return avalanche64(seed ^ le64(s, 56) ^ le64(s, 64));
  if (len <= 3) {
    const combined = ((p[0] << 16) | (p[len >> 1] << 24) | p[len - 1] | (len << 8)) >>> 0;
    const bitflip = u64(BigInt((le32(s, 0) ^ le32(s, 4)) >>> 0) + seed);
    return avalanche64(BigInt(combined) ^ bitflip);
  }
  if (len <= 8) {
    const seed2 = seed ^ (BigInt(swap32(Number(seed & 0xffffffffn))) << 32n);
    const bitflip = u64((le64(s, 8) ^ le64(s, 16)) - seed2);
    const input = u64(BigInt(le32(p, len - 4)) + (BigInt(le32(p, 0)) << 32n));
    return rrmxmx(input ^ bitflip, len);
  }
  if (len <= 16) {
    const lo = le64(p, 0) ^ u64((le64(s, 24) ^ le64(s, 32)) + seed);
    const hi = le64(p, len - 8) ^ u64((le64(s, 40) ^ le64(s, 48)) - seed);
    return xxh3Avalanche(u64(BigInt(len) + swap64(lo) + hi + mulFold(lo, hi)));
  }
  if (len <= 128) {
    let acc = u64(BigInt(len) * P64_1);
    if (len > 32) {
      if (len > 64) {
        if (len > 96) acc += mix16(p, 48, s, 96, seed) + mix16(p, len - 64, s, 112, seed);
        acc += mix16(p, 32, s, 64, seed) + mix16(p, len - 48, s, 80, seed);
      }
      acc += mix16(p, 16, s, 32, seed) + mix16(p, len - 32, s, 48, seed);
    }
    acc += mix16(p, 0, s, 0, seed) + mix16(p, len - 16, s, 16, seed);
    return xxh3Avalanche(u64(acc));
  }
  if (len <= 240) {
    let acc = u64(BigInt(len) * P64_1);
    const rounds = len >> 4;
    for (let i = 0; i < 8; i++) acc += mix16(p, 16 * i, s, 16 * i, seed);
    acc = xxh3Avalanche(u64(acc));
    for (let i = 8; i < rounds; i++) acc += mix16(p, 16 * i, s, 16 * (i - 8) + 3, seed);
    acc += mix16(p, len - 16, s, 136 - 17, seed);
    return xxh3Avalanche(u64(acc));
  }
  // Long input: a custom secret from the seed (none when seed is 0: the same bytes).
  const secret = new Uint8Array(192);
  const view = new DataView(secret.buffer);
  for (let i = 0; i < 192; i += 16) {
    view.setBigUint64(i, u64(le64(s, i) + seed), true);
    view.setBigUint64(i + 8, u64(le64(s, i + 8) - seed), true);
  }
  const acc = [BigInt(P32_3), P64_1, P64_2, P64_3, P64_4, BigInt(P32_2), P64_5, BigInt(P32_1)];
  const accumulate512 = (at: number, si: number) => {
    for (let i = 0; i < 8; i++) {
      const data = le64(p, at + 8 * i);
      const key = data ^ le64(secret, si + 8 * i);
      acc[i ^ 1] = u64(acc[i ^ 1] + data);
      acc[i] = u64(acc[i] + (key & 0xffffffffn) * (key >> 32n));
    }
  };
  const stripesPerBlock = (192 - 64) / 8;
  const blockLen = 64 * stripesPerBlock;
  const blocks = Math.floor((len - 1) / blockLen);
  for (let n = 0; n < blocks; n++) {
    for (let st = 0; st < stripesPerBlock; st++) accumulate512(n * blockLen + st * 64, st * 8);
    for (let i = 0; i < 8; i++) {
      let a = acc[i];
      a ^= a >> 47n;
      a ^= le64(secret, 192 - 64 + 8 * i);
      acc[i] = u64(a * BigInt(P32_1));
    }
  }
  const stripes = Math.floor((len - 1 - blockLen * blocks) / 64);
  for (let st = 0; st < stripes; st++) accumulate512(blocks * blockLen + st * 64, st * 8);
  accumulate512(len - 64, 192 - 64 - 7);
  let result = u64(BigInt(len) * P64_1);
  for (let i = 0; i < 4; i++) result += mulFold(acc[2 * i] ^ le64(secret, 11 + 16 * i), acc[2 * i + 1] ^ le64(secret, 11 + 16 * i + 8));
  return xxh3Avalanche(u64(result));
}

// ---------- The classic C string hashes (the crawler program's C, bytes unsigned, 32-bit unsigned wraparound) ----------
/** The C's strlen over a NUL-terminated copy of the key: bytes up to the first NUL. */
const cString = (p: Uint8Array) => {
  const nul = p.indexOf(0);
  return nul < 0 ? p : p.subarray(0, nul);
};

/**
 * The fifteen classic hashes, each over unsigned bytes (`-funsigned-char`), the
 * key's byte length passed as the C's `len`. `signedChar` reads each byte as
 * C's `char` on x86 (signed: 0x80…0xFF are −128…−1, widened to 0xFFFFFF80…),
 * which the library does not use; kept to show what differs.
 */
export function classic(name: string, key: Uint8Array, signedChar = false): number {
  const len = key.length;
  const ch = (c: number) => (signedChar && c >= 128 ? (c - 256) >>> 0 : c);
  let h = 0;
  switch (name) {
    case "rs": {
      let a = 63689;
      for (const c of key) { h = (mul32(h, a) + ch(c)) >>> 0; a = mul32(a, 378551); }
      return h;
    }
    case "js":
      h = 1315423911;
      for (const c of key) h = (h ^ (((h << 5) >>> 0) + ch(c) + (h >>> 2))) >>> 0;
      return h;
    case "pjw":
      for (const c of key) {
        h = (((h << 4) >>> 0) + ch(c)) >>> 0;
        const test = (h & 0xf0000000) >>> 0;
        if (test !== 0) h = ((h ^ (test >>> 24)) & ~0xf0000000) >>> 0;
      }
      return h;
    case "elf":
      for (const c of key) {
        h = (((h << 4) >>> 0) + ch(c)) >>> 0;
        const x = (h & 0xf0000000) >>> 0;
        if (x !== 0) h = (h ^ (x >>> 24)) >>> 0;
        h = (h & ~x) >>> 0;
      }
      return h;
    case "bkdr":
      for (const c of key) h = (mul32(h, 131) + ch(c)) >>> 0;
      return h;
    case "sdbm":
      for (const c of key) h = (ch(c) + ((h << 6) >>> 0) + ((h << 16) >>> 0) - h) >>> 0;
      return h;
    case "djb":
      h = 5381;
      for (const c of key) h = (((h << 5) >>> 0) + h + ch(c)) >>> 0;
      return h;
    case "dek":
      h = len >>> 0;
      for (const c of key) h = ((((h << 5) >>> 0) ^ (h >>> 27)) ^ ch(c)) >>> 0;
      return h;
    case "bp":
      for (const c of key) h = (((h << 7) >>> 0) ^ ch(c)) >>> 0;
      return h;
    case "fnv":
      for (const c of key) { h = mul32(h, 0x811c9dc5); h = (h ^ ch(c)) >>> 0; }
      return h;
    case "ap":
      h = 0xaaaaaaaa;
      key.forEach((c, i) => {
        const v = ch(c);
        h = (h ^ ((i & 1) === 0 ? ((h << 7) ^ mul32(v, h >>> 3)) : ~((((h << 11) >>> 0) + v) ^ (h >>> 5)))) >>> 0;
      });
      return h;
    case "hflp": {
      if (len === 0) return 0;
      const n = new Uint8Array(4); // unsigned int n, read through char* b on a little-endian machine
      cString(key).forEach((c, i) => { n[i % 4] ^= c; });
      return (((n[0] | (n[1] << 8) | (n[2] << 16) | (n[3] << 24)) >>> 0) % len) >>> 0;
    }
    case "hf": {
      if (len === 0) return 0;
      let result = 0; // int, wrapping
      cString(key).forEach((c, i) => { result = (result + Math.imul(Math.imul(signedChar && c >= 128 ? c - 256 : c, 3), i + 1)) | 0; });
      if (result < 0) result = -result | 0;
      return (result >>> 0) % len; // int % unsigned int: unsigned
    }
    case "str":
      for (const c of cString(key)) h = (mul32(31, h) + c) >>> 0; // unsigned char* in the C
      return h;
    case "tianl": {
      const s = cString(key);
      const length = s.length;
      if (length === 0) return 0;
      // unsigned long (64-bit) from an int product that wraps past 2^31.
      let v = length <= 256 ? BigInt.asUintN(64, BigInt(Math.imul(16777216, length - 1))) : 42781900080n;
      const from = length <= 96 ? 0 : length - 96;
      for (let i = 1; i <= Math.min(length, 96); i++) {
        let c = s[from + i - 1]; // unsigned char in the C
        if (c >= 65 && c <= 90) c += 32;
        v += BigInt((3 * i * c * c + 5 * i * c + 7 * i + 11 * c) % 1677216);
      }
      return Number(v & 0xffffffffn);
    }
  }
  throw new Error(`no reference for ${name}`);
}

/** The value `hash(name, key, seed)` should give, by the implementations here (murmur3_128: h1 + h2·2^64). */
export function referenceHash(name: HashName, key: Uint8Array, seed: number): number | bigint {
  switch (name) {
    case "fnv1_32": return fnv1_32(key);
    case "fnv1a_32": return fnv1a_32(key);
    case "fnv1a_64": return fnv1a_64(key);
    case "murmur3_32": return murmur3_32(key, seed);
    case "murmur3_128": {
      const [h1, h2] = murmur3_128(key, seed);
      return h1 + (h2 << 64n);
    }
    case "xxh32": return xxh32(key, seed);
    case "xxh64": return xxh64(key, BigInt(seed));
    case "xxh3": return xxh3(key, BigInt(seed));
    default: return classic(name, key);
  }
}
