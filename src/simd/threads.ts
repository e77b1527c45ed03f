// Worker threads for the CPU engine: every worker instantiates the threaded build of the kernels
// (kernelsThreads.wasm.ts, or kernelsThreadsFma.wasm.ts with relaxed-simd) on the engine's shared WebAssembly.Memory, so a kernel in any thread
// reads and writes the same tensors. An op is handed out through a control block (a small
// SharedArrayBuffer): the caller writes the op and its arguments, sets a claim counter tagged with
// the op's generation, bumps the generation and notifies; every thread, the caller included, claims
// chunks by compare-exchange on that counter and runs them (threadChunk in shaders/simd/threads.ts);
// the caller waits until the op's chunks are done. No postMessage per op. Which thread runs a chunk varies; what a chunk computes does not (fixed chunks of the
// output), so results do not depend on the number of threads. The workers are Node's worker_threads
// or, in a page, Web Workers from a Blob URL (shared memory needs a cross-origin isolated page:
// docs/cpu-engine.md, "Threads in the page").
import type { KernelVariant } from './kernels';
import { ARGS_AT, BY_WORKERS, CHUNKS, controlBytes, COUNT_BITS, COUNT_MASK, DONE, FAILED, GEN, GEN_MASK, NARGS, NODE_WORKER_SOURCE, OP, rangeSlot, rangeStart, READY, WEB_WORKER_SOURCE } from './threadControl';
import { KERNELS_THREADS_WASM_BASE64 } from './kernelsThreads.wasm';
import { KERNELS_THREADS_FMA_WASM_BASE64 } from './kernelsThreadsFma.wasm';

/** The threaded build's exports that the pool calls (the rest are those of Kernels). */
interface ThreadExports {
  threadChunk(op: number, c: number, p0: number, p1: number, p2: number, p3: number, p4: number, p5: number, a: number, b: number, d: number, e: number, p6: number): void;
  flagsToRows(rows: number, N: number): number;
  setThreadSlot(slot: number): void;
  CHUNK: WebAssembly.Global;
  GELU_CHUNK: WebAssembly.Global;
  ADAMW_CHUNK: WebAssembly.Global;
}

/** threadChunk's ops (shaders/simd/threads.ts). */
const OP_FORWARD = 1, OP_BACKWARD = 2, OP_ATTENTION_FORWARD = 3, OP_ATTENTION_BACKWARD = 4, OP_ATTENTION_DECODE = 5, OP_GELU_BACKWARD = 6;
const OP_LAYERNORM_FORWARD = 7, OP_ADAMW = 8, OP_LOGPROB_FORWARD = 9, OP_LOGPROB_BACKWARD = 10, OP_NONZERO_FLAGS = 11, OP_LAYERNORM_BACKWARD = 12;
const OP_COPY_ROWS = 13, OP_DECODE_STEP = 14;
/** Reads a nonzero-row test makes of an element (a load and a compare), against minWork. */
const NONZERO_WORK = 1;
/** Multiply-adds a GELU backward element is counted as against minWork (a tanh, its derivative and a few products). */
const GELU_WORK = 16;
/** The same for an element of a layer norm (two passes and the affine), of AdamW (a square root, two divisions, a dozen products) and of a log-softmax head (an exp). */
const LAYERNORM_WORK = 4, ADAMW_WORK = 16, LOGPROB_WORK = 8;
/** Multiply-adds (about) an attention chunk holds at least, in whole sequences: a chunk's claim and completion cost about a microsecond. */
const ATTENTION_CHUNK_WORK = 1 << 15;
/** Multiply-adds below which a matmul stays on the calling thread: waking the workers would cost more than it saves. */
export const THREAD_MIN_WORK = 1 << 18;
/**
 * Polls of the control block a thread makes before it sleeps in Atomics.wait (a few tens of microseconds): a
 * sleeping thread takes that long or longer to wake, and a rollout hands out ops far more often than that (each
 * decoded token runs a dozen), so each hand-off would pay a wake-up twice. Bounded, so an idle pool sleeps.
 */
