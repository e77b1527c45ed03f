import { describe, expect, it } from 'vitest';
import {
  createRelay, digitId, greedyVerboseMessage, isEvalTask, relayBlockSize,
  RELAY_DEFAULTS, RELAY_EOS, RELAY_ID, RELAY_VOCAB, type RelayTask,
} from '../../src/envs/relay';
import type { Score } from '../../src/envs/types';

const T = RELAY_ID;
const d = digitId;
const key = (t: RelayTask) => `${t.secret.join('')}:${t.j}:${t.known ? 1 : 0}`;
const pairKey = (t: RelayTask) => `${t.secret.join('')}:${t.j}`;

/** Plays one episode with the given Scout and Solver generations. */
function play(task: RelayTask, scout: number[], solver: number[], params = {}) {
  const env = createRelay(params);
  const state = env.start(task);
  env.applyTurn(state, 0, [scout]);
  env.applyTurn(state, 1, [solver]);
  return { env, state, score: env.score(state) };
}

describe('relay vocabulary', () => {
  it('has unique words, fewer than 32 ids, fixed EOS', () => {
    expect(new Set(RELAY_VOCAB).size).toBe(RELAY_VOCAB.length);
    expect(RELAY_VOCAB.length).toBeLessThanOrEqual(32);
    expect(RELAY_EOS).toBe(2);
    expect(RELAY_VOCAB[RELAY_EOS]).toBe('EOS');
    for (let i = 0; i < 10; i++) expect(RELAY_VOCAB[d(i)]).toBe(String(i));
    const env = createRelay();
    expect(env.eos).toBe(RELAY_EOS);
    expect(env.vocab).toBe(RELAY_VOCAB);
  });

  it('blockSize covers the longest turn, a multiple of 8, 24 for defaults, <= 32 over the ranges', () => {
    expect(createRelay().blockSize).toBe(24);
    for (let k = 1; k <= 5; k++) {
      for (let m = 1; m <= 12; m++) {
        const b = relayBlockSize(k, m);
        expect(b % 8).toBe(0);
        expect(b).toBeGreaterThanOrEqual(k + m + 8);
        expect(b).toBeLessThanOrEqual(32);
      }
    }
  });

  it('rejects bad and unknown parameters', () => {
    expect(() => createRelay({ digits: 0 })).toThrow();
    expect(() => createRelay({ digits: 7 })).toThrow();
    expect(() => createRelay({ digits: 2, scouts: 3 })).toThrow(/scouts/);
    expect(() => createRelay({ channelNoise: 0.95 })).toThrow(/channelNoise/);
    expect(() => createRelay({ maxMessage: 13 })).toThrow();
    expect(() => createRelay({ pKnown: 1.5 })).toThrow();
    expect(() => createRelay({ digitz: 3 } as never)).toThrow(/unknown/);
    expect(RELAY_DEFAULTS).toEqual({ digits: 3, pKnown: 0.3, pKnownTrain: 0.5, maxMessage: 8, demoSilence: 0.1, flagAwareDemos: true, channelNoise: 0, scouts: 1, demoCopies: 0, demoLengths: 'verbose', demoNoise: null });
  });
});

