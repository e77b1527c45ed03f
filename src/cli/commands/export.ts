// `export --preset NAME [--set key=value]... --to trl|verl --out DIR [--checkpoint F | --run DIR]`: the run's
// setup as a TRL or verl recipe (docs/export.md). With weights (a checkpoint, or a run folder's
// last.safetensors) the TRL export also writes policy/, the run's own policy as a transformers model, and
// the script continues it by default. Writes the files and prints where they went: every flag, the
// checkpoint and the output folder are checked first, then all the files are written or none.
import { join } from 'node:path';
import { clip, InputError } from '../../contract/errors';
import { findPreset } from '../../envs/presets';
import { checkpointPolicyFiles, POLICY_DIR } from '../../export/policy';
import { exportRecipe, parseTarget } from '../../export/recipe';
import type { Checkpoint } from '../../model/checkpoint';
import { parseFlags, requireFlag, type Flags, type FlagSpec } from '../args';
import { loadCheckpoint, prepareOutDir, writeAllAtomic } from '../io';
import { parseSets, setup, type RunSetup } from './runSetup';

export const exportFlags: FlagSpec = {
  preset: { kind: 'string', help: 'a preset name (see README); default with --checkpoint/--run: the checkpoint\'s own' },
  set: { kind: 'list', help: 'config override key=value (repeatable)' },
  to: { kind: 'string', help: 'trl | verl' },
  out: { kind: 'string', help: 'output directory (created)' },
  checkpoint: { kind: 'string', help: 'a .safetensors checkpoint of the run: TRL also gets policy/ (the policy as a transformers model)' },
  run: { kind: 'string', help: 'a run folder (train --out): its last.safetensors, as --checkpoint' },
};

/** The run's setup: --preset with --set, or the checkpoint's preset and run config (--set still applies). */
function runSetup(flags: Flags, ck: Checkpoint | null, where: string): RunSetup {
  const sets = parseSets(flags.set as string[] | undefined);
  if (flags.preset !== undefined || !ck) return setup(requireFlag(flags, 'preset', 'export'), sets);
  const name = ck.extras.preset;
  if (name === undefined) throw new InputError(`${where} names no preset: give --preset`);
  findPreset(name);
  let stored: Record<string, unknown> = {};
  if (ck.extras.run_config !== undefined) {
    try { stored = JSON.parse(ck.extras.run_config) as Record<string, unknown>; } catch { throw new InputError(`${where}: its run_config is not JSON`); }
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) throw new InputError(`${where}: its run_config is not an object`);
  }
  return setup(name, { ...stored, ...sets });
}

export async function exportCmd(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, exportFlags, 'export');
  const target = parseTarget(requireFlag(flags, 'to', 'export'));
  if (flags.checkpoint !== undefined && flags.run !== undefined) throw new InputError('export: give --checkpoint or --run, not both');
  const ckPath = flags.run !== undefined ? join(flags.run as string, 'last.safetensors') : (flags.checkpoint as string | undefined);
  const ck = ckPath === undefined ? null : loadCheckpoint(ckPath);
  const where = `checkpoint "${clip(ckPath ?? '', 200)}"`;
  const s = runSetup(flags, ck, where);
  const out = requireFlag(flags, 'out', 'export');
  const files: { path: string; data: string | Uint8Array }[] = exportRecipe(target, s.config, s.preset.name).map((f) => ({ path: f.path, data: f.text }));
  if (ck && target === 'trl') {
    files.push(...checkpointPolicyFiles(ck, s.config, s.preset.name, where));
  } else if (ck) {
    throw new InputError('export: --checkpoint/--run writes the policy for --to trl only (verl\'s prompts are words, not the policy\'s tokens)');
  }
  prepareOutDir(out, '--out', files.map((f) => f.path));
  writeAllAtomic(files.map((f) => ({ path: join(out, f.path), data: f.data })));
  return { preset: s.preset.name, to: target, out, files: files.map((f) => f.path), ...(ck ? { policy: join(out, POLICY_DIR) } : {}) };
}
