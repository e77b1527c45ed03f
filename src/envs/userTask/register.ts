// A run of your own task names its preset (task-<name>) and carries the code in its config (taskCode):
// each thread that meets one (the page, its workers, a lane) loads the sandbox's engine and registers
// the task's preset before looking the name up, so a task run travels like a shipped one.
import { findPreset, registerPreset, type Preset } from '../presets';
import { InputError } from '../../contract/errors';
import { prepareUserTasks } from './sandbox';
import { sandboxReady } from './webSpawner';
import { userTaskPreset } from './preset';

/**
 * The preset `name`, registering the task of `taskCode` first when there is one (its checks run; a broken task
 * throws). `name` null: whatever the task is called.
 */
export async function presetWithTask(name: string | null, taskCode: string | undefined): Promise<Preset> {
  if (typeof taskCode !== 'string') return findPreset(name ?? '');
  await prepareUserTasks();
  await sandboxReady(); // a browser worker: the watchdog's thread for this task has started (webSpawner.ts)
  const p = userTaskPreset(taskCode);
  if (name !== null && p.name !== name) throw new InputError(`the task's code declares the task "${p.name.slice('task-'.length)}", not the run's preset "${name}"`);
  registerPreset(p);
  return p;
}
