// Findings 7 and 9: the run file is checked whole against one schema; the export
// holds the live changes the runs table shows, and an import is marked imported.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { MetricsSeries } from '../../src/store/metricsSeries';
import { parseRunFile, RunFileError, runToJson } from '../../src/store/runFile';
import type { RunMeta } from '../../src/store/runTypes';

const config = presetConfig(findPreset('relay-silence'));
const meta: RunMeta = {
  id: 'r', name: 'live', preset: 'relay-silence', config, createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_000, status: 'finished', steps: 50,
  evals: [{ step: 0, accuracy: 0.5, tokens: 8, turns: 1, lambdaTok: 0.1, reward: 0 }], bestEval: null, flags: [], warmStart: null, backend: 'cpu',
  checkpoints: {}, colorIndex: 0, source: 'trained', changes: [{ step: 41, field: 'groupSize', value: 2 }, { step: 45, field: 'lambdaTok', value: 0.3 }],
};
const text = () => runToJson(meta, MetricsSeries.from(new Float64Array(0)));
const edit = (fn: (d: any) => void) => { const d = JSON.parse(text()); fn(d); return JSON.stringify(d); };
const rejected = (t: string) => { try { parseRunFile(t, 'x.json'); } catch (e) { expect(e).toBeInstanceOf(RunFileError); return (e as Error).message.replace(/^x\.json was not imported: /, ''); } throw new Error('accepted'); };

describe('finding 7: every field of a run file is checked', () => {
  it('rejects, naming the field, what used to pass through', () => {
    expect(rejected(edit((d) => { d.run.comparison = {}; }))).toBe('run.comparison.rows must be an array');
    expect(rejected(edit((d) => { d.run.comparison = { step: 1, rows: [] }; }))).toBe('run.comparison.rows is empty (a comparison has at least one arm)');
    expect(rejected(edit((d) => { d.run.steps = 1.5; }))).toBe('run.steps must be a whole number in [0, 10000000], got 1.5');
    expect(rejected(edit((d) => { d.run.steps = 'NaN'; }))).toBe('run.steps must be a whole number in [0, 10000000], got "NaN"');
    expect(rejected(edit((d) => { d.run.createdAt = 'Infinity'; }))).toBe('run.createdAt must be a finite number, got "Infinity"');
    expect(rejected(edit((d) => { d.evals[0].accuracy = 'NaN'; }))).toBe('evals[0].accuracy must be a finite number, got NaN');
    expect(rejected(edit((d) => { d.evals[0].tokens = -1; }))).toBe('evals[0].tokens must be in [0, Infinity], got -1');
    expect(rejected(edit((d) => { d.evals[0].step = 2.5; }))).toBe('evals[0].step must be a whole number in [0, 10000000], got 2.5');
    expect(rejected(edit((d) => { d.run.baselines = [{ name: 'random' }]; }))).toBe('run.baselines[0].accuracy must be a finite number, got undefined');
    expect(rejected(edit((d) => { d.run.curriculum = [{ step: 'x', stage: 1, label: 'N = 5' }]; }))).toBe('run.curriculum[0].step must be a whole number in [0, 10000000], got "x"');
    expect(rejected(edit((d) => { d.run.changes = [{ step: 3, field: 'constructor', value: 1 }]; }))).toBe('run.changes[0].field "constructor" is not a config field');
    expect(rejected(edit((d) => { d.run.changes = [{ step: 3, field: 'groupSize', value: 999 }]; }))).toBe('run.changes[0]: groupSize must be in [1, 64]; got 999');
    expect(rejected(edit((d) => { d.run.extra = 1; }))).toBe('"run" has an unknown key "extra" (known: name, preset, config, createdAt, status, steps, warmStart, backend, flags, checkpoints, baselines, curriculum, comparison, changes, member)');
    expect(rejected(edit((d) => { d.run.backend = 'tpu'; }))).toBe('run.backend "tpu" is not cpu, webgpu or null');
    expect(rejected(edit((d) => { d.run.member = { sweep: 's', axis: 'lr', value: 1 }; }))).toBe('run.member.axis "lr" is not lambdaTok or budget');
    expect(rejected(edit((d) => { d.run.member = { sweep: 's', axis: 'lambdaTok', value: 'NaN' }; }))).toBe('run.member.value must be a finite number, got "NaN"');
  });
});

describe('finding 9: the export holds the live changes; an import is marked imported', () => {
  it('round trip', () => {
    expect(JSON.parse(text()).run.changes).toEqual([{ step: 41, field: 'groupSize', value: 2 }, { step: 45, field: 'lambdaTok', value: 0.3 }]);
    const back = parseRunFile(text(), 'x.json');
    expect(back.meta.changes).toEqual(meta.changes);
    expect(back.meta.status).toBe('imported');
    expect(back.meta.source).toBe('imported');
  });
});
