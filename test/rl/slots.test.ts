// Policy slots and continued sequences (docs/envs.md intro; docs/rl.md: one sequence per trainable turn,
// an agent's turns over rounds merged when its context carries them). Tiny hand-written envs,
// CPU backend; expected values come from the rollout's raw tokens and the envs' rules.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config';
import type { Environment, Score, Turn } from '../../src/envs/types';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { rollout, Generator } from '../../src/rl/rollout';
import { Trainer } from '../../src/rl/trainer';
import { GPT } from '../../src/model/gpt';

const BOS = 0, EOS = 1, A = 2, X = 4, Y = 5, OBS = 6;
const VOCAB = ['BOS', 'EOS', 'A', 'B', 'X', 'Y', 'OBS', 't7', 't8'];
const TINY = { promptsPerStep: 2, groupSize: 4, minibatches: 1, evalEpisodes: 4, nLayer: 1, nHead: 2, nEmbd: 16, lr: 1e-2 };

interface Pair { x: number[] | null; y: number[] | null }
/** x (slot 'frozen') speaks, y (slot 'learner') answers; success = y says A. */
const pairEnv: Environment<number, Pair> = {
  id: 'pair', vocab: VOCAB, eos: EOS, blockSize: 12, roleSlot: { x: 'frozen', y: 'learner' },
  sampleTasks: (_s, count) => Array.from({ length: count }, (_, i) => i),
  start: () => ({ x: null, y: null }),
  turn(s, k): Turn[] {
    if (k === 0) return [{ role: 'x', context: [BOS, X], maxNew: 3, message: true }];
    if (k === 1) return [{ role: 'y', context: [BOS, Y, ...s.x!, OBS], maxNew: 2, message: false }];
    return [];
  },
  applyTurn(s, k, [g]) { if (k === 0) s.x = g; else s.y = g; },
  score: (s): Score => ({ rTask: s.y![0] === A ? 1 : 0, extras: {} }),
  evalExtras: () => ({}),
  demonstrations: () => [],
  render: () => [],
};

interface Rounds { ctx: number[][]; gen: number[][][] }
/** Two agents move at once for 3 rounds; each round's context continues the agent's previous one. */
const AGENTS = 2, ROUNDS = 3;
const roundsEnv: Environment<number, Rounds> = {
  id: 'rounds', vocab: VOCAB, eos: EOS, blockSize: 16,
  sampleTasks: (_s, count) => Array.from({ length: count }, (_, i) => i),
  start: () => ({ ctx: [[BOS, X], [BOS, Y]], gen: [] }),
  turn(s, k): Turn[] {
    if (k >= ROUNDS) return [];
    return s.ctx.map((c, agent) => ({ role: 'p', agent, context: c, maxNew: 3, message: true, messageFrom: 1, continues: k > 0 }));
  },
  applyTurn(s, _k, generated) {
    s.gen.push(generated);
    s.ctx = s.ctx.map((c, i) => [...c, ...generated[i], OBS]);
  },
  score: (s): Score => {
    const all = s.gen.flat(2);
    return { rTask: all.filter((t) => t === A).length / all.length, extras: {} };
  },
  evalExtras: () => ({}),
  demonstrations: () => [],
  render: () => [],
};

