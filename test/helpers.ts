// Deterministic key generators for the tests.

/** mulberry32: a small seeded PRNG, so every run sees the same keys. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTS = ["example.com", "news.example.org", "shop.example.net", "博客.example.cn", "cdn.example.io"];

/** `count` distinct URL-like keys; `tag` keeps different sets disjoint. */
export function urls(count: number, tag: string, seed = 1): string[] {
  const random = rng(seed);
  const out: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const host = HOSTS[Math.floor(random() * HOSTS.length)];
    const id = Math.floor(random() * 1e9).toString(36);
    out[i] = `https://${host}/${tag}/${i}/${id}?page=${i % 97}`;
  }
  return out;
}

/** `count` random byte strings of length 0 to maxLength. */
export function randomBytes(count: number, maxLength: number, seed = 2): Uint8Array[] {
  const random = rng(seed);
  return Array.from({ length: count }, () => {
    const key = new Uint8Array(Math.floor(random() * (maxLength + 1)));
    for (let i = 0; i < key.length; i++) key[i] = Math.floor(random() * 256);
    return key;
  });
}

/** Packs keys into one buffer and their end offsets, as addPacked expects. */
export function pack(keys: readonly Uint8Array[]): { bytes: Uint8Array; ends: Uint32Array } {
  const total = keys.reduce((sum, key) => sum + key.length, 0);
  const bytes = new Uint8Array(total);
  const ends = new Uint32Array(keys.length);
  let at = 0;
  keys.forEach((key, i) => {
    bytes.set(key, at);
    at += key.length;
    ends[i] = at;
  });
  return { bytes, ends };
}

/** Number of ones in a 0/1 result array. */
export function ones(flags: Uint8Array): number {
  let total = 0;
  for (const flag of flags) total += flag;
  return total;
}
