// Resume for a lone `train --out DIR` (src/cli/trainResume.ts over jobResume.ts and resumeState.ts): killed mid-way
// (SIGKILL of the process, or Ctrl-C to its group) and run again with the same command, it ends bit for bit where an
// uninterrupted train ends on the CPU engine (checkpoints' bytes, evals, metrics but timings, the summary's finals,
// best, lambda, flags and changes); other settings are refused naming the field; --fresh starts anew.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gspo, tempDir } from './run';
import { killMidway, savedAt } from './killMidway';

const STEPS = 120;
// a live change (--at) and a dual lambda: both must come back as they were at the saved step
const trainArgs = (out: string, steps = STEPS) => ['train', '--preset', 'relay-noisy-dr', '--backend', 'cpu', '--threads', '1', '--set', `steps=${steps}`,
  '--set', 'promptsPerStep=2', '--set', 'groupSize=2', '--set', 'evalEpisodes=8', '--set', 'evalEvery=4',
  '--set', 'lambdaMode=budget', '--set', 'budget=1', '--at', '60:lr=0.001', '--out', out];
const read = (p: string) => readFileSync(p);
// a step's metrics but its timings
const metrics = (p: string) => readFileSync(p, 'utf8').trim().split('\n').map((l) =>
  Object.fromEntries(Object.entries(JSON.parse(l) as Record<string, unknown>).filter(([k]) => !/time|_ms$|Ms$|per_s$/.test(k))));
const view = (s: Record<string, unknown>) => Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'wallSeconds' && k !== 'out'));

function expectSame(full: string, resumed: string, a: Record<string, unknown>, b: Record<string, unknown>): void {
  for (const f of ['last.safetensors', 'best.safetensors', 'evals.jsonl']) expect(read(join(resumed, f)).equals(read(join(full, f))), f).toBe(true);
  expect(metrics(join(resumed, 'metrics.jsonl'))).toEqual(metrics(join(full, 'metrics.jsonl')));
  expect(view(b)).toEqual(view(a));
  expect(existsSync(join(resumed, 'resume.safetensors'))).toBe(false); // a finished run keeps no resume state
  expect(existsSync(join(resumed, 'result.json'))).toBe(true);
}

describe('train resume', () => {
  const dir = tempDir(), full = join(dir, 'full');
  let reference: Record<string, unknown> = {};

  it('an uninterrupted train (the reference)', () => {
    const r = gspo(trainArgs(full));
    expect(r.code, r.stderr).toBe(0);
    reference = r.json;
    expect(reference.lambdaTok).not.toBe(0); // the dual lambda moved
  }, 120_000);

  it('SIGKILL mid-way: the same command continues from the saved step to the same bytes', async () => {
    const out = join(dir, 'kill');
    const k = await killMidway(trainArgs(out), () => savedAt(out) >= 20, 'SIGKILL');
    expect(k.ready, k.stderr).toBe(true);
    expect(k.signal).toBe('SIGKILL');
    const at = savedAt(out);
    expect(at).toBeGreaterThanOrEqual(20);
    expect(at).toBeLessThan(STEPS);
    const r = gspo(trainArgs(out));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`train: continuing the run in ${out}: step ${at} of ${STEPS}`);
    expect(r.stderr).toContain(`resumed at step ${at} of ${STEPS}`);
    expectSame(full, out, reference, r.json);
  }, 120_000);

  it('Ctrl-C (SIGINT to the group) says what was saved and the command that resumes; it continues to the same bytes', async () => {
    const out = join(dir, 'int');
    const k = await killMidway(trainArgs(out), () => savedAt(out) >= 64, 'SIGINT'); // after the live change at step 60
    expect(k.code, k.stderr).toBe(130);
    const said = k.stderr.split('\n').filter((l) => l.startsWith('train: interrupted'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(new RegExp(`^train: interrupted; saved in .*int: step \\d+ of ${STEPS}; resume with: npm run gspo -- train --preset relay-noisy-dr .*--out .*int$`));
    const r = gspo(trainArgs(out));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/resumed at step \d+ of 120/);
    expectSame(full, out, reference, r.json);
  }, 120_000);

  it('a finished train says so; other settings are refused naming the field; --fresh starts anew', () => {
    const out = join(dir, 'int');
    const again = gspo(trainArgs(out));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/holds this train, finished/);
    expect(view(again.json)).toEqual(view(reference));

    const other = gspo(trainArgs(out, 121));
    expect(other.code).toBe(2);
    expect(other.stderr.trim().split('\n')).toHaveLength(1);
    expect(other.stderr).toMatch(/holds a train with other settings: steps \(120 then, 121 now\); give the same settings to continue it, or --fresh/);

    const fresh = gspo([...trainArgs(out, 3).filter((w) => w !== '60:lr=0.001' && w !== '--at'), '--fresh']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(/--fresh: removed the earlier run's files/);
    expect(readFileSync(join(out, 'evals.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).step)).toEqual([0, 3]);
  }, 120_000);

  it('a run with a curriculum says at start that it will not resume; finished, it is kept all the same', () => {
    const out = join(dir, 'curriculum');
    const args = ['train', '--preset', 'philosophers-curriculum', '--backend', 'cpu', '--threads', '1', '--set', 'steps=2', '--set', 'evalEpisodes=8', '--out', out];
    const r = gspo(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/this run has a curriculum, whose progress the saved state does not hold: it saves no state, and after a kill the same command starts it over/);
    expect(existsSync(join(out, 'resume.safetensors'))).toBe(false);
    const again = gspo(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/holds this train, finished/);
  }, 120_000);
});
