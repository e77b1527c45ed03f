// Resume for `compare` (the same mechanism as sweep's: src/cli/jobResume.ts, src/cli/resumeState.ts): killed while
// its second variant trains (the first finished), the same command keeps the first as it is and continues the
// second from its saved state, ending bit for bit where an uninterrupted compare ends (CPU engine); another
// --steps is refused naming it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gspo, ROOT, tempDir } from './run';

const args = (out: string, steps = 30) => ['compare', '--preset', 'relay-noisy-dr', '--losses', 'gspo,grpo', '--steps', String(steps), '--backend', 'cpu',
  '--set', 'promptsPerStep=2', '--set', 'groupSize=2', '--set', 'evalEpisodes=8', '--set', 'evalEvery=2', '--threads', '1', '--out', out];
const savedAt = (dir: string): number => {
  try { return JSON.parse(readFileSync(join(dir, 'resume.json'), 'utf8')).step as number; } catch { return -1; }
};

describe('compare resume', () => {
  it('killed during its second run: the first is kept, the second continues; the same bytes as an uninterrupted compare', async () => {
    const dir = tempDir(), full = join(dir, 'full'), out = join(dir, 'int');
    const f = gspo(args(full));
    expect(f.code, f.stderr).toBe(0);

    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args(out)], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += String(d); });
    child.stdout.on('data', () => {});
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    for (let t = 0; t < 2400 && !(existsSync(join(out, 'gspo', 'result.json')) && savedAt(join(out, 'grpo')) >= 6); t++) await new Promise((r) => setTimeout(r, 25));
    expect(savedAt(join(out, 'grpo')), stderr).toBeGreaterThanOrEqual(6);
    process.kill(-child.pid!, 'SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toMatch(/compare: interrupted; saved in .*: 1 of 2 runs finished, 1 saved at step \d+\/30; resume with: npm run gspo -- compare /);
    const keptAt = statSync(join(out, 'gspo', 'last.safetensors')).mtimeMs;

    const r = gspo(args(out));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/compare: gspo finished in an earlier try, kept/);
    expect(r.stderr).toMatch(/resumed at step \d+ of 30/);
    expect(statSync(join(out, 'gspo', 'last.safetensors')).mtimeMs).toBe(keptAt); // not trained again
    for (const v of ['gspo', 'grpo']) {
      for (const file of ['last.safetensors', 'best.safetensors', 'evals.jsonl']) expect(readFileSync(join(out, v, file)).equals(readFileSync(join(full, v, file))), `${v}/${file}`).toBe(true);
    }
    const view = (j: { runs: { loss: string; final: unknown; best: unknown; evals: unknown }[] }) => j.runs.map((x) => ({ loss: x.loss, final: x.final, best: x.best, evals: x.evals }));
    expect(view(r.json)).toEqual(view(f.json));

    const again = gspo(args(out));
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/holds this compare, finished/);
    const other = gspo(args(out, 31));
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/holds a compare with other settings: steps \(30 then, 31 now\)/);
  }, 300_000);
});