export const THREAD_SPIN = 1 << 14;
/** The most threads a backend may ask for (the sanity of a setting). */
export const MAX_THREADS = 64;

/** How long a backend waits for its workers to start (each compiles nothing: the module is passed in). */
const START_MS = 30_000;

const threadsModules = new Map<KernelVariant, WebAssembly.Module>();
/**
 * The threaded build of one variant ('fma': relaxed-simd, as the one-thread engine picks where it validates, so that
 * a page's results do not depend on its thread count), compiled once per process or worker.
 */
export function threadsKernelModule(variant: KernelVariant = 'simd'): WebAssembly.Module {
  let m = threadsModules.get(variant);
  if (!m) {
    const s = atob(variant === 'fma' ? KERNELS_THREADS_FMA_WASM_BASE64 : KERNELS_THREADS_WASM_BASE64), b = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
    if (variant === 'fma' && !WebAssembly.validate(b)) throw new Error('wasm backend: this engine does not validate the threaded relaxed-simd build (variant \'fma\'; Node 20 needs --experimental-wasm-relaxed-simd)');
    m = new WebAssembly.Module(b);
    threadsModules.set(variant, m);
  }
  return m;
}

/** Checks a thread count: an integer from 1 to MAX_THREADS, or an error naming the option. */
export function checkThreads(n: unknown, option = 'threads'): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_THREADS) {
    throw new Error(`wasm backend: ${option} must be an integer from 1 to ${MAX_THREADS}, got ${String(n)}`);
  }
  return n;
}

/** What the pool needs of a worker, in Node or in a page. */
type PoolWorker = { terminate(): unknown };
type NodeWorker = PoolWorker & { unref(): void };
type NodeWorkerCtor = new (src: string, opts: { eval: true; workerData: unknown; execArgv: string[] }) => NodeWorker;
interface StartData { module: WebAssembly.Module; memory: WebAssembly.Memory; control: SharedArrayBuffer; spin: number; threads: number }
/** What a worker is sent: the start data and its slot (1, 2, ...; the calling thread is 0), which picks its scratch. */
type WorkerData = StartData & { slot: number };

/** Node's worker_threads (null in a page), without a static import so this module stays loadable in a page. */
function nodeWorkerCtor(): NodeWorkerCtor | null {
  const proc = (globalThis as { process?: { getBuiltinModule?: (n: string) => unknown } }).process;
  const wt = proc?.getBuiltinModule?.('node:worker_threads') as { Worker?: NodeWorkerCtor } | undefined;
  return wt?.Worker ?? null;
}

function spawnNode(Worker: NodeWorkerCtor, n: number, data: StartData): PoolWorker[] {
  return Array.from({ length: n }, (_, i) => {
    // execArgv []: the program is plain CommonJS and needs no loader; inherited flags (--input-type=module, a loader) would break it
    const w = new Worker(NODE_WORKER_SOURCE, { eval: true, workerData: { ...data, slot: i + 1 } satisfies WorkerData, execArgv: [] });
    w.unref(); // a backend never destroyed must not keep the process alive
    return w;
  });
}

/**
 * Web Workers from `url` (a Blob URL of WEB_WORKER_SOURCE: the CSP's worker-src allows blob:); `onFail` hears a worker
 * that could not load. A constructor that throws (a policy refusing the worker) terminates those already made.
 */
function spawnWeb(url: string, n: number, data: StartData, onFail: (why: string) => void): PoolWorker[] {
  const made: Worker[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const w = new Worker(url, { name: 'gspo-cpu-thread' });
      made.push(w);
      w.onerror = (e) => { e.preventDefault(); onFail(e.message || 'a thread worker failed to load'); };
      w.onmessageerror = () => onFail('a thread worker could not receive the shared memory (is the page cross-origin isolated?)');
      w.postMessage({ ...data, slot: i + 1 } satisfies WorkerData); // the module and the shared memory and control block: shared, not copied
    }
    return made;
  } catch (e) {
    for (const w of made) w.terminate();
    throw e;
  }
}

