import { describe, expect, it } from 'vitest';
import {
  conflictWinner, createPhilosophers, isDeadlock, isEvalTask, resolveRound,
  PHIL_DEFAULTS, PHIL_EOS, PHIL_ID, PHIL_VOCAB, PHIL_WEIGHTS, type Action, type PhilTask, type PhilWeights,
} from '../../src/envs/philosophers';
import { mulberry32 } from '../../src/model/random';
import type { Score } from '../../src/envs/types';

const T = PHIL_ID;
const EOS = PHIL_EOS;
const act = (a: Action, ...msg: number[]): number[] => [T[a], ...msg, EOS];
const bucketPattern = (t: PhilTask) => t.hunger.map((h) => (h <= 1 ? 0 : h <= 3 ? 1 : 2)).join('');

/** Plays scripted rounds (each a list of generations, one per philosopher) and returns the env, state and score. */
function play(task: PhilTask, rounds: number[][][], opts = {}) {
  const env = createPhilosophers({ philosophers: task.philosophers, rounds: rounds.length, ...opts });
  const state = env.start(task);
  rounds.forEach((gen, k) => env.applyTurn(state, k, gen));
  return { env, state, score: env.score(state) };
}

const task3: PhilTask = { philosophers: 3, hunger: [0, 2, 5], seed: 12345 };

describe('philosophers vocabulary and layout', () => {
  it('has unique words, a fixed EOS and a block size of 64 at the defaults', () => {
    expect(new Set(PHIL_VOCAB).size).toBe(PHIL_VOCAB.length);
    expect(PHIL_VOCAB[EOS]).toBe('EOS');
    const env = createPhilosophers();
    expect(env.eos).toBe(EOS);
    expect(env.vocab.length).toBe(27);
    expect(PHIL_DEFAULTS.rounds).toBe(8);
    expect(PHIL_DEFAULTS.maxMessage).toBe(1);
    expect(env.blockSize).toBe(64);
    expect(createPhilosophers({ philosophers: 7 }).blockSize).toBe(64);
  });

  it('rejects bad and unknown options', () => {
    expect(() => createPhilosophers({ philosophers: 2 })).toThrow();
    expect(() => createPhilosophers({ philosophers: 8 })).toThrow();
    expect(() => createPhilosophers({ maxMessage: 3 })).toThrow();
    expect(() => createPhilosophers({ actionCost: -1 })).toThrow();
    expect(() => createPhilosophers({ forks: 3 } as never)).toThrow(/unknown/);
  });

  it('lays out round 0 and round 1 contexts exactly', () => {
    const env = createPhilosophers();
    const state = env.start(task3);
    const t0 = env.turn(state, 0);
    // hunger 0, 2, 5 -> H0, H1, H2; all forks free; no messages yet
    expect(t0).toEqual([
      { role: 'philosopher', agent: 0, context: [T.BOS, T.HEAD, T.LfRf, T.H0, T.NONE, T.NONE], maxNew: 3, message: true, messageFrom: 1, continues: false },
      { role: 'philosopher', agent: 1, context: [T.BOS, T.PHIL, T.LfRf, T.H1, T.NONE, T.NONE], maxNew: 3, message: true, messageFrom: 1, continues: false },
      { role: 'philosopher', agent: 2, context: [T.BOS, T.PHIL, T.LfRf, T.H2, T.NONE, T.NONE], maxNew: 3, message: true, messageFrom: 1, continues: false },
    ]);
    // P0 takes its right fork f0 and says WAIT, P1 thinks and says GO, P2 takes its left fork f1 silently.
    const gen = [act('TAKE_R', T.WAIT), act('THINK', T.GO), act('TAKE_L')];
    env.applyTurn(state, 0, gen);
    const t1 = env.turn(state, 1);
    // P0: left f2 free, right f0 mine; hunger 1 -> H0; left neighbour P2 said nothing, right neighbour P1 said GO.
    expect(t1[0].context).toEqual([...t0[0].context, ...gen[0], T.LfRm, T.H0, T.NONE, T.GO]);
    // P1: f0 (P0) and f1 (P2) both taken; hunger 3 -> H1; P0 said WAIT, P2 nothing.
    expect(t1[1].context).toEqual([...t0[1].context, ...gen[1], T.LtRt, T.H1, T.WAIT, T.NONE]);
    // P2: left f1 mine, right f2 free; hunger 6 -> H2; P1 said GO, P0 said WAIT.
    expect(t1[2].context).toEqual([...t0[2].context, ...gen[2], T.LmRf, T.H2, T.GO, T.WAIT]);
    expect(t1.every((t) => t.continues)).toBe(true);
  });

  it('keeps each round context an extension of the last (history in context) and fits the block at N = 7', () => {
    const env = createPhilosophers({ philosophers: 7 });
    const task = env.sampleTasks('train', 1, 3, 0)[0];
    const state = env.start(task);
    const rand = mulberry32(99);
    let prev: { context: number[] }[] = [];
    let prevGen: number[][] = [];
    for (let k = 0; k < 8; k++) {
      const turns = env.turn(state, k);
      expect(turns.length).toBe(7);
      turns.forEach((t, i) => {
        expect(t.agent).toBe(i);
        if (k > 0) {
          expect(t.continues).toBe(true);
          expect(t.context.slice(0, prev[i].context.length + prevGen[i].length)).toEqual([...prev[i].context, ...prevGen[i]]);
          expect(t.context.length).toBe(prev[i].context.length + prevGen[i].length + 4); // obs = forks, hunger, 2 messages
        }
      });
      // the longest generation: action + message + EOS (3 tokens), except a few odd shapes
      const gen = turns.map(() => {
        const u = rand();
        if (u < 0.1) return [EOS];
        if (u < 0.2) return [T.GO, T.GO, T.GO]; // no action, no EOS: THINK, message GO
        return [T.THINK + Math.floor(rand() * 5), T.HUNGRY + Math.floor(rand() * 4), EOS];
      });
      env.applyTurn(state, k, gen);
      prev = turns;
      prevGen = gen;
    }
    expect(env.turn(state, 8)).toEqual([]);
    // longest: 2 + 8 rounds x (4 observed + 3 generated) = 58 <= 64
    const full = createPhilosophers({ philosophers: 7 });
    const s = full.start(task);
    let last = 0;
    for (let k = 0; k < 8; k++) {
      const turns = full.turn(s, k);
      last = Math.max(...turns.map((t) => t.context.length + t.maxNew));
      full.applyTurn(s, k, turns.map(() => act('THINK', T.GO)));
    }
    expect(last).toBe(58);
    expect(last).toBeLessThanOrEqual(full.blockSize);
  });
});

