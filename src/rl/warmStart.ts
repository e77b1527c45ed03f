// Where a run's policies start: each slot's shipped checkpoint when it fits the
// run's model and environment, else a warm start pretrained on the spot (rl.md
// section 9). Shared by the worker (fetches public/checkpoints) and the CLI (reads them).
import type { Backend } from '../backend';
import type { RunConfig } from '../config';
import { presetSlots, type Preset, type WarmStartSpec } from '../envs/presets';
import { createEnv } from '../envs/registry';
import type { Environment } from '../envs/types';
import { readCheckpoint } from '../model/checkpoint';
import { GPT } from '../model/gpt';
import { modelConfigFor, pretrain, PRETRAIN_DEFAULTS } from './pretrain';
import { slotNames, type TrainerSlots } from './trainer';

/** The bytes of public/checkpoints/<file>, or null when there is none. */
export type CheckpointLoader = (file: string) => Promise<Uint8Array | null>;
export type ProgressFn = (message: string, fraction: number) => void;

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The checkpoint's weights when it fits this run's model and environment, else why not. */
export function fitCheckpoint(bytes: Uint8Array, file: string, config: RunConfig, env: Environment): { weights: Float32Array } | { why: string } {
  let ck: ReturnType<typeof readCheckpoint>;
  try { ck = readCheckpoint(bytes); } catch (e) { return { why: `${file} is not a valid checkpoint (${errorMessage(e)})` }; }
  const c = ck.config;
  if (c.nLayer !== config.nLayer || c.nHead !== config.nHead || c.nEmbd !== config.nEmbd) return { why: `${file} is for another model size (n_layer ${c.nLayer}, n_head ${c.nHead}, n_embd ${c.nEmbd})` };
  if (c.blockSize !== env.blockSize || c.vocabSize !== env.vocab.length || (ck.vocab && ck.vocab.join('\u0000') !== env.vocab.join('\u0000'))) {
    return { why: `${file} is for another environment setting (block size or vocabulary differ)` };
  }
  return { weights: ck.weights };
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
      const fit = fitCheckpoint(bytes, file, config, env);
      if ('weights' in fit) { slots[slot] = { trainable: spec.trainable, weights: fit.weights }; sources.push(`checkpoints/${file}`); continue; }
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
