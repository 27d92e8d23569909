// The wasm hash family against independent implementations (test/reference-hashes.ts,
// written from each algorithm's description and sharing no code with assembly/),
// which are themselves pinned here to published values: xxHash's sanity-check
// vectors (xsum_sanity_check.c, including 64-bit seeds), SMHasher's verification
// codes, FNV's published test values, and the classic hashes' C as gcc computes
// it. Every length 0…1,000, keys at unaligned offsets, several seeds; single,
// batch and packed forms.
import { describe, expect, it } from "vitest";
import { hash, hashMany, hashNames, hashPacked, isSeeded } from "../bindings/index.js";
import * as R from "./reference-hashes.js";

const encoder = new TextEncoder();
const M64 = (1n << 64n) - 1n;

/** xxHash's sanity-check input: byte i is the top byte of PRIME32 · PRIME64^i. */
function sanityBuffer(length: number): Uint8Array {
  const out = new Uint8Array(length);
  let gen = 2654435761n;
  for (let i = 0; i < length; i++) {
    out[i] = Number(gen >> 56n);
    gen = (gen * 11400714785074694797n) & M64;
  }
  return out;
}

/** SMHasher's VerificationTest: hash i bytes 0…i−1 with seed 256 − i, then hash the 256 outputs with seed 0. */
function verificationCode(fn: (key: Uint8Array, seed: number) => number | bigint, bytes: number): number {
  const le = (h: number | bigint) => {
    const out = new Uint8Array(bytes);
    let v = BigInt(h);
    for (let i = 0; i < bytes; i++, v >>= 8n) out[i] = Number(v & 0xffn);
    return out;
  };
  const key = Uint8Array.from({ length: 256 }, (_, i) => i);
  const all = new Uint8Array(bytes * 256);
  for (let i = 0; i < 256; i++) all.set(le(fn(key.subarray(0, i), 256 - i)), i * bytes);
  const last = le(fn(all, 0));
  return (last[0] | (last[1] << 8) | (last[2] << 16) | (last[3] << 24)) >>> 0;
}

