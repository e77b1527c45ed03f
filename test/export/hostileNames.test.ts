// A page export is valid UTF-8 whatever the run's name holds.
// A lone UTF-16 surrogate in the name used to reach the bundle as "\ud800", which Python cannot
// write as UTF-8 (UnicodeEncodeError in the unpack script). The bundle is unpacked by python3
// here; under CI=true a missing python3 fails the test instead of skipping it.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { presetConfig, findPreset } from '../../src/envs/presets';
import { recipeBundle } from '../../src/export/bundle';
import { exportRecipe } from '../../src/export/recipe';
import { wellFormed } from '../../src/export/literal';
import { liveChangesNote } from '../../src/store/runsSlice';
import { markdownText } from '../../src/store/textFormats';
import { tempDir } from '../cli/run';

const hasPython = spawnSync('python3', ['--version']).status === 0;
if (process.env.CI === 'true' && !hasPython) throw new Error('python3 is needed to unpack the exported bundles (CI=true)');

const NAMES = [
  'lone high \ud800 surrogate', 'lone low \udc00', 'reversed \udc00\ud800 pair', 'ends high \udbff', '\ud83d', 'a pair 😀 is fine',
  '"""; import os; os.system("touch PWNED") #', "'; touch PWNED; '", '$(touch PWNED)', 'nul \u0000 and \u2028 and \u202e rtl', '\\u0041 \\x41',
];

/** The bytes a UTF-8 writer produces for a JavaScript string: Node replaces lone surrogates by U+FFFD (the oracle). */
const utf8Text = (s: string) => Buffer.from(s, 'utf8').toString('utf8');

function bundleFor(name: string, target: 'trl' | 'verl'): string {
  const preset = findPreset('relay-silence');
  const config = presetConfig(preset);
  const note = liveChangesNote({ name, config, changes: [{ step: 10, field: 'lambdaTok', value: 0.2 }] })!;
  return recipeBundle([...exportRecipe(target, config, preset.name), note], `run-${target}`);
}

describe('exports with hostile run names', () => {
  it('wellFormed replaces lone surrogates only', () => {
    for (const n of NAMES) expect(wellFormed(n)).toBe(utf8Text(n));
    expect(wellFormed('😀')).toBe('😀');
  });

  it.each(['trl', 'verl'] as const)('%s: the bundle is well-formed text, every name', (target) => {
    for (const name of NAMES) {
      const b = bundleFor(name, target);
      // encode then decode strictly: equal only when the string holds no lone surrogate
      expect(new TextDecoder('utf-8', { fatal: true }).decode(new TextEncoder().encode(b)), name).toBe(b);
      expect(b).not.toMatch(/\\u[dD][89a-fA-F][0-9a-fA-F]{2}/); // no surrogate escape for Python to choke on
    }
  });

  it.skipIf(!hasPython)('python3 unpacks every bundle; the notes hold the name as UTF-8 (U+FFFD for a half pair); nothing runs', () => {
    for (const target of ['trl', 'verl'] as const) {
      for (const name of NAMES) {
        const dir = tempDir();
        const file = join(dir, `run-${target}.py`);
        writeFileSync(file, bundleFor(name, target));
        execFileSync('python3', [file, join(dir, 'out')], { cwd: dir, stdio: 'pipe' });
        const files = readdirSync(join(dir, 'out'));
        const notes = files.find((f) => /live/i.test(f) || /change/i.test(f));
        expect(notes, files.join(',')).toBeDefined();
        const text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(join(dir, 'out', notes!)));
        expect(text).toContain(`"${utf8Text(markdownText(name))}"`); // the name as markdown text (src/store/textFormats.ts)
        expect(readdirSync(dir).sort()).toEqual(['out', `run-${target}.py`]); // no PWNED
      }
    }
  }, 180_000);
});