describe('relay turns', () => {
  const task: RelayTask = { secret: [4, 7, 1], j: 2, known: false };

  it('lays out the Scout and Solver contexts exactly', () => {
    const env = createRelay();
    const state = env.start(task);
    const scout = env.turn(state, 0)[0];
    expect(scout).toEqual({
      role: 'scout',
      agent: 0,
      context: [T.BOS, T.SCOUT, d(4), d(7), d(1), T.Q, d(2), T.UNKNOWN, T.SEP],
      maxNew: 9,
      message: true,
    });
    env.applyTurn(state, 0, [[T.DIGIT, d(7), RELAY_EOS]]);
    const solver = env.turn(state, 1)[0];
    expect(solver).toEqual({
      role: 'solver',
      agent: 1,
      context: [T.BOS, T.SOLVER, T.Q, d(2), T.MASK, T.MASK, T.MASK, T.SEP, T.DIGIT, d(7), T.ANS],
      maxNew: 2,
      message: false,
    });
    env.applyTurn(state, 1, [[d(7), RELAY_EOS]]);
    expect(env.turn(state, 2)).toEqual([]);
  });

  it('shows the secret to a Solver that knows; silence gives an empty message', () => {
    const env = createRelay();
    const state = env.start({ ...task, known: true });
    expect(env.turn(state, 0)[0].context[7]).toBe(T.KNOWN);
    env.applyTurn(state, 0, [[RELAY_EOS]]);
    expect(env.turn(state, 1)[0].context).toEqual([T.BOS, T.SOLVER, T.Q, d(2), d(4), d(7), d(1), T.SEP, T.ANS]);
  });

  it('truncates a message that ran out of tokens without EOS to M', () => {
    const env = createRelay({ maxMessage: 3 });
    const state = env.start(task);
    expect(env.turn(state, 0)[0].maxNew).toBe(4);
    env.applyTurn(state, 0, [[d(1), d(2), d(3), d(4)]]);
    expect(state.messages![0]).toEqual([d(1), d(2), d(3)]);
    expect(env.turn(state, 1)[0].context.slice(-4)).toEqual([d(1), d(2), d(3), T.ANS]);
    expect(env.score(state).extras.messageTokens).toBe(3);
  });

  it('refuses the Solver turn before the Scout turn', () => {
    const env = createRelay();
    expect(() => env.turn(env.start(task), 1)).toThrow();
  });
});

describe('relay score', () => {
  const task: RelayTask = { secret: [4, 7, 1], j: 2, known: false };

  it('scores the first answer token against s_j', () => {
    expect(play(task, [d(7), RELAY_EOS], [d(7), RELAY_EOS]).score).toEqual({
      rTask: 1, extras: { known: 0, silent: 0, messageTokens: 1 },
    });
    expect(play(task, [d(7), RELAY_EOS], [d(4), RELAY_EOS]).score.rTask).toBe(0);
    expect(play(task, [d(7), RELAY_EOS], [RELAY_EOS]).score.rTask).toBe(0);
  });

  it('scores silence on what the Solver answers', () => {
    const unknownRight = play(task, [RELAY_EOS], [d(7), RELAY_EOS]).score;
    expect(unknownRight).toEqual({ rTask: 1, extras: { known: 0, silent: 1, messageTokens: 0 } });
    expect(play(task, [RELAY_EOS], [d(3), RELAY_EOS]).score.rTask).toBe(0);
    const known = play({ ...task, known: true }, [RELAY_EOS], [d(7), RELAY_EOS]).score;
    expect(known).toEqual({ rTask: 1, extras: { known: 1, silent: 1, messageTokens: 0 } });
  });

  it('aggregates silence by flag', () => {
    const env = createRelay();
    const s = (known: number, silent: number): Score => ({ rTask: 1, extras: { known, silent, messageTokens: 0 } });
    expect(env.evalExtras([s(1, 1), s(1, 0), s(1, 1), s(1, 1), s(0, 0), s(0, 1), s(0, 0)]))
      .toEqual({ silenceKnown: 0.75, silenceUnknown: 1 / 3 });
    expect(env.evalExtras([s(1, 1)])).toEqual({ silenceKnown: 1, silenceUnknown: 0 });
    expect(env.evalExtras([])).toEqual({ silenceKnown: 0, silenceUnknown: 0 });
  });

  it('renders a readable transcript', () => {
    const { env, state } = play(task, [RELAY_EOS], [d(7), RELAY_EOS]);
    const lines = env.render(state);
    expect(lines.map((l) => [l.role, l.generated])).toEqual([['scout', false], ['scout', true], ['solver', false], ['solver', true]]);
    expect(lines[0].text).toBe('Scout sees 4 7 1, asked position 2, Solver knows: no');
    expect(lines[1].text).toBe('(silent)');
    expect(lines[1].tokens).toEqual([RELAY_EOS]);
    expect(lines[3].text).toContain('7');
    expect(lines[3].text).toContain('correct');
    expect(env.render(env.start(task))).toHaveLength(1);
  });
});

