// Command recording for the WebGPU backend. Ops append dispatches to one
// GPUCommandEncoder (consecutive dispatches share a compute pass); nothing
// reaches the device until `submit`. Uniforms go to the arena, bind groups are
// cached by (pipeline, uniform slot, bound ranges), so a repeated step creates
// no GPU objects.
import { BufferPool } from './bufferPool';
import type { DeviceHealth } from './device';
import { PipelineCache } from './pipelines';
import type { GpuProfiler } from './profiler';
import { zeroKernel } from './kernels/residual';
import { GpuTensor } from './tensor';
import type { Bindings, Grid, Kernel, KernelContext } from './kernelContext';
import { UniformArena, UNIFORM_SLOT_BYTES, type ParamFormat } from './uniformArena';

export { grid1D, type Bindings, type Grid, type Kernel, type KernelContext } from './kernelContext';

export interface GpuCounters {
  dispatches: number;
  submissions: number;
  readbacks: number;
  uploads: number;
  bindGroupsCreated: number;
  buffersCreated: number;
  passes: number; // compute passes begun (a copy or clearBuffer between dispatches ends one)
  clears: number; // tensors zeroed by a dispatch (not counted in dispatches: the ops' kernels are)
  splits: number; // submissions made because a command buffer reached commandsPerSubmit (the watchdog cap)
  waitMs: number; // wall time the host spent awaiting readbacks (overlapping reads counted once): the rest of a step is host work
}

const BIND_GROUP_CACHE_LIMIT = 50_000;

/**
 * Watchdogs (Windows' TDR at about 2 s, browsers' GPU-process watchdogs) reset a device whose command buffer
 * runs too long, which an integrated GPU can reach with one minibatch's update. A submission seen to take
 * longer than WATCHDOG_LONG_MS (submit to done) caps later submissions at the commands that fit in
 * WATCHDOG_TARGET_MS at the rate it showed, never below WATCHDOG_MIN_COMMANDS. The cap only tightens.
 */
export const WATCHDOG_LONG_MS = 1000;
export const WATCHDOG_TARGET_MS = 400;
export const WATCHDOG_MIN_COMMANDS = 16;

/** The commands one submission may hold after one of `commands` took `ms` (unchanged when it was not long). */
export function watchdogCap(current: number, commands: number, ms: number): number {
  if (!(ms > WATCHDOG_LONG_MS) || commands <= 0) return current;
  return Math.min(current, Math.max(WATCHDOG_MIN_COMMANDS, Math.floor((commands / ms) * WATCHDOG_TARGET_MS)));
}

export class GpuRuntime implements KernelContext {
  readonly storage: BufferPool;
  private readonly staging: BufferPool; // MAP_READ | COPY_DST for reads
  private readonly uploads: BufferPool; // COPY_SRC | COPY_DST for ordered writes
  private readonly uniforms: UniformArena;
  readonly pipelines: PipelineCache;
  private readonly bindGroups = new Map<string, GPUBindGroup>();
  private readonly scratchTensors = new Map<string, GpuTensor>();
  private encoder: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  private pendingUploads: GPUBuffer[] = [];
  private recorded = 0; // commands in the open encoder
  /**
   * The commands one submission holds at most (watchdogCap): Infinity until a submission runs long. Measured on
   * hardware adapters only (a CPU adapter's queue is not a GPU's watchdog's); tests may set it.
   */
  commandsPerSubmit = Infinity;
  private soon: Promise<void> | null = null; // a submission scheduled by submitSoon
  private lastDone = 0; // when the last measured submission finished (performance.now())
  readonly dummy: GpuTensor;
  /** Objects that must live as long as the device (the GPU instance, the adapter). */
  readonly keepAlive: unknown[] = [];
  /**
   * A buffer a cached result was computed from (the embedding's folded sort, webgpuBackend.ts): set to null by any
   * write into it (an upload, copy, clear, or a dispatch binding it writable), so the cache cannot outlive its input.
   */
  watched: GPUBuffer | null = null;
  readonly counters: GpuCounters = { dispatches: 0, submissions: 0, readbacks: 0, uploads: 0, bindGroupsCreated: 0, buffersCreated: 0, passes: 0, clears: 0, splits: 0, waitMs: 0 };
  /** Set to time every dispatch on the GPU (measurement only: see profiler.ts). */
  profiler: GpuProfiler | null = null;
  private waiting = 0; // reads in flight, and since when (for waitMs)
  private waitSince = 0;