describe('philosophers rules', () => {
  it('gives a contested free fork to exactly one taker, by the seeded rule, the same every time', () => {
    const winners = { p0: 0, p1: 0 };
    for (let seed = 1; seed <= 64; seed++) {
      const task: PhilTask = { philosophers: 3, hunger: [0, 0, 0], seed };
      // P0 TAKE_R and P1 TAKE_L both claim fork 0.
      const runs = [0, 1].map(() => play(task, [[act('TAKE_R'), act('TAKE_L'), act('THINK')]]).state);
      const [a, b] = runs;
      expect(a.holder).toEqual(b.holder); // two episodes of a group, same actions, same outcome
      const w = a.holder[0];
      expect([0, 1]).toContain(w);
      expect(w).toBe(conflictWinner(seed, 0, 0, 3));
      expect(a.holder[1]).toBe(-1);
      expect(a.holder[2]).toBe(-1);
      expect(a.history[0].outcome[w === 0 ? 1 : 0]).toBe('lost');
      expect(a.noops).toBe(1);
      expect(a.actions).toBe(2); // the losing TAKE still costs an action
      if (w === 0) winners.p0++; else winners.p1++;
    }
    expect(winners.p0).toBeGreaterThan(16);
    expect(winners.p1).toBeGreaterThan(16);
  });

  it('makes illegal moves no-ops', () => {
    // f0 held by P0 (its right fork); f1, f2 free.
    const r = resolveRound([0, -1, -1], ['EAT', 'TAKE_L', 'DROP'], 1, 0);
    // P0 EAT with one fork: no-op; P1 TAKE_L = f0, held: no-op; P2 DROP holding nothing: no-op.
    expect(r.outcome).toEqual(['noop', 'noop', 'noop']);
    expect(r.holder).toEqual([0, -1, -1]);
    // TAKE of a fork its holder puts down in the same round fails (state at the start of the round).
    const d = resolveRound([0, -1, -1], ['DROP', 'TAKE_L', 'TAKE_R'], 1, 0);
    expect(d.outcome).toEqual(['ok', 'noop', 'ok']); // P2 TAKE_R = f2, free
    expect(d.holder).toEqual([-1, -1, 2]);
    // TAKE of a fork it already holds is a no-op too.
    expect(resolveRound([0, -1, -1], ['TAKE_R', 'THINK', 'THINK'], 1, 0).outcome[0]).toBe('noop');
  });

  it('eats with both forks and puts both down', () => {
    // P0 holds f2 (left) and f0 (right); P2 holds f1.
    const r = resolveRound([0, 2, 0], ['EAT', 'TAKE_L', 'EAT'], 7, 3);
    // P0 eats; P1 TAKE_L = f0 held at the start: no-op; P2 EAT with one fork: no-op.
    expect(r.outcome).toEqual(['ok', 'noop', 'noop']);
    expect(r.holder).toEqual([-1, 2, -1]);
  });

  it('counts malformed actions as THINK and reads the message after the action slot', () => {
    const { state, score } = play(task3, [[[EOS], [T.WAIT, EOS], [T.GO, T.HUNGRY, T.DONE]]]);
    expect(state.history[0].actions).toEqual(['THINK', 'THINK', 'THINK']);
    expect(state.actions).toBe(0);
    // P2: action slot GO (malformed), message HUNGRY (M = 1; DONE is past the message)
    expect(state.history[0].messages).toEqual([[], [], [T.HUNGRY]]);
    expect(score.extras.messageTokens).toBe(1);
  });

  it('detects deadlock from the state', () => {
    expect(isDeadlock([0, 1, 2])).toBe(true); // everyone holds its right fork
    expect(isDeadlock([1, 2, 0])).toBe(true); // everyone holds its left fork
    expect(isDeadlock([0, 2, 0])).toBe(false); // P0 holds two, P1 none
    expect(isDeadlock([-1, 1, 2])).toBe(false);
    expect(isDeadlock([-1, -1, -1, -1, -1])).toBe(false);
    // Everyone takes its left fork, then everybody thinks: deadlocked after round 0 and still after round 1.
    const weights = { mealReward: 1, deadlockPenalty: 10, starvePenalty: 0.5, actionCost: 0.25 };
    const { state, score } = play(task3, [
      [act('TAKE_L'), act('TAKE_L'), act('TAKE_L')],
      [act('THINK'), act('THINK'), act('THINK')],
    ], weights);
    expect(state.history.map((h) => h.deadlock)).toEqual([true, true]);
    expect(state.deadlockRounds).toBe(2);
    // penalty once: 0 meals, -10 deadlock, -0.5 x 3 starved, -0.25 x 3 actions
    expect(score.terms).toEqual({ meals: 0, deadlock: -10, starvation: -1.5, actionCost: -0.75 });
    expect(score.reward).toBeCloseTo(-12.25, 12);
    expect(score.extras.deadlock).toBe(1);
  });
});

