// The thread pool's control block (a small SharedArrayBuffer of Int32 slots, then the op's Float64 arguments) and
// the program every worker runs on it (src/simd/threads.ts starts them and hands out the ops).

/** The control block's Int32 slots. */
export const GEN = 0, OP = 1, CHUNKS = 2, DONE = 3, FAILED = 4, BY_WORKERS = 5, READY = 6;
/**
 * An op's n chunks are cut into one range per thread: range r is [rangeStart(r), rangeStart(r + 1)) of P threads.
 * A thread claims the chunks of its own range first (slot s, range s; the caller is slot 0), front to back, then those
 * left in the others, in turn. Consecutive ops over the same rows so give each thread mostly the rows it wrote last,
 * still in its core's cache, while a thread that wakes late or runs slow still has its chunks taken by the others.
 * Range r's counter (Int32 slot rangeSlot(r), each on its own 64-byte line) holds the op's generation (its low 14 bits,
 * GEN_MASK) above the count of that range's chunks not yet claimed (COUNT_BITS): a thread claims a chunk by a
 * compare-exchange that succeeds only while the generation is the one it read the arguments of, so a thread that woke
 * late can never run a chunk of a later op with an earlier op's arguments. The caller then waits for the op's chunks
 * to be done (DONE), not for every worker to wake (a sleeping one took tens of microseconds).
 */
export const COUNT_BITS = 18, GEN_MASK = (1 << 14) - 1, COUNT_MASK = (1 << COUNT_BITS) - 1;
export const ARGS_AT = 64; // byte offset of the Float64 arguments (pointers above 2^31 do not fit an Int32 slot)
export const NARGS = 11;
/** The first chunk of range r, of n chunks over P threads (the workers' program embeds this function's source). */
export const rangeStart = (r: number, n: number, P: number): number => Math.floor((r * n) / P);
const RANGES_AT = 192; // byte offset of the range counters, after the arguments
/** The Int32 slot of range r's counter. */
export const rangeSlot = (r: number): number => RANGES_AT / 4 + 16 * r;
/** The control block's bytes for P threads. */
export const controlBytes = (P: number): number => RANGES_AT + 64 * P;

// The worker's program (a string: it imports nothing from the project). serve() is the same in Node and in a
// Web Worker; only how the start data arrives differs (workerData in Node, the first message in a page, where the
// worker runs from a Blob URL). A kernel that throws marks FAILED and its chunk still counts as done.
const SERVE = `
const rangeStart = ${rangeStart};
function serve({ module, memory, control, slot, spin, threads }) {
  const ctl = new Int32Array(control), arg = new Float64Array(control, ${ARGS_AT}, ${NARGS});
  let k = null, gen = 0;
  try {
    k = new WebAssembly.Instance(module, { env: { memory } }).exports;
    k.setThreadSlot(slot); // this thread's own scratch in the shared memory (dweight's gather buffer)
  } catch (e) {
    Atomics.store(ctl, ${FAILED}, 1);
  }
  Atomics.add(ctl, ${READY}, 1);
  Atomics.notify(ctl, ${READY});
  for (;;) {
    for (let i = 0; i < spin && Atomics.load(ctl, ${GEN}) === gen; i++);
    Atomics.wait(ctl, ${GEN}, gen);
    gen = Atomics.load(ctl, ${GEN});
    const op = Atomics.load(ctl, ${OP});
    if (op === 0) break;
    const tag = (gen & ${GEN_MASK}) << ${COUNT_BITS}, n = Atomics.load(ctl, ${CHUNKS});
    const a = [arg[0], arg[1], arg[2], arg[3], arg[4], arg[5], arg[6], arg[7], arg[8], arg[9], arg[10]];
    for (let i = 0; i < threads; i++) {
      const r = (slot + i) % threads, at = ${rangeSlot(0)} + 16 * r, end = rangeStart(r + 1, n, threads);
      for (;;) {
        const v = Atomics.load(ctl, at);
        if ((v & ~${COUNT_MASK}) !== tag || (v & ${COUNT_MASK}) === 0) break; // a later op's, or none left
        if (Atomics.compareExchange(ctl, at, v, v - 1) !== v) continue;
        try {
          if (k === null) throw new Error('no instance');
          k.threadChunk(op, end - (v & ${COUNT_MASK}), a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]);
          Atomics.add(ctl, ${BY_WORKERS}, 1);
        } catch (e) {
          Atomics.store(ctl, ${FAILED}, 1);
        }
        if (Atomics.add(ctl, ${DONE}, 1) + 1 === n) Atomics.notify(ctl, ${DONE});
      }
    }
  }
}
`;
export const NODE_WORKER_SOURCE = `${SERVE}serve(require('node:worker_threads').workerData);`;
/** In a page: the start data is the first message; the worker then blocks in Atomics.wait, which a worker may. */
export const WEB_WORKER_SOURCE = `${SERVE}self.onmessage = (e) => { self.onmessage = null; serve(e.data); };`;

