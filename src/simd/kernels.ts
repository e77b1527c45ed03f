// Instantiates the CPU engine's WebAssembly SIMD kernels (built from shaders/simd by
// `npm run build:wasm`) from the bytes embedded in kernels.wasm.ts: synchronously, so a
// backend is ready when constructed, in Node, vitest and a worker alike (no fetch, no loader).
// Two builds of the same source: plain simd128, and relaxed-simd (kernelsFma.wasm.ts: fused
// multiply-adds) where the engine validates it (Chrome 114+; Node 20 only with
// --experimental-wasm-relaxed-simd).
import { KERNELS_WASM_BASE64 } from './kernels.wasm';
import { KERNELS_FMA_WASM_BASE64 } from './kernelsFma.wasm';

/** The module's exports: pointers are byte addresses in `memory`, sizes count elements (see shaders/simd). */
export interface Kernels {
  readonly memory: WebAssembly.Memory;
  heapStart(): number;
  matmulForward(out: number, inp: number, w: number, bias: number, residual: number, pre: number, N: number, K: number, M: number): void;
  /** N >= 0: dinp [N, IC] overwritten (unlisted rows zeroed), not accumulated into. */
  matmulDinp(dinp: number, dout: number, w: number, rows: number, R: number, IC: number, OC: number, N: number): void;
  matmulDweight(dw: number, dout: number, inp: number, rows: number, R: number, IC: number, OC: number): void;
  matmulDbias(dbias: number, dout: number, rows: number, R: number, OC: number): void;
  nonzeroRows(rows: number, x: number, N: number, M: number): number;
  geluForward(out: number, inp: number, n: number): void;
  geluBackward(dinp: number, inp: number, dout: number, n: number, overwrite: number): void;
  layernormForward(out: number, mean: number, rstd: number, inp: number, w: number, b: number, N: number, C: number): void;
  layernormBackward(dinp: number, dw: number, db: number, dout: number, inp: number, w: number, mean: number, rstd: number, acc: number, N: number, C: number): void;
  flagsToRows(rows: number, N: number): number;
  logprobForward(logp: number, entropy: number, logits: number, targets: number, e: number, N: number, V: number, tau: number): void;
  logprobBackward(dlogits: number, dlogp: number, logits: number, targets: number, e: number, N: number, V: number, tau: number): void;
  crossEntropyForward(losses: number, logits: number, targets: number, e: number, N: number, V: number): void;
  crossEntropyBackward(dlogits: number, dloss: number, logits: number, targets: number, e: number, N: number, V: number): void;
  adamw(params: number, grads: number, m: number, v: number, mask: number, n: number,
    lr: number, beta1: number, beta2: number, eps: number, wd: number, bc1: number, bc2: number, k: number): void;
  residualForward(out: number, a: number, b: number, n: number): void;
  sumSquares(x: number, n: number): number;
  copyRows(dst: number, src: number, rows: number, width: number, dstStride: number, srcStride: number, repeat: number): void;
  zeroFloats(p: number, n: number): void;
  embeddingForward(out: number, tokens: number, wte: number, wpe: number, N: number, T: number, C: number): void;
  embeddingBackward(dwte: number, dwpe: number, dout: number, tokens: number, N: number, T: number, C: number): void;
  embeddingLast(out: number, tokens: number, pos: number, wte: number, wpe: number, B: number, T: number, C: number): void;
  /** Sequences [r0, r0 + n) of member k in a decode step, through every layer and the head (shaders/simd/decode.ts; blk: wasmBackend.ts decodeStep). */
  decodeRows(blk: number, r0: number, n: number, k: number): void;
  attentionForward(out: number, att: number, qkv: number, B: number, T: number, C: number, NH: number): void;
  attentionBackward(dqkv: number, dpreatt: number, dout: number, qkv: number, att: number, B: number, T: number, C: number, NH: number, overwrite: number): void;
  attentionDecode(out: number, qkvCache: number, qkvNew: number, pos: number, p: number, B: number, T: number, C: number, NH: number): void;
  /** The calibration of the 128-bit limit (shaders/simd/peak.ts): iters of x <- x * mul + add on independent f32x4 chains. */
  peakMaddChains(iters: number, x0: number, mul: number, add: number): number;
  /** The same with the kernels' madd: one fused multiply-add in the relaxed-simd build (its limit), mul then add in the plain one. */
  peakFmaChains(iters: number, x0: number, mul: number, add: number): number;
  /** FLOP per iteration of peakMaddChains (chains x 4 lanes x 2). */
  readonly PEAK_FLOP_PER_ITER: WebAssembly.Global;
}

/** 'fma': the relaxed-simd build (relaxed_madd in every dot product and row accumulation); 'simd': plain simd128. */
export type KernelVariant = 'simd' | 'fma';

const compiled = new Map<KernelVariant, WebAssembly.Module>();

/** The module's bytes of one variant. */
export function kernelBytes(variant: KernelVariant = 'simd'): Uint8Array<ArrayBuffer> {
  const s = atob(variant === 'fma' ? KERNELS_FMA_WASM_BASE64 : KERNELS_WASM_BASE64);
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
  return b;
}

// The smallest module using simd128: one function returning v128.const 0 (the usual feature probe).
const TINY_SIMD = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 22, 1, 20, 0, 253, 12,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11]);

/** True where this JavaScript engine has WebAssembly with simd128 (a tiny module validates): cheap, for choosing an engine. */
export function simdValidates(wasm: Pick<typeof WebAssembly, 'validate'> | null = globalThis.WebAssembly ?? null): boolean {
  try {
    return typeof wasm === 'object' && wasm !== null && wasm.validate(TINY_SIMD);
  } catch {
    return false;
  }
}

/** True where this JavaScript engine validates the module (WebAssembly with simd128). */
export function simdSupported(): boolean {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(kernelBytes());
  } catch {
    return false;
  }
}

/** The variant to run: the relaxed-simd build where `validate` accepts it, else plain simd128. */
export function kernelVariant(validate: (b: Uint8Array<ArrayBuffer>) => boolean = (b) => WebAssembly.validate(b)): KernelVariant {
  try {
    return validate(kernelBytes('fma')) ? 'fma' : 'simd';
  } catch {
    return 'simd';
  }
}

/** A fresh instance (its own memory) of one variant; the compiled module is shared. */
export function instantiateKernels(variant: KernelVariant = 'simd'): Kernels {
  let module = compiled.get(variant);
  if (module === undefined) {
    if (typeof WebAssembly !== 'object') throw new Error('wasm backend: this JavaScript engine has no WebAssembly');
    const b = kernelBytes(variant);
    if (!WebAssembly.validate(b)) {
      throw new Error(variant === 'fma'
        ? 'wasm backend: this engine does not validate the relaxed-simd kernels (Chrome 114+; Node 20 needs --experimental-wasm-relaxed-simd)'
        : 'wasm backend: this engine does not validate the kernels (WebAssembly SIMD, simd128, is needed: Node 20+, Chrome 91+, Firefox 89+, Safari 16.4+)');
    }
    module = new WebAssembly.Module(b);
    compiled.set(variant, module);
  }
  return new WebAssembly.Instance(module, { env: { abort: wasmAbort } }).exports as unknown as Kernels;
}

function wasmAbort(): never {
  throw new Error('wasm backend: a kernel aborted');
}
