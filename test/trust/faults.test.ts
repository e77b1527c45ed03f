// Findings 5 and 10: non-finite weights are rejected naming the tensor (reader,
// run import, worker, CLI), a temperature too small for finite log-probs is out
// of range; skipped updates report NaN, not means of nothing, and name the first
// bad tensor; the CLI stops on the page's streak; a fall to 0 accuracy is flagged.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config';
import { createRelay } from '../../src/envs/relay';
import { readCheckpoint, writeCheckpoint } from '../../src/model/checkpoint';
import { initParams, type GPTConfig } from '../../src/model/params';
import { SafetensorsError } from '../../src/model/safetensors';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { collapseFlag, firstNonFiniteTensor, SkipStreak } from '../../src/rl/faults';
import { Trainer } from '../../src/rl/trainer';
import { type EvalRecord, type Flag } from '../../src/rl/runRecord';
import { checkRunCheckpoint } from '../../src/store/runFile';
import { TrainerApi } from '../../src/worker/trainerApi';
import { gspo, tempDir } from '../cli/run';

const env = createRelay({});
const tiny: GPTConfig = { nLayer: 1, nHead: 2, nEmbd: 8, blockSize: env.blockSize, vocabSize: env.vocab.length };
// flat offsets by hand (each tensor starts at a multiple of 64 elements), n_embd 8 (relay today: vocab 27, block 24):
// wte Vx8 | wpe Bx8 | ln_1.weight 8 -> 64 | ln_1.bias -> 64 | c_attn.weight 24x8 = 192 | c_attn.bias 24 -> 64 | attn.c_proj.weight
const up = (n: number) => Math.ceil(n / 64) * 64;
const WPE = up(env.vocab.length * 8);
const ATTN_C_PROJ_W = WPE + up(env.blockSize * 8) + 64 + 64 + 192 + 64;

function withWeight(at: number, value: number): Uint8Array {
  const w = initParams(tiny, 1);
  w[at + 3] = value;
  return writeCheckpoint({ config: tiny, weights: w, vocab: [...env.vocab], extras: {} });
}