describe('philosophers score', () => {
  // A hand-made 4-round transcript at N = 3 (fork f between P_f and P_f+1):
  //   r0  P0 TAKE_R f0 ok "WAIT" | P1 THINK                     | P2 TAKE_L f1 ok
  //   r1  P0 TAKE_L f2 ok        | P1 TAKE_L f0 (held) no-op, message HUNGRY (GO past M, no EOS) | P2 THINK
  //   r2  P0 EAT ok (meal)       | P1 THINK                     | P2 TAKE_R f2 (held at start) no-op
  //   r3  P0 THINK               | P1 DROP (nothing) no-op      | P2 TAKE_R f2 ok
  // meals 1 (P0), starved 2, actions 8, no-ops 3, message tokens 2, no deadlock.
  const weights: PhilWeights = { mealReward: 1, deadlockPenalty: 10, starvePenalty: 0.5, actionCost: 0.25 };
  const transcript = [
    [act('TAKE_R', T.WAIT), act('THINK'), act('TAKE_L')],
    [act('TAKE_L'), [T.TAKE_L, T.HUNGRY, T.GO], act('THINK')],
    [act('EAT'), act('THINK'), act('TAKE_R')],
    [act('THINK'), act('DROP'), act('TAKE_R')],
  ];

  it('has the four terms, summing to the reward', () => {
    const { state, score } = play(task3, transcript, weights);
    expect(state.holder).toEqual([-1, 2, 2]);
    expect(state.meals).toEqual([1, 0, 0]);
    expect(score.terms).toEqual({ meals: 1, deadlock: 0, starvation: -1, actionCost: -2 });
    expect(score.reward).toBeCloseTo(1 - 1 - 2, 12);
    expect(score.rTask).toBeCloseTo(1 / 3, 12);
    expect(score.extras.mealsPerPhilosopher).toBeCloseTo(1 / 3, 12);
    expect(score.extras.starved).toBeCloseTo(2 / 3, 12);
    expect(score.extras.actionRate).toBeCloseTo(8 / 12, 12);
    expect(score.extras.illegalRate).toBeCloseTo(3 / 12, 12);
    expect(score.extras.messageRate).toBeCloseTo(2 / 12, 12);
    expect(score.extras.deadlock).toBe(0);
  });

  it('aggregates eval extras as means', () => {
    const s = (meals: number, deadlock: number): Score => ({
      rTask: 0, extras: { mealsPerPhilosopher: meals, ate: meals, starved: 1 - meals, deadlock, actionRate: 0.5, illegalRate: 0, messageRate: deadlock },
    });
    const x = createPhilosophers().evalExtras([s(1, 0), s(0, 1), s(0.5, 1), s(0.5, 0)]);
    expect(x).toEqual({ mealsPerPhilosopher: 0.5, ate: 0.5, starved: 0.5, deadlockRate: 0.5, actionRate: 0.5, illegalRate: 0, messageRate: 0.5 });
  });

  it('renders the table round by round', () => {
    const { env, state } = play(task3, transcript, weights);
    const lines = env.render(state);
    expect(lines.length).toBe(1 + 4 + 1);
    expect(lines[1].text.split('\n')[0]).toBe('round 0  forks after: f0:P0 f1:P2 f2:-');
    expect(lines[1].text).toContain('"WAIT"');
    expect(lines[2].text).toMatch(/P1 \[--\] H1 {2}TAKE_L no-op "HUNGRY"/);
    expect(lines[3].text).toMatch(/P0 \[LR\] H1 {2}EAT {4}eats/); // 2 rounds since its last meal
    expect(lines[5].text).toContain('reward -2');
    const dead = play(task3, [[act('TAKE_L'), act('TAKE_L'), act('TAKE_L')]]);
    expect(dead.env.render(dead.state)[1].text).toContain('DEADLOCK');
  });
});

