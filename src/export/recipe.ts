// Export a run's setup as a recipe for TRL or verl: a list of files (the CLI
// writes them to a folder, the page downloads them).
import type { RunConfig } from '../config';
import { InputError } from '../errors';
import type { ExportFile } from './readme';
import { trlFiles } from './trl';
import { verlFiles } from './verl';

export type ExportTarget = 'trl' | 'verl';
export const EXPORT_TARGETS: readonly ExportTarget[] = ['trl', 'verl'];
export type { ExportFile } from './readme';

export function parseTarget(raw: string): ExportTarget {
  if (!EXPORT_TARGETS.includes(raw as ExportTarget)) throw new InputError(`--to must be one of ${EXPORT_TARGETS.join(', ')}; got "${raw}"`);
  return raw as ExportTarget;
}

export function exportRecipe(target: ExportTarget, config: RunConfig, presetName: string): ExportFile[] {
  return target === 'trl' ? trlFiles(config, presetName) : verlFiles(config, presetName);
}
