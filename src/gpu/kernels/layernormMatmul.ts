// Bindings of shaders/layernorm_matmul.wgsl: 1 out, 2 geluOut, 3 inp, 4 params (one binding spanning W, bias, lnw,
// lnb), 5 ln, 6 mean, 7 rstd, 8 rowStart. A LayerNorm and the Linear reading it in one dispatch; the caller composes
// the two ops instead when the parameters do not lie in one buffer (or span more than one binding may).
import type { KernelContext } from '../runtime';
import { GpuTensor } from '../tensor';
import { matmulTarget } from './matmul';
import { planMatmul, planWith } from './matmulPlan';

/** Members of the fused op: rows per member (rowStart over the N rows) and one stride for every parameter. */
export interface LnLinearMembers {
  K: number;
  rowStart: GpuTensor;
  maxRows: number;
  stride: number;
}

// N, C, OC, hasBias, epilogue, members, stride, wAt, bAt, lnwAt, lnbAt
const FORMAT = 'uuuuuuuuuuu';

/**
 * ln, mean, rstd = layernorm(inp); out = ln @ weight^T + bias; geluOut = gelu(out) when given. False (nothing
 * recorded) when the parameters are not views of one buffer within the binding limit: the caller composes the ops.
 */
export function layernormMatmulForward(k: KernelContext, ln: GpuTensor, mean: GpuTensor, rstd: GpuTensor, out: GpuTensor,
  geluOut: GpuTensor | null, inp: GpuTensor, lnw: GpuTensor, lnb: GpuTensor, weight: GpuTensor, bias: GpuTensor | null,
  N: number, C: number, OC: number, members?: LnLinearMembers, maxBinding = Infinity): boolean {
  const ps = [lnw, lnb, weight, ...(bias ? [bias] : [])];
  if (ps.some((t) => t.buffer !== weight.buffer)) return false;
  const start = Math.min(...ps.map((t) => t.byteOffset));
  const end = Math.max(...ps.map((t) => t.byteOffset + t.byteLength));
  if (end - start > maxBinding) return false;
  const span = new GpuTensor(weight.buffer, start, (end - start) / 4, 'f32', true);
  const at = (t: GpuTensor | null) => (t ? (t.byteOffset - start) / 4 : 0);
  const count = members?.K ?? 1, rows = members?.maxRows ?? N;
  const full = planMatmul(rows, OC, C, matmulTarget(k));
  const plan = planWith(rows, OC, C, full.tm, full.tn, 1); // K = C unsplit: the prologue normalizes whole rows
  const params = [rows, C, OC, bias ? 1 : 0, geluOut ? 2 : 0, members ? count : 0, members?.stride ?? 0, at(weight), at(bias), at(lnw), at(lnb)];
  k.dispatch({ shader: 'layernorm_matmul', entry: 'layernorm_matmul', constants: { RM: plan.tm / 16, RN: plan.tn / 16 } }, FORMAT, params, {
    1: out, 2: geluOut ?? k.scratch('layernormMatmul.noGelu', 1), 3: inp, 4: span, 5: ln, 6: mean, 7: rstd,
    8: members?.rowStart ?? k.scratch('layernormMatmul.noMembers', 1),
  }, [plan.grid[0], plan.grid[1], count]);
  return true;
}