const bits = new Int32Array(1), asF32 = new Float32Array(bits.buffer);
/** x rounded to f32, as its bits (an i32 argument the kernel reinterprets). */
function f32Bits(x: number): number { asF32[0] = x; return bits[0]; }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type WaitAsync = (a: Int32Array, i: number, v: number, t: number) => { async: boolean; value: Promise<string> | string };

/**
 * Resolves when READY changes from r, or after ms: Atomics.waitAsync where the engine has it (raced with a timer of
 * its own, so a wait whose timeout never fires cannot hold the pool's start past START_MS), else a short poll.
 */
export async function readyChanged(ctl: Int32Array, r: number, ms: number,
  waitAsync: WaitAsync | undefined = (Atomics as unknown as { waitAsync?: WaitAsync }).waitAsync?.bind(Atomics)): Promise<void> {
  if (waitAsync) {
    const w = waitAsync(ctl, READY, r, ms);
    if (!w.async) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([w.value, new Promise((resolve) => { timer = setTimeout(resolve, ms + 10); })]);
    clearTimeout(timer);
  } else await sleep(Math.min(ms, 10));
}

/** A pool of threads - 1 workers; the calling thread is the n-th. */
export class ThreadPool {
  readonly chunk: number;
  readonly geluChunk: number;
  readonly adamwChunk: number;
  private readonly ctl: Int32Array;
  private readonly args: Float64Array;
  private workers: PoolWorker[] = [];
  private closed = false;

  /**
   * The threaded build's instance on a shared memory (of at most maxBytes), its kernels, and a pool of `threads` over
   * it, in Node: the start-up wait blocks (Atomics.wait), which Node's threads allow.
   */
  static create(threads: number, maxBytes: number, minWork = THREAD_MIN_WORK, callerIdle = false, variant: KernelVariant = 'simd', spin = THREAD_SPIN): { kernels: unknown; pool: ThreadPool } {
    const Worker = nodeWorkerCtor();
    if (!Worker) throw new Error('wasm backend: ThreadPool.create needs Node 20.16+ worker_threads; in a page, await ThreadPool.start');
    const pool = ThreadPool.unstarted(threads, maxBytes, minWork, callerIdle, variant, spin);
    pool.workers = spawnNode(Worker, threads - 1, pool.startData);
    const end = Date.now() + START_MS;
    for (let r = pool.ready; r < threads - 1 && Date.now() < end && pool.failure === null; r = pool.ready) Atomics.wait(pool.ctl, READY, r, 100);
    pool.checkStarted();
    return { kernels: pool.kernels, pool };
  }

  /**
   * The same, for any host: Node's worker_threads, else Web Workers. The start-up wait is asynchronous, since in a
   * browser a worker may not start while the thread that created it blocks in Atomics.wait. Rejects (the workers
   * terminated) when one does not start within 30 s or fails; the per-op waits later block, as a worker may.
   */
  static async start(threads: number, maxBytes: number, minWork = THREAD_MIN_WORK, callerIdle = false, variant: KernelVariant = 'simd', spin = THREAD_SPIN): Promise<{ kernels: unknown; pool: ThreadPool }> {
    const Worker = nodeWorkerCtor();
    if (!Worker && typeof globalThis.Worker !== 'function') throw new Error('wasm backend: threads > 1 needs workers (Node worker_threads or Web Workers), and this host has neither');
    const pool = ThreadPool.unstarted(threads, maxBytes, minWork, callerIdle, variant, spin);
    const url = Worker ? null : URL.createObjectURL(new Blob([WEB_WORKER_SOURCE], { type: 'text/javascript' }));
    try {
      pool.workers = Worker ? spawnNode(Worker, threads - 1, pool.startData) : spawnWeb(url!, threads - 1, pool.startData, (why) => { pool.failure ??= why; });
      const end = Date.now() + START_MS;
      for (let r = pool.ready; r < threads - 1 && Date.now() < end && pool.failure === null; r = pool.ready) await readyChanged(pool.ctl, r, 100);
    } finally {
      if (url) URL.revokeObjectURL(url); // every worker has loaded its script, or failed
    }
    pool.checkStarted();
    return { kernels: pool.kernels, pool };
  }

