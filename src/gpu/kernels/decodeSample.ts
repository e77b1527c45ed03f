// Bindings of shaders/sample.wgsl's decode_sample: 1 tokens, 2 logp, 3 pos, 4 done, 5 limit, 7 rowRng, 8 weights (the
// flat vector), 9 the KV cache: 8 storage buffers, WebGPU's default limit per stage. The weights' places, the shape
// and the members' row offsets travel in the uniform (36 scalars, then up to 28 offsets).
import { checkMemberRows, decodeCacheStride, memberStride, type DecodeSampleArgs, type DecodeShape, type Tensor } from '../../backend';
import { grid1D, type KernelContext } from '../runtime';
import { asGpu, GpuTensor } from '../tensor';

const MAX_MEMBERS = 27; // rowStart: array<vec4u, 7> holds K + 1 offsets
const BLOCK_FIELDS = ['ln1w', 'ln1b', 'qkvw', 'qkvb', 'attprojw', 'attprojb', 'ln2w', 'ln2b', 'fcw', 'fcb', 'fcprojw', 'fcprojb'] as const;

/**
 * Where one kernel per row is the better plan, and fits the kernel's fixed workgroup arrays: small models (C <= 128,
 * at most 4 layers, NH x T scores and V logits within 2048 values: about 10 KB of workgroup memory, under WebGPU's
 * default 16 KB). Larger models keep the per-op path, whose matmuls spread over many workgroups.
 */
export function decodeSampleFits(s: DecodeShape): boolean {
  return s.C <= 128 && s.C % s.NH === 0 && s.NH <= 16 && s.L <= 4 && s.T <= 256 && s.NH * s.T <= 2048 && s.V <= 2048 && s.K <= MAX_MEMBERS;
}

export function decodeSample(k: KernelContext, a: DecodeSampleArgs): void {
  const { B, T, C, NH, V, weights: w } = a, L = w.layers.length, K = a.members?.K ?? 1;
  if (!decodeSampleFits({ B, T, C, NH, L, V, K })) throw new Error(`decodeSample: the fused kernel does not take C=${C} NH=${NH} L=${L} T=${T} V=${V} K=${K}`);
  const kvStride = decodeCacheStride(B, T, C);
  if (a.kv.size < L * kvStride) throw new Error(`decodeSample: the cache holds ${a.kv.size} values, not L x ${kvStride}`);
  // every weight a view of one buffer: bind from the lowest view to the end of the highest, offsets relative to it
  const views = [w.wte, w.wpe, w.lnfw, w.lnfb, ...w.layers.flatMap((lw) => BLOCK_FIELDS.map((f) => lw[f]))].map(asGpu);
  const buffer = views[0].buffer;
  if (views.some((v) => v.buffer !== buffer)) throw new Error('decodeSample: the weights must be views of one flat vector');
  const base = Math.min(...views.map((v) => v.byteOffset)), end = Math.max(...views.map((v) => v.byteOffset + v.byteLength));
  const at = (t: Tensor) => (asGpu(t).byteOffset - base) / 4;
  const l0 = w.layers[0], layerStride = L > 1 ? at(w.layers[1].ln1w) - at(l0.ln1w) : 0;
  w.layers.forEach((lw, l) => BLOCK_FIELDS.forEach((f) => {
    if (at(lw[f]) !== at(l0[f]) + l * layerStride) throw new Error(`decodeSample: layer ${l}'s ${f} is not at layer 0's + ${l} x ${layerStride}`);
  }));
  const rowStart = new Array<number>(28).fill(B);
  let paramStride = 0;
  if (a.members) {
    checkMemberRows(a.members, B);
    paramStride = memberStride(w.wte, a.members);
    a.members.rowStartHost.forEach((r, i) => { rowStart[i] = r; });
  }
  const params = [B, T, V, a.eos, a.seed >>> 0, a.counter >>> 0, a.temperature, T, a.rowRng ? 1 : 0,
    C, NH, L, a.prefill ? 1 : 0, K, paramStride, kvStride, at(w.wte), at(w.wpe), at(w.lnfw), at(w.lnfb), layerStride,
    ...BLOCK_FIELDS.map((f) => at(l0[f])), 0, 0, 0, ...rowStart];
  const wts = new GpuTensor(buffer, base, (end - base) / 4, 'f32', true);
  k.dispatch({ shader: 'sample', entry: 'decode_sample' }, 'uuuuuufuu' + 'u'.repeat(params.length - 9), params,
    { 1: asGpu(a.tokens), 2: asGpu(a.logp), 3: asGpu(a.pos), 4: asGpu(a.done), 5: asGpu(a.limit), 7: a.rowRng ? asGpu(a.rowRng) : k.dummy, 8: wts, 9: asGpu(a.kv) },
    grid1D(B, 1));
}
