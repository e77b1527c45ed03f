// Rows cut to the batch's longest sequence (rowLength) give the loss and gradient of
// full block_size rows: positions past a sequence are masked and attention is causal.
import { describe, expect, it } from 'vitest';
import { createRelay } from '../../src/envs/relay';
import { GPT } from '../../src/model/gpt';
import { paramSpecs } from '../../src/model/params';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { PolicyObjective, type ObjectiveConfig } from '../../src/rl/objective';
import { Generator, rollout, type Sequence } from '../../src/rl/rollout';
import { rowLength, sequencesToBatch } from '../../src/rl/stepBatch';
import { Rng } from '../gpu/random';

const seq = (n: number): Sequence => ({ context: new Array(n - 1).fill(1), generated: [2] } as unknown as Sequence);

describe('rowLength', () => {
  it('is the longest sequence less one, rounded up to 8, within block_size - 1', () => {
    expect(rowLength([seq(2)], 48)).toBe(8); // 1 position -> 8
    expect(rowLength([seq(9), seq(3)], 48)).toBe(8); // 8 positions
    expect(rowLength([seq(10)], 48)).toBe(16); // 9 positions
    expect(rowLength([seq(48)], 48)).toBe(47); // capped
    expect(rowLength([seq(45)], 48)).toBe(47); // 44 -> 48, capped at 47
  });

  it('a minibatch at rowLength has the loss and gradient of the full block_size rows', async () => {
    const b = new CpuBackend(), env = createRelay({}), blockSize = env.blockSize;
    const cfgModel = { nLayer: 2, nHead: 2, nEmbd: 16, blockSize, vocabSize: env.vocab.length };
    const weights = new Rng(4).normal(paramSpecs(cfgModel).total, 0.2);
    const model = new GPT(b, cfgModel, weights);
    const ro = await rollout(env, () => new Generator(b, model), env.sampleTasks('train', 3, 1, 0), 4, 1, 1, 0);
    // the Scouts' turns cut to short messages (as a policy that learned brevity sends), plus one full-length turn
    const seqs = ro.sequences.filter((q) => q.role === 'scout').map((q, i) => {
      const n = 1 + (i % 3);
      return { ...q, generated: q.generated.slice(0, n), logp: q.logp.slice(0, n) };
    });
    const rewards = Float32Array.from(ro.scores.map((_, e) => (e * 7919) % 5 / 4));
    const groupStart = Int32Array.from([0, 4, 8, 12]);
    const cfg: ObjectiveConfig = { algorithm: 'gspo', epsLow: 0.2, epsHigh: 0.3, beta: 0, advantage: 'group', temperature: 1 };
    const T = rowLength(seqs, blockSize);
    expect(T).toBeLessThan(blockSize - 1); // the case really cuts rows
    const run = async (rowT: number) => {
      const m = new GPT(b, cfgModel, weights), obj = new PolicyObjective(b);
      const batch = sequencesToBatch(seqs, (e) => e, rowT);
      // old log-probs off the current ones so ratios differ from 1 and clipping is exercised
      for (let i = 0; i < batch.oldLogp.length; i++) if (batch.mask[i] > 0) batch.oldLogp[i] += 0.3 * Math.sin(Math.floor(i / rowT) * 100 + (i % rowT)); // the same per token at any row length
      m.zeroGrad();
      obj.advantages(rewards, groupStart, cfg.advantage);
      obj.recordMinibatch(m, batch, cfg);
      return { stats: await obj.readStats(batch), grads: Float64Array.from(await b.read(m.grads)) };
    };
    const cut = await run(T), full = await run(blockSize - 1);
    expect(cut.stats.loss).toBeCloseTo(full.stats.loss, 6);
    expect(cut.stats.clipFrac).toBe(full.stats.clipFrac);
    expect(cut.stats.entropy).toBeCloseTo(full.stats.entropy, 6);
    let maxG = 0, maxD = 0;
    for (let i = 0; i < full.grads.length; i++) { maxG = Math.max(maxG, Math.abs(full.grads[i])); maxD = Math.max(maxD, Math.abs(cut.grads[i] - full.grads[i])); }
    expect(maxG).toBeGreaterThan(1e-3);
    expect(maxD).toBeLessThanOrEqual(1e-6 * maxG);
  });
});