  private static unstarted(threads: number, maxBytes: number, minWork: number, callerIdle: boolean, variant: KernelVariant, spin: number): ThreadPool {
    checkThreads(threads);
    if (!(minWork >= 0)) throw new Error(`wasm backend: threadMinWork must be a number >= 0, got ${minWork}`);
    if (!(Number.isInteger(spin) && spin >= 0)) throw new Error(`wasm backend: threadSpin must be an integer >= 0, got ${spin}`);
    const module = threadsKernelModule(variant);
    const memory = new WebAssembly.Memory({ initial: 2, maximum: Math.min(65536, Math.ceil(maxBytes / 65536)), shared: true });
    const kernels = new WebAssembly.Instance(module, { env: { memory } }).exports;
    return new ThreadPool(threads, memory, kernels as unknown as ThreadExports, minWork, callerIdle, module, variant, spin);
  }

  /** Why a worker failed to load (a page's worker error event), null while none has. */
  private failure: string | null = null;
  private readonly startData: StartData;

  /** minWork: see THREAD_MIN_WORK; callerIdle: the calling thread claims no chunk (tests: every chunk then runs in a worker). */
  private constructor(readonly threads: number, readonly memory: WebAssembly.Memory, private readonly k: ThreadExports, readonly minWork: number,
    readonly callerIdle: boolean, module: WebAssembly.Module, readonly variant: KernelVariant, readonly spin: number) {
    const control = new SharedArrayBuffer(controlBytes(threads));
    this.ctl = new Int32Array(control);
    this.args = new Float64Array(control, ARGS_AT, NARGS);
    this.chunk = k.CHUNK.value as number;
    this.geluChunk = k.GELU_CHUNK.value as number;
    this.adamwChunk = k.ADAMW_CHUNK.value as number;
    this.startData = { module, memory, control, spin, threads };
  }

  /** The calling thread's instance of the threaded build (the backend's kernels). */
  get kernels(): unknown { return this.k; }
  private get ready(): number { return Atomics.load(this.ctl, READY); }

  /** Every worker has its instance before the first op: a worker that cannot start is an error here, not a hang later. */
  private checkStarted(): void {
    const n = this.threads - 1;
    if (this.ready < n || Atomics.load(this.ctl, FAILED) !== 0 || this.failure !== null) {
      void this.close();
      const why = this.failure ?? (this.ready < n ? `${START_MS / 1000} s passed with ${this.ready} started` : 'an instance on the shared memory failed');
      throw new Error(`wasm backend: ${n} worker threads did not all start (${why})`);
    }
  }

