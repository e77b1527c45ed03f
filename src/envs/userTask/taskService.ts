// What the page asks of a task's code, answered where task code may run: the Check (the format's
// checks) and the preset of a task (for Use, a stored run's task, an imported run's). The page runs it
// in a worker of its own (src/worker/task.worker.ts), never on its main thread: a task that loops costs
// that worker, and the page ends it (src/store/taskWorker.ts). Node (the store's tests) runs it in-thread.
import type { Preset } from '../presets';
import { checkUserTask, type TaskCheck } from './check';
import { userTaskPreset } from './preset';
import { prepareUserTasks, sandboxMode } from './sandbox';
import { sandboxReady } from './webSpawner';

export interface TaskChecked {
  check: TaskCheck;
  /** The task's preset when its checks passed (Use registers it on the page without running the code there). */
  preset: Preset | null;
  /** Where the task ran: behind the watchdog in a thread of its own, or in the worker's thread (its engine's deadline only). */
  mode: 'worker' | 'in-thread';
}

export interface TaskService {
  /** Loads the sandbox's engine ahead of the first Check (the editor opened). */
  prepare(): Promise<void>;
  /** The checks, and the preset when they pass. Never throws for a broken task. */
  check(code: string): Promise<TaskChecked>;
  /** The preset of a task's code (its load's checks run; a broken task throws, naming the problem). */
  preset(code: string): Promise<Preset>;
}

/** The service on this thread (a worker's, or Node's). */
export function localTaskService(): TaskService {
  return {
    prepare: async () => { await prepareUserTasks(); await sandboxReady(); },
    async check(code) {
      await prepareUserTasks();
      await sandboxReady(); // a browser worker: the watchdog's next thread has started (webSpawner.ts)
      const check = checkUserTask(code);
      if (check.ok) await sandboxReady();
      const preset = check.ok ? userTaskPreset(code) : null;
      return { check, preset, mode: sandboxMode() };
    },
    async preset(code) {
      await prepareUserTasks();
      await sandboxReady();
      return userTaskPreset(code);
    },
  };
}
