// `export --preset NAME [--set key=value]... --to trl|verl --out DIR`: the run's setup as a TRL or
// verl recipe (docs/export.md). Writes the files and prints where they went: every flag and the
// output folder are checked first, then all the files are written or none.
import { join } from 'node:path';
import { exportRecipe, parseTarget } from '../../export/recipe';
import { parseFlags, requireFlag, type FlagSpec } from '../args';
import { prepareOutDir, writeAllAtomic } from '../io';
import { parseSets, setup } from './runSetup';

export const exportFlags: FlagSpec = {
  preset: { kind: 'string', help: 'a preset name (see README)' },
  set: { kind: 'list', help: 'config override key=value (repeatable)' },
  to: { kind: 'string', help: 'trl | verl' },
  out: { kind: 'string', help: 'output directory (created)' },
};

export async function exportCmd(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, exportFlags, 'export');
  const target = parseTarget(requireFlag(flags, 'to', 'export'));
  const s = setup(requireFlag(flags, 'preset', 'export'), parseSets(flags.set as string[] | undefined));
  const out = requireFlag(flags, 'out', 'export');
  const files = exportRecipe(target, s.config, s.preset.name);
  prepareOutDir(out, '--out', files.map((f) => f.path));
  writeAllAtomic(files.map((f) => ({ path: join(out, f.path), data: f.text })));
  return { preset: s.preset.name, to: target, out, files: files.map((f) => f.path) };
}
