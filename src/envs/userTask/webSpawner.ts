// The watchdog's thread in a browser: a Web Worker of sandboxWorker.mjs, for a worker (the page's task
// worker, the trainer worker) that may block on Atomics.wait (crossOriginIsolated). A browser starts a
// nested worker only when its parent's event loop turns, and a call waits for its thread synchronously;
// so one spare is always started ahead of time: a call takes the spare (started while the parent was
// idle) and a new spare is made for the next one.
import type { Spawner } from './workerHost';

/** A spawner over `make` (a new Web Worker of sandboxWorker.mjs), with one spare started ahead. */
export function webSpawner(make: () => Worker): Spawner {
  let spare: Worker | null = make();
  return (init) => {
    const w = spare ?? make();
    spare = make(); // starts when this thread's event loop next turns, ready for the next call's thread
    w.postMessage(init);
    return { terminate: () => w.terminate() };
  };
}

/** Whether this thread can run tasks behind the watchdog: shared memory (COOP/COEP) and a worker's Atomics.wait. */
export function canWatchHere(): boolean {
  return typeof Worker !== 'undefined' && typeof SharedArrayBuffer !== 'undefined' && (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
}
