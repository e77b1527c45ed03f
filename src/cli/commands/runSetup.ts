// Shared by train / eval / pretrain: a preset + --set overrides -> config, env, warm start.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../errors';
import { findPreset, presetConfig, type Preset } from '../../envs/presets';
import { createEnv } from '../../envs/registry';
import type { Environment } from '../../envs/types';
import type { RunConfig } from '../../config';
import { loadCheckpoint, log } from '../io';
import type { Checkpoint } from '../../model/checkpoint';

export const CHECKPOINT_DIR = fileURLToPath(new URL('../../../public/checkpoints/', import.meta.url));

/** --set key=value (repeatable), validated against the config table. */
export function parseSets(sets: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of sets ?? []) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new InputError(`--set expects key=value, got "${s}"`);
    out[s.slice(0, eq)] = s.slice(eq + 1);
  }
  return out;
}

export interface RunSetup { preset: Preset; config: RunConfig; env: Environment }

export function setup(presetName: string, overrides: Record<string, unknown>): RunSetup {
  const preset = findPreset(presetName);
  const config = presetConfig(preset, overrides);
  return { preset, config, env: createEnv(config) };
}

/** The preset's shipped warm start when it fits this config's model, else null (with the reason logged). */
export function shippedWarmStart(s: RunSetup): Checkpoint | null {
  const path = join(CHECKPOINT_DIR, s.preset.warmStart.file);
  if (!existsSync(path)) { log(`no shipped warm start at ${path}`); return null; }
  const ck = loadCheckpoint(path);
  const c = ck.config, r = s.config;
  if (c.nLayer !== r.nLayer || c.nHead !== r.nHead || c.nEmbd !== r.nEmbd || c.blockSize !== s.env.blockSize || c.vocabSize !== s.env.vocab.length) {
    log(`the shipped warm start ${s.preset.warmStart.file} is for another model size; warm-starting a new one`);
    return null;
  }
  if (ck.vocab && ck.vocab.join(' ') !== s.env.vocab.join(' ')) throw new InputError(`checkpoint vocab does not match the ${s.env.id} environment`);
  return ck;
}
