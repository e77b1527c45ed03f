// The CLI follows its parent: when the process that started it (npm's tsx, a shell, a job runner)
// dies without passing a signal on (SIGKILL cannot be caught), the run stops instead of training on
// and writing unseen. An orphan is re-parented (to init or a subreaper), so its parent id changes.
// The watch runs in its own thread: a CPU training step keeps the main thread's event loop in
// microtasks for seconds to hours, so a timer there would never fire.
import { Worker } from 'node:worker_threads';

/** How often the parent is looked at: a run stops within about this long of its parent's death. */
export const PARENT_CHECK_MS = 1000;

const WATCH = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
setInterval(() => {
  if (process.ppid === workerData.parent) return;
  // written straight to fd 2: the main thread, which relays a worker's stderr, may be busy
  writeSync(2, 'gspo: the process that started this one (pid ' + workerData.parent + ') is gone; stopping (files written so far are kept)\\n');
  process.kill(process.pid, 'SIGTERM');
}, workerData.every);
`;

/** Starts the watch; it never keeps the process alive. */
export function followParent(): void {
  const w = new Worker(WATCH, { eval: true, workerData: { parent: process.ppid, every: PARENT_CHECK_MS } });
  w.unref();
}
