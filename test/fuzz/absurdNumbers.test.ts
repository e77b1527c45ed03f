// Fuzz: finite numbers of every magnitude at the boundary (checkpoint weights, batch rewards and
// log-probs), then end to end through `grad` in process. Accepted inputs are within the bounds of
// src/model/magnitude.ts; `grad` returns only finite numbers or refuses with an InputError naming what
// overflowed: never a NaN or an infinity (JSON's null) as a result.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { InputError } from '../../src/contract/errors';
import { MAX_LOGPROB, MAX_REWARD, MAX_WEIGHT } from '../../src/model/magnitude';
import { readCheckpoint, writeCheckpoint } from '../../src/model/checkpoint';
import { initParams, paramSpecs, type GPTConfig } from '../../src/model/params';
import { SafetensorsError } from '../../src/model/safetensors';
import { parseBatchFile } from '../../src/rl/batch';
import { grad } from '../../src/cli/commands/grad';
import { int, pick, seeded, Tally } from './harness';
import { tempDir } from '../cli/run';

const CASES = 10_000, END_TO_END = 600;
const config: GPTConfig = { nLayer: 1, nHead: 2, nEmbd: 8, blockSize: 6, vocabSize: 5 };
const specs = paramSpecs(config).specs;
const EXACT = [0, -0, 1e-45, 3e38, -3.4e38, MAX_WEIGHT, -MAX_WEIGHT, MAX_WEIGHT * 1.0001, 1e18, 65504, 2 ** 24 + 1];

/** Weights with one or more tensors scaled by 10^k (k in [-45, 45]) or set to an edge value. */
function weights(rand: () => number, maxExp = 45): Float32Array {
  const w = initParams(config, 1 + int(rand, 4));
  for (let n = 1 + int(rand, 3); n > 0; n--) {
    const s = pick(rand, specs);
    const scale = 10 ** (int(rand, maxExp + 46) - 45), edge = pick(rand, EXACT), mode = int(rand, 3);
    for (let i = s.offset; i < s.offset + s.size; i++) w[i] = mode === 0 ? w[i] * scale : mode === 1 ? edge : (rand() < 0.05 ? edge : w[i]);
  }
  return w;
}

function batch(rand: () => number): object {
  const mag = () => (rand() < 0.5 ? 10 ** (int(rand, 40) - 5) * (rand() < 0.5 ? -1 : 1) : rand() * 2 - 1);
  const seqs = Array.from({ length: 2 + int(rand, 3) }, (_, e) => {
    const n = 2 + int(rand, 4);
    const tokens = Array.from({ length: n }, () => int(rand, 5));
    return { tokens, mask: tokens.map((_, i) => (i === 0 ? 0 : 1)), old_logprobs: tokens.map(() => (rand() < 0.2 ? -Math.abs(mag()) : -rand() * 3)), episode: e, group: int(rand, 2), reward: rand() < 0.3 ? mag() : rand() };
  });
  return { sequences: seqs, algorithm: pick(rand, ['gspo', 'grpo']), advantage: pick(rand, ['group', 'batch', 'none']) };
}

describe('fuzz: absurd finite numbers', () => {
  it('checkpoint weights: refused by name, or within +-MAX_WEIGHT and finite', () => {
    const rand = seeded(33_101);
    const tally = new Tally('weights magnitude', (e) => e instanceof SafetensorsError || e instanceof InputError);
    for (let k = 0; k < CASES; k++) {
      const bytes = writeCheckpoint({ config, weights: weights(rand), vocab: null, extras: {} });
      tally.run('scaled', () => `case ${k}`, () => readCheckpoint(bytes), (ck) => {
        for (let i = 0; i < ck.weights.length; i++) if (!(Math.abs(ck.weights[i]) <= MAX_WEIGHT)) return `weight ${i} is ${ck.weights[i]}`;
        return null;
      });
    }
    tally.report(CASES);
  });

  it('batch rewards and log-probs: refused by name, or within their bounds', () => {
    const rand = seeded(33_102);
    const tally = new Tally('batch magnitude', (e) => e instanceof InputError);
    for (let k = 0; k < CASES; k++) {
      const b = batch(rand);
      tally.run('batch', () => `case ${k}`, () => parseBatchFile(b, 5, 6), ({ batch: pb }) => {
        for (const r of pb.rewards) if (!(Math.abs(r) <= MAX_REWARD)) return `reward ${r}`;
        for (const x of pb.oldLogp) if (!(Math.abs(x) <= MAX_LOGPROB)) return `log-prob ${x}`;
        return null;
      });
    }
    tally.report(CASES);
  });

  it('end to end through grad (CPU, in process): finite results or a named refusal', async () => {
    const rand = seeded(33_103), dir = tempDir();
    let caughtAfter = 0;
    const tally = new Tally('grad results', (e) => e instanceof InputError || e instanceof SafetensorsError);
    for (let k = 0; k < END_TO_END; k++) {
      const ck = join(dir, `c${k % 8}.safetensors`), b = join(dir, `b${k % 8}.json`);
      writeFileSync(ck, writeCheckpoint({ config, weights: weights(rand, k % 2 === 0 ? 4 : 45), vocab: null, extras: {} }));
      writeFileSync(b, JSON.stringify(batch(rand)));
      // grad is async: run it, then tally its outcome the same way
      let out: unknown, err: unknown = null;
      try { out = await grad(['--checkpoint', ck, '--batch', b, '--backend', 'cpu']); } catch (e) { err = e; }
      if (err instanceof InputError && /^grad: \w+ is /.test(err.message)) caughtAfter++;
      tally.run('grad', () => `case ${k}`, () => { if (err) throw err; return out as Record<string, unknown>; }, (r) => {
        for (const [key, v] of Object.entries(r)) if (typeof v === 'number' && !Number.isFinite(v)) return `${key} is ${v}`;
        return null;
      });
    }
    console.log(`fuzz grad results: ${caughtAfter} refused by the result check (inputs within the bounds whose arithmetic still overflowed)`);
    tally.report(END_TO_END);
  }, 120_000);
});
