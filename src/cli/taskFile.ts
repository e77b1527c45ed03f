// `--task FILE` (train, eval, pretrain, sweep and every command that takes --preset): your own task
// (docs/your-task.md) read, checked and registered as the run's preset. main.ts takes the flag out
// before the command parses its own, so each command runs a task as it runs a preset; member and
// warm-start threads find the file again through GSPO_TASK_FILE.
import { resolve } from 'node:path';
import type { Preset } from '../envs/presets';
import { checkUserTask, prepareUserTasks } from '../envs/userTask';
import { presetWithTask } from '../envs/userTask/register';
import { problemsLine } from '../envs/userTask/check';
import { TASK_CODE_MAX } from '../config';
import { InputError } from '../contract/errors';
import { readInputText } from './inputFile';
import { log } from './io';

/** The commands --task is for (the others have no run of a preset). */
export const TASK_COMMANDS = ['train', 'eval', 'pretrain', 'sweep', 'compare'];
export const TASK_ENV = 'GSPO_TASK_FILE';

/** Reads and checks a task file; registers its preset. A broken task: one InputError naming every problem. */
export async function loadTaskFile(path: string, quiet = false): Promise<Preset> {
  const code = readInputText(path, '--task', 4 * TASK_CODE_MAX);
  if (code.length > TASK_CODE_MAX) throw new InputError(`--task ${path} is ${code.length} characters, more than the ${TASK_CODE_MAX} a task may have`);
  await prepareUserTasks();
  if (!quiet) {
    const check = checkUserTask(code);
    if (!check.ok) throw new InputError(`--task ${path}: ${problemsLine(check)}`);
  }
  let preset: Preset; // registered as the page's worker registers a task run's preset
  try { preset = await presetWithTask(null, code); } catch (e) { throw new InputError(`--task ${path}: ${(e as Error).message}`); }
  if (!quiet) {
    const w = preset.warmStart;
    log(`task ${preset.title}: the checks pass; ${w.random !== undefined ? 'no demonstrations: the run starts from random weights' : `warm start: ${w.steps} pretraining steps on its demonstrations${w.target !== undefined ? ` (until held-out greedy accuracy ${w.target})` : ''}, unless public/checkpoints/${w.file} (made by pretrain --task) fits`}`);
  }
  return preset;
}

/**
 * Takes `--task FILE` out of a command's flags: with it, `--preset <the task's preset>` takes its place
 * (and GSPO_TASK_FILE names the file for the threads). Without it, argv is unchanged.
 */
export async function takeTask(command: string, argv: string[], env: Record<string, string | undefined>): Promise<string[]> {
  const at = argv.findIndex((a) => a === '--task' || a.startsWith('--task='));
  if (at < 0) return argv;
  if (!TASK_COMMANDS.includes(command)) throw new InputError(`${command}: --task is for ${TASK_COMMANDS.join(', ')}`);
  const a = argv[at];
  const path = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[at + 1];
  if (path === undefined || path.startsWith('--')) throw new InputError(`${command}: --task needs a file (a task module: docs/your-task.md)`);
  const rest = [...argv.slice(0, at), ...argv.slice(at + (a.includes('=') ? 1 : 2))];
  if (rest.some((x) => x === '--task' || x.startsWith('--task='))) throw new InputError(`${command}: --task is given more than once`);
  if (rest.some((x) => x === '--preset' || x.startsWith('--preset='))) throw new InputError(`${command}: give --task or --preset, not both (the task is the run's environment)`);
  const preset = await loadTaskFile(path);
  env[TASK_ENV] = resolve(path);
  return [...rest, '--preset', preset.name];
}

/** In a member or warm-start thread: the task the parent loaded, registered again here (the parent checked it). */
export async function taskFromEnv(): Promise<void> {
  const path = process.env[TASK_ENV];
  if (path) await loadTaskFile(path, true);
}
