// Run export and import: a round trip keeps every number (non-finite ones
// too); corrupted files are rejected whole with a message naming the file and
// what is wrong.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { createEnv } from '../../src/envs/registry';
import { writeCheckpoint } from '../../src/model/checkpoint';
import { paramSpecs } from '../../src/model/params';
import { MetricsSeries } from '../../src/store/metricsSeries';
import { checkRunCheckpoint, metricsCsv, parseRunFile, runToJson, RunFileError } from '../../src/store/runFile';
import type { RunMeta } from '../../src/store/runTypes';
import { METRIC_NAMES } from '../../src/worker/protocol';

const C = METRIC_NAMES.length;
const config = presetConfig(findPreset('relay-silence'), { groupSize: 4, lambdaTok: 0.2 });

function series(n: number): MetricsSeries {
  const d = new Float64Array(n * C);
  for (let r = 0; r < n; r++) for (let c = 0; c < C; c++) d[r * C + c] = METRIC_NAMES[c] === 'step' ? r : Math.sin(r * 7 + c) * 10 ** (c % 5);
  d[1 * C + METRIC_NAMES.indexOf('ratio_min')] = Infinity; // every update skipped: no ratio
  d[1 * C + METRIC_NAMES.indexOf('ratio_max')] = -Infinity;
  d[2 * C + METRIC_NAMES.indexOf('kl')] = NaN;
  return MetricsSeries.from(d);
}

const meta: RunMeta = {
  id: 'run-1-abc', name: 'relay, λ 0.2 "quoted"', preset: 'relay-silence', config, createdAt: 1_700_000_000_000, updatedAt: 1_700_000_100_000,
  status: 'paused', steps: 12, evals: [
    { step: 0, accuracy: 1, tokens: 8, turns: 1, lambdaTok: 0.2, reward: -0.6, silenceKnown: 0, silenceUnknown: 0 },
    { step: 10, accuracy: 0.96875, tokens: 1.0625, turns: 0.7, lambdaTok: 0.2, reward: 0.75625, silenceKnown: 0.9, silenceUnknown: 0.05 },
  ],
  bestEval: null, flags: [{ kind: 'nonfinite-update', step: 3, message: 'step 3: skipped' }], warmStart: 'checkpoints/relay-warm.safetensors',
  backend: 'webgpu', checkpoints: { last: 12 }, colorIndex: 3, source: 'trained', curriculum: [{ step: 5, stage: 1, label: 'N = 5' }],
};

const good = () => runToJson(meta, series(12));
const mutate = (fn: (doc: Record<string, any>) => void) => { const doc = JSON.parse(good()); fn(doc); return JSON.stringify(doc); };
const rejects = (text: string, re: RegExp) => {
  let err: unknown;
  try { parseRunFile(text, 'x.run.json'); } catch (e) { err = e; }
  expect(err).toBeInstanceOf(RunFileError);
  expect((err as Error).message).toMatch(/^x\.run\.json was not imported: /);
  expect((err as Error).message).toMatch(re);
};

