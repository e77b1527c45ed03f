// Fuzz: state the page reads back from storage. Sweep records (localStorage text), resume
// states and stored runs (IndexedDB structured clones, which keep NaN, undefined and typed
// arrays) with edits at every path. Each is refused with the project's error (a sweep: dropped
// with a reason) or accepted with every kept field in range; an accepted stored run exports.
import { describe, expect, it } from 'vitest';
import { DEFAULTS, validateConfig } from '../../src/config';
import { findPreset, presetConfig, PRESETS } from '../../src/envs/presets';
import { InputError } from '../../src/contract/errors';
import { exportRecipe } from '../../src/export/recipe';
import { RunFileError } from '../../src/store/runSchema';
import type { RunMeta } from '../../src/store/runTypes';
import { readStoredRun } from '../../src/store/storedRun';
import { parseSweepRecord, type SweepRecord } from '../../src/store/sweepSlice';
import { checkResumeState } from '../../src/worker/resumeRun';
import type { ResumeState } from '../../src/worker/protocol';
import { deepJson, EDGE_JSON, editObject, int, paths, pick, seeded, Tally } from './harness';

const CASES = 10_000;
const finite = (x: unknown, lo = -Infinity, hi = Infinity) => typeof x === 'number' && Number.isFinite(x) && x >= lo && x <= hi;
const whole = (x: unknown, hi = 1e7) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 && x <= hi;
const evalAt = (step: number) => ({ step, accuracy: 0.5, tokens: 2, turns: 1, lambdaTok: 0.1, reward: 0.3, silenceKnown: 0.25 });
const evalOk = (e: Record<string, number>) => whole(e.step) && finite(e.accuracy, 0, 1) && finite(e.tokens, 0) && finite(e.turns, 0) && finite(e.lambdaTok, 0, 10) && Object.keys(e).length <= 64;

const SWEEP: SweepRecord = {
  id: 'sweep-1', preset: 'relay-budget', axis: 'budget', base: { seed: 3, groupSize: 4 }, steps: 40, status: 'running', message: null, createdAt: 1_700_000_000_000,
  runs: [
    { label: 'B=1', value: 1, status: 'done', runId: 'r1', accuracy: 0.8, tokens: 3, startedAt: 1, finishedAt: 2 },
    { label: 'B=4', value: 4, status: 'running', runId: 'r2', accuracy: null, tokens: null, startedAt: 3, finishedAt: null },
  ],
};
const SWEEP_PATHS = paths(SWEEP);

function sweepOk(s: SweepRecord): string | null {
  if (!PRESETS.some((p) => p.name === s.preset)) return `preset ${s.preset.slice(0, 40)}`;
  if (s.runs.length < 1 || s.runs.length > 64) return `${s.runs.length} runs`;
  if (typeof s.message !== 'string' && s.message !== null) return 'a message that is not text';
  if (s.message && s.message.length > 2100) return `a message of ${s.message.length}`;
  if (!finite(s.createdAt, 0) || !whole(s.steps)) return 'createdAt or steps';
  for (const r of s.runs) {
    if (!finite(r.value, 0, 64) || typeof r.label !== 'string' || r.label.length > 80) return `run ${JSON.stringify(r).slice(0, 100)}`;
    if (r.accuracy !== null && !finite(r.accuracy, 0, 1)) return 'an accuracy';
  }
  try { presetConfig(findPreset(s.preset), s.base); } catch (e) { return `a base that does not apply (${String(e).slice(0, 100)})`; }
  const again = parseSweepRecord(JSON.stringify(s)); // what is kept reads back the same
  return again.sweep && JSON.stringify(again.sweep) === JSON.stringify(s) ? null : 'a record that does not read back as itself';
}

const STATE = { step: 6, config: DEFAULTS, evals: [evalAt(2), evalAt(4), evalAt(8)], bestEval: evalAt(4), lambdaTok: 0.2, flags: [{ kind: 'diverged', step: 3, message: 'm' }], skippedUpdates: 1,
  optimizer: { m: new Float32Array(3), v: new Float32Array(3), step: 12 }, reference: new Float32Array(3) } as unknown as ResumeState;
const STATE_PATHS = paths(STATE);

const RUN: RunMeta = {
  id: 'r1', name: 'a run', preset: 'relay-noisy', config: presetConfig(findPreset('relay-noisy')), createdAt: 1, updatedAt: 2, status: 'paused', steps: 6,
  evals: [evalAt(0), { ...evalAt(5), extra: NaN }], bestEval: evalAt(5), flags: [{ kind: 'nonfinite-update', step: 2, message: 'skipped' }], warmStart: 'w.safetensors', backend: 'cpu',
  checkpoints: { last: 6, best: 5 }, colorIndex: 0, source: 'trained', changes: [{ step: 4, field: 'groupSize', value: 2 }],
};
const RUN_PATHS = paths(RUN);