  constructor(
    readonly device: GPUDevice,
    readonly health: DeviceHealth,
    shaders: Record<string, string>,
    readonly cpuAdapter = false,
  ) {
    // (GPUBufferUsage is read here, not at import: under Node it is a global only once 'webgpu' is loaded.)
    this.storage = new BufferPool(device, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, 'tensor');
    this.staging = new BufferPool(device, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, 'staging');
    this.uploads = new BufferPool(device, GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, 'upload');
    this.uniforms = new UniformArena(device);
    this.pipelines = new PipelineCache(device, shaders);
    this.dummy = new GpuTensor(this.storage.acquire(256).buffer, 0, 64, 'f32', false);
  }

  private commandEncoder(): GPUCommandEncoder {
    if (!this.encoder) this.encoder = this.device.createCommandEncoder({ label: 'step' });
    return this.encoder;
  }

  /** The encoder outside any compute pass, for copies and clears. */
  private copyEncoder(): GPUCommandEncoder {
    if (this.pass) {
      this.pass.end();
      this.pass = null;
    }
    this.recorded++;
    return this.commandEncoder();
  }

  dispatch(kernel: Kernel, format: ParamFormat, params: readonly number[], bindings: Bindings, grid: Grid, counter: 'dispatches' | 'clears' = 'dispatches'): void {
    if (grid[0] === 0 || grid[1] === 0 || grid[2] === 0) return;
    if (this.uniforms.full) this.submit();
    const { pipeline, key } = this.pipelines.get(kernel.shader, kernel.entry, kernel.constants);
    const slot = this.uniforms.push(format, params);
    const bindGroup = this.bindGroup(pipeline, key, slot, bindings, kernel.shader);
    if (this.watched) {
      const readOnly = this.pipelines.readOnlyBindings(kernel.shader);
      for (const b in bindings) if (bindings[b].buffer === this.watched && !readOnly.has(Number(b))) this.watched = null;
    }
    if (this.profiler) { // a pass of its own per dispatch, timed (profiler.ts)
      if (this.profiler.full) this.submit();
      this.pass?.end();
      this.pass = this.commandEncoder().beginComputePass(this.profiler.pass(`${kernel.shader}:${kernel.entry}`));
    } else if (!this.pass) {
      this.pass = this.commandEncoder().beginComputePass({ label: 'ops' });
      this.counters.passes++;
    }
    this.pass.setPipeline(pipeline);
    this.pass.setBindGroup(0, bindGroup);
    this.pass.dispatchWorkgroups(grid[0], grid[1], grid[2]);
    this.recorded++;
    this.counters[counter]++;
    if (this.recorded >= this.commandsPerSubmit) { this.counters.splits++; this.submit(); } // queue order keeps the results
  }

  private bindGroup(pipeline: GPUComputePipeline, pipelineKey: string, slot: number, bindings: Bindings, shader: string): GPUBindGroup {
    // the key first, the entries only on a miss: this runs for every dispatch, hits nearly always
    let key = `${pipelineKey}|${slot}`;
    for (const binding in bindings) {
      const t = bindings[binding];
      key += `|${binding}:${BufferPool.id(t.buffer)}:${t.byteOffset}:${t.byteLength}`;
    }
    let group = this.bindGroups.get(key);
    if (!group) {
      this.checkUsage(pipelineKey, shader, bindings);
      const entries: GPUBindGroupEntry[] = [
        { binding: 0, resource: { buffer: this.uniforms.buffer, offset: slot * UNIFORM_SLOT_BYTES, size: UNIFORM_SLOT_BYTES } },
      ];
      for (const [binding, t] of Object.entries(bindings)) {
        // Zero-length bindings are invalid; kernels never read past their sizes.
        const size = Math.max(4, Math.min(t.byteLength, t.buffer.size - t.byteOffset));
        entries.push({ binding: Number(binding), resource: { buffer: t.buffer, offset: t.byteOffset, size } });
      }
      if (this.bindGroups.size >= BIND_GROUP_CACHE_LIMIT) this.bindGroups.clear();
      group = this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
      this.bindGroups.set(key, group);
      this.counters.bindGroupsCreated++;
    }
    return group;
  }

