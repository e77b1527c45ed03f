// GPU time per kernel, from timestamp queries: with a profiler attached, the runtime gives every dispatch its own
// compute pass whose beginning and end write a timestamp. For measuring (scripts/gpuProfile.ts), never for training:
// a pass per dispatch adds the GPU's pass boundaries, so the sum is an upper bound on the kernels' time in a step.

const PAIRS = 2048; // a query set holds at most 4096 queries (WebGPU's limit): 2 per dispatch

export interface KernelTime { name: string; phase: string; calls: number; ms: number }

export class GpuProfiler {
  private readonly querySet: GPUQuerySet;
  private names: string[] = []; // the open encoder's dispatches, in query order
  private readonly pending: Promise<void>[] = [];
  private readonly totals = new Map<string, KernelTime>();
  /** The label new dispatches are counted under (the caller sets it: 'rollout', 'update'). */
  phase = '';

  constructor(private readonly device: GPUDevice) {
    this.querySet = device.createQuerySet({ type: 'timestamp', count: 2 * PAIRS });
  }

  /** True when the open encoder has used every query: the runtime submits first. */
  get full(): boolean { return this.names.length >= PAIRS; }

  /** The descriptor of one dispatch's own pass. */
  pass(name: string): GPUComputePassDescriptor {
    const i = this.names.length;
    this.names.push(`${this.phase}\u0000${name}`);
    return { label: name, timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } };
  }

  /** Resolves the encoder's queries into a buffer it copies back; call `after()` once the encoder is submitted. */
  encode(encoder: GPUCommandEncoder): (() => void) | null {
    const names = this.names, n = names.length;
    this.names = [];
    if (n === 0) return null;
    const bytes = 16 * n;
    const resolved = this.device.createBuffer({ size: bytes, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    const staging = this.device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    encoder.resolveQuerySet(this.querySet, 0, 2 * n, resolved, 0);
    encoder.copyBufferToBuffer(resolved, 0, staging, 0, bytes);
    return () => {
      this.pending.push(staging.mapAsync(GPUMapMode.READ).then(() => {
        const t = new BigUint64Array(staging.getMappedRange());
        for (let i = 0; i < n; i++) {
          const [phase, name] = names[i].split('\u0000');
          const e = this.totals.get(names[i]) ?? { name, phase, calls: 0, ms: 0 };
          e.calls++;
          e.ms += Number(t[2 * i + 1] - t[2 * i]) / 1e6;
          this.totals.set(names[i], e);
        }
        staging.unmap();
        staging.destroy();
        resolved.destroy();
      }));
    };
  }

  /** Every kernel's time so far (after the submissions' reads land), largest first; `reset` clears them. */
  async times(reset = false): Promise<KernelTime[]> {
    await Promise.all(this.pending.splice(0));
    const out = [...this.totals.values()].sort((a, b) => b.ms - a.ms);
    if (reset) this.totals.clear();
    return out;
  }
}
