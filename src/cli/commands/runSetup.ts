// Shared by train / eval / pretrain: a preset + --set overrides -> config, env, warm start.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clip, InputError } from '../../contract/errors';
import { findPreset, presetConfig, type Preset } from '../../envs/presets';
import { createEnv } from '../../envs/registry';
import type { Environment } from '../../envs/types';
import { FIELDS, isConfigKey, type RunConfig } from '../../config';
import { log, MAX_CHECKPOINT_BYTES, readFileChecked } from '../io';
import type { Backend } from '../../backend';
import { warmStarts, type CheckpointLoader, type WarmStarts } from '../../rl/warmStart';
import { recipeFor, type RecipeLine } from '../../rl/recipe';

export const CHECKPOINT_DIR = fileURLToPath(new URL('../../../public/checkpoints/', import.meta.url));

/** --set key=value (repeatable); the key must be a config field (own keys only: never "__proto__", whose assignment would vanish). */
export function parseSets(sets: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of sets ?? []) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new InputError(`--set expects key=value, got "${clip(s)}"`);
    const key = s.slice(0, eq);
    if (!isConfigKey(key)) throw new InputError(`--set: unknown config key "${clip(key)}" (known: ${Object.keys(FIELDS).join(', ')})`);
    out[key] = s.slice(eq + 1);
  }
  return out;
}

export interface RunSetup { preset: Preset; config: RunConfig; env: Environment }

export function setup(presetName: string, overrides: Record<string, unknown>): RunSetup {
  const preset = findPreset(presetName);
  const config = presetConfig(preset, overrides);
  return { preset, config, env: createEnv(config) };
}

/**
 * The overrides with the setting's recipe added (src/rl/recipe.ts): each recipe field not set by hand, and
 * the lines applied (a field given by hand stays, and is named in `kept`).
 */
export function recipeOverrides(presetName: string, overrides: Record<string, unknown>): { overrides: Record<string, unknown>; applied: RecipeLine[]; kept: RecipeLine[] } {
  const s = setup(presetName, overrides);
  const recipe = recipeFor(s.preset, presetConfig(s.preset), s.config);
  const applied = recipe.lines.filter((l) => !(l.field in overrides)), kept = recipe.lines.filter((l) => l.field in overrides);
  return { overrides: { ...overrides, ...Object.fromEntries(applied.map((l) => [l.field, l.value])) }, applied, kept };
}

/** public/checkpoints/<file>, read from disk (null when absent). */
export const shippedCheckpoint: CheckpointLoader = async (file) => {
  const path = join(CHECKPOINT_DIR, file);
  return existsSync(path) ? readFileChecked(path, 'checkpoint', MAX_CHECKPOINT_BYTES) : null;
};

/** Every slot's start: the shipped warm starts when they fit, else pretrained first (logged). */
export function startSlots(backend: Backend, s: RunSetup): Promise<WarmStarts> {
  return warmStarts(backend, s.preset, s.config, s.env, shippedCheckpoint, undefined, (m) => log(m));
}
