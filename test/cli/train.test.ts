// `train` and `eval` end to end on the CPU backend, at a tiny size: the files a run
// writes, the metric names of docs/rl.md section 7, and bad --set values.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../src/model/checkpoint';
import { gspo, tempDir } from './run';

const METRICS = ['reward', 'reward_std', 'r_task', 'tokens', 'turns', 'repetition', 'lambda_tok', 'frac_zero_std', 'policy_loss', 'kl',
  'entropy', 'clip_frac', 'ratio_mean', 'ratio_min', 'ratio_max', 'grad_norm', 'seq_len_mean', 'silence_rate', 'step_time_ms', 'tokens_per_s'];

describe('train / eval', () => {
  it('writes config, metrics, evals, best and last; the summary has warm-start, final and best evals', () => {
    const out = join(tempDir(), 'run');
    const r = gspo(['train', '--preset', 'relay-silence', '--backend', 'cpu', '--steps', '2', '--out', out,
      '--set', 'promptsPerStep=4', '--set', 'groupSize=4', '--set', 'evalEpisodes=16', '--set', 'evalEvery=1', '--set', 'beta=0.01']);
    expect(r.code, r.stderr).toBe(0);
    const s = r.json;
    expect(s.preset).toBe('relay-silence');
    expect(s.steps).toBe(2);
    for (const k of ['warmStart', 'final', 'best']) {
      expect(s[k].accuracy).toBeGreaterThanOrEqual(0);
      expect(s[k].accuracy).toBeLessThanOrEqual(1);
      expect(s[k]).toHaveProperty('silenceKnown');
      expect(s[k]).toHaveProperty('tokens');
    }
    expect(s.warmStart.step).toBe(0);
    expect(s.final.step).toBe(2);
    const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(metrics).toHaveLength(2);
    for (const m of metrics) for (const k of METRICS) expect(Number.isFinite(m[k]), k).toBe(true);
    expect(metrics[0].kl).toBeGreaterThanOrEqual(0);
    const evals = readFileSync(join(out, 'evals.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(evals.map((e) => e.step)).toEqual([0, 1, 2]);
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    expect(config.config.promptsPerStep).toBe(4);
    for (const f of ['best.safetensors', 'last.safetensors']) {
      expect(existsSync(join(out, f))).toBe(true);
      const ck = readCheckpoint(new Uint8Array(readFileSync(join(out, f))));
      expect(ck.vocab).not.toBeNull();
      expect(ck.extras.preset).toBe('relay-silence');
    }
    // eval of the last checkpoint reproduces the final eval record (greedy, the same held-out set)
    const ev = gspo(['eval', '--checkpoint', join(out, 'last.safetensors'), '--preset', 'relay-silence', '--episodes', '16', '--backend', 'cpu']);
    expect(ev.code, ev.stderr).toBe(0);
    expect(ev.json.accuracy).toBe(s.final.accuracy);
    expect(ev.json.tokens).toBe(s.final.tokens);
  });

  it('rejects a bad --set naming the field and its range, before any work', () => {
    let r = gspo(['train', '--preset', 'relay-silence', '--backend', 'cpu', '--set', 'groupSize=0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/groupSize must be in \[1, 64\]; got 0/);
    r = gspo(['train', '--preset', 'relay-silence', '--backend', 'cpu', '--set', 'lambdaTOK=1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown config key "lambdaTOK"/);
    r = gspo(['train', '--preset', 'relay-quiet', '--backend', 'cpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown preset "relay-quiet".*relay-silence/);
    r = gspo(['train', '--preset', 'relay-silence', '--backend', 'cpu', '--set', 'algorithm=ppo']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/algorithm must be one of gspo, grpo/);
  });
});
