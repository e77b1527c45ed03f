// Resume for `sweep` (src/cli/jobResume.ts, src/cli/resumeState.ts): a sweep killed mid-way (SIGINT to its
// process group, or SIGKILL of the process) and run again with the same command into the same folder ends bit for
// bit where an uninterrupted sweep ends on the CPU engine (checkpoints' bytes, evals, the finals and bests in
// sweep.json); Ctrl-C says what was saved and the command that resumes; other settings are refused naming the
// field (exit 2); --fresh starts anew and removes the old run's files; a finished sweep run again says so.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gspo, ROOT, tempDir } from './run';

const STEPS = 40;
const tiny = (steps = STEPS) => ['--backend', 'cpu', '--set', `steps=${steps}`, '--set', 'promptsPerStep=2', '--set', 'groupSize=2',
  '--set', 'evalEpisodes=8', '--set', 'evalEvery=2'];
const sweepArgs = (out: string, steps = STEPS) => ['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0,0.1', ...tiny(steps), '--threads', '1', '--out', out];
const MEMBERS = ['lambda_tok=0', 'lambda_tok=0.1'];
const read = (p: string) => readFileSync(p);
const savedAt = (out: string, m: string): number => {
  try { return JSON.parse(readFileSync(join(out, m, 'resume.json'), 'utf8')).step as number; } catch { return -1; }
};
// a step's metrics but its timings
const metrics = (p: string) => readFileSync(p, 'utf8').trim().split('\n').map((l) => {
  const m = JSON.parse(l) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(m).filter(([k]) => !/time|_ms$|Ms$|per_s$/.test(k)));
});

/** Starts the sweep in a process group of its own, waits until every member saved a state at a step >= `atLeast`,
 * kills it. Members train side by side at their own pace, and a finished member keeps no resume state: so the wait
 * also ends when one member nears its end, and then only that one need be mid-way (the other resumes or starts over). */
