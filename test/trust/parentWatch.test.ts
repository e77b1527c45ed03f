// Killing the CLI's wrapper with SIGKILL used to leave the run
// training and writing. The run now follows its parent: it stops within seconds of the parent's death.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../cli/run';

const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the CLI follows its parent', () => {
  it('a train run whose wrapper is SIGKILLed stops within seconds', async () => {
    const out = join(tempDir(), 'run');
    // the wrapper: a shell that starts the run in the background, says its pid, and waits on it
    const cli = `${JSON.stringify(process.execPath)} --import tsx src/cli/main.ts train --preset relay-silence --backend cpu --steps 100000 --out ${JSON.stringify(out)}`;
    const wrapper = spawn('sh', ['-c', `${cli} 2>/dev/null & echo $!; wait`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = await new Promise<number>((resolve) => wrapper.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
    expect(pid).toBeGreaterThan(0);
    try {
      await sleep(4000); // under way (loading, warm start)
      expect(alive(pid), 'the run started').toBe(true);
      wrapper.kill('SIGKILL');
      const t0 = Date.now();
      while (alive(pid) && Date.now() - t0 < 20_000) await sleep(200);
      expect(alive(pid), 'the run outlived its wrapper').toBe(false);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 60_000);
});
