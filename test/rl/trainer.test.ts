// Rollout + Trainer on the CPU backend with a tiny model and the relay env.
// Expected values are recomputed by hand from the rollout's raw tokens, not taken
// from the code under test.
import { describe, expect, it } from 'vitest';
import { validateConfig, type RunConfig } from '../../src/config';
import { createRelay, RELAY_EOS, type RelayState, type RelayTask } from '../../src/envs/relay';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { Trainer } from '../../src/rl/trainer';
import { type StepMetrics } from '../../src/rl/runRecord';
import { sequencesByEpisode } from '../../src/rl/rollout';

const TINY = { promptsPerStep: 2, groupSize: 3, minibatches: 2, evalEpisodes: 8, nLayer: 1, nHead: 2, nEmbd: 16 };
const M = 8; // relay's default maxMessage
const make = (extra: Record<string, unknown> = {}) =>
  new Trainer<RelayTask, RelayState>(new CpuBackend(), createRelay({}), validateConfig({ ...TINY, ...extra }));

const METRIC_NAMES = ['reward', 'reward_std', 'r_task', 'tokens', 'turns', 'repetition', 'lambda_tok', 'frac_zero_std', 'policy_loss', 'kl',
  'entropy', 'clip_frac', 'ratio_mean', 'ratio_min', 'ratio_max', 'grad_norm', 'seq_len_mean', 'silence_rate', 'step_time_ms', 'tokens_per_s'] as const;

/** The message the Scout exchanged: tokens before EOS, at most M (docs/rl.md section 2: EOS excluded). */
function exchanged(generated: number[]): number[] {
  const end = generated.indexOf(RELAY_EOS);
  return (end < 0 ? generated : generated.slice(0, end)).slice(0, M);
}
/** Repeated bigrams of one message, counted by hand with an array scan (no Set). */
function repeats(msg: number[]): number {
  let n = 0;
  for (let i = 1; i < msg.length; i++) {
    let before = false;
    for (let j = 1; j < i; j++) if (msg[j - 1] === msg[i - 1] && msg[j] === msg[i]) before = true;
    if (before) n++;
  }
  return n;
}
const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Per group of TINY.groupSize consecutive rewards: all equal? (by hand) */
const flatOf = (rewards: number[]) => Array.from({ length: rewards.length / TINY.groupSize }, (_, g) =>
  rewards.slice(g * TINY.groupSize, (g + 1) * TINY.groupSize).every((r) => r === rewards[g * TINY.groupSize]));