  /** matmulForward split by rows over the threads, if it is worth it (else false: the caller runs it). */
  forward(out: number, inp: number, w: number, bias: number, residual: number, pre: number, N: number, K: number, M: number): boolean {
    if (N * K * M < this.minWork || N <= this.chunk) return false;
    this.run(OP_FORWARD, Math.ceil(N / this.chunk), out, inp, w, bias, residual, pre, N, K, M);
    return true;
  }
  /**
   * matmulDinp and matmulDweight over the R listed rows, split by dweight features then dinp rows (disjoint outputs:
   * one hand-out), if it is worth it. N >= 0: dinp [N, IC] is overwritten (its unlisted rows zeroed by the chunks).
   */
  backward(dinp: number, dw: number, dout: number, inp: number, w: number, rows: number, R: number, IC: number, OC: number, N: number, dbias: number): boolean {
    if (R * IC * OC < this.minWork) return false;
    this.run(OP_BACKWARD, Math.ceil(R / this.chunk) + Math.ceil(OC / this.chunk), dinp, dw, dout, inp, w, rows, R, IC, OC, N, dbias);
    return true;
  }
  /**
   * nonzeroRows over the threads (each chunk of rows flags its rows, then the caller lists them in order), if it is
   * worth it; else -1 (the caller scans). The list is nonzeroRows's, whatever the thread count.
   */
  nonzeroRows(rows: number, x: number, N: number, M: number): number {
    const per = this.chunk * 4;
    if (N <= per || N * M * NONZERO_WORK < this.minWork) return -1;
    this.run(OP_NONZERO_FLAGS, Math.ceil(N / per), rows, x, 0, 0, 0, 0, N, M, 0);
    return this.k.flagsToRows(rows, N);
  }

  /** Attention forward (out, att, qkv) split by sequence, if it is worth it (about B T^2 C multiply-adds). */
  attentionForward(out: number, att: number, qkv: number, B: number, T: number, C: number, NH: number): boolean {
    return this.bySequence(OP_ATTENTION_FORWARD, B * T * T * C, [out, att, qkv, 0, 0], B, T, C, NH);
  }
  /** Attention backward (dqkv, dpreatt, dout, qkv, att; overwrite: dqkv = 0 + the gradient) split by sequence, if it is worth it. */
  attentionBackward(dqkv: number, dpreatt: number, dout: number, qkv: number, att: number, B: number, T: number, C: number, NH: number, overwrite: boolean): boolean {
    return this.bySequence(OP_ATTENTION_BACKWARD, B * T * T * C, [dqkv, dpreatt, dout, qkv, att], B, T, C, NH, overwrite ? 1 : 0);
  }
  /** One decode step split by sequence; `scratch` holds T floats per sequence. If it is worth it (about B T C multiply-adds). */
  attentionDecode(out: number, qkvCache: number, qkvNew: number, pos: number, scratch: number, B: number, T: number, C: number, NH: number): boolean {
    return this.bySequence(OP_ATTENTION_DECODE, B * T * C, [out, qkvCache, qkvNew, pos, scratch], B, T, C, NH);
  }
  /**
   * An attention op by chunks of whole sequences, when there are several and `work` multiply-adds are worth waking the
   * workers: enough sequences a chunk for ATTENTION_CHUNK_WORK (a decode row's chunk of one sequence was mostly its
   * claim: 2 threads ran a decode step 1.4x slower than one), at most a quarter of a thread's share.
   */
  private bySequence(op: number, work: number, p: [number, number, number, number, number], B: number, T: number, C: number, NH: number, e = 0): boolean {
    if (B < 2 || work < this.minWork) return false;
    const S = Math.max(1, Math.min(Math.ceil(ATTENTION_CHUNK_WORK / (work / B)), Math.floor(B / (4 * this.threads))));
    this.run(op, Math.ceil(B / S), p[0], p[1], p[2], p[3], p[4], S, T, C, NH, e, B);
    return true;
  }
  /** A decode step of B sequences (shaders/simd/decode.ts: `block`), by the n chunks of `table` (first row, rows, member). */
  decodeStep(block: number, table: number, n: number, B: number, work: number): boolean {
    if (B <= this.chunk || work < this.minWork) return false;
    this.run(OP_DECODE_STEP, n, block, table, 0, 0, 0, 0, B, 0, 0);
    return true;
  }
  /** dinp += dout * gelu'(inp) (overwrite: dinp = 0 + it) over n elements, split into fixed GELU_CHUNK blocks, if it is worth it. */
  geluBackward(dinp: number, inp: number, dout: number, n: number, overwrite: boolean): boolean {
    if (n <= this.geluChunk || n * GELU_WORK < this.minWork) return false;
    this.run(OP_GELU_BACKWARD, Math.ceil(n / this.geluChunk), dinp, inp, dout, 0, 0, 0, n, 0, 0, overwrite ? 1 : 0);
    return true;
  }

