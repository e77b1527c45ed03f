// The watchdog's thread in a browser: a Web Worker of sandboxWorker.mjs, for a worker (the page's task
// worker) that may block on Atomics.wait (crossOriginIsolated). A browser starts a nested worker only
// while its parent's event loop turns, and a call waits for its thread synchronously; so one spare is
// always started ahead of time: a sandbox takes the spare (it said "up" while the parent was idle) and a
// new spare starts for the next one. Before making a sandbox, the parent awaits sandboxReady().
import { setSandboxSpawner, type Spawner } from './workerHost';

interface Spare { worker: Worker; up: Promise<void> }

let waitForSpare: () => Promise<void> = async () => {};

/** Resolves once the next sandbox's thread has started (at once where no web spawner is registered). */
export const sandboxReady = (): Promise<void> => waitForSpare();

/** Registers a spawner over `make` (a new Web Worker of sandboxWorker.mjs), with one spare started ahead. */
export function useWebSpawner(make: () => Worker): void {
  const start = (): Spare => {
    const worker = make();
    const up = new Promise<void>((resolve) => {
      const onUp = (e: MessageEvent) => { if (e.data === 'up') { worker.removeEventListener('message', onUp); resolve(); } };
      worker.addEventListener('message', onUp);
    });
    return { worker, up };
  };
  let spare = start();
  const spawn: Spawner = (init) => {
    const { worker } = spare;
    spare = start(); // starts once this thread's event loop turns again
    worker.postMessage(init);
    return { terminate: () => worker.terminate() };
  };
  waitForSpare = () => spare.up;
  setSandboxSpawner(spawn);
}

/** Whether this thread can run tasks behind the watchdog: shared memory (COOP/COEP) and a worker's Atomics.wait. */
export function canWatchHere(): boolean {
  return typeof Worker !== 'undefined' && typeof SharedArrayBuffer !== 'undefined' && (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
}
