// config.ts: validateConfig / parseField against docs/rl.md section 10 and FIELDS' declared ranges.
import { describe, expect, it } from 'vitest';
import { DEFAULTS, FIELDS, parseField, validateConfig } from '../../src/config';
import { InputError } from '../../src/contract/errors';

function errorOf(fn: () => unknown): Error {
  try { fn(); } catch (e) { return e as Error; }
  throw new Error('expected a throw');
}

describe('validateConfig', () => {
  it('an empty partial gives the defaults, and the base is not mutated', () => {
    const base = { ...DEFAULTS };
    expect(validateConfig({})).toEqual(DEFAULTS);
    validateConfig({ groupSize: 4 }, base);
    expect(base).toEqual(DEFAULTS);
  });

  it('has every key docs/rl.md section 10 names', () => {
    const keys = ['algorithm', 'groupSize', 'promptsPerStep', 'minibatches', 'lr', 'epsLow', 'epsHigh', 'beta', 'temperature',
      'advantage', 'gradClip', 'weightDecay', 'lambdaTok', 'lambdaTurn', 'lambdaRep', 'lambdaMode', 'budget', 'dualEta', 'lambdaMax',
      'evalEvery', 'evalEpisodes', 'steps', 'seed', 'nLayer', 'nHead', 'nEmbd', 'digits', 'pKnown', 'pKnownTrain', 'maxMessage'];
    for (const k of keys) {
      expect(k in FIELDS, k).toBe(true);
      expect(k in DEFAULTS, k).toBe(true);
    }
  });

  it('rejects an unknown key, naming it', () => {
    const e = errorOf(() => validateConfig({ lambdaToken: 0.1 }));
    expect(e).toBeInstanceOf(InputError);
    expect(e.message).toContain('lambdaToken');
  });

  it('rejects out-of-range values naming the field and the range', () => {
    let e = errorOf(() => validateConfig({ groupSize: 0 }));
    expect(e).toBeInstanceOf(InputError);
    expect(e.message).toContain('groupSize');
    expect(e.message).toContain('[1, 64]');
    e = errorOf(() => validateConfig({ groupSize: 65 }));
    expect(e.message).toContain('groupSize');
    e = errorOf(() => validateConfig({ pKnown: 1.5 }));
    expect(e.message).toContain('pKnown');
    expect(e.message).toContain('[0, 1]');
    e = errorOf(() => validateConfig({ lr: -0.001 }));
    expect(e.message).toContain('lr');
    e = errorOf(() => validateConfig({ maxMessage: 13 }));
    expect(e.message).toContain('maxMessage');
    expect(e.message).toContain('[1, 12]');
  });

  it('accepts the inclusive range ends', () => {
    const c = validateConfig({ groupSize: 1, promptsPerStep: 256, lr: 0, pKnown: 1, maxMessage: 12, beta: 10 });
    expect([c.groupSize, c.promptsPerStep, c.lr, c.pKnown, c.maxMessage, c.beta]).toEqual([1, 256, 0, 1, 12, 10]);
  });

  it('rejects wrong types and non-integers, naming the field', () => {
    for (const bad of [true, null, 'abc', '', [], {}, NaN, Infinity]) {
      const e = errorOf(() => validateConfig({ lr: bad }));
      expect(e).toBeInstanceOf(InputError);
      expect(e.message).toContain('lr');
    }
    const e = errorOf(() => validateConfig({ groupSize: 2.5 }));
    expect(e).toBeInstanceOf(InputError);
    expect(e.message).toContain('groupSize');
    expect(e.message).toContain('integer');
    expect(() => validateConfig({ groupSize: '2.5' })).toThrow(InputError);
  });

  it('enums: accepts the listed values, rejects others listing them', () => {
    expect(validateConfig({ algorithm: 'grpo' }).algorithm).toBe('grpo');
    expect(validateConfig({ advantage: 'none' }).advantage).toBe('none');
    expect(validateConfig({ advantage: 'batch' }).advantage).toBe('batch');
    expect(validateConfig({ lambdaMode: 'budget' }).lambdaMode).toBe('budget');
    let e = errorOf(() => validateConfig({ algorithm: 'ppo' }));
    expect(e).toBeInstanceOf(InputError);
    expect(e.message).toContain('algorithm');
    expect(e.message).toContain('gspo');
    expect(e.message).toContain('grpo');
    e = errorOf(() => validateConfig({ lambdaMode: 'auto' }));
    expect(e.message).toContain('lambdaMode');
    expect(e.message).toContain('manual');
    expect(e.message).toContain('budget');
    expect(() => validateConfig({ advantage: 1 })).toThrow(InputError);
    expect(() => validateConfig({ env: 'chess' })).toThrow(InputError);
  });

  it('nEmbd must be divisible by nHead, also against the base', () => {
    const e = errorOf(() => validateConfig({ nEmbd: 30, nHead: 4 }));
    expect(e).toBeInstanceOf(InputError);
    expect(e.message).toContain('nEmbd');
    expect(e.message).toContain('nHead');
    expect(validateConfig({ nEmbd: 30, nHead: 3 })).toMatchObject({ nEmbd: 30, nHead: 3 });
    expect(() => validateConfig({ nHead: 3 })).toThrow(InputError); // default nEmbd 64
    expect(() => validateConfig({ nEmbd: 30 })).toThrow(InputError); // default nHead 4
  });

  it('strings (from --set or a URL) are parsed as numbers', () => {
    const c = validateConfig({ groupSize: '16', lr: '1e-3', seed: ' 7 ', pKnown: '0.25', nEmbd: '32', nHead: '2' });
    expect(c.groupSize).toBe(16);
    expect(c.lr).toBe(0.001);
    expect(c.seed).toBe(7);
    expect(c.pKnown).toBe(0.25);
    expect(c.nEmbd).toBe(32);
    expect(c.nHead).toBe(2);
  });

  it('layers a partial over a given base', () => {
    const base = validateConfig({ groupSize: 4 });
    const c = validateConfig({ lr: '0.01' }, base);
    expect(c.groupSize).toBe(4);
    expect(c.lr).toBe(0.01);
  });
});

describe('parseField', () => {
  it('parses and checks one field', () => {
    expect(parseField('maxMessage', '12')).toBe(12);
    expect(parseField('maxMessage', 1)).toBe(1);
    expect(parseField('lambdaTok', 0.25)).toBe(0.25);
    expect(parseField('algorithm', 'gspo')).toBe('gspo');
    expect(() => parseField('maxMessage', '13')).toThrow(/maxMessage.*\[1, 12\]/);
    expect(() => parseField('maxMessage', 0)).toThrow(InputError);
    expect(() => parseField('pKnown', 1.0001)).toThrow(/pKnown/);
    expect(() => parseField('temperature', 0)).toThrow(/temperature.*\[0\.05, 5\]/);
    expect(() => parseField('nLayer', 1.5)).toThrow(/nLayer.*integer/);
    expect(() => parseField('algorithm', 'GSPO')).toThrow(/algorithm/);
  });
});
