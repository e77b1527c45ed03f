// pi_old from the sampler (src/rl/oldLogp.ts): a step that reuses the sampler's log-probs updates the weights as
// a step that recomputes them with a forward of the starting weights (TRL's old-logprob pass), on the reference
// and the CPU engine; the model's pass counter shows the forwards saved; and log-probs taken at the wrong
// temperature (a planted fault the guard cannot see) move the weights far beyond that tolerance.
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend';
import { validateConfig } from '../../src/config';
import { createRelay } from '../../src/envs/relay';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { Generator, type Sequence } from '../../src/rl/rollout';
import { samplingLogpReusable, type OldLogpSource } from '../../src/rl/oldLogp';
import { Trainer } from '../../src/rl/trainer';

const TINY = { promptsPerStep: 2, groupSize: 4, minibatches: 2, evalEpisodes: 4, nLayer: 1, nHead: 2, nEmbd: 16, seed: 3 };
const ENGINES: [string, () => Backend][] = [['reference', () => new CpuBackend()], ['CPU engine', () => new WasmBackend()]];

/** One step from the same start; `sampleAt`: the temperature the sampler really uses (the fault: the loss's stays 1). */
async function oneStep(engine: () => Backend, source: OldLogpSource, sampleAt?: number) {
  const tr = new Trainer(engine(), createRelay({}), validateConfig(TINY));
  tr.oldLogp = source;
  const w0 = await tr.readWeights('last');
  if (sampleAt !== undefined) {
    const gen = tr.policies[0].gen, generate = gen.generate.bind(gen);
    gen.generate = ((ctx, maxNew, temperature, ...rest) => generate(ctx, maxNew, temperature > 0 ? sampleAt : temperature, ...rest)) as Generator['generate'];
  }
  const forwards = tr.model.passes.forward;
  const metrics = await tr.step();
  const out = { w0, w: await tr.readWeights('last'), forwards: tr.model.passes.forward - forwards, passes: { ...tr.oldLogpPasses },
    updates: tr.lastStepUpdates, first: tr.members[0].mbStats[0], metrics };
  tr.destroy();
  return out;
}

/** ||a - b|| over the step's own update ||b - w0||: 0 when the two steps agree, about 1 or more when they do not. */
function relativeGap(a: Float32Array, b: Float32Array, w0: Float32Array): number {
  let d = 0, u = 0;
  for (let i = 0; i < a.length; i++) { d += (a[i] - b[i]) ** 2; u += (b[i] - w0[i]) ** 2; }
  return Math.sqrt(d / u);
}

describe('pi_old from the sampler, not a second forward', () => {
  for (const [name, engine] of ENGINES) {
    it(`${name}: the same updated weights as the old-logprob forward, one forward saved per minibatch`, async () => {
      const reuse = await oneStep(engine, 'sampling'), forward = await oneStep(engine, 'forward');
      expect(reuse.updates).toBe(TINY.minibatches);
      expect(reuse.passes).toEqual({ reused: TINY.minibatches, forward: 0 });
      expect(forward.passes).toEqual({ reused: 0, forward: TINY.minibatches });
      // the model's own count: the rollout's prefills and the loss forwards are the same; the old-logprob pass is not run
      expect(forward.forwards - reuse.forwards).toBe(TINY.minibatches);
      // the same rollout (same weights and seed), so the same loss rows and rewards
      expect(reuse.metrics.reward).toBe(forward.metrics.reward);
      expect(relativeGap(reuse.w, forward.w, forward.w0)).toBeLessThan(1e-3);
      // the first minibatch runs the sampler's weights: pi_theta / pi_old = 1 up to float rounding
      expect(Math.abs(reuse.first.ratioMin - 1)).toBeLessThan(1e-4);
      expect(Math.abs(reuse.first.ratioMax - 1)).toBeLessThan(1e-4);
    }, 60_000);
  }

  it('the planted fault: log-probs sampled at 0.5 reused by a loss at 1 move the weights far off, and the first ratio shows it', async () => {
    const engine = ENGINES[0][1];
    const faulty = await oneStep(engine, 'sampling', 0.5), forward = await oneStep(engine, 'forward', 0.5);
    expect(faulty.metrics.reward).toBe(forward.metrics.reward); // the same samples: only pi_old differs
    expect(relativeGap(faulty.w, forward.w, forward.w0)).toBeGreaterThan(0.1);
    expect(Math.max(Math.abs(faulty.first.ratioMin - 1), Math.abs(faulty.first.ratioMax - 1))).toBeGreaterThan(1e-2);
    // the oracle itself is unaffected: its first minibatch is at ratio 1
    expect(Math.abs(forward.first.ratioMax - 1)).toBeLessThan(1e-4);
  }, 60_000);

  it('a stacked population of 2: the same weights per member as the old-logprob forward', async () => {
    const run = async (source: OldLogpSource) => {
      const tr = new Trainer(new CpuBackend(), createRelay({}), [validateConfig(TINY), validateConfig({ ...TINY, seed: 4 })]);
      tr.oldLogp = source;
      const w0 = await tr.readWeights('last', 1);
      await tr.stepAll();
      const out = { w0, w: [await tr.readWeights('last', 0), await tr.readWeights('last', 1)], passes: { ...tr.oldLogpPasses } };
      tr.destroy();
      return out;
    };
    const reuse = await run('sampling'), forward = await run('forward');
    expect(reuse.passes.reused).toBe(TINY.minibatches);
    expect(forward.passes.forward).toBe(TINY.minibatches);
    expect(relativeGap(reuse.w[1], forward.w[1], forward.w0)).toBeLessThan(1e-3);
    expect(Array.from(reuse.w[0])).toEqual(Array.from(forward.w[0]));
  }, 60_000);

  it('the guard: a sequence sampled at another temperature, or of unknown temperature, is not reused', () => {
    const seq = (t?: number) => ({ logpTemperature: t }) as Sequence;
    expect(samplingLogpReusable([seq(1), seq(1)], 1)).toBe(true);
    expect(samplingLogpReusable([seq(0.7)], 0.7)).toBe(true);
    expect(samplingLogpReusable([seq(1), seq(0.7)], 1)).toBe(false);
    expect(samplingLogpReusable([seq(undefined)], 1)).toBe(false);
  });
});
