// Parity of the RL kernels (shaders/rl.wgsl) with the f32 CPU reference: every
// advantage mode, G = 1, all-equal rewards, all-masked sequences, T = 1, every row
// of the loss table with clipping active on both sides, beta 0 and > 0.
// Kernel: shaders/rl.wgsl (+ shaders/rl.loss.wgsl, shaders/rl.stats.wgsl, shaders/rl.policy_loss.wgsl); CPU twin: src/reference/rl.ts.
import { describe, expect, it } from 'vitest';
import type { AdvantageMode, Algorithm } from '../../src/backend';
import { ADV_STATS, RL_STATS } from '../../src/backend';
import { AGG_CODE, CLIP_CODE, LEVEL_CODE, LOSS_IDS, LOSSES } from '../../src/contract/losses';
import { aggregationNorm } from '../../src/reference/rl';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { policyLossOutputs } from '../../src/contract/policyLoss';
import { POLICY_LOSS_MAX_TOKENS } from '../../src/gpu/kernels/rl';
import type { Backend, LossArgs, Tensor } from '../../src/backend';
import { loadShaders } from '../../src/gpu/node';
import { noGpu, theGpu } from './device';
import { expectClose, parity } from './parity';
import { Rng } from './random';

const MODES: AdvantageMode[] = ['group', 'none', 'batch'];

/** CSR offsets for groups of the given sizes. */
function csr(sizes: number[]): Int32Array {
  const start = new Int32Array(sizes.length + 1);
  sizes.forEach((s, g) => (start[g + 1] = start[g] + s));
  return start;
}

/** logp, oldLogp (perturbed so ratios leave [1 - eps, 1 + eps]), mask with an all-masked row and a one-token row. */
function sequences(r: Rng, S: number, T: number) {
  const logp = r.uniformIn(S * T, -4, -0.05);
  const noise = r.normal(S * T, 0.3);
  const oldLogp = Float32Array.from(logp, (x, i) => x + noise[i]);
  const mask = r.mask(S * T, 0.7);
  if (S > 1) mask.fill(0, 0, T); // sequence 0: all masked
  if (S > 2) { mask.fill(0, T, 2 * T); mask[T] = 1; } // sequence 1: one token
  const refLogp = Float32Array.from(logp, (x, i) => x + noise[(i * 7) % noise.length] * 0.5);
  return { logp, oldLogp, mask, refLogp };
}