describe('continued sequences', () => {
  it('an agent\'s rounds merge into its last row: earlier tokens located in its context, earlier rows superseded', async () => {
    const b = new CpuBackend();
    const model = new GPT(b, { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: 16, vocabSize: VOCAB.length }, undefined, 3);
    const gen = new Generator(b, model);
    const ro = await rollout(roundsEnv, () => gen, [0, 1], 2, 1, 7, 0);
    expect(ro.sequences.length).toBe(4 * AGENTS * ROUNDS);
    for (let e = 0; e < 4; e++) for (let agent = 0; agent < AGENTS; agent++) {
      const mine = ro.sequences.filter((q) => q.episode === e && q.agent === agent).sort((p, q) => p.turn - q.turn);
      expect(mine.map((q) => q.superseded)).toEqual([true, true, false]);
      const last = mine[2];
      // by hand: round 0 context is 2 tokens; round r's generated tokens start after r rounds of (generated + OBS)
      const want: { at: number; logp: number }[] = [];
      let at = 2;
      for (const q of mine.slice(0, 2)) {
        q.generated.forEach((_, g) => want.push({ at: at + g, logp: q.logp[g] }));
        at += q.generated.length + 1;
      }
      expect(last.earlier).toEqual(want);
      for (const w of want) expect(last.context[w.at]).toBe(mine.flatMap((q) => q.generated)[want.indexOf(w)]);
    }
  });

  it('a turn marked continues that does not extend the previous one is an error', async () => {
    const b = new CpuBackend();
    const model = new GPT(b, { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: 16, vocabSize: VOCAB.length }, undefined, 3);
    const gen = new Generator(b, model);
    const broken: Environment<number, Rounds> = { ...roundsEnv, turn: (s, k) => roundsEnv.turn(s, k).map((t) => ({ ...t, context: k > 0 ? [BOS, X, OBS] : t.context })) };
    await expect(rollout(broken, () => gen, [0], 1, 1, 7, 0)).rejects.toThrow(/continues/);
  });

  it.each(['gspo', 'grpo'])('on-policy, the merged rows give ratio 1 at every trained token (%s)', async (algorithm) => {
    // minibatches 1: the update's log-probs are those of the sampling weights, so any misplaced
    // mask or old log-prob of an earlier round would show as a ratio away from 1
    const tr = new Trainer(new CpuBackend(), roundsEnv, validateConfig({ ...TINY, algorithm, epsLow: 0.2, epsHigh: 0.2 }));
    const m = await tr.step();
    expect(tr.lossRows).toBe(TINY.promptsPerStep * TINY.groupSize * AGENTS); // one row per agent per episode
    expect(Math.abs(m.ratio_min - 1)).toBeLessThan(1e-4);
    expect(Math.abs(m.ratio_max - 1)).toBeLessThan(1e-4);
    // messages start after the action token: tokens = generated tokens after the first, before EOS, per turn
    const { rollout: ro, rewards } = tr.lastRollout!;
    let total = 0;
    for (let e = 0; e < ro.states.length; e++) {
      const byHand = ro.sequences.filter((q) => q.episode === e).reduce((n, q) => {
        const end = q.generated.indexOf(EOS);
        return n + Math.max(0, Math.min(end < 0 ? q.generated.length : end, 2) - 1); // at most maxNew - 1 = 2 tokens, the first an action
      }, 0);
      expect(rewards[e].tokens).toBe(byHand);
      total += byHand;
    }
    expect(total).toBeGreaterThan(0); // not vacuous: some turns carried a message token
    tr.destroy();
  });
});

describe('policy slots', () => {
  it('a multi-slot env needs each slot\'s start; at most one slot trains', () => {
    const c = validateConfig(TINY);
    expect(() => new Trainer(new CpuBackend(), pairEnv, c)).toThrow(/frozen, learner/);
    expect(() => new Trainer(new CpuBackend(), pairEnv, c, { frozen: { trainable: true }, learner: { trainable: true } })).toThrow(/one trainable/);
    expect(() => new Trainer(new CpuBackend(), pairEnv, c, { learner: { trainable: true } })).toThrow(/frozen/);
  });

  it('frozen weights stay bit-identical, the trainable slot moves, and only its sequences enter the loss', async () => {
    const b = new CpuBackend();
    const c = validateConfig(TINY);
    const frozenW = new Float32Array(new GPT(b, { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: 12, vocabSize: VOCAB.length }, undefined, 11).numParams).map((_, i) => Math.sin(i) * 0.05);
    const learnerW = frozenW.map((v, i) => v + Math.cos(i) * 0.01);
    const tr = new Trainer(b, pairEnv, c, { frozen: { trainable: false, weights: frozenW.slice() }, learner: { trainable: true, weights: learnerW.slice() } });
    for (let i = 0; i < 3; i++) await tr.step();
    const E = TINY.promptsPerStep * TINY.groupSize;
    expect(tr.lossRows).toBe(E); // y's turns only, not x's
    const ro = tr.lastRollout!.rollout;
    expect(ro.sequences.filter((q) => q.slot === 'frozen').length).toBe(E);
    const frozen = tr.policies.find((p) => p.slot === 'frozen')!, learner = tr.policies.find((p) => p.slot === 'learner')!;
    expect(Float32Array.from(await b.read(frozen.model.params))).toEqual(frozenW);
    const moved = Float32Array.from(await b.read(learner.model.params));
    expect(moved.some((v, i) => v !== learnerW[i])).toBe(true);
    expect(tr.model).toBe(learner.model);
    tr.destroy();
  });
});
