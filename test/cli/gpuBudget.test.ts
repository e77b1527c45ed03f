// `gspo train` on WebGPU refuses a run that cannot fit the GPU before the warm start or any write,
// with one line naming the setting to lower (src/rl/memoryBudget.ts).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { webgpuForCli } from './gpuAvailable';
import { gspo, tempDir } from './run';

describe('CLI GPU memory budget', () => {
  it('the page\'s largest settings on WebGPU: exit 2 before anything is written', (ctx) => {
    if (!webgpuForCli().ok) ctx.skip(); // (throws instead under CI=true)
    const out = join(tempDir(), 'run');
    const sets = ['promptsPerStep=256', 'groupSize=64', 'minibatches=1', 'evalEpisodes=4096', 'nLayer=8', 'nHead=8', 'nEmbd=256'];
    const r = gspo(['train', '--preset', 'relay-silence', '--backend', 'webgpu', '--out', out, ...sets.flatMap((s) => ['--set', s])]);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    // the rollout would go in chunks, but one minibatch of every sequence cannot; which limit is met first depends on
    // the adapter's binding size; either names the minibatch's settings
    expect(lines.at(-1)).toMatch(new RegExp("^gspo: (the minibatch's \\w+ \\(16384 sequences x \\d+ tokens\\) needs \\d+ MiB in one tensor, more than this GPU binds " +
      "\\(maxStorageBufferBindingSize \\d+ MiB\\)|the run needs about \\d+ MiB of GPU memory .*; most of it \\(\\d+ MiB\\) is the minibatch's activations " +
      "\\(16384 sequences\\)): raise minibatches, or lower promptsPerStep or groupSize$"));
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });
});
