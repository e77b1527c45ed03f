// The two measurements behind docs/cpu-engine.md "Zeroing and copying in the kernels" and LayerNorm's backward
// split: the host's TypedArray fill and set on a plain and on a shared buffer, and layernormBackward on one thread
// against two (where it stays on the calling thread) and two forced to split (threadMinWork 0), in one process.
// Medians of 15 rounds.
//   npx tsx scripts/sharedMemoryAB.ts [ROWSxC,...] [fraction of rows zero]
import { WasmBackend } from '../src/simd/wasmBackend';

const median = (f: () => void, reps: number): number => {
  const ts: number[] = [];
  for (let r = 0; r < 15; r++) { const t0 = performance.now(); for (let i = 0; i < reps; i++) f(); ts.push((performance.now() - t0) / reps); }
  return ts.sort((x, y) => x - y)[7] * 1000;
};

const n = 2944 * 64, src = new Float32Array(n).fill(1);
for (const [name, buf] of [['ArrayBuffer', new ArrayBuffer(n * 4)], ['SharedArrayBuffer', new SharedArrayBuffer(n * 4)]] as const) {
  const a = new Float32Array(buf);
  console.log(`${name}: fill ${median(() => a.fill(0), 50).toFixed(1)} us, set ${median(() => a.set(src), 50).toFixed(1)} us (${n} floats)`);
}

const shapes = (process.argv[2] ?? '2944x64,11776x64,2944x256').split(',').map((s) => s.split('x').map(Number));
const zeroFrac = Number(process.argv[3] ?? 0.5);
const one = new WasmBackend({ threads: 1 }), two = await WasmBackend.start({ threads: 2 }), split = await WasmBackend.start({ threads: 2, threadMinWork: 0 });
const rnd = (k: number) => Float32Array.from({ length: k }, () => Math.random() - 0.5);
for (const [N, C] of shapes) {
  const us = [one, two, split].map((b) => {
    const t = (k: number) => { const x = b.alloc(k); b.write(x, rnd(k)); return x; };
    const d = rnd(N * C);
    for (let r = 0; r < N; r++) if ((r % 100) / 100 < zeroFrac) d.fill(0, r * C, (r + 1) * C);
    const dinp = t(N * C), dw = t(C), db = t(C), dout = t(N * C), x = t(N * C), w = t(C), mean = t(N), rstd = t(N);
    b.write(dout, d);
    return median(() => b.layernormBackward(dinp, dw, db, dout, x, w, mean, rstd, N, C, undefined, true), 20);
  });
  console.log(`layernormBackward ${N}x${C} (${zeroFrac} of rows zero): 1 thread ${us[0].toFixed(0)} us, 2 threads ${us[1].toFixed(0)} us, 2 split ${us[2].toFixed(0)} us`);
}
await two.destroyAndWait();
await split.destroyAndWait();
one.destroy();
