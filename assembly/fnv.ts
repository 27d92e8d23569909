// FNV-1 and FNV-1a as the FNV specification (Fowler, Noll, Vo) defines them.

// @ts-ignore: decorator
@inline const FNV32_OFFSET: u32 = 0x811C9DC5;
// @ts-ignore: decorator
@inline const FNV32_PRIME: u32 = 0x01000193;
// @ts-ignore: decorator
@inline const FNV64_OFFSET: u64 = 0xCBF29CE484222325;
// @ts-ignore: decorator
@inline const FNV64_PRIME: u64 = 0x00000100000001B3;

export function fnv1_32(p: usize, len: usize): u32 {
  let h = FNV32_OFFSET;
  for (let i: usize = 0; i < len; i++) h = (h * FNV32_PRIME) ^ <u32>load<u8>(p + i);
  return h;
}

export function fnv1a_32(p: usize, len: usize): u32 {
  let h = FNV32_OFFSET;
  for (let i: usize = 0; i < len; i++) h = (h ^ <u32>load<u8>(p + i)) * FNV32_PRIME;
  return h;
}

export function fnv1a_64(p: usize, len: usize): u64 {
  let h = FNV64_OFFSET;
  for (let i: usize = 0; i < len; i++) h = (h ^ <u64>load<u8>(p + i)) * FNV64_PRIME;
  return h;
}