  /**
   * Whether layernormBackward over R rows of C splits. The split makes two passes over x and dout where the one-pass
   * kernel makes one (dinp by rows, then dw and db by features, the norm computed in each), about twice its work W:
   * it saves W - 2W / P on P threads, which must outweigh a hand-off (minWork). So never on 2 threads, where it ran
   * 1.0x to 0.88x as fast as the one-pass kernel (scripts/sharedMemoryAB.ts).
   */
  splitsLayernormBackward(R: number, C: number): boolean {
    return R > this.chunk && R * C * LAYERNORM_WORK * (1 - 2 / this.threads) >= this.minWork;
  }

  /**
   * layernormBackward over the rows with a nonzero gradient, split by rows of dinp then 16 features each of dw and db
   * (disjoint outputs: one hand-out), if it is worth it. `listRows` lists them (writing `block`: 3 u32, the mean, rstd
   * and rows pointers) and returns how many, R; it is called only when all `rows` would split, and the op splits only
   * if R rows do. N >= 0: dinp [N, C] is overwritten (its unlisted rows zeroed by the chunks).
   */
  layernormBackward(dinp: number, dw: number, db: number, dout: number, inp: number, w: number, block: number, rows: number, C: number, N: number,
    listRows: () => number): boolean {
    if (!this.splitsLayernormBackward(rows, C)) return false; // not even every row would: no scan
    const R = listRows();
    if (R === 0 || !this.splitsLayernormBackward(R, C)) return false;
    this.run(OP_LAYERNORM_BACKWARD, Math.ceil(R / this.chunk) + Math.ceil(C / 16), dinp, dw, db, dout, inp, w, R, C, 0, N, block);
    return true;
  }
  /** copyRows by chunks of rows, if it is worth it (`width` floats a row, counted as one unit of work each). */
  copyRows(dst: number, src: number, rows: number, width: number, dstStride: number, srcStride: number, repeat: number): boolean {
    if (rows <= this.chunk * 4 || rows * width < this.minWork) return false;
    this.run(OP_COPY_ROWS, Math.ceil(rows / (this.chunk * 4)), dst, src, repeat, srcStride, 0, 0, rows, width, dstStride);
    return true;
  }
  /** layernormForward split by chunks of 4 x CHUNK rows, if it is worth it. */
  layernormForward(out: number, mean: number, rstd: number, inp: number, w: number, b: number, N: number, C: number): boolean {
    const per = this.chunk * 4;
    if (N <= per || N * C * LAYERNORM_WORK < this.minWork) return false;
    this.run(OP_LAYERNORM_FORWARD, Math.ceil(N / per), out, mean, rstd, inp, w, b, N, C, 0);
    return true;
  }
  /** AdamW over n elements in ADAMW_CHUNK blocks; `hyper` holds 8 f32 (lr, beta1, beta2, eps, wd, bc1, bc2, k). If it is worth it. */
  adamw(params: number, grads: number, m: number, v: number, mask: number, hyper: number, n: number): boolean {
    if (n <= this.adamwChunk || n * ADAMW_WORK < this.minWork) return false;
    this.run(OP_ADAMW, Math.ceil(n / this.adamwChunk), params, grads, m, v, mask, hyper, n, 0, 0);
    return true;
  }
  /** Scratch floats a log-prob head split over the threads needs (each chunk of rows its own). */
  logprobScratch(N: number, V: number): number { return Math.ceil(N / this.chunk) * ((V + 4) & ~3); }
  /** logprobForward (backward: dlogits, dlogp for logp, entropy) split by rows, if it is worth it; `scratch` holds logprobScratch(N, V) floats. */
  logprob(backward: boolean, p0: number, p1: number, logits: number, targets: number, scratch: number, N: number, V: number, temperature: number): boolean {
    if (N <= this.chunk || N * V * LOGPROB_WORK < this.minWork) return false;
    this.run(backward ? OP_LOGPROB_BACKWARD : OP_LOGPROB_FORWARD, Math.ceil(N / this.chunk), p0, p1, logits, targets, scratch, 0, N, V, f32Bits(temperature));
    return true;
  }

