// Resume for `study` (the mechanism of sweep's: src/cli/jobResume.ts, src/cli/resumeState.ts): a dual-static study
// killed mid-way (SIGKILL of the process) and run again with the same command ends bit for bit where an
// uninterrupted study ends on the CPU engine (each run's checkpoints and evals, study.json's tables); another
// --lambdas is refused naming it; a finished study run again says so.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gspo, ROOT, tempDir } from './run';

const args = (out: string, lambdas = '0') => ['study', 'dual-static', '--budgets', '1', '--lambdas', lambdas, '--seeds', '1', '--backend', 'cpu', '--threads', '1', '--out', out];
const RUNS = ['dual-B=1-seed=1', 'static-lambda=0-seed=1'];
const EVERY_STEP = { GSPO_RESUME_EVERY_MS: '0' }; // a state after every step (the default: evals and every 10 s)
const savedAt = (dir: string): number => {
  try { return JSON.parse(readFileSync(join(dir, 'resume.json'), 'utf8')).step as number; } catch { return -1; }
};
// study.json's tables without the wall-time line
const tables = (out: string) => (JSON.parse(readFileSync(join(out, 'study.json'), 'utf8')).markdown as string).replace(/\d+ s wall on \d+ cores\./, '');

describe('study resume', () => {
  it('SIGKILL mid-way, the same command again: the same bytes as an uninterrupted study; other settings refused', async () => {
    const dir = tempDir(), full = join(dir, 'full'), out = join(dir, 'kill');
    const f = gspo(args(full), EVERY_STEP);
    expect(f.code, f.stderr).toBe(0);

    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args(out)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...EVERY_STEP } });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += String(d); });
    child.stdout.on('data', () => {});
    const exited = new Promise<string | null>((res) => child.on('exit', (_c, sig) => res(sig)));
    for (let t = 0; t < 4800 && !RUNS.every((r) => savedAt(join(out, r)) >= 30); t++) await new Promise((r) => setTimeout(r, 25));
    const at = RUNS.map((r) => savedAt(join(out, r)));
    expect(at.every((s) => s >= 30 && s < 80), `${at} ${stderr}`).toBe(true);
    process.kill(child.pid!, 'SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const r = gspo(args(out), EVERY_STEP);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/continuing the study dual-static in .*: 0 of 2 runs finished and kept, 2 resume from their saved state/);
    for (const run of RUNS) {
      for (const file of ['last.safetensors', 'best.safetensors', 'evals.jsonl']) expect(readFileSync(join(out, run, file)).equals(readFileSync(join(full, run, file))), `${run}/${file}`).toBe(true);
    }
    expect(tables(out)).toBe(tables(full));

    const again = gspo(args(out));
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/holds this study dual-static, finished/);
    const other = gspo(args(out, '0.1'));
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/holds a study dual-static with other settings: lambdas \(0 then, 0\.1 now\)/);
  }, 400_000);
});
