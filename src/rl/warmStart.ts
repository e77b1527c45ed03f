// Where a run's policies start: each slot's shipped checkpoint when it fits the
// run's model and environment, else a warm start pretrained on the spot (rl.md
// section 9). Shared by the worker (fetches public/checkpoints) and the CLI (reads them).
import type { Backend } from '../backend';
import type { RunConfig } from '../config';
import { presetSlots, type Preset, type WarmStartSpec } from '../envs/presets';
import { createEnv } from '../envs/registry';
import type { Environment } from '../envs/types';
import { GPT } from '../model/gpt';
import { fitCheckpointBytes, type FitWant } from './checkpointFit';
import { modelConfigFor, pretrain, PRETRAIN_DEFAULTS } from './pretrain';
import { slotNames, type TrainerSlots } from './trainer';

/** The bytes of public/checkpoints/<file>, or null when there is none. */
export type CheckpointLoader = (file: string) => Promise<Uint8Array | null>;
export type ProgressFn = (message: string, fraction: number) => void;

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The checkpoint's weights when it fits this run's model, environment and slot (checkpointFit), else why not. */
export function fitCheckpoint(bytes: Uint8Array, file: string, config: RunConfig, env: Environment, want: FitWant = {}):
  { weights: Float32Array; notice: string | null } | { why: string } {
  const fit = fitCheckpointBytes(bytes, config, env, want);
  if ('why' in fit) return { why: `${file}: ${fit.why}` };
  return { weights: fit.weights, notice: fit.notice && `${file}: ${fit.notice}` };
}

/** A slot's warm start made here: cross-entropy on that slot's demonstrations. */
export async function pretrainSlot(backend: Backend, config: RunConfig, slot: string, spec: WarmStartSpec, steps: number,
  onProgress?: (step: number, loss: number) => void): Promise<{ weights: Float32Array; loss: number }> {
  const demoEnv = createEnv(config, spec.demo);
  const model = new GPT(backend, modelConfigFor(demoEnv, config), undefined, spec.seed);
  try {
    const loss = await pretrain(backend, model, demoEnv, { ...PRETRAIN_DEFAULTS, steps, seed: spec.seed, slot }, onProgress);
    return { weights: Float32Array.from(await backend.read(model.params)), loss };
  } finally {
    model.destroy();
  }
}

export interface WarmStarts { slots: TrainerSlots; source: string }

/** Every slot's start: shipped when it fits, else pretrained here (`steps` steps) with progress. */
export async function warmStarts(backend: Backend, preset: Preset, config: RunConfig, env: Environment, load: CheckpointLoader,
  steps: number, progress: ProgressFn = () => {}): Promise<WarmStarts> {
  const specs = presetSlots(preset), slots: TrainerSlots = {}, sources: string[] = [];
  for (const slot of slotNames(env)) {
    const spec = specs[slot];
    if (!spec) throw new Error(`preset ${preset.name} gives no warm start for slot "${slot}" of ${env.id}`);
    const file = spec.warmStart.file;
    let why = '';
    let bytes: Uint8Array | null = null;
    try { bytes = await load(file); } catch (e) { why = `loading ${file} failed (${errorMessage(e)})`; }
    if (bytes) {
      const fit = fitCheckpoint(bytes, file, config, env, { slot, demo: spec.warmStart.demo });
      if ('weights' in fit) {
        slots[slot] = { trainable: spec.trainable, weights: fit.weights };
        sources.push(`checkpoints/${file}${fit.notice ? ` (notice: ${fit.notice})` : ''}`);
        if (fit.notice) progress(`warm start: notice: ${fit.notice}`, 1);
        continue;
      }
      why = fit.why;
    } else {
      why ||= `there is no shipped ${file}`;
    }
    const who = slot === 'policy' ? '' : ` (${slot})`;
    progress(`warm start${who}: ${why}; pretraining ${steps} steps on the demonstrations`, 0);
    const made = await pretrainSlot(backend, config, slot, spec.warmStart, steps,
      (s, l) => progress(`warm start${who}: pretraining step ${s + 1}/${steps}, loss ${l.toFixed(4)}`, (s + 1) / steps));
    slots[slot] = { trainable: spec.trainable, weights: made.weights };
    sources.push(`${steps} pretraining steps here${who} (final loss ${made.loss.toFixed(4)})`);
  }
  return { slots, source: sources.join('; ') };
}

/** The trainable slot's name (the one a checkpoint export/import is about). */
export function trainableSlot(slots: TrainerSlots): string | null {
  return Object.entries(slots).find(([, s]) => s.trainable)?.[0] ?? null;
}
