// Small input checks: decimal numbers only (no 0x2, 0b1, 0o7) wherever a person types a number;
// a repeated CLI flag is refused; findPreset's message is clipped; in a link, a cross-field
// conflict drops the one field it names and the rest still apply.
import { describe, expect, it } from 'vitest';
import { parseFlags, type FlagSpec } from '../../src/cli/args';
import { parseDecimal, parseField } from '../../src/config';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { InputError } from '../../src/contract/errors';
import { parseValues } from '../../src/rl/sweep';
import { decodeSetup } from '../../src/store/urlState';
import { gspo } from '../cli/run';

const NOT_DECIMAL = ['0x2', '0X2', '0b1', '0o7', 'Infinity', '-Infinity', 'NaN', '', ' ', '1_000', '1e', '.', '+', '2,5', '1 2', '٣'];

describe('numbers are decimal only', () => {
  it('parseDecimal reads decimal spellings, as hand-computed, and nothing else', () => {
    expect(['2', ' 4 ', '-3', '+1.5', '.5', '5.', '1e3', '2.5E-2', '0007'].map(parseDecimal)).toEqual([2, 4, -3, 1.5, 0.5, 5, 1000, 0.025, 7]);
    for (const x of NOT_DECIMAL) expect(parseDecimal(x), x).toBeNull();
    const long = '1'.repeat(100_000) + 'x'; // linear time: no backtracking blow-up
    const t0 = performance.now();
    expect(parseDecimal(long)).toBeNull();
    expect(performance.now() - t0).toBeLessThan(200);
  });

  it('--set / the URL (parseField), --lambdas (parseValues) and number flags refuse 0x2, 0b1, 0o7', () => {
    for (const x of ['0x2', '0b1', '0o7']) {
      expect(() => parseField('groupSize', x), x).toThrow(/groupSize must be a number/);
      expect(() => parseValues(`0,${x}`, 'lambdaTok', 'lambda_tok values'), x).toThrow(/entry 2/);
      expect(() => parseFlags(['--steps', x], { steps: { kind: 'int', help: '' } }, 'train'), x).toThrow(/--steps must be an integer/);
      const d = decodeSetup(`v=1&preset=relay-silence&groupSize=${x}&lr=0.001`);
      expect(d.overrides).toEqual({ lr: 0.001 });
      expect(d.problems).toEqual([`groupSize must be a number in [1, 64]; got "${x}"; not applied`]);
    }
    expect(parseField('groupSize', ' 4 ')).toBe(4);
    expect(parseValues('0, 0.05,1e-1', 'lambdaTok', 'x')).toEqual([0, 0.05, 0.1]);
  });
});

describe('a repeated flag is refused', () => {
  const spec: FlagSpec = { to: { kind: 'string', help: '' }, steps: { kind: 'int', help: '' }, quick: { kind: 'bool', help: '' }, set: { kind: 'list', help: '' } };
  it.each([
    [['--to', 'trl', '--to', 'verl'], /--to is given more than once/],
    [['--to=trl', '--to', 'trl'], /--to is given more than once/],
    [['--steps', '1', '--steps=2'], /--steps is given more than once/],
    [['--quick', '--quick=false'], /--quick is given more than once/],
  ])('%j', (argv, pattern) => {
    expect(() => parseFlags(argv as string[], spec, 'cmd')).toThrow(InputError);
    expect(() => parseFlags(argv as string[], spec, 'cmd')).toThrow(pattern);
  });

  it('list flags still repeat', () => {
    expect(parseFlags(['--set', 'a=1', '--set', 'b=2'], spec, 'cmd')).toEqual({ set: ['a=1', 'b=2'] });
  });

  it('through the CLI: export --to trl --to verl exits 2 with one line', () => {
    const r = gspo(['export', '--preset', 'relay-silence', '--to', 'trl', '--to', 'verl', '--out', '/nonexistent/never']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn'))).toEqual(['gspo: export: --to is given more than once']);
  }, 60_000);
});

describe('findPreset clips the name it echoes', () => {
  it('a 100 KB name gives a message of a few hundred characters', () => {
    let m = '';
    try { findPreset('y'.repeat(100_000)); } catch (e) { m = (e as Error).message; }
    expect(m).toMatch(/^unknown preset "y{80}\.\.\." \(100000 characters\) \(presets: relay-silence, /);
    expect(m.length).toBeLessThan(600);
  });
});

describe('a cross-field conflict in a link drops only the field it names', () => {
  it('scouts above digits: scouts is not applied, with one line; the other parameters are', () => {
    const d = decodeSetup('v=1&preset=relay-silence&scouts=5&groupSize=4&lr=0.001');
    expect(d.overrides).toEqual({ groupSize: 4, lr: 0.001 });
    expect(d.problems).toEqual([`scouts (5) must be at most digits (${presetConfig(findPreset('relay-silence')).digits}): each Scout holds a part of the secret; scouts not applied`]);
  });

  it('digits below the preset\'s scouts: digits is not applied; nHead not dividing nEmbd: nHead is not applied', () => {
    const d = decodeSetup('v=1&preset=relay-scouts&digits=2&seed=7');
    expect(d.overrides).toEqual({ seed: 7 });
    expect(d.problems).toEqual(['scouts (4) must be at most digits (2): each Scout holds a part of the secret; digits not applied']);
    const e = decodeSetup(`v=1&preset=relay-silence&nHead=5&steps=7`);
    expect(e.overrides).toEqual({ steps: 7 });
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]).toMatch(/must be divisible by nHead \(5\); nHead not applied$/);
  });
});