async function killMidway(args: string[], out: string, signal: 'SIGINT' | 'SIGKILL', atLeast: number): Promise<{ code: number | null; signal: string | null; stderr: string; savedSteps: number[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += String(d); });
  child.stdout.on('data', () => {});
  const exited = new Promise<{ code: number | null; signal: string | null }>((res) => child.on('exit', (code, sig) => res({ code, signal: sig })));
  let savedSteps: number[] = [];
  for (let t = 0; t < 1200; t++) {
    savedSteps = MEMBERS.map((m) => savedAt(out, m));
    if (savedSteps.every((s) => s >= atLeast) || savedSteps.some((s) => s >= STEPS - 8)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(savedSteps.some((s) => s >= atLeast && s < STEPS), `saved steps ${savedSteps}; ${stderr}`).toBe(true);
  if (signal === 'SIGINT') process.kill(-child.pid!, 'SIGINT'); // Ctrl-C: the whole group
  else process.kill(child.pid!, 'SIGKILL');
  const e = await exited;
  return { ...e, stderr, savedSteps };
}

function expectSame(full: string, resumed: string): void {
  for (const m of MEMBERS) {
    for (const f of ['last.safetensors', 'best.safetensors', 'evals.jsonl']) {
      expect(read(join(resumed, m, f)).equals(read(join(full, m, f))), `${m}/${f}`).toBe(true);
    }
    expect(metrics(join(resumed, m, 'metrics.jsonl'))).toEqual(metrics(join(full, m, 'metrics.jsonl')));
    expect(existsSync(join(resumed, m, 'resume.safetensors'))).toBe(false); // a finished run keeps no resume state
  }
  const a = JSON.parse(readFileSync(join(full, 'sweep.json'), 'utf8')), b = JSON.parse(readFileSync(join(resumed, 'sweep.json'), 'utf8'));
  const view = (s: { runs: { label: string; final: unknown; best: unknown; settle: unknown }[]; frontier: { label: string }[] }) =>
    ({ runs: s.runs.map((r) => ({ label: r.label, final: r.final, best: r.best, settle: r.settle })), frontier: s.frontier.map((p) => p.label) });
  expect(view(b)).toEqual(view(a));
}

describe('sweep resume', () => {
  const dir = tempDir(), full = join(dir, 'full');
  let fullSeconds = 0;

  it('an uninterrupted sweep (the reference)', () => {
    const t0 = performance.now();
    const r = gspo(sweepArgs(full));
    fullSeconds = (performance.now() - t0) / 1000;
    expect(r.code, r.stderr).toBe(0);
    for (const m of MEMBERS) expect(existsSync(join(full, m, 'result.json'))).toBe(true);
  }, 300_000);

  it('Ctrl-C (SIGINT to the group) mid-way says what was saved and how to resume; the same command continues to the same bytes', async () => {
    const out = join(dir, 'int');
    const k = await killMidway(sweepArgs(out), out, 'SIGINT', 10);
    expect(k.code, k.stderr).toBe(130);
    const said = k.stderr.split('\n').filter((l) => l.startsWith('sweep: interrupted'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(new RegExp(`saved in ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: [01] of 2 runs finished(, [12] saved at step \\d+/${STEPS}(, \\d+/${STEPS})?)?(, 1 with nothing saved yet \\(they start over\\))?; resume with: npm run gspo -- sweep --preset relay-noisy-dr .*--out ${out}`));
    const t0 = performance.now();
    const r = gspo(sweepArgs(out));
    const resumedSeconds = (performance.now() - t0) / 1000;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/continuing the sweep in .*: [01] of 2 runs finished and kept, [12] resume from their saved state/);
    expect(r.stderr).toMatch(/\[lambda_tok=0(\.1)?\] resumed at step \d+ of 40/);
    expectSame(full, out);
    console.log(`sweep resume: uninterrupted ${fullSeconds.toFixed(1)} s; resumed from steps ${k.savedSteps.join(', ')} of ${STEPS}: ${resumedSeconds.toFixed(1)} s`);
  }, 300_000);

  it('SIGKILL of the process mid-way: the same command continues to the same bytes', async () => {
    const out = join(dir, 'kill');
    const k = await killMidway(sweepArgs(out), out, 'SIGKILL', 16);
    expect(k.signal).toBe('SIGKILL');
    const r = gspo(sweepArgs(out));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/resumed at step/);
    expectSame(full, out);
  }, 300_000);

  it('a finished sweep run again says so and gives its results; other settings are refused naming the field; --fresh starts anew', () => {
    const out = join(dir, 'int');
    const before = readFileSync(join(out, 'sweep.json'), 'utf8');
    const again = gspo(sweepArgs(out));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/holds this sweep, finished; its results are in .*sweep\.json/);
    expect(again.json).toEqual(JSON.parse(before));
    expect(readFileSync(join(out, 'sweep.json'), 'utf8')).toBe(before);

    const other = gspo(sweepArgs(out, 41));
    expect(other.code).toBe(2);
    expect(other.stderr.trim().split('\n')).toHaveLength(1);
    expect(other.stderr).toMatch(/holds a sweep with other settings: --set steps \(40 then, 41 now\); give the same settings to continue it, or --fresh/);
    const lambdas = gspo(['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0,0.3', ...tiny(), '--out', out]);
    expect(lambdas.code).toBe(2);
    expect(lambdas.stderr).toMatch(/values \(\[0,0.1\] then, \[0,0.3\] now\)/);
    expect(readFileSync(join(out, 'sweep.json'), 'utf8')).toBe(before); // nothing touched

    const fresh = gspo([...sweepArgs(out, 3), '--fresh']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(/--fresh: removed the earlier run's files/);
    const s = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    for (const run of s.runs) expect(JSON.parse(readFileSync(join(run.out, 'config.json'), 'utf8')).config.steps).toBe(3);
    for (const m of MEMBERS) expect(readFileSync(join(out, m, 'evals.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).step)).toEqual([0, 2, 3]);
  }, 300_000);

  it('a finished sweep with fewer steps, then more steps into the same folder: refused, never a folder that contradicts itself', () => {
    const out = join(dir, 'short');
    expect(gspo(sweepArgs(out, 2)).code).toBe(0);
    const before = readFileSync(join(out, 'sweep.json'), 'utf8');
    const r = gspo(sweepArgs(out, 60));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--set steps \(2 then, 60 now\)/);
    expect(readFileSync(join(out, 'sweep.json'), 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(join(out, 'lambda_tok=0', 'config.json'), 'utf8')).config.steps).toBe(2);
  }, 300_000);

  it('a folder with an earlier run\'s files and no job.json is refused (exit 2), and --fresh removes them', () => {
    const out = join(dir, 'legacy');
    mkdirSync(join(out, 'lambda_tok=0'), { recursive: true });
    writeFileSync(join(out, 'lambda_tok=0', 'config.json'), '{"config":{"steps":60}}\n');
    writeFileSync(join(out, 'lambda_tok=0', 'evals.jsonl'), '{"step":0}\n');
    writeFileSync(join(out, 'notes.txt'), 'mine\n');
    const r = gspo(sweepArgs(out, 2));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds files of an earlier run with no job\.json/);
    const f = gspo([...sweepArgs(out, 2), '--fresh']);
    expect(f.code, f.stderr).toBe(0);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('mine\n'); // only a run's own files are removed
    expect(readFileSync(join(out, 'lambda_tok=0', 'evals.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  }, 300_000);
});
