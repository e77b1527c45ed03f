// `sweep --backend webgpu` as one stacked population (one GPT of K members, lock step) against the
// same sweep run one after another on WebGPU (--sequential, today's Trainer per run): each member's
// evals equal its sequential run's (greedy rollouts: the same tokens), its weights to float tolerance,
// sweep.json's frontier the same; a stacked population that does not fit the memory limit is refused
// before anything is written, naming K and the limit; a plan that does not stack says why and runs in turn.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../src/model/checkpoint';
import { webgpuForCli } from './gpuAvailable';
import { gspo, tempDir } from './run';

const TINY = ['--backend', 'webgpu', '--set', 'steps=2', '--set', 'promptsPerStep=2', '--set', 'groupSize=4', '--set', 'minibatches=2',
  '--set', 'evalEpisodes=8', '--set', 'evalEvery=2', '--set', 'temperature=1.5'];
const text = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');
// one AdamW step moves a weight by up to lr whatever its gradient, so a near-0 gradient's rounding can put two
// runs 2 lr apart per step (the preset's lr, two steps)
const weightsOf = (dir: string) => readCheckpoint(readFileSync(join(dir, 'last.safetensors'))).weights;

describe('sweep --backend webgpu as a stacked population', () => {
  const root = tempDir();
  const args = ['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0,0.1,0.5', ...TINY];

  it('K = 3 members in lock step: each member\'s evals are its sequential WebGPU run\'s, its weights to tolerance', (ctx) => {
    if (!webgpuForCli().ok) ctx.skip(); // (throws instead under CI=true)
    const pop = join(root, 'pop'), seq = join(root, 'seq');
    const a = gspo([...args, '--out', pop]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toMatch(/a stacked population of 3 members on WebGPU, 3 in lock step/);
    const b = gspo([...args, '--sequential', '--out', seq]);
    expect(b.code, b.stderr).toBe(0);
    const sp = JSON.parse(text(pop, 'sweep.json')), ss = JSON.parse(text(seq, 'sweep.json'));
    expect(sp.mode).toBe('stacked-population');
    expect(ss.mode).toBe('sequential');
    const lr = JSON.parse(text(sp.runs[0].out, 'config.json')).config.lr;
    for (let i = 0; i < 3; i++) {
      const p = sp.runs[i].out, q = ss.runs[i].out;
      expect(text(p, 'evals.jsonl')).toBe(text(q, 'evals.jsonl'));
      expect(text(p, 'metrics.jsonl').trim().split('\n')).toHaveLength(2);
      const wp = weightsOf(p), wq = weightsOf(q);
      let worst = 0;
      for (let j = 0; j < wq.length; j++) worst = Math.max(worst, Math.abs(wp[j] - wq[j]));
      expect(worst, `${sp.runs[i].label}: largest weight difference`).toBeLessThanOrEqual(2 * 2 * lr);
    }
    expect(sp.frontier).toEqual(ss.frontier.map((f: { out: string }) => ({ ...f, out: f.out.replace(seq, pop) })));
  }, 900_000);

  it('refuses, before any member trains, a live change a stacked population cannot apply (exit 2, one line)', (ctx) => {
    if (!webgpuForCli().ok) ctx.skip();
    for (const change of ['1:advantage=batch', '1:dynamicSampling=on']) {
      const out = join(root, `at-${change.replace(/\W/g, '-')}`);
      const r = gspo([...args, '--at', change, '--out', out]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`--at ${change}: a stacked population cannot apply this live change`));
      expect(r.stderr).not.toMatch(/runs failed/);
      expect(existsSync(join(out, 'sweep.json'))).toBe(false);
    }
  }, 300_000);

  it('refuses a stacked population over the memory limit before anything is written, naming K and the limit', (ctx) => {
    if (!webgpuForCli().ok) ctx.skip();
    const out = join(root, 'big');
    const r = gspo([...args, '--memory-limit', '1', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a stacked population of K=3 members needs about \d+ MiB of GPU memory \(\d+ MiB each\), more than the limit of 1 MiB: not even one fits/);
    expect(existsSync(join(out, 'sweep.json'))).toBe(false);
  }, 300_000);

  it('a plan that does not stack says why and runs one run after another', (ctx) => {
    if (!webgpuForCli().ok) ctx.skip();
    const out = join(root, 'turns');
    // the plan sets groupSize, so TINY's --set groupSize=4 would be refused as overwritten: left out
    const tiny = TINY.filter((x, i, a) => x !== 'groupSize=4' && !(x === '--set' && a[i + 1] === 'groupSize=4'));
    const r = gspo(['sweep', '--preset', 'relay-noisy-dr', '--over', 'groupSize=2,4', ...tiny, '--set', 'steps=0', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/on WebGPU the runs go one after another: members 0 and 1 differ in groupSize \(2 vs 4\), and it fixes the shape/);
    expect(JSON.parse(text(out, 'sweep.json')).mode).toBe('sequential');
  }, 300_000);
});
