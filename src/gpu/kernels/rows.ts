// Workgroup layout of the row kernels (layernorm, logsoftmax, attention's softmax).
//
// On a GPU ('lanes'): TPR invocations cooperate on one row (strided loads, then a
// reduction in workgroup memory), and a workgroup of WG = TPR * rows-per-workgroup
// holds several short rows or one long one. Both are WGSL override constants, so
// each (WG, TPR) pair is its own pipeline; the shaders size their workgroup arrays
// for MAX_WG.
//
// On a CPU adapter ('single'): one invocation per row (TPR = 1). The shaders skip
// their reductions when TPR is 1, so the compiled kernel holds no barrier, and
// SwiftShader runs a kernel with barriers as coroutines that cost about a
// millisecond per workgroup: 10-60x slower than one lane per row at our sizes.
import { grid1D, type Grid, type KernelContext } from '../runtime';

/** The WebGPU default limit on invocations per workgroup (maxComputeInvocationsPerWorkgroup). */
export const MAX_WG = 256;
/** Workgroup size for rows short enough to share one (a few rows per workgroup). */
const SHARED_WG = 128;
/** Workgroup size with one invocation per row. */
const SINGLE_WG = 64;

export type RowMode = 'lanes' | 'single';

export interface RowLayout {
  WG: number; // invocations per workgroup
  TPR: number; // invocations per row, a power of two dividing WG
}

let forcedMode: RowMode | null = null;

/** Tests: use one mode on any adapter (null: pick by adapter). */
export function forceRowMode(mode: RowMode | null): void {
  forcedMode = mode;
}

export function rowMode(k: KernelContext): RowMode {
  return forcedMode ?? (k.cpuAdapter ? 'single' : 'lanes');
}

function nextPow2(x: number): number {
  let p = 1;
  while (p < x) p *= 2;
  return p;
}

/**
 * The 'lanes' layout: about `perThread` elements per invocation, enough work per
 * lane to pay for the reduction, few enough that a long row still spreads over a
 * whole workgroup. Rows of up to `perThread` elements get TPR 1 (no reduction).
 */
export function lanesLayout(len: number, perThread: number): RowLayout {
  const TPR = Math.min(MAX_WG, nextPow2(Math.ceil(Math.max(1, len) / perThread)));
  return { WG: Math.max(SHARED_WG, TPR), TPR };
}

/** The layout for rows of `len` elements on this context's adapter. */
export function rowLayout(k: KernelContext, len: number, perThread = 4): RowLayout {
  return rowMode(k) === 'single' ? { WG: SINGLE_WG, TPR: 1 } : lanesLayout(len, perThread);
}

/** Workgroups for `rows` rows in this layout. */
export function rowGrid(rows: number, { WG, TPR }: RowLayout): Grid {
  return grid1D(rows * TPR, WG);
}
