// The fifteen classic C string hashes (RS, JS, PJW, ELF, BKDR, SDBM, DJB, DEK,
// BP, FNV, AP, HFLP, HF, StrHash, Tianl) exactly as the well-known crawler URL
// de-duplication program in C prints them, computed as its C does with
// unsigned chars (-funsigned-char) and wrapping int arithmetic. The first
// eleven read `len` bytes; hflp, hf, str and tianl stop at the first NUL, as
// the C does through strlen() or its `*p` loop condition.

// @ts-ignore: decorator
@inline const PJW_HIGH_BITS: u32 = 0xF0000000;
// @ts-ignore: decorator
@inline const ELF_HIGH_NIBBLE: u32 = 0xF0000000;
// @ts-ignore: decorator
@inline const RS_B: u32 = 378551;
// @ts-ignore: decorator
@inline const RS_A: u32 = 63689;
// @ts-ignore: decorator
@inline const JS_INIT: u32 = 1315423911;
// @ts-ignore: decorator
@inline const BKDR_SEED: u32 = 131;
// @ts-ignore: decorator
@inline const DJB_INIT: u32 = 5381;
/** That program's "fnv_prime" is FNV's 32-bit offset basis, used as a multiplier. */
// @ts-ignore: decorator
@inline const SEED_FNV_PRIME: u32 = 0x811C9DC5;
// @ts-ignore: decorator
@inline const AP_INIT: u32 = 0xAAAAAAAA;
// @ts-ignore: decorator
@inline const TIANL_LONG_INIT: u64 = 42781900080;
/** 1677216, not 2^24: the program's modulus, kept as printed. */
// @ts-ignore: decorator
@inline const TIANL_MOD: u32 = 1677216;

/** Length up to the first NUL byte, at most `len` (the C's strlen on a NUL-terminated copy). */
// @ts-ignore: decorator
@inline function cLength(p: usize, len: usize): usize {
  let n: usize = 0;
  while (n < len && load<u8>(p + n) != 0) n++;
  return n;
}

export function rsHash(p: usize, len: usize): u32 {
  let a = RS_A, h: u32 = 0;
  for (let i: usize = 0; i < len; i++) {
    h = h * a + <u32>load<u8>(p + i);
    a *= RS_B;
  }
  return h;
}

export function jsHash(p: usize, len: usize): u32 {
  let h = JS_INIT;
  for (let i: usize = 0; i < len; i++) h ^= (h << 5) + <u32>load<u8>(p + i) + (h >> 2);
  return h;
}

export function pjwHash(p: usize, len: usize): u32 {
  let h: u32 = 0;
  for (let i: usize = 0; i < len; i++) {
    h = (h << 4) + <u32>load<u8>(p + i);
    const test = h & PJW_HIGH_BITS;
    if (test != 0) h = (h ^ (test >> 24)) & ~PJW_HIGH_BITS;
  }
  return h;
}

export function elfHash(p: usize, len: usize): u32 {
  let h: u32 = 0;
  for (let i: usize = 0; i < len; i++) {
    h = (h << 4) + <u32>load<u8>(p + i);
    const x = h & ELF_HIGH_NIBBLE;
    if (x != 0) h ^= x >> 24;
    h &= ~x;
  }
  return h;
}

export function bkdrHash(p: usize, len: usize): u32 {
  let h: u32 = 0;
  for (let i: usize = 0; i < len; i++) h = h * BKDR_SEED + <u32>load<u8>(p + i);
  return h;
}

export function sdbmHash(p: usize, len: usize): u32 {
  let h: u32 = 0;
  for (let i: usize = 0; i < len; i++) h = <u32>load<u8>(p + i) + (h << 6) + (h << 16) - h;
  return h;
}

export function djbHash(p: usize, len: usize): u32 {
  let h = DJB_INIT;
  for (let i: usize = 0; i < len; i++) h = (h << 5) + h + <u32>load<u8>(p + i);
  return h;
}

export function dekHash(p: usize, len: usize): u32 {
  let h = <u32>len;
  for (let i: usize = 0; i < len; i++) h = ((h << 5) ^ (h >> 27)) ^ <u32>load<u8>(p + i);
  return h;
}

export function bpHash(p: usize, len: usize): u32 {
  let h: u32 = 0;
  for (let i: usize = 0; i < len; i++) h = (h << 7) ^ <u32>load<u8>(p + i);
  return h;
}

export function seedFnvHash(p: usize, len: usize): u32 {
  let h: u32 = 0;
  for (let i: usize = 0; i < len; i++) {
    h *= SEED_FNV_PRIME;
    h ^= <u32>load<u8>(p + i);
  }
  return h;
}

export function apHash(p: usize, len: usize): u32 {
  let h = AP_INIT;
  for (let i: usize = 0; i < len; i++) {
    const c = <u32>load<u8>(p + i);
    h ^= (i & 1) == 0 ? (h << 7) ^ (c * (h >> 3)) : ~(((h << 11) + c) ^ (h >> 5));
  }
  return h;
}

/** XORs the bytes into the four bytes of a little-endian u32, modulo the key length. */
export function hflpHash(p: usize, len: usize): u32 {
  if (len == 0) return 0; // the C divides by zero here
  const n = cLength(p, len);
  let h: u32 = 0;
  for (let i: usize = 0; i < n; i++) h ^= <u32>load<u8>(p + i) << (<u32>(i & 3) << 3);
  return h % <u32>len;
}

/** Σ c·3·i in a wrapping signed int, its absolute value, modulo the key length. */
export function hfHash(p: usize, len: usize): u32 {
  if (len == 0) return 0; // the C divides by zero here
  const n = cLength(p, len);
  let result: i32 = 0;
  for (let i: usize = 0; i < n; i++) result += <i32>load<u8>(p + i) * 3 * <i32>(i + 1);
  if (result < 0) result = -result;
  return <u32>result % <u32>len; // int % unsigned int is unsigned in C
}

export function strHash(p: usize, len: usize): u32 {
  const n = cLength(p, len);
  let h: u32 = 0;
  for (let i: usize = 0; i < n; i++) h = 31 * h + <u32>load<u8>(p + i);
  return h;
}

/** Lower-cases A–Z as the program's TianlHash does. */
// @ts-ignore: decorator
@inline function asciiLower(c: u32): u32 {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

/** Computed in 64 bits like `unsigned long` on 64-bit Linux; the low 32 bits are returned. */
export function tianlHash(p: usize, len: usize): u32 {
  const length = <i32>cLength(p, len);
  if (length == 0) return 0;
  // 16777216 * (length − 1) is an int product that wraps for length > 128; the low 32 bits agree.
  let v: u64 = length <= 256 ? <u64>(<i64>(16777216 * (length - 1))) : TIANL_LONG_INIT;
  const count = length <= 96 ? length : 96;
  const offset = length <= 96 ? 0 : length - 96;
  for (let i: i32 = 1; i <= count; i++) {
    const c = <i32>asciiLower(load<u8>(p + <usize>(offset + i - 1)));
    v += <u64>(<u32>(3 * i * c * c + 5 * i * c + 7 * i + 11 * c) % TIANL_MOD);
  }
  return <u32>v;
}
