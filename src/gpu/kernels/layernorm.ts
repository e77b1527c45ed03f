// Bindings of shaders/layernorm.wgsl: 1 out, 2 mean, 3 rstd, 4 inp, 5 weight, 6 bias,
// 7 dinp, 8 dweight, 9 dbias, 10 dout, 11 partial (scratch for the column sums), 12 rowStart.
import type { KernelContext } from '../runtime';
import { GpuTensor } from '../tensor';
import { rowGrid, rowLayout, rowMode, type RowLayout } from './rows';

const FORMAT = 'uuuuuuuuuuu'; // N, C, chunk, members, maxRows, stride, joint, wAt, bAt, dinpAccumulate, rowGroups

/** Stacked members (see the shader): rowStart i32 [K+1] over the rows; stride between members' weight copies. */
export interface RowMembers {
  K: number;
  rowStart: GpuTensor;
  maxRows: number;
  stride: number;
}

function memberFields(k: KernelContext, m: RowMembers | undefined) {
  const none = [0, 0, 0]; // joint, wAt, bAt: separate bindings
  return m ? { fields: [m.K, m.maxRows, m.stride, ...none], rowStart: m.rowStart }
    : { fields: [0, 0, 0, ...none], rowStart: k.scratch('layernorm.noMembers', 1) };
}

/** dweight and dbias through one binding spanning both when they are views of one buffer (the model's flat gradients). */
export function spanGrads(dweight: GpuTensor, dbias: GpuTensor): { span: GpuTensor; wAt: number; bAt: number } | null {
  if (dweight.buffer !== dbias.buffer) return null;
  const start = Math.min(dweight.byteOffset, dbias.byteOffset);
  const end = Math.max(dweight.byteOffset + dweight.byteLength, dbias.byteOffset + dbias.byteLength);
  return { span: new GpuTensor(dweight.buffer, start, (end - start) / 4, 'f32', true), wAt: (dweight.byteOffset - start) / 4, bAt: (dbias.byteOffset - start) / 4 };
}

/**
 * Rows at most for the fused backward's column sums on a GPU: one chunk per member, WG / 64 row lanes a column, so
 * a lane takes up to 256 rows (on a CPU adapter one invocation takes a column's rows, whatever their number).
 */
export const FUSED_MAX_ROWS = 512;
const FUSED_CX = 64;

/**
 * dweight and dbias as params_reduce (and linear_backward) bind them: apart, or, when they overlap in one buffer
 * (stacked members' gradient views reach past each other), one binding spanning both and their offsets in it
 * (writable bindings of one dispatch may not overlap).
 */
