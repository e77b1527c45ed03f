// Seeded integer hashing for the environments' task streams and train/eval splits
// (pure; the same values in every env, so a split never depends on which file asks).

/** murmur3's 32-bit finalizer: every input bit moves every output bit. */
export function mix32(x: number): number {
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x85ebca6b) >>> 0;
  x = (x ^ (x >>> 13)) >>> 0;
  x = Math.imul(x, 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/** A 32-bit hash of a tuple of integers (order matters). */
export function hashInts(...xs: number[]): number {
  let h = 0x811c9dc5;
  for (const x of xs) h = mix32((h ^ mix32(x >>> 0)) + 0x9e3779b9);
  return h;
}
