// Token sampling with a counter-based RNG: the same (seed, counter, sequence)
// gives the same uniform on every backend, so a run is reproducible.
// Kernel twin: shaders/sample.wgsl; test: test/gpu/sample.test.ts.
import type { F, I } from './nn';

/** lowbias32 (Chris Wellons): a 32-bit integer hash with good avalanche. WGSL twin in shaders/sample.wgsl. */
export function hash32(x: number): number {
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/** A uniform in [0, 1) from (seed, counter, stream), 24 bits of resolution. */
export function uniform(seed: number, counter: number, stream: number): number {
  const h = hash32((seed + hash32((counter + hash32(stream >>> 0)) >>> 0)) >>> 0);
  return (h >>> 8) / 16777216;
}

/** A row's exponentials (f64, as the sums take them), kept across calls: sampling runs for every token of every row. */
let expScratch = new Float64Array(0);

export function sample(tokens: I, logp: F, pos: I, done: I, limit: I, logits: F,
  B: number, T: number, V: number, temperature: number, eos: number, seed: number, counter: number, logitsT = T, rowRng?: I): void {
  const greedy = temperature === 0, inv = greedy ? 1 : 1 / temperature;
  if (expScratch.length < V) expScratch = new Float64Array(V);
  const e = expScratch;
  for (let b = 0; b < B; b++) {
    if (done[b] !== 0) continue;
    const p = pos[b], o = (b * logitsT + Math.min(p, logitsT) - 1) * V;
    let max = -Infinity, arg = 0;
    for (let v = 0; v < V; v++) { const x = logits[o + v] * inv; if (x > max) { max = x; arg = v; } }
    let sum = 0;
    for (let v = 0; v < V; v++) sum += (e[v] = Math.exp(logits[o + v] * inv - max)); // each exp once: the draw reads them again
    let tok = arg;
    if (!greedy) {
      // a population's row draws from its member's stream (seed, index in the member), as its lone run would
      const u = rowRng ? uniform(rowRng[2 * b] >>> 0, counter, rowRng[2 * b + 1] >>> 0) : uniform(seed, counter, b);
      const target = u * sum;
      let acc = 0;
      tok = V - 1;
      for (let v = 0; v < V; v++) {
        acc += e[v];
        if (acc > target) { tok = v; break; }
      }
    }
    tokens[b * T + p] = tok;
    logp[b * T + p] = logits[o + tok] * inv - max - Math.log(sum);
    pos[b] = p + 1;
    if (tok === eos || p + 1 >= limit[b]) done[b] = 1;
  }
}
