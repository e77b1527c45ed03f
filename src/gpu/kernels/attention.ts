// Bindings of shaders/attention.wgsl: 1 out, 2 att, 3 qkv, 4 dqkv, 5 dpreatt, 6 dout.
import { grid1D, type KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';
import { rowGrid, rowLayout, rowMode } from './rows';

// Scores and dpreatt: rows of up to T keys, each key a dot product of hs, so about two keys per lane.
const KEYS_PER_LANE = 2;
// Tiled products ('lanes' mode): one workgroup of TILE_WG per (b, h, TQ output rows); see the shader.
const TQ = 16;
const TILE_WG = 256;
// The backward in one workgroup per (b, h) on GPUs up to this T (a T x T block per pair; longer: the tiles)
const BH_MAX_T = 64;

function tileGrid(B: number, T: number, NH: number, parts: number) {
  return grid1D(parts * B * NH * Math.ceil(T / TQ) * TILE_WG, TILE_WG);
}

function rowKernel(k: KernelContext, entry: string, T: number) {
  const layout = rowLayout(k, T, KEYS_PER_LANE);
  return { layout, kernel: { shader: 'attention', entry, constants: { WG: layout.WG, TPR: layout.TPR } } };
}

export function attentionForward(k: KernelContext, out: GpuTensor, att: GpuTensor, qkv: GpuTensor,
  B: number, T: number, C: number, NH: number): void {
  if (C % NH !== 0) throw new Error(`attention: C=${C} is not a multiple of NH=${NH}`);
  const sizes = [B, T, C, NH];
  // one dispatch: scores, softmax and values of a tile (GPUs) or a row (CPU adapters) together
  if (rowMode(k) === 'lanes') {
    k.dispatch({ shader: 'attention', entry: 'attention_forward_tiled' }, 'uuuu', sizes, { 1: out, 2: att, 3: qkv }, tileGrid(B, T, NH, 1));
  } else {
    const rows = rowKernel(k, 'attention_forward_rows', T);
    k.dispatch(rows.kernel, 'uuuu', sizes, { 1: out, 2: att, 3: qkv }, rowGrid(B * NH * T, rows.layout));
  }
}

/** dqkv += ...; dpreatt is scratch (overwritten). */
export function attentionBackward(k: KernelContext, dqkv: GpuTensor, dpreatt: GpuTensor, dout: GpuTensor, qkv: GpuTensor,
  att: GpuTensor, B: number, T: number, C: number, NH: number): void {
  const sizes = [B, T, C, NH];
  const bindings = { 2: att, 3: qkv, 4: dqkv, 5: dpreatt, 6: dout };
  // one dispatch per (b, h) pairs where the pair's work fits a workgroup (every T on CPU adapters, T <= 64 on GPUs)
  const single = rowMode(k) === 'single';
  if (single || T <= BH_MAX_T) {
    // CPU adapters: a lane per pair, 16 pairs per workgroup (small workgroups spread over the adapter's threads)
    const lanes = single ? 1 : TILE_WG, WGbh = single ? 16 : TILE_WG;
    k.dispatch({ shader: 'attention', entry: 'attention_backward_bh', constants: { WG: WGbh, TPR: lanes } }, 'uuuu', sizes, bindings,
      grid1D(B * NH * lanes, WGbh));
    return;
  }
  const dpre = rowKernel(k, 'attention_backward_dpreatt', T);
  k.dispatch(dpre.kernel, 'uuuu', sizes, { 2: att, 3: qkv, 5: dpreatt, 6: dout }, rowGrid(B * NH * T, dpre.layout));
  k.dispatch({ shader: 'attention', entry: 'attention_backward_dqkv_tiled' }, 'uuuu', sizes, bindings, tileGrid(B, T, NH, 3));
}
