// Seeded randomness: the same request (and seed) always gives the same reply.

/** Texts up to this length are hashed whole; a longer one by its ends and a sample between. */
const HASHED_WHOLE = 64 * 1024;
const HASHED_END = 16 * 1024;
const STRIDE = 61;

/** FNV-1a over a string, as a 32-bit seed. Past 64K characters, over its first and last 16K, every
 * 61st character between, and its length: a seed must be the same for the same text, not tell every
 * text apart, and a request of 4 MB (an image as base64, 100,000 messages) is then hashed in the
 * time of 100 KB. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  const n = text.length;
  // Two loops, not one with a step worked out per character: the whole text is the common case, and
  // its loop is kept the plain one it was before long texts were sampled.
  if (n <= HASHED_WHOLE) {
    for (let i = 0; i < n; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    return h >>> 0;
  }
  for (let i = 0; i < n; i += i < HASHED_END || i >= n - HASHED_END ? 1 : STRIDE) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return Math.imul(h ^ n, 0x01000193) >>> 0;
}

/** mulberry32: small, fast, good enough for choosing words. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)];
export const between = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
