// What a kernel wrapper (src/gpu/kernels) records with: the kernel, its grid and bindings,
// and the context that dispatches it. Apart from runtime.ts so that the runtime's own
// kernels (the zero fill) import it without an import circle.
import type { GpuTensor } from './tensor';
import type { ParamFormat } from './uniformArena';

export interface Kernel {
  shader: string; // module name: shaders/<shader>.wgsl and its parts (shaderModules.ts)
  entry: string;
  constants?: Record<string, number>; // WGSL override constants (e.g. workgroup size)
}

export type Grid = readonly [number, number, number];

/** Binding number -> tensor, exactly the storage bindings the entry point uses. */
export type Bindings = Record<number, GpuTensor>;

/** What kernel wrappers (src/gpu/kernels) see. */
export interface KernelContext {
  /** `counter`: which GpuCounters entry the dispatch counts in (a clear is not an op's kernel). */
  dispatch(kernel: Kernel, format: ParamFormat, params: readonly number[], bindings: Bindings, grid: Grid, counter?: 'dispatches' | 'clears'): void;
  /** A persistent backend-owned f32 buffer for intermediate results, by name. */
  scratch(name: string, size: number): GpuTensor;
  /** A small buffer to bind where an optional input is absent. */
  readonly dummy: GpuTensor;
  /** The adapter is a CPU implementation (SwiftShader): kernels may pick a layout without workgroup barriers. */
  readonly cpuAdapter: boolean;
}

const MAX_GROUPS_PER_DIM = 65535;

/** Workgroups for n invocations of a 1-D kernel, split over y when wider than one dimension allows. */
export function grid1D(n: number, workgroupSize: number): Grid {
  const groups = Math.ceil(n / workgroupSize);
  if (groups <= MAX_GROUPS_PER_DIM) return [groups, 1, 1];
  return [MAX_GROUPS_PER_DIM, Math.ceil(groups / MAX_GROUPS_PER_DIM), 1];
}