  /** Runs chunks 0..n-1 of an op over every thread; returns when all are done. */
  private run(op: number, n: number, p0: number, p1: number, p2: number, p3: number, p4: number, p5: number, a: number, b: number, d: number, e = 0, p6 = 0): void {
    if (this.closed) throw new Error('wasm backend: the thread pool was shut down (the backend was destroyed)');
    if (!(n >= 1 && n <= COUNT_MASK)) throw new Error(`wasm backend: an op of ${n} chunks (1 to ${COUNT_MASK})`);
    const ctl = this.ctl;
    this.args.set([p0, p1, p2, p3, p4, p5, a, b, d, e, p6]);
    Atomics.store(ctl, OP, op);
    Atomics.store(ctl, CHUNKS, n);
    Atomics.store(ctl, DONE, 0);
    // the previous op's chunks are all done (the wait below), so no thread holds one; this op's become claimable
    const gen = (Atomics.load(ctl, GEN) + 1) | 0, tag = (gen & GEN_MASK) << COUNT_BITS, P = this.threads;
    for (let r = 0; r < P; r++) Atomics.store(ctl, rangeSlot(r), tag | (rangeStart(r + 1, n, P) - rangeStart(r, n, P)));
    Atomics.store(ctl, GEN, gen);
    Atomics.notify(ctl, GEN);
    let thrown: unknown = null; // a chunk of the calling thread that throws: rethrown once no chunk runs
    if (!this.callerIdle) {
      // its own range (0) first, then what the workers left of theirs (threadControl.ts)
      for (let r = 0; r < P; r++) {
        const at = rangeSlot(r), end = rangeStart(r + 1, n, P);
        for (let v = Atomics.load(ctl, at); (v & ~COUNT_MASK) === tag && (v & COUNT_MASK) > 0; v = Atomics.load(ctl, at)) {
          if (Atomics.compareExchange(ctl, at, v, v - 1) !== v) continue;
          try { this.k.threadChunk(op, end - (v & COUNT_MASK), p0, p1, p2, p3, p4, p5, a, b, d, e, p6); } catch (err) { thrown ??= err; }
          Atomics.add(ctl, DONE, 1);
        }
      }
    }
    // every chunk done (a worker that wakes after the last was claimed finds none and runs nothing)
    for (let i = 0; i < this.spin && Atomics.load(ctl, DONE) < n; i++);
    for (let done = Atomics.load(ctl, DONE); done < n; done = Atomics.load(ctl, DONE)) Atomics.wait(ctl, DONE, done, 10_000);
    if (thrown !== null) throw thrown;
    if (Atomics.load(ctl, FAILED) !== 0) throw new Error('wasm backend: a worker thread failed (its instance or a kernel); the result is incomplete');
  }

  /** Chunks the workers (not the calling thread) have run so far: tests check the split is real. */
  get workerChunks(): number { return Atomics.load(this.ctl, BY_WORKERS); }

  /** Stops the workers (they leave their loop) and terminates them; resolves when all have exited. Idempotent. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      Atomics.store(this.ctl, OP, 0);
      Atomics.add(this.ctl, GEN, 1);
      Atomics.notify(this.ctl, GEN);
      this.exited = Promise.all(this.workers.map((w) => w.terminate())).then(() => undefined);
    }
    return this.exited;
  }
  private exited: Promise<void> = Promise.resolve();
}
