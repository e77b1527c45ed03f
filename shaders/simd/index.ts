// The CPU engine's WebAssembly SIMD kernels (AssemblyScript; built by scripts/buildWasm.ts
// into src/simd/kernels.wasm.ts). Every kernel takes byte pointers into this module's
// memory, which the host's allocator (src/simd/arena.ts) owns above `heapStart`: the kernels
// allocate nothing. Twins: the reference ops in src/reference; tests: test/simd/*.test.ts.
export { matmulForward, matmulDinp, matmulDweight, matmulDbias, nonzeroRows, flagsToRows } from './matmul';
export { geluForward, geluBackward } from './gelu';
export { attentionForward, attentionBackward, attentionDecode } from './attention';
export { layernormForward, layernormBackward } from './layernorm';
export { logprobForward, logprobBackward, crossEntropyForward, crossEntropyBackward } from './logsoftmax';
export { adamw, residualForward, sumSquares, copyRows, zeroFloats } from './optim';
export { embeddingForward, embeddingBackward, embeddingLast } from './embedding';
export { decodeRows } from './decode';
export { peakMaddChains, peakFmaChains, PEAK_FLOP_PER_ITER } from './peak';

/** First byte the host may allocate: above this module's static data (matmul.ts's constant 1) and its stack. */
export function heapStart(): usize {
  return (__heap_base + 63) & ~(<usize>63);
}
