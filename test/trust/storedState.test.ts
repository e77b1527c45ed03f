// Stored state read back is as strict as a run-file import: a resume state and a sweep record
// go through the same schema (runSchema.ts) for an eval, a flag and a counter, and a record
// that fails says why. The cases are the ones that used to pass through.
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config';
import { InputError } from '../../src/contract/errors';
import { memoryKv } from '../../src/store/appStore';
import { initialSweep, parseSweepRecord, SWEEP_KEY, type SweepRecord } from '../../src/store/sweepSlice';
import { parseRunFile, runToJson } from '../../src/store/runFile';
import type { RunMeta } from '../../src/store/runTypes';
import { checkResumeState } from '../../src/worker/resumeRun';
import type { ResumeState } from '../../src/worker/protocol';

const evalAt = (step: number, extra: Record<string, unknown> = {}) => ({ step, accuracy: 0.5, tokens: 2, turns: 1, lambdaTok: 0.1, reward: 0.3, ...extra });
const state = (over: Record<string, unknown> = {}): ResumeState => ({
  step: 4, config: DEFAULTS, evals: [evalAt(2)], bestEval: null, lambdaTok: 0.1, flags: [], skippedUpdates: 0, ...over,
}) as unknown as ResumeState;
const ck = { step: 4, numParams: 3, config: DEFAULTS };
const refused = (s: ResumeState): string => {
  try { checkResumeState(s, ck); } catch (e) { expect(e).toBeInstanceOf(InputError); return (e as Error).message; }
  return 'accepted';
};