describe("the reference implementations give published values", () => {
  it("xxHash's sanity-check vectors (xsum_sanity_check.c), 32- and 64-bit seeds", () => {
    const P32 = 2654435761, P64 = 11400714785074694797n;
    // [length, XXH32 seed 0, XXH32 seed PRIME32, XXH64 seed 0, XXH64 seed PRIME32, XXH3 seed 0, XXH3 seed PRIME64, XXH64 seed PRIME64]
    const vectors: [number, number, number, bigint, bigint, bigint, bigint, bigint][] = [
      [0, 0x02cc5d05, 0x36b78ae7, 0xef46db3751d8e999n, 0xac75fda2929b17efn, 0x2d06800538d394c2n, 0xa8a6b918b2f0364an, 0x0b303d920ec349dfn],
      [1, 0xcf65b03e, 0xb4545aa4, 0xe934a84adb052768n, 0x5014607643a9b4c3n, 0xc44bdff4074eecdbn, 0x032be332dd766ef8n, 0x9c6678669fcd2e6dn],
      [4, 0xa9de7ce9, 0x2baafe83, 0x9136a0dca57457een, 0xcaab286bd8e9fdb5n, 0xe5dc74bc51848a51n, 0xaa2e7eccb0c8f747n, 0xccfe4ead7e01983cn],
      [14, 0x1208e7e2, 0x6af1d1fe, 0x8282dcc4994e35c8n, 0xc3bd6bf63deb6df0n, 0x1ac0bbda2b9fcf03n, 0xa7f68521581b173fn, 0x12dcd5db160cc92bn],
      [222, 0x5bd11dbd, 0x58803c5f, 0xb641ae8cb691c174n, 0x20cb8ab7ae10c14an, 0xb9163b558664d356n, 0xcd627e7ca214ebfdn, 0xccb064ac93ebb562n],
      [403, 0x6675ff5a, 0xbde7aab8, 0xd99858fee82283dfn, 0xf66589734ad3cf7en, 0xcdeb804d65c6dea4n, 0x6259f6ecfd6443fdn, 0x1b7a5fea83596b9cn],
      [512, 0xd485c30a, 0x6ccf94a9, 0x4358d2fdd62b58a7n, 0x0ded69c4804c47ban, 0x617e49599013cb6bn, 0x3ce457de14c27708n, 0x6e1a3c5263d2def2n],
      [2048, 0x7c535464, 0x89688d5e, 0x5940f2752bc04387n, 0xaa26f33c2898013bn, 0xdd59e2c3a5f038e0n, 0x66f81670669ababcn, 0x896b632400e68878n],
      [2367, 0x4c8a9773, 0x6d5366f6, 0xa82418ddec0ea581n, 0xa36a93c18052673an, 0xcb37aeb9e5d361edn, 0xd2db3415b942b42an, 0x363b532c35e01e25n],
    ];
    const buffer = sanityBuffer(2367);
    for (const [length, x32, x32s, x64, x64s, x3, x3s, x64l] of vectors) {
      const key = buffer.subarray(0, length);
      expect([R.xxh32(key, 0), R.xxh32(key, P32)], `XXH32, length ${length}`).toEqual([x32, x32s]);
      expect([R.xxh64(key, 0n), R.xxh64(key, BigInt(P32)), R.xxh64(key, P64)], `XXH64, length ${length}`).toEqual([x64, x64s, x64l]);
      expect([R.xxh3(key, 0n), R.xxh3(key, P64)], `XXH3, length ${length}`).toEqual([x3, x3s]);
      // The library takes u32 seeds: the ones above it can take.
      expect([hash("xxh32", key), hash("xxh32", key, P32)]).toEqual([x32, x32s]);
      expect([hash("xxh64", key), hash("xxh64", key, P32), hash("xxh3", key)]).toEqual([x64, x64s, x3]);
    }
  });

  it("SMHasher's verification codes", () => {
    expect(verificationCode(R.murmur3_32, 4)).toBe(0xb0f57ee3);
    expect(verificationCode((k, s) => R.referenceHash("murmur3_128", k, s), 16)).toBe(0x6384ba69);
    expect(verificationCode(R.xxh32, 4)).toBe(0xba88b743);
    expect(verificationCode((k, s) => R.xxh64(k, BigInt(s)), 8)).toBe(0x024b7cf4);
    // And the library's, by the same procedure.
    expect(verificationCode((k, s) => hash("murmur3_32", k, s), 4)).toBe(0xb0f57ee3);
    expect(verificationCode((k, s) => hash("murmur3_128", k, s), 16)).toBe(0x6384ba69);
    expect(verificationCode((k, s) => hash("xxh32", k, s), 4)).toBe(0xba88b743);
    expect(verificationCode((k, s) => hash("xxh64", k, s), 8)).toBe(0x024b7cf4);
  });

  it("FNV's published test values and MurmurHash3's well-known ones", () => {
    const b = (s: string) => encoder.encode(s);
    expect([R.fnv1_32(b("")), R.fnv1_32(b("a")), R.fnv1_32(b("foobar"))]).toEqual([0x811c9dc5, 0x050c5d7e, 0x31f0b262]);
    expect([R.fnv1a_32(b("")), R.fnv1a_32(b("a")), R.fnv1a_32(b("foobar"))]).toEqual([0x811c9dc5, 0xe40c292c, 0xbf9cf968]);
    expect([R.fnv1a_64(b("")), R.fnv1a_64(b("a")), R.fnv1a_64(b("foobar"))]).toEqual([0xcbf29ce484222325n, 0xaf63dc4c8601ec8cn, 0x85944171f73967e8n]);
    expect(R.murmur3_32(b(""), 1)).toBe(0x514e28b7);
    expect(R.murmur3_32(b(""), 0xffffffff)).toBe(0x81f16f39);
    expect(R.murmur3_32(b("The quick brown fox jumps over the lazy dog"), 0x9747b28c)).toBe(0x2fa826cd);
    expect(R.murmur3_128(b("The quick brown fox jumps over the lazy dog"), 0)).toEqual([0xe34bbc7bbc071b6cn, 0x7a433ca9c49a9347n]);
  });

  it("the classic hashes: the crawler program's C compiled by gcc with unsigned char (the library) and signed char (x86's default)", () => {
    // gcc -funsigned-char / -fsigned-char -fwrapv over test/fixtures/classic-hashes.c, key "Ab\xe9\xff" (len 4).
    const key = Uint8Array.of(0x41, 0x62, 0xe9, 0xff);
    const order = ["rs", "js", "pjw", "elf", "bkdr", "sdbm", "djb", "dek", "bp", "fnv", "ap", "hflp", "hf", "str", "tianl"] as const;
    const unsignedC = [0x0b7b1a6d, 0x40872629, 0x0004818f, 0x0004818f, 0x08cfd607, 0x01662a37, 0x7c827410, 0x006115df, 0x0838f47f, 0x0b039d2d, 0x2b535831, 0x00000001, 0x00000000, 0x001f1937, 0x0314f0eb];
    const signedC = [0x12853a6d, 0x40874569, 0x0004708f, 0x0004708f, 0x08cf5207, 0x0065ea37, 0x7c825210, 0x00610ac0, 0x08388b7f, 0xad9fd92d, 0xb2b04e39, 0x00000001, 0x00000000, 0x001f1937, 0x0314f0eb];
    order.forEach((name, i) => {
      expect(R.classic(name, key), `${name}, unsigned char`).toBe(unsignedC[i]);
      expect(R.classic(name, key, true), `${name}, signed char`).toBe(signedC[i]);
      // The library computes them with unsigned bytes, as README says.
      expect(hash(name, key), name).toBe(unsignedC[i]);
    });
  });
});