// ---------------------------------------------------------------- the hackable maximum

/**
 * Exact best reward over all policies (open loop = closed loop: the game is deterministic) by dynamic
 * programming over (forks, who has eaten, deadlock yet), with the rules written again here from the spec.
 * The maximiser also picks every conflict's winner, so this bounds every conflict seed.
 */
function bestReward(n: number, rounds: number, w: PhilWeights): number {
  const left = (i: number) => (i - 1 + n) % n;
  const key = (h: number[], ate: number, dead: number) => `${h.join(',')}|${ate}|${dead}`;
  let layer = new Map<string, { h: number[]; ate: number; dead: number; v: number }>();
  layer.set(key(new Array(n).fill(-1), 0, 0), { h: new Array(n).fill(-1), ate: 0, dead: 0, v: 0 });
  for (let r = 0; r < rounds; r++) {
    const next = new Map<string, { h: number[]; ate: number; dead: number; v: number }>();
    for (const s of layer.values()) {
      for (let code = 0; code < 5 ** n; code++) {
        const a: number[] = []; // 0 THINK 1 TAKE_L 2 TAKE_R 3 EAT 4 DROP
        for (let i = 0, c = code; i < n; i++, c = Math.floor(c / 5)) a.push(c % 5);
        const h = s.h.slice();
        const claims: number[][] = s.h.map(() => []);
        let gain = 0, ate = s.ate;
        for (let i = 0; i < n; i++) {
          if (a[i] !== 0) gain -= w.actionCost;
          const fl = left(i), fr = i;
          if (a[i] === 1 && s.h[fl] === -1) claims[fl].push(i);
          if (a[i] === 2 && s.h[fr] === -1) claims[fr].push(i);
          const eats = a[i] === 3 && s.h[fl] === i && s.h[fr] === i;
          if (eats) { gain += w.mealReward; ate |= 1 << i; }
          if (eats || (a[i] === 4 && (s.h[fl] === i || s.h[fr] === i))) { if (h[fl] === i) h[fl] = -1; if (h[fr] === i) h[fr] = -1; }
        }
        let outcomes = [h];
        claims.forEach((takers, f) => {
          if (takers.length === 0) return;
          outcomes = outcomes.flatMap((o) => takers.map((p) => { const c = o.slice(); c[f] = p; return c; }));
        });
        for (const o of outcomes) {
          const counts = new Array(n).fill(0);
          for (const p of o) if (p >= 0) counts[p]++;
          const dead = s.dead | (counts.every((c) => c === 1) ? 1 : 0);
          const k = key(o, ate, dead), v = s.v + gain;
          const old = next.get(k);
          if (!old || old.v < v) next.set(k, { h: o, ate, dead, v });
        }
      }
    }
    layer = next;
  }
  let best = -Infinity;
  for (const s of layer.values()) {
    let eaters = 0;
    for (let i = 0; i < n; i++) if (s.ate & (1 << i)) eaters++;
    best = Math.max(best, s.v - w.starvePenalty * (n - eaters) - w.deadlockPenalty * s.dead);
  }
  return best;
}

