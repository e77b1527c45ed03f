// The committed kernels modules are what shaders/simd compiles to today (plain simd128, and the
// relaxed-simd build with fused multiply-adds, the threaded build on a shared memory, plain and relaxed-simd): a stale
// binary fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileKernels, kernelsModule, KERNELS_FMA_MODULE, KERNELS_MODULE, KERNELS_THREADS_FMA_MODULE, KERNELS_THREADS_MODULE } from '../../scripts/buildWasm';
import { KERNELS_THREADS_FMA_WASM_BASE64, KERNELS_THREADS_FMA_WASM_BYTES } from '../../src/simd/kernelsThreadsFma.wasm';
import { KERNELS_THREADS_WASM_BASE64, KERNELS_THREADS_WASM_BYTES } from '../../src/simd/kernelsThreads.wasm';
import { KERNELS_WASM_BASE64, KERNELS_WASM_BYTES } from '../../src/simd/kernels.wasm';
import { KERNELS_FMA_WASM_BASE64, KERNELS_FMA_WASM_BYTES } from '../../src/simd/kernelsFma.wasm';
import { simdSupported } from '../../src/simd/kernels';

describe('wasm kernels build', () => {
  it('rebuilding shaders/simd gives the committed bytes of all four builds (run `npm run build:wasm` after editing the kernels)', async () => {
    const bytes = await compileKernels();
    expect(Buffer.from(bytes).toString('base64') === KERNELS_WASM_BASE64, 'src/simd/kernels.wasm.ts is stale').toBe(true);
    expect(bytes.length).toBe(KERNELS_WASM_BYTES);
    expect(readFileSync(KERNELS_MODULE, 'utf8')).toBe(kernelsModule(bytes));
    const fma = await compileKernels('fma');
    expect(Buffer.from(fma).toString('base64') === KERNELS_FMA_WASM_BASE64, 'src/simd/kernelsFma.wasm.ts is stale').toBe(true);
    expect(fma.length).toBe(KERNELS_FMA_WASM_BYTES);
    expect(readFileSync(KERNELS_FMA_MODULE, 'utf8')).toBe(kernelsModule(fma, 'fma'));
    const threads = await compileKernels('threads');
    expect(Buffer.from(threads).toString('base64') === KERNELS_THREADS_WASM_BASE64, 'src/simd/kernelsThreads.wasm.ts is stale').toBe(true);
    expect(threads.length).toBe(KERNELS_THREADS_WASM_BYTES);
    expect(readFileSync(KERNELS_THREADS_MODULE, 'utf8')).toBe(kernelsModule(threads, 'threads'));
    const threadsFma = await compileKernels('threadsFma');
    expect(Buffer.from(threadsFma).toString('base64') === KERNELS_THREADS_FMA_WASM_BASE64, 'src/simd/kernelsThreadsFma.wasm.ts is stale').toBe(true);
    expect(threadsFma.length).toBe(KERNELS_THREADS_FMA_WASM_BYTES);
    expect(readFileSync(KERNELS_THREADS_FMA_MODULE, 'utf8')).toBe(kernelsModule(threadsFma, 'threadsFma'));
    expect(threadsFma.includes(0x85), 'no relaxed_madd opcode byte').toBe(true);
  }, 360_000);
  it('the threaded build imports one shared memory (env.memory) and exports threadChunk', () => {
    const m = new WebAssembly.Module(Buffer.from(KERNELS_THREADS_WASM_BASE64, 'base64'));
    expect(WebAssembly.Module.imports(m)).toEqual([{ module: 'env', name: 'memory', kind: 'memory' }]);
    expect(KERNELS_THREADS_FMA_WASM_BASE64).not.toBe(KERNELS_THREADS_WASM_BASE64); // the relaxed-simd one is another module
    expect(WebAssembly.Module.exports(m).map((e) => e.name)).toContain('threadChunk');
    // an unshared memory is refused: the import is declared shared
    expect(() => new WebAssembly.Instance(m, { env: { memory: new WebAssembly.Memory({ initial: 2, maximum: 65536 }) } })).toThrow();
  });
  it('the module uses simd128 and validates on this Node', () => {
    expect(simdSupported()).toBe(true);
    const bytes = Buffer.from(KERNELS_WASM_BASE64, 'base64');
    // a module without simd instructions would validate anywhere: the 0xfd prefix marks them
    expect(bytes.includes(0xfd)).toBe(true);
  });
});