describe('finding 5: non-finite weights', () => {
  it('the reader rejects them, naming the tensor and the index', () => {
    for (const v of [NaN, Infinity, -Infinity]) {
      let e: unknown;
      try { readCheckpoint(withWeight(ATTN_C_PROJ_W, v)); } catch (x) { e = x; }
      expect(e).toBeInstanceOf(SafetensorsError);
      expect((e as Error).message).toBe(`tensor "transformer.h.0.attn.c_proj.weight" holds ${v} at index 3: every weight must be finite (a diverged or corrupt checkpoint)`);
    }
  });
  it('run import and the worker reject them', async () => {
    const config = validateConfig({ nLayer: 1, nHead: 2, nEmbd: 8 });
    expect(() => checkRunCheckpoint(withWeight(ATTN_C_PROJ_W, NaN), config, 'n.safetensors')).toThrow(/^n\.safetensors was not imported: tensor "transformer\.h\.0\.attn\.c_proj\.weight" holds NaN/);
    const api = new TrainerApi(async () => new CpuBackend(), async () => null);
    try {
      await expect(api.loadCheckpoint(withWeight(ATTN_C_PROJ_W, Infinity))).rejects.toThrow(/^checkpoint rejected: tensor "transformer\.h\.0\.attn\.c_proj\.weight" holds Infinity/);
    } finally { await api.destroy(); }
  });
  it('the CLI exits 2 (it printed nulls with exit 0), and a tiny temperature is out of range', () => {
    const dir = tempDir();
    const bad = join(dir, 'nan.safetensors'), good = join(dir, 'good.safetensors');
    writeFileSync(bad, withWeight(ATTN_C_PROJ_W, NaN));
    writeFileSync(good, writeCheckpoint({ config: tiny, weights: initParams(tiny, 1), vocab: [...env.vocab], extras: {} }));
    const r = gspo(['logprobs', '--checkpoint', bad, '--tokens', '1,2,3', '--backend', 'cpu']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/transformer\.h\.0\.attn\.c_proj\.weight" holds NaN at index 3/);
    const t = gspo(['logprobs', '--checkpoint', good, '--tokens', '1,2,3', '--temperature', '1e-30', '--backend', 'cpu']);
    expect(t.code, t.stderr).toBe(2);
    expect(t.stderr.trim()).toBe('gspo: --temperature must be in [0.05, 5]; got 1e-30');
  });
});

describe('finding 10: faults', () => {
  it('firstNonFiniteTensor names the first tensor (parameter order) with a bad gradient', () => {
    const g = new Float32Array(initParams(tiny, 1).length);
    expect(firstNonFiniteTensor(tiny, g)).toBeNull();
    g[ATTN_C_PROJ_W + 63] = NaN; // the last element of attn.c_proj.weight (8x8)
    expect(firstNonFiniteTensor(tiny, g)).toBe('transformer.h.0.attn.c_proj.weight');
    g[WPE + 5] = Infinity; // in wpe, earlier
    expect(firstNonFiniteTensor(tiny, g)).toBe('transformer.wpe.weight');
  });

  it('a step whose every update is skipped reports NaN (not 0) and flags the first bad tensor', async () => {
    const w = initParams(tiny, 1);
    w[ATTN_C_PROJ_W + 3] = Infinity; // the Trainer takes weights as given: a fault from inside a run
    const tr = new Trainer(new CpuBackend(), env as never, validateConfig({ promptsPerStep: 2, groupSize: 3, minibatches: 2, evalEpisodes: 8, nLayer: 1, nHead: 2, nEmbd: 8 }), w);
    const m = await tr.step();
    expect(m.skipped_updates).toBe(2);
    for (const k of ['policy_loss', 'grad_norm', 'kl', 'entropy', 'clip_frac', 'ratio_mean', 'frac_zero_std'] as const) expect(m[k], k).toBeNaN();
    expect(tr.flags).toHaveLength(2);
    expect(tr.flags[0].message).toMatch(/^step 0: a non-finite (gradient \(first in transformer\.[a-z0-9_.]+\)|loss); the update was skipped \(weights untouched\)$/);
    tr.destroy();
  });

  it('the CLI stop rule: the page\'s streak of 3 skipped updates, naming the flag that began it', () => {
    const f = (step: number, what: string): Flag => ({ kind: 'nonfinite-update', step, message: `step ${step}: ${what}` });
    const s = new SkipStreak(3);
    expect(s.record([f(0, 'A')], 1, 4)).toBeNull(); // 1 of 4 skipped: streak 1
    expect(s.record([], 0, 4)).toBeNull(); // clean: over
    expect(s.record([f(2, 'B'), f(2, 'B2')], 2, 2)).toBeNull(); // a whole step: 2
    expect(s.record([f(3, 'C'), f(3, 'C2')], 2, 2)).toBe('4 consecutive updates were skipped (non-finite loss or gradient); the first: step 2: B');
  });

  it('an eval whose accuracy falls to 0 is flagged as a collapse', () => {
    const rec = (step: number, accuracy: number): EvalRecord => ({ step, accuracy, tokens: 1, turns: 1, lambdaTok: 0, reward: 0 });
    expect(collapseFlag(rec(40, 0.62), rec(41, 0))).toEqual({
      kind: 'collapse', step: 41,
      message: 'collapse: eval accuracy fell from 0.620 (step 40) to 0 (step 41) in one step; the updates destroyed the policy (lower lr, or turn gradient clipping on; the best checkpoint is from step 40 or earlier)',
    });
    expect(collapseFlag(rec(40, 0.62), rec(50, 0))?.message).toMatch(/in 10 steps/);
    expect(collapseFlag(rec(40, 0.62), rec(50, 0.01))).toBeNull(); // a fall, not to 0
    expect(collapseFlag(rec(40, 0.01), rec(50, 0))).toBeNull(); // from nothing much
    expect(collapseFlag(undefined, rec(0, 0))).toBeNull();
  });

  it('the Trainer flags it at the eval', async () => {
    const tr = new Trainer(new CpuBackend(), env as never, validateConfig({ evalEpisodes: 8, nLayer: 1, nHead: 2, nEmbd: 8 }), initParams(tiny, 1));
    tr.evals.push({ step: -1, accuracy: 0.5, tokens: 1, turns: 1, lambdaTok: 0, reward: 0 }); // as if an eval before had scored 0.5
    const e = await tr.evaluate();
    expect(e.accuracy).toBe(0); // an untrained tiny model answers nothing right
    expect(tr.flags.map((f) => f.kind)).toEqual(['collapse']);
    tr.destroy();
  });
});
