// Workgroup layout of the row kernels (layernorm, logsoftmax, attention's softmax):
// TPR invocations cooperate on one row (strided loads, then a tree reduction in
// workgroup memory), and a workgroup of WG = TPR * rows-per-workgroup holds
// several short rows or one long one. Both are WGSL override constants, so each
// (WG, TPR) pair is its own pipeline; the shaders size their workgroup arrays
// for MAX_WG.
import { grid1D, type Grid } from '../runtime';

/** The WebGPU default limit on invocations per workgroup (maxComputeInvocationsPerWorkgroup). */
export const MAX_WG = 256;
/** Workgroup size for rows short enough to share one (a few rows per workgroup). */
const SHARED_WG = 128;

export interface RowLayout {
  WG: number; // invocations per workgroup
  TPR: number; // invocations per row, a power of two dividing WG
}

function nextPow2(x: number): number {
  let p = 1;
  while (p < x) p *= 2;
  return p;
}

/**
 * About `perThread` elements per invocation: enough work per lane to hide the
 * reduction's barriers, few enough that a long row still spreads over a whole
 * workgroup. Rows of 1-3 elements get TPR 1 (no reduction at all).
 */
export function rowLayout(len: number, perThread = 4): RowLayout {
  const TPR = Math.min(MAX_WG, nextPow2(Math.ceil(Math.max(1, len) / perThread)));
  return { WG: Math.max(SHARED_WG, TPR), TPR };
}

/** Workgroups for `rows` rows in this layout. */
export function rowGrid(rows: number, { WG, TPR }: RowLayout): Grid {
  return grid1D(rows * TPR, WG);
}
