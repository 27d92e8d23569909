// Deterministic keys shared by the benchmarks and the tests.

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
export function rng(seed) {
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

/** `count` distinct URL-like keys (about 50 bytes); `tag` keeps different sets disjoint. */
export function urls(count, tag, seed = 1) {
  const random = rng(seed);
  const out = new Array(count);
  for (let i = 0; i < count; i++) {
    const host = HOSTS[Math.floor(random() * HOSTS.length)];
    const id = Math.floor(random() * 1e9).toString(36);
    out[i] = `https://${host}/${tag}/${i}/${id}?page=${i % 97}`;
  }
  return out;
}

/** Packs byte keys into one buffer plus u32 end offsets, the form addPacked and hashPacked take. */
export function pack(parts) {
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  const ends = new Uint32Array(parts.length);
  let at = 0;
  parts.forEach((part, i) => {
    bytes.set(part, at);
    at += part.length;
    ends[i] = at;
  });
  return { bytes, ends };
}
