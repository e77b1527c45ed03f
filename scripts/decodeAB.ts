// The wasm engine's decode step as one op against the per-op path: Generator.generate alone, the two alternating on one
// backend (decodeSampleFused forced either way), B sequences of `ctx` tokens and `gen` new ones, random weights.
// npx tsx scripts/decodeAB.ts [threads 2] [B 256] [ctx 17] [gen 8] [C 64] [L 2] [NH 4] [reps 20]
import '../src/cli/wasmFeatures';
import { GPT } from '../src/model/gpt';
import { paramSpecs } from '../src/model/params';
import { Generator } from '../src/rl/rollout';
import { WasmBackend } from '../src/simd/wasmBackend';

const threads = Number(process.argv[2] ?? 2), B = Number(process.argv[3] ?? 256), ctx = Number(process.argv[4] ?? 17), gen = Number(process.argv[5] ?? 8);
const C = Number(process.argv[6] ?? 64), L = Number(process.argv[7] ?? 2), NH = Number(process.argv[8] ?? 4), reps = Number(process.argv[9] ?? 20);
const cfg = { nLayer: L, nHead: NH, nEmbd: C, blockSize: 64, vocabSize: 32 };
const b = await WasmBackend.start({ threads });
let s = 1; const rnd = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
const w = Float32Array.from({ length: paramSpecs(cfg).total }, () => (rnd() - 0.5) * 0.2);
const model = new GPT(b, cfg, w), g = new Generator(b, model);
const contexts = Array.from({ length: B }, () => Array.from({ length: ctx }, () => 3 + Math.floor(rnd() * 29)));
const maxNew = contexts.map(() => gen);
const times = { on: [] as number[], off: [] as number[] };
for (let r = 0; r < reps; r++) for (const fused of r % 2 ? [true, false] : [false, true]) {
  if (fused) delete (b as unknown as Record<string, unknown>).decodeSampleFused; else b.decodeSampleFused = () => false;
  const t0 = performance.now();
  await g.generate(contexts, maxNew, 1, -1, 7, r * 100, contexts.map((_, i) => i));
  if (r >= 2) times[fused ? 'on' : 'off'].push(performance.now() - t0);
}
const q = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.floor(p * (a.length - 1))];
const f = (a: number[]) => `median ${q(a, 0.5).toFixed(2)} ms (p25 ${q(a, 0.25).toFixed(2)}, p75 ${q(a, 0.75).toFixed(2)})`;
console.log(`threads=${threads} B=${B} ctx=${ctx} gen=${gen} C=${C} L=${L}: fused ${f(times.on)}; per-op ${f(times.off)}; ratio ${(q(times.off, 0.5) / q(times.on, 0.5)).toFixed(3)}`);
model.destroy(); await b.destroyAndWait();
