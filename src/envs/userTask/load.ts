// Loading a task's code as an Environment, with a small per-thread cache (index.ts is the folder's face).
import type { Environment } from '../types';
import { UserTask, userTaskEnvironment } from './environment';
import type { SandboxLimits } from './sandbox';
import type { TaskSpec } from './format';

export interface LoadedTask { env: Environment; spec: TaskSpec }

/** Tasks loaded in this thread, by code: every createEnv of a run shares one sandbox (a few are kept). */
const cache = new Map<string, UserTask>();
const CACHE_SIZE = 4;

/**
 * The Environment of a task's code. Throws an InputError (a TaskError when a task function failed)
 * whose message names the field or the function; needs prepareUserTasks() to have finished.
 */
export function loadUserTask(code: string, limits?: SandboxLimits): LoadedTask {
  let task = limits ? undefined : cache.get(code);
  if (!task) {
    task = UserTask.fromCode(code, limits);
    if (!limits) {
      cache.set(code, task);
      if (cache.size > CACHE_SIZE) {
        const [oldest, t] = cache.entries().next().value!;
        cache.delete(oldest);
        t.sandbox.close(); // an env still holding it reopens the engine on its next call
      }
    }
  }
  return { env: userTaskEnvironment(task) as Environment, spec: task.spec };
}