  /**
   * Inputs the shader declares read-only may not share a buffer (any range of it) with a binding it writes in
   * one dispatch: WebGPU rejects the mix (writable and read-only usage of one buffer in a synchronization scope).
   * Checked here, once per new bind group, so the error names the kernel and bindings at the op that records it.
   */
  private checkUsage(pipelineKey: string, shader: string, bindings: Bindings): void {
    const readOnly = this.pipelines.readOnlyBindings(shader);
    const writable = new Map<GPUBuffer, string>();
    for (const [binding, t] of Object.entries(bindings)) if (!readOnly.has(Number(binding))) writable.set(t.buffer, binding);
    for (const [binding, t] of Object.entries(bindings)) {
      const other = readOnly.has(Number(binding)) ? writable.get(t.buffer) : undefined;
      if (other !== undefined) {
        throw new Error(`${pipelineKey}: read-only binding ${binding} and written binding ${other} are views of one buffer ` +
          '(WebGPU forbids read-only and writable use of one buffer in a dispatch): pass separate tensors');
      }
    }
  }

  scratch(name: string, size: number): GpuTensor {
    let t = this.scratchTensors.get(name);
    if (!t || t.size < size) {
      if (t) this.storage.release(t.buffer);
      t = this.allocate(size, 'f32');
      this.scratchTensors.set(name, t);
    }
    return t;
  }

  /** A zero-filled base tensor from the pool. */
  allocate(size: number, dtype: 'f32' | 'i32'): GpuTensor {
    const bytes = Math.max(4, size * 4);
    const { buffer, fresh } = this.storage.acquire(bytes);
    if (fresh) this.counters.buffersCreated++;
    // A new buffer is zero-filled by WebGPU; a reused one is cleared in record
    // order, after any recorded op that still reads its old contents.
    else this.clear(new GpuTensor(buffer, 0, buffer.size / 4, dtype, false));
    return new GpuTensor(buffer, 0, size, dtype, false);
  }

  private wrote(b: GPUBuffer): void {
    if (b === this.watched) this.watched = null;
  }

  release(t: GpuTensor): void {
    this.wrote(t.buffer); // back to the pool: its next tensor is another's
    this.storage.release(t.buffer);
  }

  /**
   * Zeroes the tensor in record order: a dispatch in the open compute pass (consecutive ops keep sharing
   * one pass), or clearBuffer when the range is over what one binding may hold.
   */
  clear(t: GpuTensor): void {
    if (t.size === 0) return;
    this.wrote(t.buffer);
    if (t.byteLength <= this.device.limits.maxStorageBufferBindingSize) zeroKernel(this, t, t.size, 'clears');
    else this.copyEncoder().clearBuffer(t.buffer, t.byteOffset, t.byteLength);
  }

  copyBuffer(dst: GpuTensor, src: GpuTensor): void {
    this.wrote(dst.buffer);
    this.copyEncoder().copyBufferToBuffer(src.buffer, src.byteOffset, dst.buffer, dst.byteOffset, src.byteLength);
  }

  /**
   * Writes host data into a tensor at its place in the recorded order: with
   * nothing recorded it goes straight to the queue; otherwise through a staging
   * buffer and a recorded copy, so ops recorded earlier still see the old data.
   */
  upload(t: GpuTensor, byteOffset: number, data: Float32Array | Int32Array): void {
    if (data.byteLength === 0) return;
    this.wrote(t.buffer);
    this.counters.uploads++;
    if (this.recorded === 0) {
      this.device.queue.writeBuffer(t.buffer, t.byteOffset + byteOffset, data.buffer, data.byteOffset, data.byteLength);
      return;
    }
    const { buffer } = this.uploads.acquire(data.byteLength);
    this.device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    this.copyEncoder().copyBufferToBuffer(buffer, 0, t.buffer, t.byteOffset + byteOffset, data.byteLength);
    this.pendingUploads.push(buffer);
  }

