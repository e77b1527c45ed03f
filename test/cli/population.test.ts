// A sweep as a population (one worker thread per member, CPU backend) against the
// same sweep run one after another (--sequential) and against lone `train` runs in
// this process: bit for bit the same evals, weights and metrics (timings aside); a
// live change to one member leaves the others as they were; a population that does
// not fit in the memory limit is refused before anything is written.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gspo, tempDir } from './run';

const TINY = ['--backend', 'cpu', '--set', 'steps=3', '--set', 'promptsPerStep=2', '--set', 'groupSize=4', '--set', 'minibatches=2',
  '--set', 'evalEpisodes=8', '--set', 'evalEvery=1', '--set', 'temperature=1.5'];
const text = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');
const bytes = (dir: string, f: string) => readFileSync(join(dir, f));
/** metrics.jsonl without the wall-clock fields, which differ run to run. */
const metrics = (dir: string) => text(dir, 'metrics.jsonl').trim().split('\n').map((l) => {
  const { step_time_ms: _t, tokens_per_s: _s, ...rest } = JSON.parse(l);
  return rest;
});

describe('sweep as a population (CPU backend)', () => {
  const root = tempDir();
  const pop = join(root, 'pop'), seq = join(root, 'seq');
  const args = ['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0,0.1,0.5', ...TINY];

  it('trains K = 3 members side by side, each bit for bit its sequential run', () => {
    const a = gspo([...args, '--out', pop]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toMatch(/a population of 3 members, 3 at once/);
    const b = gspo([...args, '--sequential', '--out', seq]);
    expect(b.code, b.stderr).toBe(0);
    const sp = JSON.parse(text(pop, 'sweep.json')), ss = JSON.parse(text(seq, 'sweep.json'));
    expect(sp.mode).toBe('population');
    expect(ss.mode).toBe('sequential');
    expect(sp.runs.map((r: { label: string }) => r.label)).toEqual(ss.runs.map((r: { label: string }) => r.label));
    for (let i = 0; i < 3; i++) {
      const p = sp.runs[i].out, q = ss.runs[i].out;
      expect(text(p, 'evals.jsonl')).toBe(text(q, 'evals.jsonl'));
      expect(bytes(p, 'last.safetensors').equals(bytes(q, 'last.safetensors'))).toBe(true);
      expect(bytes(p, 'best.safetensors').equals(bytes(q, 'best.safetensors'))).toBe(true);
      expect(metrics(p)).toEqual(metrics(q));
      expect(sp.runs[i].final).toEqual(ss.runs[i].final);
    }
    // the runs moved (else equality would prove little): some update changed the weights
    expect(metrics(sp.runs[0].out).some((m: { grad_norm: number }) => m.grad_norm > 0)).toBe(true);
    expect(sp.frontier).toEqual(ss.frontier.map((f: { out: string }) => ({ ...f, out: f.out.replace(seq, pop) })));
  });

  // --sequential runs in member threads too (one at a time), so `train` in this process is the independent oracle
  it('every member equals the lone train run of its config', () => {
    const members = JSON.parse(text(pop, 'sweep.json')).runs;
    ['0', '0.1', '0.5'].forEach((lambda, i) => {
      const lone = join(root, `lone-${lambda}`);
      // off the calibrated point both apply the setting's recipe by default (its start penalty, hold and temperature)
      const r = gspo(['train', '--preset', 'relay-noisy-dr', ...TINY, '--set', `lambdaTok=${lambda}`, '--out', lone]);
      expect(r.code, r.stderr).toBe(0);
      expect(members[i].label).toBe(`lambda_tok=${lambda}`);
      expect(text(members[i].out, 'evals.jsonl')).toBe(text(lone, 'evals.jsonl'));
      expect(bytes(members[i].out, 'last.safetensors').equals(bytes(lone, 'last.safetensors'))).toBe(true);
      expect(metrics(members[i].out)).toEqual(metrics(lone));
    });
  });

  it('a live change to one member applies from its step there and leaves the others untouched', () => {
    const ch = join(root, 'change');
    const r = gspo([...args, '--at', '1:lambdaTok=2@1', '--out', ch]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(text(ch, 'sweep.json'));
    const m1 = metrics(s.runs[1].out);
    expect(m1.map((m: { lambda_tok: number }) => m.lambda_tok)).toEqual([0.1, 2, 2]);
    expect(s.runs[1].changes).toEqual([{ step: 1, member: 1, partial: { lambdaTok: 2 } }]);
    expect(metrics(s.runs[1].out)[0]).toEqual(metrics(join(pop, 'lambda_tok=0.1'))[0]); // before the change: as without it
    for (const i of [0, 2]) {
      expect(s.runs[i].changes).toEqual([]);
      expect(text(s.runs[i].out, 'evals.jsonl')).toBe(text(JSON.parse(text(pop, 'sweep.json')).runs[i].out, 'evals.jsonl'));
      expect(bytes(s.runs[i].out, 'last.safetensors').equals(bytes(JSON.parse(text(pop, 'sweep.json')).runs[i].out, 'last.safetensors'))).toBe(true);
    }
  });

  it('refuses a population that does not fit in the memory limit, naming K and the limit, and writes nothing', () => {
    const out = join(root, 'toobig');
    const one = gspo([...args, '--memory-limit', '1', '--set', 'evalEpisodes=4096', '--out', out]);
    expect(one.code, one.stderr).toBe(2);
    expect(one.stderr.trim().split('\n')).toHaveLength(1);
    const m = /a population member needs about (\d+) MiB .* more than the limit of 1 MiB/.exec(one.stderr);
    expect(m, one.stderr).not.toBeNull();
    expect(existsSync(out)).toBe(false);
    const each = Number(m![1]);
    const three = gspo([...args, '--members', '3', '--memory-limit', String(2 * each), '--set', 'evalEpisodes=4096', '--out', out]);
    expect(three.code, three.stderr).toBe(2);
    expect(three.stderr).toMatch(new RegExp(`K=3 members needs about \\d+ MiB \\(${each} MiB each\\), more than the limit of ${2 * each} MiB: at most [12] fit at once`));
    expect(existsSync(out)).toBe(false);
    const bad = gspo([...args, '--at', '1:nLayer=3', '--out', out]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/nLayer cannot change during a run/);
    const who = gspo([...args, '--at', '1:lambdaTok=2@3', '--out', out]);
    expect(who.code).toBe(2);
    expect(who.stderr).toMatch(/member 3 does not exist \(members 0\.\.2\)/);
    expect(existsSync(out)).toBe(false);
  });
});
