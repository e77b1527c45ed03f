// A run of your own task as a Preset: the task's settings over small, quick defaults, and its warm
// start (pretraining on its demonstrations, or random weights when it has none).
import type { RunConfig } from '../../config';
import type { Preset } from '../presets';
import { loadUserTask } from './load';

/** Settings a task run starts from before the task's own `settings` (a CPU trains it in a minute or two). */
export const TASK_DEFAULTS: Partial<RunConfig> = {
  algorithm: 'gspo', groupSize: 8, promptsPerStep: 16, minibatches: 2, lr: 3e-4, lambdaTok: 0.05, temperature: 1,
  nLayer: 2, nHead: 4, nEmbd: 64, steps: 60, evalEvery: 10, evalEpisodes: 128,
};

/** A short hash of a task's code (FNV-1a, hex): names its warm start and ties a checkpoint to the task. */
export function taskHash(code: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < code.length; i++) h = Math.imul(h ^ code.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The preset of a task's code (its checks run when it loads: a broken task throws here, naming the problem). */
export function userTaskPreset(code: string): Preset {
  const { spec, env } = loadUserTask(code);
  const hash = taskHash(code);
  const slug = spec.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'task';
  return {
    name: `task-${slug}`,
    title: `Your task: ${spec.name}`,
    explain: spec.about || `${spec.name}: a task of your own (docs/your-task.md).`,
    config: { ...TASK_DEFAULTS, ...spec.settings, env: 'custom', taskCode: code } as Partial<RunConfig>,
    taskRoles: spec.roles.length === 2 ? 2 : 1,
    taskShape: { vocab: [...env.vocab], eos: env.eos, blockSize: env.blockSize },
    warmStart: {
      file: `task-${slug}-${hash}.safetensors`, demo: {}, seed: 1, steps: spec.pretrain.steps, cap: spec.pretrain.steps,
      ...(spec.pretrain.target !== undefined ? { target: spec.pretrain.target } : {}),
      ...(spec.hasDemo ? {} : { random: 'the task has no demo(task, rand), so there are no demonstrations to pretrain on' }),
    },
  };
}
