// The CPU engine's memory: tensors as byte offsets in WebAssembly memory (one thread's, or the thread pool's shared
// one), the kernels instantiated over it, and the checks every op makes before a kernel touches an address. The ops
// themselves are WasmBackend's (wasmBackend.ts), which extends this.
import { checkRange, checkRepeat, type DType, type Tensor } from '../backend';
import { Arena, MAX_BYTES } from './arena';
import { instantiateKernels, kernelVariant, type KernelVariant, type Kernels } from './kernels';
import { checkThreads, ThreadPool } from './threads';

/** A tensor: a byte offset and an element count in the engine's memory; views of it are rebuilt after the memory grows. */
export class WasmTensor implements Tensor {
  private cache: Float32Array | Int32Array | null = null;
  private cacheOf: ArrayBuffer | null = null;
  freed = false;
  /** base: the tensor a view was cut from (null for an allocation): a view dies with it. */
  constructor(readonly engine: WasmMemory, readonly ptr: number, readonly size: number, readonly dtype: DType, readonly base: WasmTensor | null) {}
  /** The address, for a kernel: refused once the tensor (or the one it is a view of) was freed. */
  get livePtr(): number {
    if (this.freed || this.base?.freed) throw new Error('wasm backend: a freed tensor (or a view of one) was used');
    return this.ptr;
  }
  get data(): Float32Array | Int32Array {
    const ptr = this.livePtr, buf = this.engine.memory.buffer;
    if (this.cacheOf !== buf || this.cache === null) {
      this.cache = this.dtype === 'i32' ? new Int32Array(buf, ptr, this.size) : new Float32Array(buf, ptr, this.size);
      this.cacheOf = buf;
    }
    return this.cache;
  }
}

/** pool: a started one (WasmBackend.start passes it; its thread count and variant win). */
export interface WasmBackendOptions { maxBytes?: number; variant?: KernelVariant; threads?: number; threadMinWork?: number; threadCallerIdle?: boolean; threadSpin?: number; pool?: ThreadPool }

/** The engine's memory and kernels, and the tensor checks its ops make (WasmBackend adds the ops). */
export class WasmMemory {
  readonly viewAlign = 64; // the reference's rule, so layouts are identical
  protected readonly k: Kernels;
  private readonly arena: Arena;
  // one scratch block: matmulBackward's nonzero-row list, LayerNorm's dw/db sums, a decode step's probabilities, a logits row's exponentials
  private scratchAt = 0;
  private scratchCap = 0; // in 4-byte elements

  /** Which build of the kernels runs: 'fma' (relaxed-simd) where the engine validates it, else 'simd'. */
  readonly variant: KernelVariant;

  /** Threads the matmul family runs on (1: the calling thread only, the single-thread build). */
  readonly threads: number;
  protected readonly pool: ThreadPool | null = null;

  /**
   * threads > 1: the threaded build (of the same variant) on a shared memory, the matmul family split over worker threads
   * (src/simd/threads.ts); results equal one thread's bit for bit. threadMinWork: multiply-adds below which an op
   * stays on the calling thread (tests set 0 to split the smallest shapes); threadCallerIdle (tests): the calling
   * thread runs no chunk, so every chunk runs in a worker. threadSpin: polls before a thread sleeps between ops
   * (threads.ts THREAD_SPIN; 0 sleeps at once, as the engine did before: the A/B of scripts/threadSpinAB.ts).
   */
  constructor(opts: WasmBackendOptions = {}) {
    this.threads = checkThreads(opts.pool?.threads ?? opts.threads ?? 1);
    if (this.threads > 1) {
      // the variant one thread would run (the threaded build has both), so results do not depend on the thread count;
      // in Node the pool starts here (a blocking wait), a page's in WasmBackend.start (an asynchronous one)
      this.pool = opts.pool ?? ThreadPool.create(this.threads, opts.maxBytes ?? MAX_BYTES, opts.threadMinWork, opts.threadCallerIdle, opts.variant ?? defaultVariant(), opts.threadSpin).pool;
      this.variant = this.pool.variant;
      this.k = this.pool.kernels as Kernels;
    } else {
      this.variant = opts.variant ?? defaultVariant();
      this.k = instantiateKernels(this.variant);
    }
    this.arena = new Arena(this.k.memory, this.k.heapStart(), opts.maxBytes);
  }

  get memory(): WebAssembly.Memory { return this.k.memory; }
  /** Bytes of tensors allocated and not freed; bytes reserved from the memory (high-water mark). */
  get memoryUse(): { live: number; reserved: number } { return { live: this.arena.live, reserved: this.arena.reserved }; }
  /** The budget less the live bytes (at the budget the arena merges and cuts freed blocks to serve them). */
  memoryRoom(): number { return this.arena.maxBytes - this.arena.live; }