describe('a stored resume state is checked like a run file', () => {
  it('a good one reads back: its evals up to the checkpoint, the best of them, its counters', () => {
    const r = checkResumeState(state({ evals: [evalAt(2), evalAt(4, { accuracy: 0.9 }), evalAt(6)], skippedUpdates: 1 }), ck);
    expect(r.snapshot.evals.map((e) => e.step)).toEqual([2, 4]);
    expect(r.snapshot.bestEval!.step).toBe(4);
    expect(r.snapshot.skippedUpdates).toBe(1);
    expect(r.optimizerNotice).toMatch(/no optimizer state/);
  });

  it.each([
    ['an eval with accuracy 5', { evals: [evalAt(2, { accuracy: 5 })] }, /evals\[0\]\.accuracy must be in \[0, 1\], got 5/],
    ['an eval with tokens -3', { evals: [evalAt(2, { tokens: -3 })] }, /evals\[0\]\.tokens must be in \[0, Infinity\], got -3/],
    ['an eval with 100 fields', { evals: [evalAt(2, Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x${i}`, 1])))] }, /at most 64 are read/],
    ['lambdaTok 1e308', { lambdaTok: 1e308 }, /lambdaTok must be in \[0, 10\], got 1e\+308/],
    ['a step of 2^53-1', { step: 2 ** 53 - 1 }, /step must be a whole number in \[0, 10000000\]/],
    ['a 10 MB flag message', { flags: [{ kind: 'diverged', step: 1, message: 'x'.repeat(10 << 20) }] }, /flags\[0\]\.message is longer than 2000 characters/],
    ['a flag of an unknown kind', { flags: [{ kind: 'pwned', step: 1, message: '' }] }, /flags\[0\]\.kind "pwned" is not a known flag/],
    ['a flag with an extra key', { flags: [{ kind: 'diverged', step: 1, message: '', html: '<b>' }] }, /unknown key "html"/],
    ['10^6 evals', { evals: new Array(1_000_000).fill(evalAt(1)) }, /evals has 1000000 entries; at most 100000 are read/],
    ['skippedUpdates -1', { skippedUpdates: -1 }, /skippedUpdates must be a whole number/],
  ])('%s is refused, naming the field', (_, over, pattern) => {
    const m = refused(state(over));
    expect(m).toMatch(/^resume: the stored run state /);
    expect(m).toMatch(pattern);
    expect(m.length).toBeLessThan(400);
  });
});

const good: SweepRecord = {
  id: 'sweep-1', preset: 'relay-silence', axis: 'lambdaTok', base: { seed: 3 }, steps: 40, status: 'stopped', message: 'stopped by you', createdAt: 1700000000000,
  runs: [
    { label: 'λ=0', value: 0, status: 'done', runId: 'r1', accuracy: 0.8, tokens: 3, startedAt: 1, finishedAt: 2 },
    { label: 'λ=0.5', value: 0.5, status: 'pending', runId: null, accuracy: null, tokens: null, startedAt: null, finishedAt: null },
  ],
};
const withRecord = (edit: (s: any) => void): string => { const s = structuredClone(good) as any; edit(s); return JSON.stringify(s); };

describe('a stored sweep record is checked like a run file', () => {
  it('a good one reads back unchanged', () => {
    expect(parseSweepRecord(JSON.stringify(good))).toEqual({ sweep: good, problem: null });
  });

  it.each([
    ['a preset of 150,000 characters', (s: any) => { s.preset = 'x'.repeat(150_000); }, /sweep\.preset is longer than 200 characters/],
    ['an unknown preset', (s: any) => { s.preset = 'nope'; }, /sweep\.preset "nope" is not one of/],
    ['a message that is an object', (s: any) => { s.message = { a: 1 }; }, /sweep\.message must be a string/],
    ['createdAt as a string', (s: any) => { s.createdAt = '2024'; }, /sweep\.createdAt must be a finite number/],
    ['a base with an unknown field', (s: any) => { s.base = { evil: 1 }; }, /sweep\.base has an unknown key "evil"/],
    ['a base out of range', (s: any) => { s.base = { lr: 5 }; }, /sweep\.base: lr must be in \[0, 0\.1\]/],
    ['a run value outside the axis', (s: any) => { s.runs[1].value = 99; }, /sweep\.runs\[1\]\.value: lambdaTok must be in \[0, 10\]/],
    ['an accuracy of 5', (s: any) => { s.runs[0].accuracy = 5; }, /sweep\.runs\[0\]\.accuracy must be in \[0, 1\]/],
    ['an extra key', (s: any) => { s.html = '<b>'; }, /the sweep has an unknown key "html"/],
    ['a step of 2^53-1', (s: any) => { s.steps = 2 ** 53 - 1; }, /sweep\.steps must be a whole number/],
  ])('%s is dropped with the reason', (_, edit, pattern) => {
    const r = parseSweepRecord(withRecord(edit));
    expect(r.sweep).toBeNull();
    expect(r.problem).toMatch(/^The stored sweep was dropped: /);
    expect(r.problem).toMatch(pattern);
    expect(r.problem!.length).toBeLessThan(1000); // bounded: the input is clipped, and the known keys are the config table's
  });

  it('a long message is clipped, not a reason to drop the sweep', () => {
    const r = parseSweepRecord(withRecord((s) => { s.message = 'e'.repeat(300_00); }));
    expect(r.sweep!.message!.length).toBeLessThan(2100);
  });

  it('the reason reaches the page: the store starts with it as the notice', () => {
    const kv = memoryKv();
    kv.set(SWEEP_KEY, withRecord((s) => { s.createdAt = { toString: 1 }; }));
    const st = initialSweep(kv);
    expect(st.sweep).toBeNull();
    expect(st.notice).toMatch(/The stored sweep was dropped: sweep\.createdAt must be a finite number/);
    expect(initialSweep(memoryKv()).notice).toBeNull();
  });
});

describe('a run file of an earlier version is migrated the same way', () => {
  it('its missing config fields are named and take their defaults', () => {
    const { channelNoise: _n, scouts: _s, ...config } = DEFAULTS;
    const meta = { id: 'x', name: 'old', preset: 'relay-silence', config, createdAt: 1, updatedAt: 1, status: 'finished', steps: 0, evals: [], bestEval: null,
      flags: [], warmStart: null, backend: null, checkpoints: {}, colorIndex: 0, source: 'trained' } as unknown as RunMeta;
    const r = parseRunFile(runToJson(meta, undefined));
    expect(r.filled).toEqual(['channelNoise', 'scouts']);
    expect([r.meta.config.channelNoise, r.meta.config.scouts]).toEqual([0, 1]);
    expect(parseRunFile(runToJson({ ...meta, config: DEFAULTS }, undefined)).filled).toEqual([]);
  });
});