export function jointGrads(dweight: GpuTensor, dbias: GpuTensor): { dweight: GpuTensor; dbias: GpuTensor | null; at: number[] } {
  const [w0, w1, b0, b1] = [dweight.byteOffset, dweight.byteOffset + dweight.byteLength, dbias.byteOffset, dbias.byteOffset + dbias.byteLength];
  if (dweight.buffer !== dbias.buffer || w1 <= b0 || b1 <= w0) return { dweight, dbias, at: [0, 0, 0] };
  const start = Math.min(w0, b0);
  const span = new GpuTensor(dweight.buffer, start, (Math.max(w1, b1) - start) / 4, 'f32', true);
  return { dweight: span, dbias: null, at: [1, (w0 - start) / 4, (b0 - start) / 4] };
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
// At most this many chunks: stage two adds a column's chunks serially, so at 131k rows the uncapped
// 32-row chunks would be 4,096 in a row; past the cap each row lane takes more rows instead.
export const MAX_PARAM_CHUNKS = 256;

export function paramsLayout(k: KernelContext, N: number, C: number) {
  const single = rowMode(k) === 'single';
  let CX = single ? 64 : 1;
  while (CX < Math.min(C, 64)) CX *= 2;
  const WG = single ? CX : PARAMS_WG;
  const chunk = single ? Math.ceil(N / CPU_CHUNKS) : Math.max((PARAMS_WG / CX) * ROWS_PER_LANE, Math.ceil(N / MAX_PARAM_CHUNKS));
  return { WG, CX, chunk, chunks: Math.ceil(N / chunk), blocks: Math.ceil(C / CX) };
}

export function layernormForward(k: KernelContext, out: GpuTensor, mean: GpuTensor, rstd: GpuTensor, inp: GpuTensor,
  weight: GpuTensor, bias: GpuTensor, N: number, C: number, members?: RowMembers): void {
  const layout = rowLayout(k, C);
  const mf = memberFields(k, members);
  const slots = members ? members.K * members.maxRows : N;
  k.dispatch(rowKernel('layernorm_forward', layout), FORMAT, [N, C, 0, ...mf.fields, 1, 0],
    { 1: out, 2: mean, 3: rstd, 4: inp, 5: weight, 6: bias, 12: mf.rowStart }, rowGrid(slots, layout));
}

/**
 * dinp (+)= ...; dweight += ...; dbias += ... (dinpAccumulate false: dinp = ..., so it needs no zeroing; the Backend
 * op accumulates). One dispatch (layernorm_backward_fused) when dweight and dbias share a buffer and one chunk per
 * member suffices; else three: dinp, then the column sums in two stages.
 */
export function layernormBackward(k: KernelContext, dinp: GpuTensor, dweight: GpuTensor, dbias: GpuTensor, dout: GpuTensor,
  inp: GpuTensor, weight: GpuTensor, mean: GpuTensor, rstd: GpuTensor, N: number, C: number, members?: RowMembers,
  dinpAccumulate = true): void {
  const layout = rowLayout(k, C);
  const mf = memberFields(k, members);
  const count = members?.K ?? 1;
  const rows = members?.maxRows ?? N; // each member's chunks cover its rows
  const span = spanGrads(dweight, dbias);
  if (span && C > 0 && (rowMode(k) === 'single' || rows <= FUSED_MAX_ROWS)) {
    const rowGroups = Math.ceil((count * rows * layout.TPR) / layout.WG);
    const groups = rowGroups + count * Math.ceil(C / FUSED_CX);
    const params = [N, C, 0, ...mf.fields.slice(0, 3), 1, span.wAt, span.bAt, +dinpAccumulate, rowGroups];
    k.dispatch({ shader: 'layernorm', entry: 'layernorm_backward_fused', constants: { ...layout, CX: FUSED_CX } }, FORMAT, params,
      { 2: mean, 3: rstd, 4: inp, 5: weight, 7: dinp, 8: span.span, 10: dout, 12: mf.rowStart },
      [Math.min(groups, 65535), Math.ceil(groups / 65535), 1]);
    return;
  }
  k.dispatch(rowKernel('layernorm_backward_dinp', layout), FORMAT, [N, C, 0, ...mf.fields, +dinpAccumulate, 0],
    { 2: mean, 3: rstd, 4: inp, 5: weight, 7: dinp, 10: dout, 12: mf.rowStart }, rowGrid(count * rows, layout));
  if (rows === 0 || C === 0) return;
  const { WG, CX, chunk, chunks, blocks } = paramsLayout(k, rows, C);
  const partial = k.scratch('layernorm_partial', count * chunks * 2 * C);
  k.dispatch({ shader: 'layernorm', entry: 'layernorm_backward_params', constants: { WG, CX } }, FORMAT,
    [N, C, chunk, ...mf.fields, 1, 0], { 2: mean, 3: rstd, 4: inp, 10: dout, 11: partial, 12: mf.rowStart }, [blocks, chunks, count]);
  const pg = jointGrads(dweight, dbias);
  k.dispatch({ shader: 'layernorm', entry: 'layernorm_backward_params_reduce', constants: { WG: 64 } }, FORMAT,
    [N, C, chunks, ...mf.fields.slice(0, 3), ...pg.at, 1, 0],
    { 8: pg.dweight, 9: pg.dbias ?? k.scratch('layernorm.jointBias', 1), 11: partial }, [Math.ceil(C / 64), count, 1]);
}
