// The watchdog's thread in a browser: a Web Worker of sandboxWorker.mjs, for a worker (the page's task
// worker) that may block on Atomics.wait (crossOriginIsolated). A browser starts a nested worker only
// while its parent's event loop turns, and a call waits for its thread synchronously; so one spare is
// started ahead of time once tasks run in this thread: a sandbox takes the spare (it said "up" while the
// parent was idle) and a new spare starts for the next one. Before making a sandbox, the parent awaits
// sandboxReady() (which starts the first spare).
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
  // no spare until a task is first wanted here (a trainer worker of a shipped preset never starts one)
  let spare: Spare | null = null;
  const spawn: Spawner = (init) => {
    const { worker } = spare ?? start();
    spare = start(); // the next call's thread (after an overrun): it starts once this thread's event loop turns again
    worker.postMessage(init);
    return { terminate: () => worker.terminate() };
  };
  waitForSpare = () => (spare ??= start()).up;
  setSandboxSpawner(spawn);
}

/** Whether this thread can run tasks behind the watchdog: shared memory (COOP/COEP) and a worker's Atomics.wait. */
export function canWatchHere(): boolean {
  return typeof Worker !== 'undefined' && typeof SharedArrayBuffer !== 'undefined' && (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
}