describe.skipIf(noGpu)('WebGPU RL kernels vs CPU reference', () => {
  it('gather', async () => {
    const r = new Rng(1);
    await parity(theGpu(), { src: r.normal(20), index: r.ints(37, 0, 20), out: r.normal(37) },
      (b, t) => b.gather(t.out, t.src, t.index, 37), ['out']);
  });

  it('groupNormalize: every mode; G = 1, all-equal rewards, uneven groups', async () => {
    const sizes = [4, 1, 3, 5, 2, 4];
    const start = csr(sizes);
    const E = start[sizes.length];
    const r = new Rng(2);
    const rewards = r.uniformIn(E, -1, 1);
    rewards.fill(0.5, start[2], start[3]); // all equal
    rewards[start[4]] = rewards[start[4] + 1] = 1; // all equal, size 2
    for (const mode of MODES) {
      const got = await parity(theGpu(), { rewards, groupStart: start, adv: r.normal(E), stats: r.normal(ADV_STATS.size) },
        (b, t) => b.groupNormalize(t.adv, t.stats, t.rewards, t.groupStart, E, sizes.length, mode), ['adv', 'stats']);
      expect(Array.from(got.stats)).toEqual([3, sizes.length]);
      expect(got.adv[start[1]]).toBe(0);
    }
    // binary rewards (the common case) and G = 1 everywhere
    for (const mode of MODES) {
      const ones = csr([1, 1, 1]);
      await parity(theGpu(), { rewards: Float32Array.of(1, 0, 1), groupStart: ones, adv: r.normal(3), stats: r.normal(2) },
        (b, t) => b.groupNormalize(t.adv, t.stats, t.rewards, t.groupStart, 3, 3, mode), ['adv', 'stats']);
    }
  });

  it('seqRatio: all-masked and one-token sequences, T = 1, clamped log s', async () => {
    for (const [S, T] of [[7, 9], [5, 1], [70, 64]]) {
      const r = new Rng(S * T);
      const { logp, oldLogp, mask } = sequences(r, S, T);
      if (T > 1) { for (let t = 0; t < T; t++) oldLogp[(S - 1) * T + t] = logp[(S - 1) * T + t] - 30; mask[(S - 1) * T] = 1; }
      await parity(theGpu(), { logp, oldLogp, mask, logS: r.normal(S), ratio: r.normal(S), tokRatio: r.normal(S * T) },
        (b, t) => b.seqRatio(t.logS, t.ratio, t.tokRatio, t.logp, t.oldLogp, t.mask, S, T), ['logS', 'ratio', 'tokRatio']);
    }
  });

  // Every row of the loss table, clipped and unclipped terms (the two-sided cap active), odd shapes.
  const cases: Array<[Algorithm, number, number, number]> = [
    ['gspo', 3e-4, 4e-4, 0], ['gspo', 3e-4, 4e-4, 0.1], ['grpo', 0.2, 0.2, 0], ['grpo', 0.2, 0.28, 0.05],
    ...LOSS_IDS.flatMap((id): Array<[Algorithm, number, number, number]> => (LOSSES[id].level === 'token'
      ? [[id, 0.2, 0.28, 0], [id, 0.2, 0.2, 0.05]] : [[id, 3e-4, 4e-4, 0], [id, 3e-4, 4e-4, 0.05]])),
  ];
  for (const [algorithm, epsLow, epsHigh, beta] of cases) {
    it(`clipLoss + rlStats: ${algorithm}, eps ${epsLow}/${epsHigh}, beta ${beta}, clipping active`, async () => {
      for (const [S, T] of [[9, 6], [4, 1]]) {
        const r = new Rng(S * 13 + T + beta * 100);
        const { logp, oldLogp, mask, refLogp } = sequences(r, S, T);
        const seqAdv = r.normal(S);
        seqAdv[S - 1] = 0;
        const inputs = {
          logp, oldLogp, mask, refLogp, seqAdv,
          logS: r.normal(S), ratio: r.normal(S), tokRatio: r.normal(S * T),
          lossSeq: r.normal(S), klSeq: r.normal(S), clipSeq: r.normal(S), dlogp: r.normal(S * T), stats: r.normal(RL_STATS.size),
        };
        const norm = aggregationNorm(algorithm, mask, S, T, 11);
        const got = await parity(theGpu(), inputs, (b, t) => {
          b.seqRatio(t.logS, t.ratio, t.tokRatio, t.logp, t.oldLogp, t.mask, S, T);
          b.clipLoss(t.lossSeq, t.klSeq, t.clipSeq, t.dlogp, t.logp, t.ratio, t.tokRatio, t.seqAdv, t.mask,
            beta > 0 ? t.refLogp : null, S, T, { algorithm, epsLow, epsHigh, beta, delta: 1.25, norm });
          b.rlStats(t.stats, t.lossSeq, t.klSeq, t.clipSeq, t.ratio, t.tokRatio, t.mask, S, T, algorithm, beta);
        }, ['lossSeq', 'klSeq', 'clipSeq', 'dlogp', 'stats']);
        if (S > 4) {
          expect(got.stats[RL_STATS.clipCount], 'some clipping is active').toBeGreaterThan(0);
          expect(got.stats[RL_STATS.clipCount], 'not every term is clipped').toBeLessThan(got.stats[RL_STATS.clipDenom]);
        }
      }
    });
  }

  // policyLoss: one dispatch (policy_loss) against the reference's four ops composed, every row of the loss table,
  // S over the workgroup's 256 invocations (several sequences each), a population's divisors, stats on and off.
  const OUTS = ['seqAdv', 'logS', 'ratio', 'tokRatio', 'lossSeq', 'klSeq', 'clipSeq', 'dlogp'] as const;
  async function policyLossOn(b: Backend, packed: boolean, S: number, T: number, loss: LossArgs, seed: number, withStats: boolean) {
    const r = new Rng(seed), { logp, oldLogp, mask, refLogp } = sequences(r, S, T), E = Math.ceil(S / 2) + 1;
    const host = { logp, oldLogp, mask, refLogp, adv: r.normal(E), stats: r.normal(RL_STATS.size) };
    const t: Record<string, Tensor> = {};
    for (const [name, data] of Object.entries(host)) { t[name] = b.alloc(data.length); b.write(t[name], data); }
    t.seqEpisode = b.alloc(S, 'i32');
    b.write(t.seqEpisode, Int32Array.from({ length: S }, (_, s) => (s * 7) % E));
    const advLength = loss.perSequenceNorm ? 2 * S : S;
    const outs: Record<string, Tensor> = packed ? policyLossOutputs(b, S, T, advLength)
      : Object.fromEntries(OUTS.map((n) => [n, b.alloc(n === 'seqAdv' ? advLength : n === 'tokRatio' || n === 'dlogp' ? S * T : S)]));
    for (const n of OUTS) b.write(outs[n], r.normal(outs[n].size)); // stale values: every one must be overwritten
    if (loss.perSequenceNorm) b.write(outs.seqAdv, Float32Array.from({ length: S }, (_, s) => 1 + (s % 3) * 5), S);
    const before = (b as { counters?: { dispatches: number } }).counters?.dispatches ?? 0;
    b.policyLoss({ S, T, loss, adv: t.adv, seqEpisode: t.seqEpisode, logp: t.logp, oldLogp: t.oldLogp, mask: t.mask,
      refLogp: loss.beta > 0 ? t.refLogp : null, stats: withStats ? t.stats : null,
      seqAdv: outs.seqAdv, logS: outs.logS, ratio: outs.ratio, tokRatio: outs.tokRatio, lossSeq: outs.lossSeq, klSeq: outs.klSeq,
      clipSeq: outs.clipSeq, dlogp: outs.dlogp });
    const dispatches = ((b as { counters?: { dispatches: number } }).counters?.dispatches ?? 0) - before;
    const got: Record<string, Float32Array> = {};
    for (const n of [...OUTS, 'stats']) got[n] = (await b.read(n === 'stats' ? t.stats : outs[n])) as Float32Array;
    return { got, dispatches, initialStats: host.stats };
  }

  for (const [algorithm, epsLow, epsHigh, beta] of cases) {
    it(`policyLoss in one dispatch: ${algorithm}, beta ${beta}, against the four ops composed on the reference`, async () => {
      const g = theGpu();
      for (const [S, T, members] of [[300, 7, false], [9, 6, true], [4, 1, false]] as const) {
        const r = new Rng(S + T);
        const norm = aggregationNorm(algorithm, r.mask(S * T, 0.7), S, T, 11);
        const loss: LossArgs = { algorithm, epsLow, epsHigh, beta, delta: 1.25, norm, perSequenceNorm: members };
        const seed = S * 31 + T + beta * 100;
        const want = await policyLossOn(new CpuBackend('f32'), false, S, T, loss, seed, true);
        const fused = await policyLossOn(g, true, S, T, loss, seed, !members);
        const apart = await policyLossOn(g, false, S, T, loss, seed, true);
        expect(g.takeErrors(), 'WebGPU errors').toEqual([]);
        expect(fused.dispatches, 'one dispatch when the outputs share a buffer').toBe(1);
        expect(apart.dispatches, 'the four ops when they do not').toBe(5);
        for (const n of OUTS) {
          const rows = n === 'seqAdv' ? S : want.got[n].length; // a population's divisors are inputs
          expectClose(`fused ${n}`, fused.got[n].subarray(0, rows), want.got[n].subarray(0, rows));
          expectClose(`apart ${n}`, apart.got[n].subarray(0, rows), want.got[n].subarray(0, rows));
        }
        if (members) expect(Array.from(fused.got.stats), 'no stats asked: untouched').toEqual(Array.from(fused.initialStats));
        else expectClose('fused stats', fused.got.stats, want.got.stats);
        expectClose('apart stats', apart.got.stats, want.got.stats);
      }
    });
  }

  it('policyLoss over POLICY_LOSS_MAX_TOKENS takes the four ops, with the same results', async () => {
    const g = theGpu(), [S, T] = [Math.floor(POLICY_LOSS_MAX_TOKENS / 64) + 1, 64];
    const loss: LossArgs = { algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.28, beta: 0.05, delta: 1.25, norm: 0.5 * S * T };
    const want = await policyLossOn(new CpuBackend('f32'), false, S, T, loss, 5, true);
    const got = await policyLossOn(g, true, S, T, loss, 5, true);
    expect(got.dispatches).toBe(5);
    for (const n of [...OUTS, 'stats']) expectClose(n, got.got[n], want.got[n]);
  });

  it('the WGSL mode codes are the loss table\'s', () => {
    const src = loadShaders().rl; // the module, its parts joined (the codes are in rl.loss.wgsl)
    const code = (name: string) => Number(new RegExp(`const ${name}: u32 = (\\d+)u;`).exec(src)?.[1]);
    const snake = (x: string) => x.toUpperCase().replace(/-/g, '_');
    for (const [k, v] of Object.entries(CLIP_CODE)) expect(code(`CLIP_${k === 'ppo' ? 'PPO' : snake(k)}`), k).toBe(v);
    for (const [k, v] of Object.entries(AGG_CODE)) expect(code(`AGG_${snake(k)}`), k).toBe(v);
    expect(code('LEVEL_TOKEN')).toBe(LEVEL_CODE.token);
    expect(code('LEVEL_SEQUENCE')).toBe(LEVEL_CODE.sequence);
  });

  it('clipLoss with refLogp given but beta = 0: no KL term', async () => {
    const [S, T] = [5, 4];
    const r = new Rng(77);
    const { logp, mask, refLogp } = sequences(r, S, T);
    await parity(theGpu(), {
      logp, mask, refLogp, seqAdv: r.normal(S), ratio: r.uniformIn(S, 0.5, 1.5), tokRatio: r.uniformIn(S * T, 0.5, 1.5),
      lossSeq: r.normal(S), klSeq: r.normal(S), clipSeq: r.normal(S), dlogp: r.normal(S * T),
    }, (b, t) => b.clipLoss(t.lossSeq, t.klSeq, t.clipSeq, t.dlogp, t.logp, t.ratio, t.tokRatio, t.seqAdv, t.mask, t.refLogp,
      S, T, { algorithm: 'gspo', epsLow: 0.2, epsHigh: 0.2, beta: 0, delta: 4, norm: 1 }), ['lossSeq', 'klSeq', 'clipSeq', 'dlogp']);
  });
});
