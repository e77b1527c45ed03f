// One allocator over the WebAssembly memory the kernels work in. Blocks are 64-byte aligned
// (cache lines; f32x4 loads never straddle two), freed blocks go to a free list per size and are
// reused by the next allocation of that size, so a training loop that frees and reallocates the
// same shapes stops growing the memory after its first step. Growing detaches the old
// ArrayBuffer: tensors hold byte offsets and rebuild their views (see WasmTensor).

const ALIGN = 64;
const PAGE = 65536;
/** wasm32's ceiling: 65536 pages of 64 KiB. */
export const MAX_BYTES = 4 * 1024 * 1024 * 1024;

export class Arena {
  private top: number;
  private readonly free = new Map<number, number[]>(); // block bytes -> freed offsets
  /** Bytes handed out and not freed (for tests and messages). */
  live = 0;

  constructor(readonly memory: WebAssembly.Memory, heapStart: number, readonly maxBytes = MAX_BYTES) {
    this.top = Math.ceil(heapStart / ALIGN) * ALIGN;
  }

  /** Bytes a request of `bytes` occupies (its size class). */
  static blockBytes(bytes: number): number {
    return Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
  }

  /** A block of at least `bytes`, zero-filled; its byte offset. */
  alloc(bytes: number): number {
    const size = Arena.blockBytes(bytes);
    const reuse = this.free.get(size);
    let at: number;
    if (reuse && reuse.length > 0) {
      at = reuse.pop()!;
      new Uint8Array(this.memory.buffer, at, size).fill(0);
    } else {
      at = this.top;
      this.ensure(at + size);
      this.top = at + size; // fresh pages are zero
    }
    this.live += size;
    return at;
  }

  release(at: number, bytes: number): void {
    const size = Arena.blockBytes(bytes);
    let list = this.free.get(size);
    if (!list) this.free.set(size, (list = []));
    list.push(at);
    this.live -= size;
  }

  /** Bytes reserved from the memory so far (the high-water mark). */
  get reserved(): number { return this.top; }

  private ensure(end: number): void {
    const have = this.memory.buffer.byteLength;
    if (end <= have) return;
    if (end > this.maxBytes) {
      throw new Error(`wasm backend: ${mib(end)} MiB of tensors do not fit the ${mib(this.maxBytes)} MiB the engine may use (${mib(this.live)} MiB live); choose a smaller model or batch`);
    }
    const pages = Math.ceil((end - have) / PAGE);
    try {
      this.memory.grow(pages);
    } catch {
      throw new Error(`wasm backend: could not grow WebAssembly memory to ${mib(have + pages * PAGE)} MiB (the browser or system refused); choose a smaller model or batch`);
    }
  }
}

const mib = (b: number) => (b / 1048576).toFixed(1);
