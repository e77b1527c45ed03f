// Node 20's V8 keeps WebAssembly relaxed SIMD behind a flag that Chromium (114+) ships on. Set here, first thing,
// before any module is compiled, so the CLI (and every worker thread it starts: V8's flags are the process's) runs
// the kernels the page runs in Chromium: the fused build (relaxed_madd, the CPU's FMA), 1.5x the plain build's limit
// on this machine. GSPO_KERNELS=simd keeps the plain build (IEEE mul then add: the same bits on every machine).
import { setFlagsFromString } from 'node:v8';

const asked = process.env.GSPO_KERNELS;
if (asked !== undefined && asked !== 'simd' && asked !== 'fma') {
  process.stderr.write(`GSPO_KERNELS must be "fma" (the fused build, the default) or "simd" (the plain build), got "${asked}"\n`);
  process.exit(2);
}
if (asked !== 'simd') setFlagsFromString('--experimental-wasm-relaxed-simd');
