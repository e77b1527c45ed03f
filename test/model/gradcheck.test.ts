// The whole model + RL objective on the float64 CPU backend: every parameter's
// gradient against central finite differences of the loss.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { GPT } from '../../src/model/gpt';
import { initParams, paramSpecs, type GPTConfig } from '../../src/model/params';
import { PolicyObjective, type ObjectiveConfig } from '../../src/rl/objective';
import { buildPolicyBatch, type SequenceIn } from '../../src/rl/batch';
import { mulberry32 } from '../../src/model/random';

const config: GPTConfig = { nLayer: 2, nHead: 2, nEmbd: 8, blockSize: 6, vocabSize: 7 };

function sequences(seed: number): SequenceIn[] {
  const r = mulberry32(seed);
  const tok = (n: number) => Array.from({ length: n }, () => Math.floor(r() * config.vocabSize));
  // 3 groups: two episodes with two sequences, a silent turn (one generated EOS), an all-equal group, G = 1
  const mk = (tokens: number[], genFrom: number, episode: number, group: number, reward: number): SequenceIn => ({
    tokens, mask: tokens.map((_, i) => (i >= genFrom ? 1 : 0)), oldLogprobs: tokens.map(() => -2 + (r() - 0.5) * 0.6),
    refLogprobs: tokens.map(() => -2 + (r() - 0.5)), episode, group, reward,
  });
  return [
    mk(tok(6), 3, 0, 0, 1), mk(tok(4), 2, 0, 0, 1), mk(tok(5), 4, 1, 0, 0), mk(tok(3), 2, 2, 0, 0.5),
    mk(tok(5), 2, 3, 1, 0.3), mk(tok(6), 5, 4, 1, 0.3),
    mk(tok(4), 1, 5, 2, 1),
  ];
}

async function lossAt(model: GPT, obj: PolicyObjective, seqs: SequenceIn[], cfg: ObjectiveConfig): Promise<number> {
  const batch = buildPolicyBatch(seqs, config.vocabSize, config.blockSize);
  model.zeroGrad();
  obj.record(model, batch, cfg);
  return (await obj.readStats(batch)).loss;
}

describe('GPT + policy loss gradient (float64, finite differences)', () => {
  const cases: ObjectiveConfig[] = [
    { algorithm: 'gspo', epsLow: 0.05, epsHigh: 0.05, beta: 0, advantage: 'group', temperature: 1 },
    { algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.28, beta: 0.1, advantage: 'batch', temperature: 0.8 },
  ];
  for (const cfg of cases) {
    it(`${cfg.algorithm} beta=${cfg.beta} advantage=${cfg.advantage}`, async () => {
      const b = new CpuBackend('f64');
      const w = initParams(config, 3);
      for (let i = 0; i < w.length; i++) w[i] *= 10; // larger weights so every path carries gradient
      const model = new GPT(b, config, w);
      const obj = new PolicyObjective(b);
      const seqs = sequences(5);
      // old log-probs near the current ones so some ratios sit inside the clip range and some outside
      const batch0 = buildPolicyBatch(seqs, config.vocabSize, config.blockSize);
      const logits = model.forward(batch0.tokens, batch0.S, batch0.T);
      const logp = b.alloc(batch0.S * batch0.T), ent = b.alloc(batch0.S * batch0.T), tg = b.alloc(batch0.S * batch0.T, 'i32');
      b.write(tg, batch0.targets);
      b.logprobForward(logp, ent, logits, tg, batch0.S * batch0.T, config.vocabSize, cfg.temperature);
      const cur = await b.read(logp);
      const r = mulberry32(9);
      seqs.forEach((s, i) => { for (let t = 1; t < s.tokens.length; t++) s.oldLogprobs[t] = cur[i * batch0.T + t - 1] + (r() - 0.5) * 0.2; });

      await lossAt(model, obj, seqs, cfg);
      const named = await model.readNamed(model.grads);
      const params = (model.params as unknown as { data: Float64Array }).data;
      const { specs } = paramSpecs(config);
      const h = 1e-6;
      let checked = 0;
      for (const s of specs) {
        const g = named.get(s.name)!.data;
        let maxAbs = 0;
        for (const x of g) maxAbs = Math.max(maxAbs, Math.abs(x));
        const scale = Math.max(1e-4, maxAbs);
        // every entry of small tensors, a strided sample of large ones
        const stride = Math.max(1, Math.floor(s.size / 24));
        for (let i = 0; i < s.size; i += stride) {
          const at = s.offset + i, old = params[at];
          params[at] = old + h; const lp = await lossAt(model, obj, seqs, cfg);
          params[at] = old - h; const lm = await lossAt(model, obj, seqs, cfg);
          params[at] = old;
          const num = (lp - lm) / (2 * h);
          expect(Math.abs(num - g[i]) / scale, `${s.name}[${i}]: fd ${num} vs backward ${g[i]}`).toBeLessThan(1e-5);
          checked++;
        }
        expect(maxAbs, `${s.name} has a non-zero gradient`).toBeGreaterThan(0);
      }
      expect(checked).toBeGreaterThan(300);
    });
  }
});