describe('run files', () => {
  it('round-trip: the imported run has the same setup, every metric (Infinity and NaN too) and every eval', () => {
    const s = series(12);
    const back = parseRunFile(runToJson(meta, s), 'a.run.json');
    expect(back.metrics.rows).toBe(12);
    for (const n of METRIC_NAMES) expect(Array.from(back.metrics.column(n))).toEqual(Array.from(s.column(n)));
    expect(back.metrics.value(1, 'ratio_min')).toBe(Infinity);
    expect(Number.isNaN(back.metrics.value(2, 'kl'))).toBe(true);
    expect(back.meta.evals).toEqual(meta.evals);
    expect(back.meta.bestEval).toEqual(meta.evals[0]); // higher accuracy wins
    expect(back.meta).toMatchObject({ name: meta.name, preset: meta.preset, config, status: 'imported', source: 'imported', steps: 12, flags: meta.flags, curriculum: meta.curriculum });
  });

  it('the CSV has the metric names as header, then TRL\'s names for the overlapping ones, and one row per step', () => {
    const lines = metricsCsv(series(5)).trim().split('\n');
    const trl = ['frac_reward_zero_std', 'clip_ratio/region_mean', 'completions/mean_length',
      'sampling/importance_sampling_ratio/min', 'sampling/importance_sampling_ratio/mean', 'sampling/importance_sampling_ratio/max'];
    expect(lines[0].split(',')).toEqual([...METRIC_NAMES, ...trl]);
    const row = lines[3].split(','), col = (n: string) => row[lines[0].split(',').indexOf(n)];
    for (const [t, ours] of [[trl[0], 'frac_zero_std'], [trl[1], 'clip_frac'], [trl[2], 'seq_len_mean'], [trl[3], 'ratio_min'], [trl[4], 'ratio_mean'], [trl[5], 'ratio_max']]) {
      expect(col(t), t).toBe(col(ours));
    }
    for (const same of ['reward', 'reward_std', 'kl', 'entropy']) expect(METRIC_NAMES).toContain(same); // TRL's names already
    expect(lines).toHaveLength(6);
    expect(lines[2].split(',')[METRIC_NAMES.indexOf('ratio_min')]).toBe('Infinity');
    expect(Number(lines[4].split(',')[0])).toBe(4); // the 4th step's row: steps count from 1, as on the page
  });

  it('rejects corrupted files, naming what is wrong', () => {
    rejects(good().slice(0, 200), /not valid JSON/);
    rejects('[1, 2]', /not a JSON object/);
    rejects(mutate((d) => { d.format = 'something-else'; }), /"format" is "something-else", expected "gspo-playground-run"/);
    rejects(mutate((d) => { d.version = 2; }), /"version" is 2; this page reads version 1/);
    rejects(mutate((d) => { d.run.config.lambdaTok = 99; }), /run\.config: lambdaTok must be in \[0, 10\]; got 99/);
    rejects(mutate((d) => { d.run.config.bogus = 1; }), /run\.config: unknown config key "bogus"/);
    rejects(mutate((d) => { d.run.preset = 'nope'; }), /run\.preset "nope" is not one of/);
    rejects(mutate((d) => { d.metrics.columns[3] = 'rewrd'; }), /metrics\.columns\[3\] "rewrd" is not a metric name/);
    rejects(mutate((d) => { d.metrics.rows[4].pop(); }), new RegExp(`metrics\\.rows\\[4\\] must be an array of ${C} numbers`));
    rejects(mutate((d) => { d.metrics.rows[5][2] = 'lots'; }), /metrics\.rows\[5\]\[2\] \(reward_std\) is "lots", not a number/);
    rejects(mutate((d) => { d.metrics.rows[6][0] = 2; }), /metrics\.rows\[6\]: steps must increase \(2 after 5\)/);
    rejects(mutate((d) => { delete d.evals[1].accuracy; }), /evals\[1\]\.accuracy is missing/);
    rejects(mutate((d) => { d.evals[0].tokens = null; }), /evals\[0\]\.tokens is null, not a number/);
    rejects(mutate((d) => { d.run.flags[0].kind = 'boom'; }), /run\.flags\[0\]\.kind "boom" is not a known flag/);
    rejects(mutate((d) => { d.run.name = 5; }), /run\.name must be a string/);
  });

  it('checks a checkpoint against the run: which one it is, and a wrong model size or garbage is rejected', () => {
    const env = createEnv(config);
    const gpt = { nLayer: config.nLayer, nHead: config.nHead, nEmbd: config.nEmbd, blockSize: env.blockSize, vocabSize: env.vocab.length };
    const weights = new Float32Array(paramSpecs(gpt).total).map((_, i) => Math.sin(i));
    const best = writeCheckpoint({ config: gpt, weights, vocab: [...env.vocab], extras: { which: 'best' } });
    expect(checkRunCheckpoint(best, config, 'b.safetensors').which).toBe('best');
    expect(checkRunCheckpoint(writeCheckpoint({ config: gpt, weights, vocab: [...env.vocab], extras: {} }), config).which).toBe('last');
    const wide = validateConfig({ nEmbd: 32 }, config);
    expect(() => checkRunCheckpoint(best, wide, 'b.safetensors')).toThrow(/b\.safetensors was not imported: it is for another model size \(n_layer 2, n_head 4, n_embd 64; the run has 2, 4, 32\)/);
    expect(() => checkRunCheckpoint(best.slice(0, best.length - 10), config, 'cut.safetensors')).toThrow(/^cut\.safetensors was not imported: /);
    expect(() => checkRunCheckpoint(new TextEncoder().encode('hello, world'), config, 'g.safetensors')).toThrow(/^g\.safetensors was not imported: /);
  });
});
