// Bindings of shaders/layernorm.wgsl: 1 out, 2 mean, 3 rstd, 4 inp, 5 weight, 6 bias,
// 7 dinp, 8 dweight, 9 dbias, 10 dout, 11 partial (scratch for the column sums).
import type { KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';
import { rowGrid, rowLayout, type RowLayout } from './rows';

const FORMAT = 'uuu'; // N, C, chunk
const rowKernel = (entry: string, { WG, TPR }: RowLayout) => ({ shader: 'layernorm', entry, constants: { WG, TPR } });

// Column sums: a workgroup of PARAMS_WG lanes covers CX columns (CX up to 64, so one
// workgroup spans a row's worth of columns at the model's C = 64) and PARAMS_WG / CX
// row lanes; each lane takes ROWS_PER_LANE rows of its chunk. More chunks mean more
// workgroups in stage one and a longer (but tiny) loop per column in stage two.
const PARAMS_WG = 256;
const ROWS_PER_LANE = 8;

function paramsLayout(N: number, C: number) {
  let CX = 1;
  while (CX < Math.min(C, 64)) CX *= 2;
  const chunk = (PARAMS_WG / CX) * ROWS_PER_LANE;
  return { CX, chunk, chunks: Math.ceil(N / chunk), blocks: Math.ceil(C / CX) };
}

export function layernormForward(k: KernelContext, out: GpuTensor, mean: GpuTensor, rstd: GpuTensor, inp: GpuTensor,
  weight: GpuTensor, bias: GpuTensor, N: number, C: number): void {
  const layout = rowLayout(C);
  k.dispatch(rowKernel('layernorm_forward', layout), FORMAT, [N, C, 0],
    { 1: out, 2: mean, 3: rstd, 4: inp, 5: weight, 6: bias }, rowGrid(N, layout));
}

/** dinp += ...; dweight += ...; dbias += ... */
export function layernormBackward(k: KernelContext, dinp: GpuTensor, dweight: GpuTensor, dbias: GpuTensor, dout: GpuTensor,
  inp: GpuTensor, weight: GpuTensor, mean: GpuTensor, rstd: GpuTensor, N: number, C: number): void {
  const layout = rowLayout(C);
  k.dispatch(rowKernel('layernorm_backward_dinp', layout), FORMAT, [N, C, 0],
    { 2: mean, 3: rstd, 4: inp, 5: weight, 7: dinp, 10: dout }, rowGrid(N, layout));
  if (N === 0 || C === 0) return;
  const { CX, chunk, chunks, blocks } = paramsLayout(N, C);
  const partial = k.scratch('layernorm_partial', chunks * 2 * C);
  k.dispatch({ shader: 'layernorm', entry: 'layernorm_backward_params', constants: { WG: PARAMS_WG, CX } }, FORMAT,
    [N, C, chunk], { 2: mean, 3: rstd, 4: inp, 10: dout, 11: partial }, [blocks, chunks, 1]);
  k.dispatch({ shader: 'layernorm', entry: 'layernorm_backward_params_reduce', constants: { WG: 64 } }, FORMAT,
    [N, C, chunks], { 8: dweight, 9: dbias, 11: partial }, [Math.ceil(C / 64), 1, 1]);
}
