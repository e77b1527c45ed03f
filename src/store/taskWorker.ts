// The page's side of task code's own worker (src/worker/task.worker.ts): Check and a task's preset, asked
// through comlink, never run on the page's main thread. A Check that does not answer within its limit
// (a task that outran even the sandbox's deadline) ends the worker; the next question starts another.
import * as Comlink from 'comlink';
import type { TaskChecked, TaskService } from '../envs/userTask/taskService';
import type { Preset } from '../envs/presets';
import { InputError } from '../contract/errors';

/** How long the page waits for a worker's answer before it ends the worker (ms): a Check takes about a call limit (2 s) per looping function. */
export const TASK_WORKER_MS = 30_000;

/** `make`: the worker (a test gives a stand-in). */
export function connectTaskWorker(limitMs = TASK_WORKER_MS, make: () => Worker = () => new Worker(new URL('../worker/task.worker.ts', import.meta.url), { type: 'module' })): TaskService {
  let worker: Worker | null = null;
  let api: Comlink.Remote<TaskService> | null = null;
  const remote = () => {
    if (!api) {
      worker = make();
      api = Comlink.wrap<TaskService>(worker);
    }
    return api;
  };
  const end = () => { worker?.terminate(); worker = null; api = null; };
  async function ask<T>(what: string, q: (a: Comlink.Remote<TaskService>) => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const overrun = new Promise<never>((_, reject) => {
      timer = setTimeout(() => { end(); reject(new InputError(`${what} did not finish within ${limitMs / 1000} s: the task's worker was stopped (a task function that never returns?)`)); }, limitMs);
    });
    try { return await Promise.race([q(remote()), overrun]); } finally { clearTimeout(timer); }
  }
  return {
    prepare: () => ask<void>('Loading the task sandbox', (a) => a.prepare()),
    check: (code) => ask<TaskChecked>('Check', (a) => a.check(code)),
    preset: (code) => ask<Preset>('Loading the task', (a) => a.preset(code)),
  };
}