describe('relay task streams', () => {
  it('never shares a task between train and eval, and matches the known rates', () => {
    const env = createRelay();
    const train = env.sampleTasks('train', 20000, 1, 0);
    const evalTasks = env.sampleTasks('eval', 20000, 1, 0);
    const trainPairs = new Set(train.map(pairKey));
    expect(evalTasks.filter((t) => trainPairs.has(pairKey(t)))).toEqual([]);
    expect(train.every((t) => !isEvalTask(t))).toBe(true);
    expect(evalTasks.every((t) => isEvalTask(t))).toBe(true);
    const rate = (ts: RelayTask[]) => ts.filter((t) => t.known).length / ts.length;
    expect(Math.abs(rate(train) - 0.5)).toBeLessThan(0.02);
    expect(Math.abs(rate(evalTasks) - 0.3)).toBeLessThan(0.02);
    // About 20% of (secret, j) pairs are eval-only.
    const evalPairs = new Set(evalTasks.map(pairKey)).size;
    expect(evalPairs / 3000).toBeGreaterThan(0.15);
    expect(evalPairs / 3000).toBeLessThan(0.25);
    const wellFormed = (t: RelayTask) => t.secret.length === 3 && t.j >= 1 && t.j <= 3
      && t.secret.every((x) => Number.isInteger(x) && x >= 0 && x <= 9);
    expect([...train, ...evalTasks].every(wellFormed)).toBe(true);
  });

  it('keeps the streams apart for every k, including k = 1 (flag in the key)', () => {
    for (let k = 1; k <= 5; k++) {
      const env = createRelay({ digits: k });
      const train = env.sampleTasks('train', 3000, 7, 0);
      const evalTasks = env.sampleTasks('eval', 3000, 7, 0);
      const trainKeys = new Set(train.map(key));
      expect(evalTasks.filter((t) => trainKeys.has(key(t)))).toEqual([]);
      expect(evalTasks.some((t) => t.known)).toBe(true);
      expect(evalTasks.some((t) => !t.known)).toBe(true);
    }
    const env1 = createRelay({ digits: 1 });
    const train = env1.sampleTasks('train', 3000, 7, 0);
    expect(new Set(train.map((t) => t.secret[0])).size).toBe(10); // every digit is trained on
  });

  it('is seeded: same (split, count, seed, index) gives the same tasks; index positions the stream', () => {
    const env = createRelay();
    expect(env.sampleTasks('train', 50, 3, 10)).toEqual(env.sampleTasks('train', 50, 3, 10));
    expect(env.sampleTasks('train', 50, 3, 10)).toEqual(env.sampleTasks('train', 60, 3, 0).slice(10));
    expect(env.sampleTasks('train', 50, 3, 0)).not.toEqual(env.sampleTasks('train', 50, 4, 0));
    expect(createRelay().demonstrations(100, 5)).toEqual(createRelay().demonstrations(100, 5));
  });
});