describe('Trainer on the CPU backend (relay, tiny model)', () => {
  it('one step: finite metrics under the docs/rl.md section 7 names, in range', async () => {
    const tr = make();
    const m = await tr.step();
    for (const k of METRIC_NAMES) {
      expect(k in m, k).toBe(true);
      expect(Number.isFinite(m[k]), `${k} = ${m[k]}`).toBe(true);
    }
    expect(m.step).toBe(0);
    expect(tr.stepCount).toBe(1);
    expect(m.silence_rate).toBeGreaterThanOrEqual(0);
    expect(m.silence_rate).toBeLessThanOrEqual(1);
    expect(m.tokens).toBeGreaterThanOrEqual(0);
    expect(m.r_task).toBeGreaterThanOrEqual(0);
    expect(m.r_task).toBeLessThanOrEqual(1);
    expect(m.lambda_tok).toBe(0.1);
    expect(m.kl).toBe(0); // beta 0
    tr.destroy();
  });

  it('the rollout: 2 sequences per episode (scout then solver), scout stops at EOS or at M+1 tokens', async () => {
    const tr = make();
    await tr.step();
    const ro = tr.lastRollout!.rollout;
    const E = TINY.promptsPerStep * TINY.groupSize;
    expect(ro.states.length).toBe(E);
    expect(ro.scores.length).toBe(E);
    expect(ro.sequences.length).toBe(2 * E);
    for (let e = 0; e < E; e++) {
      const seqs = ro.sequences.filter((s) => s.episode === e);
      expect(seqs.map((s) => s.role)).toEqual(['scout', 'solver']);
      expect(seqs.map((s) => s.turn)).toEqual([0, 1]);
      expect(seqs.map((s) => s.message)).toEqual([true, false]);
      const [scout, solver] = seqs;
      const g = scout.generated;
      expect(g.length).toBeGreaterThanOrEqual(1);
      expect(g.length).toBeLessThanOrEqual(M + 1);
      // EOS only at the end, and either it ends with EOS or it hit the limit M+1
      expect(g.slice(0, -1)).not.toContain(RELAY_EOS);
      expect(g[g.length - 1] === RELAY_EOS || g.length === M + 1).toBe(true);
      expect(solver.generated.length).toBeGreaterThanOrEqual(1);
      expect(solver.generated.length).toBeLessThanOrEqual(2);
      for (const s of seqs) {
        expect(s.logp.length).toBe(s.generated.length);
        for (const lp of s.logp) { expect(Number.isFinite(lp)).toBe(true); expect(lp).toBeLessThanOrEqual(1e-6); }
        expect(s.context.length + s.generated.length).toBeLessThanOrEqual(tr.env.blockSize);
      }
      // the solver's context ends with the exchanged message then ANS
      expect(solver.context.slice(-1 - exchanged(g).length, -1)).toEqual(exchanged(g));
    }
    // groups are consecutive: the 3 episodes of a prompt share the task
    for (let e = 0; e < E; e++) expect(ro.states[e].task).toEqual(ro.states[Math.floor(e / 3) * 3].task);
    tr.destroy();
  });

  it.each([
    ['the brief batch', {}],
    ['a larger batch', { promptsPerStep: 8, groupSize: 4, seed: 3 }],
  ])('reward parts match the scout turn recomputed by hand, and the metrics aggregate them (%s)', async (_name, extra) => {
    const tr = make({ lambdaTurn: 0.25, lambdaRep: 0.5, ...extra });
    const m = await tr.step();
    const { rollout: ro, rewards } = tr.lastRollout!;
    const E = ro.states.length;
    let checked = 0;
    for (let e = 0; e < E; e++) {
      const scout = ro.sequences.find((s) => s.episode === e && s.role === 'scout')!;
      const g = scout.generated;
      if (g[g.length - 1] !== RELAY_EOS) continue; // the length-limit case is checked in its own test
      const msg = g.slice(0, -1);
      const rTask = ro.scores[e].rTask;
      expect(rewards[e].tokens).toBe(msg.length);
      expect(rewards[e].turns).toBe(msg.length > 0 ? 1 : 0);
      expect(rewards[e].repetition).toBe(repeats(msg));
      expect(rewards[e].rTask).toBe(rTask);
      expect(rewards[e].reward).toBeCloseTo(rTask - 0.1 * msg.length - 0.25 * (msg.length > 0 ? 1 : 0) - 0.5 * repeats(msg), 10);
      checked++;
    }
    expect(checked).toBeGreaterThan(0); // not vacuous: some Scouts ended with EOS
    // metrics are the episode means of the parts (all episodes)
    expect(m.tokens).toBeCloseTo(meanOf(rewards.map((r) => r.tokens)), 10);
    expect(m.turns).toBeCloseTo(meanOf(rewards.map((r) => r.turns)), 10);
    expect(m.repetition).toBeCloseTo(meanOf(rewards.map((r) => r.repetition)), 10);
    expect(m.r_task).toBeCloseTo(meanOf(ro.scores.map((s) => s.rTask)), 10);
    const rs = rewards.map((r) => r.reward), mu = meanOf(rs);
    expect(m.reward).toBeCloseTo(mu, 10);
    expect(m.reward_std).toBeCloseTo(Math.sqrt(rs.reduce((a, r) => a + (r - mu) ** 2, 0) / (rs.length - 1)), 10);
    const silent = ro.sequences.filter((s) => s.role === 'scout' && s.generated[0] === RELAY_EOS).length;
    expect(m.silence_rate).toBeCloseTo(silent / E, 12);
    expect(m.seq_len_mean).toBeCloseTo(meanOf(ro.sequences.map((s) => s.generated.length)), 10);
    tr.destroy();
  });

  it('message tokens count what was exchanged: never more than maxMessage (docs/rl.md section 2)', async () => {
    // An untrained policy rarely samples EOS, so Scouts often hit the M+1 generation limit.
    // The relay truncates the message to M tokens; the reward must count those M, not M+1.
    const tr = make();
    const m = await tr.step();
    const { rollout: ro, rewards } = tr.lastRollout!;
    const hitLimit = ro.sequences.filter((s) => s.role === 'scout' && s.generated.length === M + 1 && s.generated[M] !== RELAY_EOS).length;
    for (let e = 0; e < ro.states.length; e++) {
      const scout = ro.sequences.find((s) => s.episode === e && s.role === 'scout')!;
      expect(rewards[e].tokens, `episode ${e}, scout generated ${scout.generated.join(' ')}`).toBe(exchanged(scout.generated).length);
      expect(rewards[e].tokens).toBeLessThanOrEqual(M);
      expect(rewards[e].tokens).toBe(ro.states[e].received!.flat().length); // what the Solver read
    }
    expect(m.tokens, `${hitLimit} scouts hit the limit`).toBeLessThanOrEqual(M);
    const ev = await tr.evaluate();
    expect(ev.tokens).toBeLessThanOrEqual(M);
    tr.destroy();
  });

  it('evaluate() at temperature 0 is deterministic and in range', async () => {
    const tr = make();
    const a = await tr.evaluate();
    const b = await tr.evaluate();
    expect(b).toEqual(a);
    expect(tr.evals.length).toBe(2);
    expect(tr.lastEval!.rollout.states.length).toBe(8);
    expect(a.accuracy).toBeGreaterThanOrEqual(0);
    expect(a.accuracy).toBeLessThanOrEqual(1);
    expect(a.step).toBe(0);
    expect(a.lambdaTok).toBe(0.1);
    expect(a.accuracy).toBeCloseTo(meanOf(tr.lastEval!.rollout.scores.map((s) => s.rTask)), 12);
    expect(typeof a.silenceKnown).toBe('number');
    expect(typeof a.silenceUnknown).toBe('number');
    expect(tr.bestEval).toEqual(a);
    tr.destroy();
  });

  it('step hooks: progress after the rollout and each update; a stop request ends the step at the next minibatch, keeping the updates made', async () => {
    const full = make({ minibatches: 3, promptsPerStep: 3, lr: 0.01 }), stopped = make({ minibatches: 3, promptsPerStep: 3, lr: 0.01 });
    const before = await stopped.readWeights('last');
    const seen: number[][] = [], seenStopped: number[][] = [];
    await full.step({ progress: (d, of) => seen.push([d, of]) });
    expect(seen).toEqual([[0, 3], [1, 3], [2, 3], [3, 3]]);
    expect(full.lastStepUpdates).toBe(3);
    let asked = 0;
    await stopped.step({ progress: (d, of) => seenStopped.push([d, of]), stopRequested: () => { asked++; return true; } });
    expect(seenStopped).toEqual([[0, 3], [1, 3]]); // the first update is always made; the request is honoured before the second
    expect(asked).toBe(1);
    expect(stopped.lastStepUpdates).toBe(1);
    expect(stopped.stepCount).toBe(1);
    const after = await stopped.readWeights('last'), fullAfter = await full.readWeights('last');
    expect(after).not.toEqual(before); // the one update was kept
    expect(after).not.toEqual(fullAfter); // and the other two were not made
  });

  it('dynamic sampling without refill: groups whose rewards are all equal leave the loss, nothing else does; frac_zero_std counts them', async () => {
    const cfg = { promptsPerStep: 6, lambdaTok: 0.5, seed: 3 };
    const off = make(cfg), on = make({ ...cfg, dynamicSampling: 'on', refillRounds: 0 });
    const mOff = await off.step(), mOn = await on.step();
    const ro = on.lastRollout!, G = TINY.groupSize;
    expect(ro.rewards.map((r) => r.reward)).toEqual(off.lastRollout!.rewards.map((r) => r.reward)); // the same rollout
    // flat groups by hand, and the loss rows of the episodes that stay
    const rewards = ro.rewards.map((r) => r.reward), byEp = sequencesByEpisode(ro.rollout);
    let flat = 0, keptRows = 0, allRows = 0;
    for (let g = 0; g < 6; g++) {
      let same = true;
      for (let i = 1; i < G; i++) if (rewards[g * G + i] !== rewards[g * G]) same = false;
      if (same) flat++;
      for (let i = 0; i < G; i++) {
        const n = on.lossSequences(byEp[g * G + i]).length;
        allRows += n;
        if (!same) keptRows += n;
      }
    }
    expect(flat, 'this seed has a flat group').toBeGreaterThan(0);
    expect(flat, 'and one with signal').toBeLessThan(6);
    expect(off.lossRows).toBe(allRows);
    expect(on.lossRows).toBe(keptRows);
    expect(mOn.frac_zero_std).toBeCloseTo(flat / 6, 12);
    expect(mOff.frac_zero_std).toBeCloseTo(flat / 6, 12);
    // every group flat (an untrained policy, no token cost: every reward equal): no update, and the count still reported
    const none = make({ promptsPerStep: 6, lambdaTok: 0, seed: 1, dynamicSampling: 'on', refillRounds: 0 });
    const m = await none.step();
    expect(none.lastRollout!.rewards.every((r) => r.reward === none.lastRollout!.rewards[0].reward)).toBe(true);
    expect(none.lossRows).toBe(0);
    expect(m.frac_zero_std).toBe(1);
    expect([m.groups_dropped, m.groups_refilled]).toEqual([flatOf(none.lastRollout!.rewards.map((r) => r.reward)).filter(Boolean).length, 0]);
    expect([mOn.groups_dropped, mOn.groups_refilled, mOff.groups_dropped]).toEqual([flat, 0, 0]);
  });

  it('dynamic sampling with refill: more rounds of P fresh prompts until P groups carry signal (at most refillRounds), the first P such groups train', async () => {
    const P = 6, G = TINY.groupSize;
    /** Everything the step did, recomputed by hand from its rollout's rewards; returns the rounds it took. */
    const check = (on: Trainer<RelayTask, RelayState>, m: StepMetrics, refillRounds: number): number => {
      const ro = on.lastRollout!, rewards = ro.rewards.map((r) => r.reward), flat = flatOf(rewards);
      // rounds: another one only while fewer than P groups so far have signal, and at most refillRounds more
      let signal = 0, rounds = 0;
      while (rounds < 1 + refillRounds && signal < P) { signal += flat.slice(rounds * P, (rounds + 1) * P).filter((f) => !f).length; rounds++; }
      expect(rewards.length).toBe(rounds * P * G);
      // the first P groups with signal, in sampling order, are the loss
      const kept: number[] = [];
      flat.forEach((f, g) => { if (!f && kept.length < P) kept.push(g); });
      const byEp = sequencesByEpisode(ro.rollout);
      let rows = 0;
      for (const g of kept) for (let i = 0; i < G; i++) rows += on.lossSequences(byEp[g * G + i]).length;
      expect(on.lossRows).toBe(rows);
      expect(m.groups_dropped).toBe(flat.filter(Boolean).length);
      expect(m.groups_refilled).toBe(kept.filter((g) => g >= P).length);
      expect(m.frac_zero_std).toBeCloseTo(flat.filter(Boolean).length / flat.length, 12);
      // the step's figures cover every episode sampled (each round samples the same policy)
      expect(m.r_task).toBeCloseTo(meanOf(ro.rewards.map((r) => r.rTask)), 12);
      return rounds;
    };
    const cfg = { promptsPerStep: P, lambdaTok: 0.5, seed: 3 };
    const off = make(cfg), on = make({ ...cfg, dynamicSampling: 'on', refillRounds: 3 });
    const mOff = await off.step(), mOn = await on.step();
    expect(on.lastRollout!.rewards.slice(0, P * G)).toEqual(off.lastRollout!.rewards); // the first round is the usual rollout
    expect(check(on, mOn, 3), 'this seed refills').toBeGreaterThan(1);
    expect(mOn.groups_refilled, 'and a refill round had signal').toBeGreaterThan(0);
    expect(mOff.groups_dropped).toBe(0);
    // the refill's prompts are new: none is one of this step's or the next step's own
    const own = on.env.sampleTasks('train', 2 * P, 3, 0).map((t) => JSON.stringify(t));
    expect(on.lastRollout!.rollout.states.slice(P * G).filter((st) => own.includes(JSON.stringify(st.task)))).toEqual([]);
    // almost every group flat (an untrained policy, no token cost): the bound on the rounds holds
    const few = make({ promptsPerStep: P, lambdaTok: 0, seed: 1, dynamicSampling: 'on', refillRounds: 1 });
    expect(check(few, await few.step(), 1)).toBe(2);
  });

  it('dynamic sampling: the step anatomy marks the groups that entered the loss (flat ones and those past the first P with signal did not)', async () => {
    const { stepAnatomy } = await import('../../src/worker/anatomy');
    const { rewardWeights } = await import('../../src/rl/reward');
    const tr = make({ promptsPerStep: 6, lambdaTok: 0.5, seed: 3, dynamicSampling: 'on', refillRounds: 3 });
    await tr.step();
    const flat = flatOf(tr.lastRollout!.rewards.map((r) => r.reward));
    let kept = 0;
    const expected = flat.map((f) => { if (f || kept >= 6) return false; kept++; return true; });
    const a = await stepAnatomy(tr, tr.env, 0, rewardWeights(tr.config, tr.lambdaTok));
    expect(a.groups).toBe(flat.length);
    expect(a.inLoss).toEqual(expected);
    tr.destroy();
  });

  it('overlong shaping: each episode\'s reward loses overlongPenalty per turn at its limit, linearly over the last L_cache tokens', async () => {
    const tr = make({ overlongCache: 4, overlongPenalty: 0.5, lambdaTok: 0.1 });
    await tr.step();
    const { rollout: ro, rewards } = tr.lastRollout!, byEp = sequencesByEpisode(ro);
    let shaped = 0;
    for (let e = 0; e < ro.states.length; e++) {
      // by hand: a Scout turn of n generated tokens (EOS included) under the limit M + 1 = 9 pays max(0, n - 5) / 4 of 0.5
      let pay = 0;
      for (const q of byEp[e]) if (q.message) pay += 0.5 * Math.min(1, Math.max(0, q.generated.length - (q.maxNew - 4)) / 4);
      if (pay > 0) shaped++;
      expect(rewards[e].reward).toBeCloseTo(rewards[e].rTask - 0.1 * rewards[e].tokens - pay, 10);
    }
    expect(shaped, 'the warm policy talks past M + 1 - 4 tokens somewhere').toBeGreaterThan(0);
    tr.destroy();
  });

  it('the same seed gives the same first step (reproducibility)', async () => {
    const strip = (m: StepMetrics) => { const { step_time_ms: _a, tokens_per_s: _b, ...rest } = m; return rest; };
    const t1 = make({ seed: 5 }), t2 = make({ seed: 5 });
    const m1 = await t1.step(), m2 = await t2.step();
    expect(strip(m2)).toEqual(strip(m1));
    expect(t2.lastRollout!.rollout.sequences).toEqual(t1.lastRollout!.rollout.sequences);
    expect(await t2.readWeights('last')).toEqual(await t1.readWeights('last'));
    t1.destroy(); t2.destroy();
  });

  it('setHyperparams: a live lambdaTok shows in the next step; a non-live field throws', async () => {
    const tr = make();
    tr.setHyperparams({ lambdaTok: 0.3 });
    const m = await tr.step();
    expect(m.lambda_tok).toBe(0.3);
    const { rollout: ro, rewards } = tr.lastRollout!;
    for (let e = 0; e < ro.states.length; e++) expect(rewards[e].reward).toBeCloseTo(rewards[e].rTask - 0.3 * rewards[e].tokens, 10);
    expect(() => tr.setHyperparams({ nEmbd: 32 } as Partial<RunConfig>)).toThrow(/nEmbd/);
    expect(tr.config.nEmbd).toBe(16);
    expect(() => tr.setHyperparams({ lambdaTok: -1 })).toThrow(/lambdaTok/);
    expect(tr.lambdaTok).toBe(0.3);
    tr.destroy();
  });

  it('budget mode: the step uses lambda, then lambda <- clamp(lambda + eta (mean tokens - B), 0, max)', async () => {
    const tr = make({ lambdaMode: 'budget', lambdaTok: 0, budget: 0, dualEta: 0.01, lambdaMax: 1 });
    const m1 = await tr.step();
    expect(m1.lambda_tok).toBe(0);
    const want1 = Math.min(1, Math.max(0, 0 + 0.01 * (m1.tokens - 0)));
    expect(tr.lambdaTok).toBeCloseTo(want1, 12);
    const m2 = await tr.step();
    expect(m2.lambda_tok).toBeCloseTo(want1, 12);
    expect(tr.lambdaTok).toBeCloseTo(Math.min(1, Math.max(0, want1 + 0.01 * m2.tokens)), 12);
    // slack budget (B = 64 > any message): lambda decays to 0 and stays
    tr.setHyperparams({ budget: 64, dualEta: 1 });
    await tr.step();
    expect(tr.lambdaTok).toBe(0);
    await tr.step();
    expect(tr.lambdaTok).toBe(0);
    tr.destroy();
  });
});
