// The GELU forward and backward throughput of the CPU engine's kernels on one thread (G elements/s, the best of 7 x 10
// calls over 2944 x 256 floats, the default update's fc rows), and a hash of the bits (the plain and fused builds
// differ): `npx tsx scripts/geluThroughput.ts` (the fused build; GSPO_KERNELS=simd the plain one).
import '../src/cli/wasmFeatures';
import { WasmBackend } from '../src/simd/wasmBackend';
import { createHash } from 'node:crypto';
const b = new WasmBackend({ threads: 1 });
const n = 2944 * 256, x = b.alloc(n), y = b.alloc(n), g = b.alloc(n), d = b.alloc(n);
const host = new Float32Array(n); let s = 7; for (let i = 0; i < n; i++) { s = (s * 1103515245 + 12345) >>> 0; host[i] = (s / 2 ** 32 - 0.5) * 8; }
b.write(x, host); b.write(g, host.map((v) => v * 0.3));
for (let r = 0; r < 50; r++) { b.geluForward(y, x, n); b.geluBackward(d, x, g, n, true); }
const best = (f: () => void) => { let m = 1e9; for (let k = 0; k < 7; k++) { const t0 = performance.now(); for (let r = 0; r < 10; r++) f(); m = Math.min(m, (performance.now() - t0) / 10); } return m; };
const fw = best(() => b.geluForward(y, x, n)), bw = best(() => b.geluBackward(d, x, g, n, true));
const h = createHash('sha256'); for (const t of [y, d]) { const a = (await b.read(t)) as Float32Array; h.update(Buffer.from(a.buffer, a.byteOffset, a.byteLength)); }
console.log(`gelu forward ${(n / fw / 1e6).toFixed(2)} G/s, backward ${(n / bw / 1e6).toFixed(2)} G/s; bits ${h.digest('hex').slice(0, 16)}`);
process.exit(0);