describe('relay demonstrations', () => {
  const env = createRelay();
  const demos = env.demonstrations(20000, 11);
  const scoutDemos = demos.filter((x) => x.tokens[1] === T.SCOUT);
  const solverDemos = demos.filter((x) => x.tokens[1] === T.SOLVER);
  const generatedOf = (x: { tokens: number[]; target: number[] }) => x.tokens.filter((_, i) => x.target[i] === 1);

  it('has the requested count, valid ids, lengths within blockSize, targets only on the generated tail', () => {
    expect(demos).toHaveLength(20000);
    expect(scoutDemos.length + solverDemos.length).toBe(demos.length);
    const bad = demos.filter((x) => {
      const first = x.target.indexOf(1);
      return !(
        x.target.length === x.tokens.length && x.tokens.length <= env.blockSize && x.target[0] === 0
        && x.tokens.every((t) => Number.isInteger(t) && t >= 0 && t < RELAY_VOCAB.length)
        && first > 0 && x.target.every((v, i) => v === (i >= first ? 1 : 0))
        && x.tokens[x.tokens.length - 1] === RELAY_EOS
        && x.tokens[first - 1] === (x.tokens[1] === T.SCOUT ? T.SEP : T.ANS)
      );
    });
    expect(bad).toEqual([]);
  });

  it('silences about demoSilence of Scout demos, independently of the flag', () => {
    const silent = (x: { tokens: number[]; target: number[] }) => generatedOf(x).length === 1;
    const known = scoutDemos.filter((x) => x.tokens[7] === T.KNOWN);
    const unknown = scoutDemos.filter((x) => x.tokens[7] === T.UNKNOWN);
    const rate = (xs: typeof demos) => xs.filter(silent).length / xs.length;
    expect(Math.abs(rate(scoutDemos) - 0.1)).toBeLessThan(0.015);
    expect(Math.abs(rate(known) - 0.1)).toBeLessThan(0.02);
    expect(Math.abs(rate(unknown) - 0.1)).toBeLessThan(0.02);
    const none = createRelay({ demoSilence: 0 }).demonstrations(2000, 1).filter((x) => x.tokens[1] === T.SCOUT);
    expect(none.some(silent)).toBe(false);
  });

  it('makes most Scout demos the 8-token verbose protocol, flag-aware', () => {
    const verbose = scoutDemos.filter((x) => generatedOf(x).length === 9);
    expect(verbose.length / scoutDemos.length).toBeGreaterThan(0.65);
    for (const x of verbose) {
      const secret = x.tokens.slice(2, 5);
      const msg = generatedOf(x).slice(0, -1);
      expect(msg).toEqual([x.tokens[7] === T.KNOWN ? T.NOTE : T.SECRET, ...secret, T.REPEAT, ...secret]);
    }
    expect(greedyVerboseMessage({ secret: [4, 7, 1], j: 2, known: false }))
      .toEqual([T.SECRET, d(4), d(7), d(1), T.REPEAT, d(4), d(7), d(1)]);
    expect(greedyVerboseMessage({ secret: [4, 7, 1], j: 2, known: true }, 8, false)[0]).toBe(T.SECRET);
    const plain = createRelay({ flagAwareDemos: false }).demonstrations(2000, 1);
    expect(plain.some((x) => x.tokens.includes(T.NOTE))).toBe(false);
    // A minority of shorter formats exists.
    const short = scoutDemos.filter((x) => { const n = generatedOf(x).length; return n > 1 && n < 9; });
    expect(short.length / scoutDemos.length).toBeGreaterThan(0.1);
  });

  it('trains the Solver only on correct answers it can give', () => {
    expect(solverDemos.length).toBeGreaterThan(8000);
    let silentKnown = 0;
    for (let i = 0; i < demos.length; i++) {
      const x = demos[i];
      if (x.tokens[1] !== T.SOLVER) continue;
      const j = x.tokens[3] - d(0);
      const view = x.tokens.slice(4, 7);
      const sep = 7;
      const ans = x.tokens.indexOf(T.ANS);
      const message = x.tokens.slice(sep + 1, ans);
      const answer = generatedOf(x);
      expect(answer).toHaveLength(2);
      expect(answer[1]).toBe(RELAY_EOS);
      const known = view[0] !== T.MASK;
      if (known) expect(answer[0]).toBe(view[j - 1]);
      else expect(message).toContain(answer[0]); // it came from the message
      // Each Solver demo follows its episode's Scout demo: the answer is that secret's s_j.
      const scout = demos[i - 1];
      expect(scout.tokens[1]).toBe(T.SCOUT);
      expect(scout.tokens[6]).toBe(x.tokens[3]);
      expect(answer[0]).toBe(scout.tokens[2 + j - 1]);
      expect(generatedOf(scout).slice(0, -1)).toEqual(message);
      if (message.length === 0) {
        expect(known).toBe(true); // no demo asks an uninformed Solver to guess
        silentKnown++;
      }
    }
    expect(silentKnown).toBeGreaterThan(0);
  });

  it('stays in range for every k and M', () => {
    for (let k = 1; k <= 5; k++) {
      for (const m of [1, 2, 5, 8, 12]) {
        const e = createRelay({ digits: k, maxMessage: m });
        for (const x of e.demonstrations(300, k * 100 + m)) {
          expect(x.tokens.length).toBeLessThanOrEqual(e.blockSize);
          expect(x.tokens.every((t) => t >= 0 && t < RELAY_VOCAB.length)).toBe(true);
          expect(x.target.filter((v) => v === 1).length).toBeLessThanOrEqual(m + 1);
        }
      }
    }
  });
});
