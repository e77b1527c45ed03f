// Resume for `robustness` (src/cli/jobResume.ts, src/cli/resumeState.ts): the noisy grid at small settings (--set, every
// cell), killed by SIGKILL once every cell saved a state, run again with the same command: each cell continues from its
// saved step and the grid ends bit for bit where an uninterrupted one ends on the CPU engine (each cell's checkpoints and
// evals, the cells' finals and verdicts in robustness.json); another --set is refused naming it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gspo, tempDir } from './run';
import { killMidway, savedAt } from './killMidway';

const STEPS = 40;
const gridArgs = (out: string, steps = STEPS) => ['robustness', '--grid', 'noisy', '--shipped', '--backend', 'cpu', '--threads', '1', '--set', `steps=${steps}`,
  '--set', 'promptsPerStep=2', '--set', 'groupSize=2', '--set', 'evalEpisodes=8', '--set', 'evalEvery=2', '--out', out];
const cellsOf = (out: string) => readdirSync(out, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
const view = (out: string) => (JSON.parse(readFileSync(join(out, 'robustness.json'), 'utf8')) as { cells: Record<string, unknown>[] }).cells
  .map((c) => ({ label: c.label, warmStart: c.warmStart, final: c.final, pass: c.pass, why: c.why }));

describe('robustness resume', () => {
  const dir = tempDir(), full = join(dir, 'full');

  it('an uninterrupted grid (the reference)', () => {
    const r = gspo(gridArgs(full));
    expect(r.code, r.stderr).toBe(0);
    expect(cellsOf(full)).toHaveLength(12);
  }, 180_000);

  it('SIGKILL once every cell saved a state: the same command continues each cell to the same bytes', async () => {
    const out = join(dir, 'kill');
    const cells = cellsOf(full);
    const k = await killMidway(gridArgs(out), () => cells.every((c) => savedAt(join(out, c)) >= 10), 'SIGKILL');
    expect(k.ready, k.stderr).toBe(true);
    expect(k.signal).toBe('SIGKILL');
    const at = cells.map((c) => savedAt(join(out, c)));
    expect(at.every((s) => s >= 10 && s < STEPS), `saved at ${at}`).toBe(true);
    const r = gspo(gridArgs(out));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/continuing the robustness in .*: 0 of 12 runs finished and kept, 12 resume from their saved state/);
    expect(r.stderr.match(/\] resumed at step \d+ of 40/g)).toHaveLength(12);
    for (const c of cells) {
      for (const f of ['last.safetensors', 'best.safetensors', 'evals.jsonl']) {
        expect(readFileSync(join(out, c, f)).equals(readFileSync(join(full, c, f))), `${c}/${f}`).toBe(true);
      }
    }
    expect(view(out)).toEqual(view(full));
  }, 180_000);

  it('another --set into the same folder is refused naming it, nothing touched', () => {
    const out = join(dir, 'kill'), before = readFileSync(join(out, 'robustness.json'), 'utf8');
    const r = gspo(gridArgs(out, 41));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds a robustness with other settings: --set steps \(40 then, 41 now\)/);
    expect(readFileSync(join(out, 'robustness.json'), 'utf8')).toBe(before);
    const clash = gspo([...gridArgs(join(dir, 'clash')), '--set', 'lambdaTok=0.2']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/--set lambdaTok: the cell "noisy-eps=0.1-lambda=0.01" sets lambdaTok itself/);
  }, 60_000);
});
