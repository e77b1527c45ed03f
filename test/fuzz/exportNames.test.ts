// Fuzz: hostile run names (random UTF-16 code units, lone surrogates, payloads, control and
// bidi characters) through the page's TRL and verl bundles. Every bundle is printable ASCII (so
// valid UTF-8), holds no surrogate escape and no payload outside a string literal; a sample is
// unpacked by python3 in one process (required under CI=true), and each notes file holds the name
// as UTF-8 text (a lone surrogate as U+FFFD).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { InputError } from '../../src/contract/errors';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { recipeBundle } from '../../src/export/bundle';
import { exportRecipe, type ExportTarget } from '../../src/export/recipe';
import { liveChangesNote } from '../../src/store/runsSlice';
import { markdownText } from '../../src/store/textFormats';
import { int, pick, PAYLOADS, seeded, Tally } from './harness';
import { tempDir } from '../cli/run';

const CASES = 10_000, SAMPLE = 150;
const hasPython = spawnSync('python3', ['--version']).status === 0;
if (process.env.CI === 'true' && !hasPython) throw new Error('python3 is needed to unpack the exported bundles (CI=true)');

const UNITS = [0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0x0000, 0x0022, 0x005c, 0x0027, 0x000a, 0x000d, 0x2028, 0x2029, 0x202e, 0xfeff, 0xfffd, 0x00e9, 0x0041, 0x007f, 0x0085];

function hostileName(rand: () => number): string {
  let s = '';
  for (let n = int(rand, 40); n > 0; n--) {
    const r = rand();
    s += r < 0.5 ? String.fromCharCode(pick(rand, UNITS)) : r < 0.7 ? String.fromCharCode(int(rand, 0x10000)) : r < 0.85 ? pick(rand, PAYLOADS) : 'run';
  }
  return s;
}

/** Node's UTF-8 encoder replaces a lone surrogate by U+FFFD: the text a UTF-8 file can hold (the oracle). */
const utf8Text = (s: string) => Buffer.from(s, 'utf8').toString('utf8');

describe('fuzz: hostile names through the exporters', () => {
  it('every bundle is ASCII, unpacks in python3, and carries the name as UTF-8', () => {
    const preset = findPreset('relay-silence'), config = presetConfig(preset);
    const recipe = { trl: exportRecipe('trl', config, preset.name), verl: exportRecipe('verl', config, preset.name) };
    const rand = seeded(33_301), dir = tempDir();
    const tally = new Tally('export names', (e) => e instanceof InputError);
    const sample: { file: string; name: string; target: ExportTarget }[] = [];
    for (let k = 0; k < CASES; k++) {
      const name = hostileName(rand), target: ExportTarget = k % 2 ? 'trl' : 'verl';
      tally.run(target, () => JSON.stringify(name).slice(0, 200), () => {
        const note = liveChangesNote({ name, config, changes: [{ step: 1 + int(rand, 50), field: 'lambdaTok', value: 0.2 }] })!;
        return recipeBundle([...recipe[target], note], `run-${target}`);
      }, (bundle) => {
        if (!/^[\x20-\x7e\n]*$/.test(bundle)) return 'a character outside printable ASCII';
        if (/\\u[dD][89a-fA-F][0-9a-fA-F]{2}/.test(bundle)) return 'a surrogate escape';
        if (/^[^"#]*PWNED/m.test(bundle)) return 'a payload outside a string literal';
        if (sample.length < SAMPLE && k % 50 === 0) {
          const file = join(dir, `b${k}.py`);
          writeFileSync(file, bundle);
          sample.push({ file, name, target });
        }
        return null;
      });
    }
    tally.report(CASES);
    if (!hasPython) return;
    // one python3 process unpacks the whole sample, each bundle as its own __main__
    const script = 'import json, runpy, sys\nfor f, out in json.load(sys.stdin):\n    sys.argv = [f, out]\n    runpy.run_path(f, run_name="__main__")\n';
    execFileSync('python3', ['-c', script], { input: JSON.stringify(sample.map((s) => [s.file, `${s.file}.out`])), cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
    const wrong = sample.filter((s) => !readFileSync(join(`${s.file}.out`, 'LIVE_CHANGES.md'), 'utf8').includes(`"${utf8Text(markdownText(s.name))}"`)); // the name as markdown text (src/store/textFormats.ts)
    console.log(`fuzz export names: ${sample.length} bundles unpacked by python3, ${wrong.length} without the name as UTF-8`);
    if (wrong.length) throw new Error(`notes without the name: ${wrong.map((w) => w.file).join(', ')}`);
  }, 120_000);
});
