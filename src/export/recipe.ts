// Export a run's setup as a recipe for TRL or verl: a list of files (the CLI
// writes them to a folder, the page downloads them). The input is checked here
// whatever the caller checked: the config is stored state a script on the page
// could have written, and the files it becomes are run by people.
import { FIELDS, validateConfig, type RunConfig } from '../config';
import { findPreset } from '../envs/presets';
import { hasKey, InputError, quote } from '../contract/errors';
import type { ExportFile } from './readme';
import { trlFiles } from './trl';
import { verlFiles } from './verl';
import { CUSTOM_EXPORT_REFUSAL } from './python/custom';

export type ExportTarget = 'trl' | 'verl';
export const EXPORT_TARGETS: readonly ExportTarget[] = ['trl', 'verl'];
export type { ExportFile } from './readme';

export function parseTarget(raw: string): ExportTarget {
  if (!EXPORT_TARGETS.includes(raw as ExportTarget)) throw new InputError(`--to must be one of ${EXPORT_TARGETS.join(', ')}; got ${quote(raw)}`);
  return raw as ExportTarget;
}

/** The whole config, every field present and in range (a missing field is an error here, not a default). */
export function checkExportConfig(config: unknown): RunConfig {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new InputError('the export needs a config object');
  const missing = Object.keys(FIELDS).filter((k) => !hasKey(config, k));
  if (missing.length) throw new InputError(`the config to export has no ${missing.join(', ')} (a run stored by an earlier version? reload the page to bring it up to date)`);
  try {
    return validateConfig(config as Record<string, unknown>);
  } catch (e) {
    throw new InputError(`the config to export: ${(e as Error).message}`);
  }
}

export function exportRecipe(target: ExportTarget, config: RunConfig, presetName: string): ExportFile[] {
  const t = parseTarget(target);
  const c = checkExportConfig(config);
  if (c.env === 'custom') throw new InputError(CUSTOM_EXPORT_REFUSAL);
  const preset = findPreset(presetName).name;
  return t === 'trl' ? trlFiles(c, preset) : verlFiles(c, preset);
}