describe('fuzz: stored state read back', () => {
  it('sweep records: dropped with a reason or kept with every field in range', () => {
    const tally = new Tally('sweep record', (e) => e instanceof RunFileError);
    const read = (text: string) => { const r = parseSweepRecord(text); if (r.problem) throw new RunFileError(r.problem); return r.sweep!; };
    tally.run('control', () => 'the unmutated record', () => read(JSON.stringify(SWEEP)), sweepOk);
    const text = JSON.stringify(SWEEP);
    for (let k = 0; k < CASES; k++) {
      const rand = seeded(90_000 + k);
      if (k % 10 === 9) { // text damage: truncation, a flipped character, an edge value spliced in
        const i = int(rand, text.length);
        const t = pick(rand, [text.slice(0, i), text.slice(0, i) + pick(rand, ['"', '}', ',', '0', '\\']) + text.slice(i + 1), text.replace('"B=1"', pick(rand, EDGE_JSON))]);
        tally.run('text', () => `seed ${90_000 + k}`, () => read(t), sweepOk);
      } else {
        const doc = editObject(SWEEP, SWEEP_PATHS, rand);
        let t: string;
        try { t = JSON.stringify(doc); } catch { t = text.replace('"B=1"', deepJson(5000)); } // too deep to stringify here: spliced in as text
        tally.run('edit', () => `seed ${90_000 + k}`, () => read(t), sweepOk);
      }
    }
    tally.report(CASES);
  });

  it('resume states: refused by name or kept with every counter in range', () => {
    const tally = new Tally('resume state', (e) => e instanceof InputError);
    const ck = { step: 6, numParams: 3, config: DEFAULTS };
    for (let k = 0; k < CASES; k++) {
      const s = k === 0 ? STATE : editObject(STATE, STATE_PATHS, seeded(110_000 + k));
      tally.run(k === 0 ? 'control' : 'edit', () => `seed ${110_000 + k}`, () => checkResumeState(s, ck), ({ snapshot: r }) => {
        if (r.step !== 6) return `step ${r.step}`;
        if (r.evals.length > 100_000 || !r.evals.every((e) => evalOk(e as unknown as Record<string, number>) && e.step <= 6)) return 'an eval out of range';
        if (r.bestEval !== null && !r.evals.includes(r.bestEval)) return 'a best eval that is not one of the evals';
        if (!finite(r.lambdaTok, 0, 10) || !whole(r.skippedUpdates)) return `lambdaTok ${r.lambdaTok} / skipped ${r.skippedUpdates}`;
        if (!r.flags.every((f) => whole(f.step) && f.step <= 6 && typeof f.message === 'string' && f.message.length <= 2000)) return 'a flag';
        if (r.optimizer && !(r.optimizer.m instanceof Float32Array && r.optimizer.m.length === 3 && r.optimizer.m.every(Number.isFinite))) return 'an optimizer kept that does not fit';
        return null;
      });
    }
    tally.report(CASES);
  });

  it('stored runs: refused by name or read whole, and every run read exports', () => {
    const tally = new Tally('stored run', (e) => e instanceof RunFileError);
    for (let k = 0; k < CASES; k++) {
      const r = k === 0 ? RUN : editObject(RUN, RUN_PATHS, seeded(130_000 + k));
      tally.run(k === 0 ? 'control' : 'edit', () => `seed ${130_000 + k}`, () => readStoredRun(r), ({ meta, filled }) => {
        if (JSON.stringify(validateConfig(meta.config as unknown as Record<string, unknown>)) !== JSON.stringify(meta.config)) return 'a config that does not validate to itself';
        if (Object.keys(meta.config).length !== Object.keys(DEFAULTS).length) return 'a config with missing fields';
        if (!meta.evals.every((e) => evalOk(e as unknown as Record<string, number>)) || !whole(meta.steps) || !finite(meta.createdAt, 0)) return 'an eval or a counter';
        if (filled.some((f) => Object.prototype.hasOwnProperty.call(r.config ?? {}, f))) return 'a field said filled that was there';
        for (const t of ['trl', 'verl'] as const) {
          for (const f of exportRecipe(t, meta.config, meta.preset)) if (/\bundefined\b|PWNED|\bNaN\b/.test(f.text)) return `${t} ${f.path} holds undefined, NaN or a payload`;
        }
        return null;
      });
    }
    tally.report(CASES);
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
  });
});