  submit(): void {
    if (this.pass) {
      this.pass.end();
      this.pass = null;
    }
    if (!this.encoder) return;
    this.uniforms.flush(this.device.queue);
    const timed = this.profiler?.encode(this.encoder);
    this.device.queue.submit([this.encoder.finish()]);
    timed?.();
    if (!this.cpuAdapter) {
      // its own time: from its submit, or from the previous one's end when it waited behind it in the queue
      const commands = this.recorded, t0 = performance.now();
      void this.device.queue.onSubmittedWorkDone().then(() => {
        const now = performance.now(), ran = now - Math.max(t0, this.lastDone);
        this.lastDone = now;
        this.commandsPerSubmit = watchdogCap(this.commandsPerSubmit, commands, ran);
      }, () => { /* a lost device: its own error path */ });
    }
    this.encoder = null;
    this.recorded = 0;
    this.uniforms.reset();
    // Queue order: later writes into these staging buffers land after this submission's copies.
    for (const b of this.pendingUploads) this.uploads.release(b);
    this.pendingUploads = [];
    this.counters.submissions++;
  }

  /**
   * Submits at the end of the current synchronous stretch (a microtask): reads issued together, and the work
   * recorded with them, share one submission; a `submit()` called before then takes their copies along.
   */
  private submitSoon(): Promise<void> {
    return (this.soon ??= Promise.resolve().then(() => { this.soon = null; this.submit(); }));
  }

  /** Copies the tensor back (a CPU-GPU sync point); the copy is submitted with what is recorded in the same stretch (submitSoon). */
  async read(t: GpuTensor, byteOffset = 0, bytes = t.byteLength - byteOffset): Promise<ArrayBuffer> {
    this.throwIfUnhealthy();
    if (bytes === 0) return new ArrayBuffer(0);
    const { buffer: staging } = this.staging.acquire(bytes);
    this.copyEncoder().copyBufferToBuffer(t.buffer, t.byteOffset + byteOffset, staging, 0, bytes);
    this.counters.readbacks++;
    try {
      await this.waited(async () => {
        await this.submitSoon();
        await staging.mapAsync(GPUMapMode.READ, 0, bytes);
      });
      const copy = staging.getMappedRange(0, bytes).slice(0);
      staging.unmap();
      return copy;
    } finally {
      this.staging.release(staging);
      this.throwIfUnhealthy();
    }
  }

  async sync(): Promise<void> {
    this.submit();
    await this.waited(() => this.device.queue.onSubmittedWorkDone());
    this.throwIfUnhealthy();
  }

  /** Awaits `wait`, counted into waitMs: while any wait is in flight the clock runs once (overlapping reads). */
  private async waited(wait: () => Promise<unknown>): Promise<void> {
    if (this.waiting++ === 0) this.waitSince = performance.now();
    try { await wait(); } finally {
      if (--this.waiting === 0) this.counters.waitMs += performance.now() - this.waitSince;
    }
  }

  /** Errors reported since the last call (and clears them). */
  takeErrors(): string[] {
    const errors = this.health.errors;
    this.health.errors = [];
    return errors;
  }

  private throwIfUnhealthy(): void {
    if (this.health.lost) throw new Error(`WebGPU device lost (${this.health.lostReason})`);
    if (this.health.errors.length > 0) throw new Error(`WebGPU error: ${this.takeErrors().join('; ')}`);
  }

  destroy(): void {
    this.encoder = null;
    this.pass = null;
    this.bindGroups.clear();
    this.storage.destroyAll();
    this.staging.destroyAll();
    this.uploads.destroyAll();
    this.uniforms.destroy();
    this.device.destroy();
  }
}
