// The CPU engine's attention forward and backward alone at the default update's shape (128 sequences of 23, C 64, 4
// heads): us a call, the best of 5 x 20, and GFLOP/s over the causal pairs: `npx tsx scripts/attentionSpeed.ts [threads] [B] [T]`.
import '../src/cli/wasmFeatures';
import { WasmBackend } from '../src/simd/wasmBackend';
const threads = Number(process.argv[2] ?? 1), B = Number(process.argv[3] ?? 128), T = Number(process.argv[4] ?? 23);
const b = new WasmBackend({ threads });
const C = 64, NH = 4, N = B * T;
const qkv = b.alloc(N * 3 * C), out = b.alloc(N * C), att = b.alloc(B * NH * T * T), dqkv = b.alloc(N * 3 * C), dpre = b.alloc(B * NH * T * T), dout = b.alloc(N * C);
b.write(qkv, new Float32Array(N * 3 * C).map((_, i) => Math.sin(i)));
b.write(dout, new Float32Array(N * C).map((_, i) => Math.cos(i)));
const best = (f: () => void) => { let m = 1e9; for (let k = 0; k < 5; k++) { const t0 = performance.now(); for (let r = 0; r < 20; r++) f(); m = Math.min(m, (performance.now() - t0) / 20); } return m * 1000; };
for (let i = 0; i < 3; i++) {
  const f = best(() => b.attentionForward(out, att, qkv, B, T, C, NH));
  const bw = best(() => b.attentionBackward(dqkv, dpre, dout, qkv, att, B, T, C, NH, true));
  const flops = B * NH * 2 * (C / NH) * T * (T + 1); // q.k and att.v over causal pairs: 2 * 2 hs per pair, T(T+1)/2 pairs
  console.log(`threads ${threads} B ${B} T ${T}: forward ${f.toFixed(0)} us (${(flops / f / 1e3).toFixed(1)} GFLOP/s), backward ${bw.toFixed(0)} us (${(2 * flops / bw / 1e3).toFixed(1)} GFLOP/s)`);
}
process.exit(0);