describe("the library against the references", () => {
  // A buffer of pseudo-random bytes with NULs and high bytes; keys are taken from it at offsets 0…8.
  const buffer = new Uint8Array(1200);
  let state = 12345;
  for (let i = 0; i < buffer.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    buffer[i] = state >>> 24;
  }
  // The same without NUL bytes, so that hflp, hf, str and tianl (which stop at the first NUL) read long keys whole.
  const text = buffer.map((byte) => 1 + (byte % 255));
  const seeds = [0, 1, 0x80000000, 0x9747b28c, 0xffffffff];

  it.each([...hashNames])("%s: every length 0…1,000 at unaligned offsets, under several seeds: hash, hashMany and hashPacked", (name) => {
    for (const [seed, source] of [...(isSeeded(name) ? seeds : [0]).map((seed) => [seed, buffer] as const), [0, text] as const]) {
      const keys = Array.from({ length: 1001 }, (_, length) => {
        const offset = (length * 3 + seed) % 9;
        return source.subarray(offset, offset + length);
      });
      const want = keys.map((key) => R.referenceHash(name, key, seed));
      const single = keys.map((key) => hash(name, key, seed));
      const firstWrong = single.findIndex((h, i) => h !== want[i]);
      expect(firstWrong, `${name}: first wrong length under seed ${seed}: ${firstWrong}`).toBe(-1);
      const narrow = want.map((h) => (typeof h === "bigint" ? h & M64 : h)); // murmur3_128's batch forms give h1
      expect(Array.from(hashMany(name, keys, seed) as ArrayLike<number | bigint>)).toEqual(narrow);
      // Packed with a pad of 0–4 bytes before each key, so every key starts at another alignment in wasm memory.
      const parts = keys.flatMap((key) => [buffer.subarray(0, key.length % 5), key]);
      const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
      const ends = new Uint32Array(parts.length);
      let at = 0;
      parts.forEach((part, i) => {
        bytes.set(part, at);
        ends[i] = at += part.length;
      });
      const packed = Array.from(hashPacked(name, bytes, ends, seed) as ArrayLike<number | bigint>).filter((_, i) => i % 2 === 1);
      expect(packed).toEqual(narrow);
    }
  });

  it("strings hash as their UTF-8 bytes, lone surrogates as U+FFFD, alone and in batches that cross chunk boundaries", () => {
    const strings = ["\ud800", "a\udc00b", "\ud83d", "x\ud83d\ude80\ud800", "\udbff\udfff", "\udfff\ud800", "é".repeat(5), "\u0000abc", "布隆过滤器", ""];
    for (const text of strings) {
      const bytes = encoder.encode(text); // TextEncoder turns lone surrogates into EF BF BD
      expect(bytes.length).toBe(Buffer.byteLength(text));
      for (const name of ["xxh3", "xxh64", "murmur3_128", "fnv1a_32", "djb", "tianl"] as const) {
        expect(hash(name, text, isSeeded(name) ? 7 : 0), `${name}(${JSON.stringify(text)})`).toBe(R.referenceHash(name, bytes, isSeeded(name) ? 7 : 0));
      }
    }
    // 20,000 keys (more than one chunk of 16,384), strings with lone surrogates and byte views, and keys over 1 MiB.
    let x = 7;
    const random = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const keys: (string | Uint8Array)[] = [];
    for (let i = 0; i < 20_000; i++) {
      const length = Math.floor(random() * 100);
      if (i % 2 === 0) {
        let s = "";
        for (let j = 0; j < length; j++) s += String.fromCharCode(random() < 0.1 ? 0xd800 + Math.floor(random() * 0x800) : 32 + Math.floor(random() * 0x3000));
        keys.push(s);
      } else {
        keys.push(buffer.subarray(i % 7, (i % 7) + length));
      }
    }
    keys.splice(10_000, 0, new Uint8Array((1 << 20) + 3).fill(0x80), "ß".repeat(600_000), new Uint8Array(0));
    for (const [name, seed] of [["xxh3", 0xffffffff], ["murmur3_32", 5], ["sdbm", 0]] as const) {
      const many = hashMany(name, keys, seed);
      const want = keys.map((key) => R.referenceHash(name, typeof key === "string" ? encoder.encode(key) : key, seed));
      const firstWrong = Array.from(many as ArrayLike<number | bigint>).findIndex((h, i) => h !== want[i]);
      expect(firstWrong, name).toBe(-1);
    }
  });

  it("refuses seeds that are not u32 integers in every form, naming the argument and showing the value", () => {
    const forms = [
      (seed: unknown) => hash("xxh3", "x", seed as number),
      (seed: unknown) => hashMany("xxh3", ["x"], seed as number),
      (seed: unknown) => hashPacked("xxh3", Uint8Array.of(1), Uint32Array.of(1), seed as number),
    ];
    for (const form of forms) {
      expect(() => form(-1)).toThrow(new RangeError("seed must be an integer from 0 to 4294967295, got -1"));
      expect(() => form(2 ** 32)).toThrow(new RangeError("seed must be an integer from 0 to 4294967295, got 4294967296"));
      expect(() => form(0.5)).toThrow(new RangeError("seed must be an integer from 0 to 4294967295, got 0.5"));
      expect(() => form(NaN)).toThrow(/seed must be an integer from 0 to 4294967295, got NaN/);
      expect(() => form(5n)).toThrow(new TypeError("seed must be a number, got 5n"));
      expect(() => form(2n ** 40n)).toThrow(new TypeError("seed must be a number, got 1099511627776n"));
      expect(() => form("1")).toThrow(new TypeError('seed must be a number, got "1"'));
    }
  });
});

describe("the classic hashes' int arithmetic on long keys", () => {
  it("hf's wrapping int sum (past 2^31 from 2,370 bytes of 0xFF) and its absolute value, as gcc -fwrapv computes them", () => {
    // HFHash over n bytes 0xFF (test/fixtures/classic-hashes.c, gcc -funsigned-char -fwrapv).
    const c: [number, number][] = [[2000, 1000], [2370, 2341], [2371, 378], [2400, 496], [5000, 2908], [50000, 32008], [65535, 65153], [65536, 32768]];
    for (const [length, want] of c) {
      const key = new Uint8Array(length).fill(0xff);
      expect(R.classic("hf", key), `reference, ${length}`).toBe(want);
      expect(hash("hf", key), `library, ${length}`).toBe(want);
    }
  });
});