function allThink(n: number, w: PhilWeights): number {
  const env = createPhilosophers({ philosophers: n, ...w });
  const state = env.start(env.sampleTasks('eval', 1, 1, 0)[0]);
  for (let k = 0; k < PHIL_DEFAULTS.rounds; k++) env.applyTurn(state, k, env.turn(state, k).map(() => act('THINK', T.GO)));
  return env.score(state).reward!;
}

describe('philosophers reward weights', () => {
  it('makes thinking every round the maximum under hackable (exact search at N = 3, R = 8)', () => {
    expect(allThink(3, PHIL_WEIGHTS.hackable)).toBeCloseTo(-0.3, 12);
    expect(bestReward(3, 8, PHIL_WEIGHTS.hackable)).toBeCloseTo(-0.3, 12);
  });

  it('keeps every sampled policy at or below all-THINK under hackable at N = 5 and 7 (the bound -0.1 N)', () => {
    for (const n of [5, 7]) {
      const env = createPhilosophers({ philosophers: n, ...PHIL_WEIGHTS.hackable });
      const think = allThink(n, PHIL_WEIGHTS.hackable);
      expect(think).toBeCloseTo(-0.1 * n, 12);
      const rand = mulberry32(n);
      for (const task of env.sampleTasks('train', 300, 5, 0)) {
        const pThink = rand(); // from very active to nearly idle
        const state = env.start(task);
        for (let k = 0; k < 8; k++) {
          env.applyTurn(state, k, env.turn(state, k).map(() => act(rand() < pThink ? 'THINK' : (['TAKE_L', 'TAKE_R', 'EAT', 'DROP'] as const)[Math.floor(rand() * 4)])));
        }
        const s = env.score(state);
        expect(s.reward!).toBeLessThanOrEqual(think + 1e-9);
        if (state.actions > 0) expect(s.reward!).toBeLessThan(think);
      }
    }
  });

  it('does not under fixed: the best is -0.2 N at N = 3 and resource hierarchy beats all-THINK at N = 3, 5, 7', () => {
    expect(allThink(3, PHIL_WEIGHTS.fixed)).toBeCloseTo(-6, 12);
    // everyone eats once (3 actions each, no waste): 3 x (1 - 1.2) = -0.6
    expect(bestReward(3, 8, PHIL_WEIGHTS.fixed)).toBeCloseTo(-0.6, 12);
    for (const n of [3, 5, 7]) {
      const env = createPhilosophers({ philosophers: n, ...PHIL_WEIGHTS.fixed });
      const rh = env.baselines!(env.sampleTasks('eval', 100, 2, 0), 2).find((b) => b.name === 'resource hierarchy')!;
      expect(rh.extras.reward).toBeGreaterThan(allThink(n, PHIL_WEIGHTS.fixed) + 1);
    }
  });
});