  // ---- memory ----
  alloc(size: number, dtype: DType = 'f32'): Tensor {
    if (!Number.isInteger(size) || size < 0) throw new Error(`wasm backend: alloc of ${size} elements`);
    return new WasmTensor(this, this.arena.alloc(size * 4), size, dtype, null);
  }
  view(base: Tensor, offset: number, size: number): Tensor {
    if (offset % this.viewAlign !== 0) throw new Error(`view offset ${offset} is not a multiple of ${this.viewAlign}`);
    if (offset + size > base.size) throw new Error(`view [${offset}, ${offset + size}) is outside a tensor of ${base.size}`);
    const b = this.own(base), root = b.base ?? b;
    return new WasmTensor(this, b.ptr + offset * 4, size, b.dtype, root);
  }
  write(t: Tensor, data: ArrayLike<number>, offset = 0): void { this.own(t).data.set(data, offset); }
  async read(t: Tensor, offset = 0, size = t.size - offset): Promise<Float32Array | Int32Array> {
    checkRange(t, offset, size);
    return this.own(t).data.slice(offset, offset + size);
  }
  // in the kernels: the host's fill and set run 10x and 2x slower on the threads' shared memory (optim.ts zeroFloats)
  zero(t: Tensor): void { this.k.zeroFloats(this.ptr(t, 0, 'tensor', null), t.size); }
  copy(dst: Tensor, src: Tensor): void {
    if (src.size > dst.size) throw new Error(`wasm backend: copy of ${src.size} elements into a tensor of ${dst.size}`);
    this.k.copyRows(this.ptr(dst, src.size, 'dst', null), this.ptr(src, 0, 'src', null), 1, src.size, src.size, src.size, 1);
  }
  /**
   * Backend.gatherLast on the host: B rows of `width` floats (every pos checked before a row is written), element by
   * element: a subarray and `set` per row took 150 us for 256 rows of 64 on the threads' shared memory.
   */
  gatherLast(dst: Tensor, src: Tensor, pos: Tensor, B: number, T: number, width: number, repeat = 1): void {
    checkRepeat(repeat);
    const d = this.f(dst, B * width, 'dst'), s = this.f(src, Math.ceil(B / repeat) * T * width, 'src'), at = this.i32(pos);
    if (at.length < B) throw new Error(`wasm backend: pos holds ${at.length} elements, the op needs ${B}`);
    for (let b = 0; b < B; b++) if (!(at[b] >= 1 && at[b] <= T)) throw new Error(`gatherLast: pos[${b}] = ${at[b]} outside 1..${T}`);
    for (let b = 0; b < B; b++) {
      const from = (Math.floor(b / repeat) * T + at[b] - 1) * width, to = b * width;
      for (let i = 0; i < width; i++) d[to + i] = s[from + i];
    }
  }
  free(t: Tensor): void {
    const w = this.own(t);
    if (w.base !== null || w.freed) return; // a view owns nothing; a second free is harmless
    w.freed = true;
    this.arena.release(w.ptr, w.size * 4);
  }
  submit(): void {}
  async sync(): Promise<void> {}
  /** Chunks of split ops that worker threads ran so far (0 on one thread). */
  get workerChunks(): number { return this.pool?.workerChunks ?? 0; }
  /** Stops the worker threads (threads > 1); the backend's ops then refuse to run the split kernels. */
  destroy(): void { void this.pool?.close(); }
  /** destroy(), resolving when the worker threads have exited (at once on one thread). */
  async destroyAndWait(): Promise<void> { await this.pool?.close(); }

  protected own(t: Tensor): WasmTensor {
    if (!(t instanceof WasmTensor) || t.engine !== this) throw new Error('wasm backend: expected a tensor of this backend');
    return t;
  }
  /** Float view, with a size check: wasm kernels would otherwise read or write past a tensor into its neighbours. */
  protected f(t: Tensor, need = 0, what = 'tensor'): Float32Array {
    this.ptr(t, need, what);
    return (t as WasmTensor).data as Float32Array;
  }
  protected i32(t: Tensor): Int32Array {
    this.ptr(t, 0, 'tensor', 'i32');
    return (t as WasmTensor).data as Int32Array;
  }
  /**
   * Byte address of a live tensor of at least `need` elements, a float one unless `dtype` says otherwise (null: any)
   * (0 for null: the kernels' "absent"). A freed tensor, or a view of one, is refused (livePtr).
   */
  protected ptr(t: Tensor | null, need: number, what: string, dtype: DType | null = 'f32'): number {
    if (t === null) return 0;
    const w = this.own(t);
    if (dtype !== null && w.dtype !== dtype) throw new Error(`wasm backend: expected ${dtype === 'f32' ? 'a float' : 'an i32'} tensor`);
    if (w.size < need) throw new Error(`wasm backend: ${what} holds ${w.size} elements, the op needs ${need}`);
    return w.livePtr;
  }
  /** The scratch block, at least n 4-byte elements; taken before any view of an op (growth detaches views). */
  protected scratch(n: number): number {
    if (n > this.scratchCap) {
      if (this.scratchCap > 0) this.arena.release(this.scratchAt, this.scratchCap * 4);
      this.scratchCap = Math.max(n, 2 * this.scratchCap);
      this.scratchAt = this.arena.alloc(this.scratchCap * 4);
    }
    return this.scratchAt;
  }
}

let chosenVariant: KernelVariant | null = null;
/** Decided once per process or worker: whether relaxed-simd validates does not change. */
export const defaultVariant = (): KernelVariant => (chosenVariant ??= kernelVariant());
