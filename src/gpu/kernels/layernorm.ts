// Bindings of shaders/layernorm.wgsl: 1 out, 2 mean, 3 rstd, 4 inp, 5 weight, 6 bias,
// 7 dinp, 8 dweight, 9 dbias, 10 dout, 11 partial (scratch for the column sums), 12 rowStart.
import type { KernelContext } from '../runtime';
import type { GpuTensor } from '../tensor';
import { rowGrid, rowLayout, rowMode, type RowLayout } from './rows';

const FORMAT = 'uuuuuu'; // N, C, chunk, members, maxRows, stride

/** Stacked members (see the shader): rowStart i32 [K+1] over the rows; stride between members' weight copies. */
export interface RowMembers {
  K: number;
  rowStart: GpuTensor;
  maxRows: number;
  stride: number;
}

function memberFields(k: KernelContext, m: RowMembers | undefined) {
  return m ? { fields: [m.K, m.maxRows, m.stride], rowStart: m.rowStart } : { fields: [0, 0, 0], rowStart: k.scratch('layernorm.noMembers', 1) };
}
const rowKernel = (entry: string, { WG, TPR }: RowLayout) => ({ shader: 'layernorm', entry, constants: { WG, TPR } });

// Column sums, stage one: a workgroup covers CX columns (up to 64, so one workgroup spans
// a row at the model's C = 64) and PARAMS_WG / CX row lanes, each taking ROWS_PER_LANE rows
// of its chunk. More chunks mean more workgroups in stage one and a longer (but tiny) loop
// per column in stage two. On a CPU adapter one row lane per column (CX = WG: no barrier)
// and a few chunks, one per core or so.
const PARAMS_WG = 256;
const ROWS_PER_LANE = 8;
const CPU_CHUNKS = 8;

function paramsLayout(k: KernelContext, N: number, C: number) {
  const single = rowMode(k) === 'single';
  let CX = single ? 64 : 1;
  while (CX < Math.min(C, 64)) CX *= 2;
  const WG = single ? CX : PARAMS_WG;
  const chunk = single ? Math.ceil(N / CPU_CHUNKS) : (PARAMS_WG / CX) * ROWS_PER_LANE;
  return { WG, CX, chunk, chunks: Math.ceil(N / chunk), blocks: Math.ceil(C / CX) };
}

export function layernormForward(k: KernelContext, out: GpuTensor, mean: GpuTensor, rstd: GpuTensor, inp: GpuTensor,
  weight: GpuTensor, bias: GpuTensor, N: number, C: number, members?: RowMembers): void {
  const layout = rowLayout(k, C);
  const mf = memberFields(k, members);
  const slots = members ? members.K * members.maxRows : N;
  k.dispatch(rowKernel('layernorm_forward', layout), FORMAT, [N, C, 0, ...mf.fields],
    { 1: out, 2: mean, 3: rstd, 4: inp, 5: weight, 6: bias, 12: mf.rowStart }, rowGrid(slots, layout));
}

/** dinp += ...; dweight += ...; dbias += ... */
export function layernormBackward(k: KernelContext, dinp: GpuTensor, dweight: GpuTensor, dbias: GpuTensor, dout: GpuTensor,
  inp: GpuTensor, weight: GpuTensor, mean: GpuTensor, rstd: GpuTensor, N: number, C: number, members?: RowMembers): void {
  const layout = rowLayout(k, C);
  const mf = memberFields(k, members);
  const count = members?.K ?? 1;
  const rows = members?.maxRows ?? N; // each member's chunks cover its rows
  k.dispatch(rowKernel('layernorm_backward_dinp', layout), FORMAT, [N, C, 0, ...mf.fields],
    { 2: mean, 3: rstd, 4: inp, 5: weight, 7: dinp, 10: dout, 12: mf.rowStart }, rowGrid(count * rows, layout));
  if (rows === 0 || C === 0) return;
  const { WG, CX, chunk, chunks, blocks } = paramsLayout(k, rows, C);
  const partial = k.scratch('layernorm_partial', count * chunks * 2 * C);
  k.dispatch({ shader: 'layernorm', entry: 'layernorm_backward_params', constants: { WG, CX } }, FORMAT,
    [N, C, chunk, ...mf.fields], { 2: mean, 3: rstd, 4: inp, 10: dout, 11: partial, 12: mf.rowStart }, [blocks, chunks, count]);
  k.dispatch({ shader: 'layernorm', entry: 'layernorm_backward_params_reduce', constants: { WG: 64 } }, FORMAT,
    [N, C, chunks, ...mf.fields], { 8: dweight, 9: dbias, 11: partial }, [Math.ceil(C / 64), count, 1]);
}
