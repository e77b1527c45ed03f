// Kernel parameters: one big uniform buffer cut into 256-byte slots
// (minUniformBufferOffsetAlignment). Slots are filled in a CPU mirror while
// recording and uploaded with one queue.writeBuffer just before the submit;
// the arena is reset after each submit, so a repeated step reuses the same
// slots (and therefore the same cached bind groups).

export const UNIFORM_SLOT_BYTES = 256;

/** One char per 4-byte field: 'u' u32, 'i' i32, 'f' f32 (a WGSL struct of scalars). */
export type ParamFormat = string;

export class UniformArena {
  readonly buffer: GPUBuffer;
  private readonly mirror: ArrayBuffer;
  private readonly u32: Uint32Array;
  private readonly i32: Int32Array;
  private readonly f32: Float32Array;
  private used = 0;

  constructor(device: GPUDevice, readonly slots = 4096) {
    this.buffer = device.createBuffer({
      size: slots * UNIFORM_SLOT_BYTES,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
      label: 'uniform-arena',
    });
    this.mirror = new ArrayBuffer(slots * UNIFORM_SLOT_BYTES);
    this.u32 = new Uint32Array(this.mirror);
    this.i32 = new Int32Array(this.mirror);
    this.f32 = new Float32Array(this.mirror);
  }

  get full(): boolean {
    return this.used >= this.slots;
  }

  /** Writes the fields into the next slot; returns the slot index. */
  push(format: ParamFormat, values: readonly number[]): number {
    if (format.length !== values.length) throw new Error(`uniform format '${format}' has ${format.length} fields, got ${values.length}`);
    if (format.length > UNIFORM_SLOT_BYTES / 4) throw new Error('uniform struct larger than one slot');
    if (this.full) throw new Error('uniform arena full (flush first)');
    const slot = this.used++;
    const base = (slot * UNIFORM_SLOT_BYTES) / 4;
    for (let i = 0; i < format.length; i++) {
      const v = values[i];
      switch (format[i]) {
        case 'u': this.u32[base + i] = v; break;
        case 'i': this.i32[base + i] = v; break;
        case 'f': this.f32[base + i] = v; break;
        default: throw new Error(`bad uniform format char '${format[i]}'`);
      }
    }
    return slot;
  }

  /** Uploads the used slots (call right before queue.submit). */
  flush(queue: GPUQueue): void {
    if (this.used > 0) queue.writeBuffer(this.buffer, 0, this.mirror, 0, this.used * UNIFORM_SLOT_BYTES);
  }

  reset(): void {
    this.used = 0;
  }

  destroy(): void {
    this.buffer.destroy();
  }
}
