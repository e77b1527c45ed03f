// One allocator over the WebAssembly memory the kernels work in. Blocks are 64-byte aligned
// (cache lines; f32x4 loads never straddle two), freed blocks go to a free list per size and are
// reused by the next allocation of that size, so a training loop that frees and reallocates the
// same shapes stops growing the memory after its first step; else by the smallest freed block up
// to REUSE_SLACK times the request, so the sets of a shape the model no longer keeps (gpt.ts
// KEEP_ACTS) serve the nearby shapes that replace them. At the budget, freed blocks that touch merge and a larger
// one is cut to the request. Growing detaches the old ArrayBuffer:
// tensors hold byte offsets and rebuild their views (see WasmTensor).

const ALIGN = 64;
const PAGE = 65536;
/** wasm32's ceiling: 65536 pages of 64 KiB. */
export const MAX_BYTES = 4 * 1024 * 1024 * 1024;
/** A freed block serves a request up to this many times smaller (what it wastes while held is bounded by it). */
export const REUSE_SLACK = 2;

export class Arena {
  private top: number;
  private highWater: number; // the highest top so far: memory past it has never been handed out
  private readonly free = new Map<number, number[]>(); // block bytes -> freed offsets
  private readonly held = new Map<number, number>(); // offset -> bytes of the block handed out there
  /** Bytes handed out and not freed (for tests and messages). */
  live = 0;

  constructor(readonly memory: WebAssembly.Memory, heapStart: number, readonly maxBytes = MAX_BYTES) {
    this.top = this.highWater = Math.ceil(heapStart / ALIGN) * ALIGN;
  }

  /** Bytes a request of `bytes` occupies (its size class). */
  static blockBytes(bytes: number): number {
    return Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
  }

  /** A block of at least `bytes`, zero-filled; its byte offset. */
  alloc(bytes: number): number {
    const size = Arena.blockBytes(bytes);
    let block = size;
    if (!this.free.get(size)?.length) {
      // no freed block of this size: the smallest freed one that serves it within REUSE_SLACK
      block = 0;
      for (const [s, list] of this.free) if (list.length > 0 && s > size && s <= size * REUSE_SLACK && (block === 0 || s < block)) block = s;
    }
    let at: number;
    if (block === 0 && this.top + size > this.maxBytes) {
      // the budget is reached: adjacent freed blocks merge, and a freed block of any larger size serves the request,
      // its remainder freed (the sets of shapes no longer kept are of other sizes; without this they only ever grew the memory)
      this.coalesce();
      block = this.top + size > this.maxBytes ? this.splitFree(size) : 0;
    }
    if (block > 0) {
      at = this.free.get(block)!.pop()!;
      new Uint8Array(this.memory.buffer, at, size).fill(0); // the tensor sees `size` bytes of it
    } else {
      block = size;
      at = this.top;
      this.ensure(at + size);
      this.top = at + size;
      // pages past the high-water mark are fresh (zero); below it they were handed out before (coalesce lowers the top)
      if (at < this.highWater) new Uint8Array(this.memory.buffer, at, Math.min(size, this.highWater - at)).fill(0);
      this.highWater = Math.max(this.highWater, this.top);
    }
    this.held.set(at, block);
    this.live += block;
    return at;
  }

  /** Frees the block at `at`, allocated for `bytes`: it goes back to the list of the size it was handed out with. */
  release(at: number, bytes: number): void {
    const size = this.held.get(at) ?? Arena.blockBytes(bytes);
    this.held.delete(at);
    this.putFree(at, size);
    this.live -= size;
  }

  /** Merges freed blocks that touch into one; freed blocks at the top give their bytes back to it. */
  private coalesce(): void {
    const blocks: [number, number][] = [];
    for (const [s, list] of this.free) for (const at of list) blocks.push([at, s]);
    blocks.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [at, s] of blocks) {
      const last = merged[merged.length - 1];
      if (last && last[0] + last[1] === at) last[1] += s;
      else merged.push([at, s]);
    }
    const end = merged[merged.length - 1];
    if (end && end[0] + end[1] === this.top) { this.top = end[0]; merged.pop(); }
    this.free.clear();
    for (const [at, s] of merged) this.putFree(at, s);
  }

  /**
   * The smallest freed block of at least `size` cut to `size` (the rest freed as a block of its own); the size class it
   * is now listed under, or 0 when no freed block is that large.
   */
  private splitFree(size: number): number {
    let block = 0;
    for (const [s, list] of this.free) if (list.length > 0 && s >= size && (block === 0 || s < block)) block = s;
    if (block === 0 || block === size) return block;
    const at = this.free.get(block)!.pop()!;
    this.putFree(at + size, block - size);
    this.putFree(at, size);
    return size;
  }

  private putFree(at: number, size: number): void {
    let list = this.free.get(size);
    if (!list) this.free.set(size, (list = []));
    list.push(at);
  }

  /** Bytes reserved from the memory so far (the high-water mark). */
  get reserved(): number { return this.highWater; }

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
