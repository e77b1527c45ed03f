// `compare`: the same run once per loss variant on one seed and warm start (CPU backend, tiny size),
// and its bad input: each refused with one line naming the problem, exit 2, before any work.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLosses } from '../../src/cli/commands/compare';
import { gspo, tempDir } from './run';
import { LOSS_IDS } from '../../src/contract/losses';

const TINY = ['--set', 'promptsPerStep=4', '--set', 'groupSize=4', '--set', 'evalEpisodes=16', '--set', 'evalEvery=1', '--set', 'minibatches=2'];

describe('compare', () => {
  it('trains each variant on the same seed into its own folder; the runs differ in the loss (and the clip range across levels) alone', () => {
    const out = join(tempDir(), 'cmp');
    const r = gspo(['compare', '--preset', 'relay-silence', '--losses', 'gspo,dapo', '--steps', '2', '--seed', '5', '--backend', 'cpu', '--out', out, ...TINY]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.runs.map((x: { loss: string }) => x.loss)).toEqual(['gspo', 'dapo']);
    const cfg = (v: string) => JSON.parse(readFileSync(join(out, v, 'config.json'), 'utf8')).config;
    const a = cfg('gspo'), b = cfg('dapo');
    expect([a.seed, b.seed]).toEqual([5, 5]);
    expect([a.algorithm, b.algorithm]).toEqual(['gspo', 'dapo']);
    expect([b.epsLow, b.epsHigh]).toEqual([0.2, 0.28]); // DAPO's published range: GSPO's is a sequence-scale one
    const { algorithm: _a, epsLow: _l, epsHigh: _h, ...restA } = a, { algorithm: _b, epsLow: _m, epsHigh: _n, ...restB } = b;
    expect(restB).toEqual(restA);
    // the same seed and warm start: the first step samples the same episodes (its rollout comes before any update)
    const first = (v: string) => JSON.parse(readFileSync(join(out, v, 'metrics.jsonl'), 'utf8').split('\n')[0]);
    for (const k of ['reward', 'r_task', 'tokens', 'silence_rate', 'seq_len_mean']) expect(first('dapo')[k], k).toBe(first('gspo')[k]);
    // and the warm start's eval is the same point
    expect(r.json.runs[1].evals[0]).toEqual(r.json.runs[0].evals[0]);
    expect(existsSync(join(out, 'compare.json'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')).runs).toHaveLength(2);
  });

  it('refuses bad --losses and a conflicting --set, naming the problem', () => {
    expect(() => parseLosses('gspo')).toThrow(/at least two variants/);
    expect(() => parseLosses('gspo,gspo')).toThrow(/names a variant twice/);
    expect(() => parseLosses('gspo,ppo')).toThrow(`"ppo" is not a loss variant (known: ${LOSS_IDS.join(', ')})`);
    expect(parseLosses(' gspo , cispo ')).toEqual(['gspo', 'cispo']);
    const bad = gspo(['compare', '--preset', 'relay-silence', '--losses', 'gspo,grpo', '--set', 'algorithm=dapo', '--backend', 'cpu']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--set algorithm=\.\.\. conflicts with --losses/);
    const noLosses = gspo(['compare', '--preset', 'relay-silence', '--backend', 'cpu']);
    expect(noLosses.code).toBe(2);
    expect(noLosses.stderr).toMatch(/--losses/);
    const out = join(tempDir(), 'never');
    const backend = gspo(['compare', '--preset', 'relay-silence', '--losses', 'gspo,grpo', '--backend', 'bogus', '--out', out]);
    expect(backend.code).toBe(2);
    expect(backend.stderr).toMatch(/--backend must be webgpu, cpu .* got "bogus"/);
    expect(existsSync(out)).toBe(false);
  });
});
