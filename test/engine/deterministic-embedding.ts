// The deterministic test engine's embeddings (issue 11): a fixed-size vector derived from a hash of the input,
// scaled to unit length. Same input, same vector; a different input, a different one.
import type { EmbeddingInput } from '#shared/protocol/embeddings';

/** FNV-1a over the UTF-16 code units of `text`: the seed of the input's vector. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: a small seeded generator of uniform numbers in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The vector for one input: text and token ids hash differently (`t:` / `i:` prefixes). */
export function deterministicEmbedding(input: EmbeddingInput, dimensions: number): number[] {
  const key = typeof input === 'string' ? `t:${input}` : `i:${input.join(',')}`;
  const next = mulberry32(fnv1a(key));
  // Rounded to float32, as a real engine's vectors are, then scaled to unit length.
  const raw = Array.from({ length: dimensions }, () => Math.fround(next() * 2 - 1));
  const norm = Math.sqrt(raw.reduce((sum, x) => sum + x * x, 0)) || 1;
  return raw.map((x) => Math.fround(x / norm));
}
