// The CLI against an independent float64 numpy implementation (scripts/oracle.py):
// log-probs within 1e-4 absolute, the loss within 1e-3 relative, and gradients
// checked by central finite differences (or PyTorch autograd where torch exists),
// on each backend. Needs python3 with numpy (installed by .ci/run).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gspo, ROOT, tempDir } from './run';
import { webgpuForCli } from './gpuAvailable';
import { LOSS_IDS } from '../../src/contract/losses';

function py(args: string[]): { code: number; out: string } {
  const r = spawnSync('python3', args, { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  return { code: r.status ?? -1, out: (r.stdout ?? '') + (r.stderr ?? '') };
}

const hasNumpy = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' }).status === 0;
if (!hasNumpy && process.env.CI === 'true') throw new Error('python3 with numpy is required for the oracle tests (apt-get install python3-numpy)');
if (!hasNumpy) console.warn('oracle tests skipped: python3 with numpy not found');

let dir = '';
let ck = '';
// every row of the loss table: scripts/make_batches.py writes <id>_wide (clipped on both sides; two-sided: the cap
// active), <id>_narrow_kl (a tiny clip range, the KL term) and <id>_unclipped (nothing clipped) for each
const CASES = ['gspo_group_narrow_kl', 'gspo_batch_wide', 'grpo_batch_wide_kl', 'grpo_none_narrow', 'edge_all_masked',
  ...LOSS_IDS.flatMap((id) => [`${id}_wide`, `${id}_narrow_kl`, `${id}_unclipped`])];

describe.runIf(hasNumpy)('CLI vs the numpy oracle', () => {
  beforeAll(() => {
    dir = tempDir();
    ck = join(dir, 'ckpt.safetensors');
    let r = py(['scripts/make_checkpoint.py', '--out', ck, '--seed', '3', '--n-layer', '2', '--n-head', '2', '--n-embd', '16', '--block-size', '12', '--vocab-size', '11', '--std', '0.3']);
    expect(r.code, r.out).toBe(0);
    r = py(['scripts/make_batches.py', '--checkpoint', ck, '--out-dir', join(dir, 'batches'), '--seed', '4']);
    expect(r.code, r.out).toBe(0);
  });

  it('the torch loss of every variant (gspo_ref.torch_rl_loss) equals the numpy loss on every batch, through a numpy stand-in for torch', () => {
    const r = py(['scripts/selftest_torch_loss.py', '--checkpoint', ck, '--batch-dir', join(dir, 'batches')]);
    expect(r.code, r.out).toBe(0);
    for (const id of LOSS_IDS) expect(r.out).toMatch(new RegExp(`ok +batch_${id}_wide\\.json`));
  });

  it('each variant\'s cases are in the regimes they are named for (counted by the numpy oracle)', async () => {
    const summary = JSON.parse((await import('node:fs')).readFileSync(join(dir, 'batches', 'summary.json'), 'utf8')) as
      Record<string, { algorithm: string; sequences: number; clip_count: number; clip_den: number; capped_count: number }>;
    for (const id of LOSS_IDS) {
      const wide = summary[`${id}_wide`], un = summary[`${id}_unclipped`];
      expect(wide.algorithm).toBe(id);
      expect(wide.clip_count, `${id}_wide: some term clipped`).toBeGreaterThan(0);
      expect(wide.clip_count, `${id}_wide: some term not`).toBeLessThan(wide.clip_den);
      expect(un.clip_count, `${id}_unclipped: no term clipped`).toBe(0);
      expect(un.sequences % 2, 'an odd number of sequences').toBe(1);
    }
    expect(summary['two-sided_wide'].capped_count, 'the two-sided cap holds some term').toBeGreaterThan(0);
  });

  for (const backend of ['reference', 'webgpu'] as const) { // the reference (its engines have tests of their own against it)
    describe(backend, () => {
      beforeAll(() => {
        if (backend === 'webgpu') webgpuForCli(); // throws under CI=true without an adapter
      });
      it('logprobs match within 1e-4', async (ctx) => {
        if (backend === 'webgpu' && !webgpuForCli().ok) ctx.skip();
        for (const tokens of ['3,1,4,1,5,9,2,6,5,3,5,8', '0,7']) {
          const cli = gspo(['logprobs', '--checkpoint', ck, '--tokens', tokens, '--backend', backend]);
          expect(cli.code, cli.stderr).toBe(0);
          const out = join(dir, `lp_${backend}.json`);
          (await import('node:fs')).writeFileSync(out, cli.stdout);
          const r = py(['scripts/oracle.py', 'check-logprobs', '--checkpoint', ck, '--tokens', tokens, '--cli-json', out]);
          expect(r.code, r.out).toBe(0);
        }
      });
      for (const c of CASES) {
        it(`grad ${c}: loss and every gradient tensor`, async (ctx) => {
          if (backend === 'webgpu' && !webgpuForCli().ok) ctx.skip();
          const batch = join(dir, 'batches', `batch_${c}.json`), g = join(dir, `g_${backend}_${c}.safetensors`), out = join(dir, `g_${backend}_${c}.json`);
          const cli = gspo(['grad', '--checkpoint', ck, '--batch', batch, '--out', g, '--backend', backend]);
          expect(cli.code, cli.stderr).toBe(0);
          (await import('node:fs')).writeFileSync(out, cli.stdout);
          const r = py(['scripts/oracle.py', 'check-grad', '--checkpoint', ck, '--batch', batch, '--cli-json', out, '--cli-grad', g, '--samples', '6']);
          expect(r.code, r.out).toBe(0);
        });
      }
    });
  }
});
