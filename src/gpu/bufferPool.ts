// GPU buffers reused by size class (powers of two, at least 256 bytes), so a
// repeated training step allocates nothing once warm. Each buffer gets a small
// numeric id, used in bind-group cache keys.

export function sizeClass(bytes: number): number {
  let size = 256;
  while (size < bytes) size *= 2;
  return size;
}

export class BufferPool {
  private readonly idle = new Map<number, GPUBuffer[]>();
  private readonly all = new Set<GPUBuffer>();
  private static nextId = 1;
  private static readonly ids = new WeakMap<GPUBuffer, number>();
  created = 0;
  bytesCreated = 0;

  constructor(
    private readonly device: GPUDevice,
    private readonly usage: GPUBufferUsageFlags,
    private readonly label: string,
  ) {}

  static id(buffer: GPUBuffer): number {
    let id = BufferPool.ids.get(buffer);
    if (id === undefined) {
      id = BufferPool.nextId++;
      BufferPool.ids.set(buffer, id);
    }
    return id;
  }

  /** A buffer of at least `bytes`; `fresh` is true when newly created (then it is zero-filled by WebGPU). */
  acquire(bytes: number): { buffer: GPUBuffer; fresh: boolean } {
    const size = sizeClass(bytes);
    const reused = this.idle.get(size)?.pop();
    if (reused) return { buffer: reused, fresh: false };
    const buffer = this.device.createBuffer({ size, usage: this.usage, label: `${this.label}-${size}` });
    this.all.add(buffer);
    this.created++;
    this.bytesCreated += size;
    return { buffer, fresh: true };
  }

  release(buffer: GPUBuffer): void {
    const list = this.idle.get(buffer.size);
    if (list) list.push(buffer);
    else this.idle.set(buffer.size, [buffer]);
  }

  destroyAll(): void {
    for (const b of this.all) b.destroy();
    this.all.clear();
    this.idle.clear();
  }
}
