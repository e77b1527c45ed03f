// Which thread an instance runs on: the threaded build's memory is shared, so a kernel's static scratch has one part
// per thread (dweight's gather buffer, the GELU backward's exps), picked by the slot the pool gives each worker.

/** Threads that can hold a part of a scratch (src/simd/threads.ts MAX_THREADS). */
export const MAX_SLOTS = 64;
/** This instance's slot: the pool gives each worker its own (setThreadSlot); 0 on one thread and for the caller. */
let threadSlot: i32 = 0;

/** Which part of each scratch this instance's kernels use (0 to MAX_SLOTS - 1; the worker threads 1, 2, ...). */
export function setThreadSlot(slot: i32): void {
  threadSlot = min(max(slot, 0), MAX_SLOTS - 1);
}

/** This thread's `bytes` of a static buffer of MAX_SLOTS * bytes. */
// @ts-ignore: decorator
@inline
export function threadScratch(base: usize, bytes: usize): usize {
  return base + <usize>threadSlot * bytes;
}