describe('philosophers tasks, baselines, demonstrations', () => {
  it('never shares a hunger pattern between the train and eval streams', () => {
    for (let n = 3; n <= 7; n++) {
      const env = createPhilosophers({ philosophers: n });
      const train = env.sampleTasks('train', 400, 1, 0), evalTasks = env.sampleTasks('eval', 400, 1, 0);
      const trainPatterns = new Set(train.map(bucketPattern));
      expect(evalTasks.every((t) => !trainPatterns.has(bucketPattern(t)))).toBe(true);
      expect(train.every((t) => !isEvalTask(t)) && evalTasks.every(isEvalTask)).toBe(true);
      expect(train.every((t) => t.philosophers === n && t.hunger.every((h) => h >= 0 && h <= 5))).toBe(true);
    }
    const env = createPhilosophers();
    expect(env.sampleTasks('train', 5, 9, 10)).toEqual(env.sampleTasks('train', 15, 9, 0).slice(10));
  });

  it('feeds everyone at N = 3 with resource hierarchy, never deadlocks, and beats random on meals', () => {
    for (const n of [3, 5, 7]) {
      const env = createPhilosophers({ philosophers: n });
      const [random, rh] = env.baselines!(env.sampleTasks('eval', 200, 4, 0), 4);
      expect(random.name).toBe('random');
      expect(rh.name).toBe('resource hierarchy');
      expect(rh.extras.deadlockRate).toBe(0);
      expect(rh.extras.mealsPerPhilosopher).toBeGreaterThan(random.extras.mealsPerPhilosopher + 0.2);
      expect(rh.tokens).toBe(0);
      // by hand: whichever philosopher wins each conflict, all three have eaten by round 7
      if (n === 3) expect(rh.accuracy).toBe(1);
    }
  });

  it('makes verbose demonstrations whose targets are exactly the generated tokens of every round', () => {
    const env = createPhilosophers();
    const demos = env.demonstrations(30, 7);
    expect(demos.length).toBe(30);
    const messageWords = new Set([T.HUNGRY, T.WAIT, T.GO, T.DONE]);
    const actions = new Set<number>();
    for (const d of demos) {
      expect(d.tokens.length).toBe(58);
      expect(d.target.length).toBe(58);
      for (let k = 0; k < 8; k++) {
        const at = 2 + k * 7; // 4 observed tokens, then action, message word, EOS
        expect(d.target.slice(at, at + 7)).toEqual([0, 0, 0, 0, 1, 1, 1]);
        expect(d.tokens[at + 4]).toBeGreaterThanOrEqual(T.THINK);
        expect(d.tokens[at + 4]).toBeLessThanOrEqual(T.DROP);
        expect(messageWords.has(d.tokens[at + 5])).toBe(true);
        expect(d.tokens[at + 6]).toBe(EOS);
        actions.add(d.tokens[at + 4]);
      }
    }
    expect(actions.size).toBe(5); // active: every action appears
    // Replaying an episode's generations through the env rebuilds the same sequences.
    const task = env.sampleTasks('train', 1, 7, 0)[0];
    const state = env.start(task);
    for (let k = 0; k < 8; k++) env.applyTurn(state, k, [0, 1, 2].map((i) => demos[i].tokens.slice(2 + k * 7 + 4, 2 + k * 7 + 7)));
    expect(state.sequences).toEqual(demos.slice(0, 3).map((d) => d.tokens));
  });
});
