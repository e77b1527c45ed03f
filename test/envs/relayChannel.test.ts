// relay's noisy channel and its Scouts: erasures against the binomial rate and the
// hand-derived P(right | n copies) = 1 - 0.9 * 0.3^n, contexts written out by hand.
import { describe, expect, it } from 'vitest';
import {
  createRelay, digitId, erased, holderOf, relayBlockSize, RELAY_EOS, RELAY_ID, type RelayTask,
} from '../../src/envs/relay';
import { mulberry32 } from '../../src/model/random';

const T = RELAY_ID;
const d = digitId;

describe('relay channel noise', () => {
  it('erases each token independently at rate eps (binomial 5-sigma bounds), reproducibly', () => {
    const eps = 0.3, n = 40_000;
    let hits = 0;
    for (let i = 0; i < n; i++) if (erased({ secret: [1], j: 1, known: false, noiseKey: i >> 3 }, i & 7, 0, i % 5, eps)) hits++;
    const sd = Math.sqrt(n * eps * (1 - eps));
    expect(Math.abs(hits - n * eps)).toBeLessThan(5 * sd);
    const task: RelayTask = { secret: [4, 7, 1], j: 2, known: false, noiseKey: 99 };
    for (let p = 0; p < 8; p++) expect(erased(task, 3, 0, p, eps)).toBe(erased(task, 3, 0, p, eps));
    expect(erased(task, 3, 0, 0, 0)).toBe(false);
    // pairs of positions are not correlated: P(both) ~ eps^2
    let both = 0;
    for (let i = 0; i < n; i++) if (erased({ secret: [1], j: 1, known: false, noiseKey: i }, 0, 0, 0, eps) && erased({ secret: [1], j: 1, known: false, noiseKey: i }, 0, 0, 1, eps)) both++;
    expect(Math.abs(both - n * eps * eps)).toBeLessThan(5 * Math.sqrt(n * eps * eps * (1 - eps * eps)));
  });

  it('the Solver reads MASK where a token was erased; the Scout is charged for what it sent', () => {
    const env = createRelay({ channelNoise: 0.5 });
    const [task] = env.sampleTasks('train', 1, 7, 0);
    const sj = d(task.secret[task.j - 1]);
    const sent = [sj, sj, sj, sj, sj, sj];
    let maskedSomewhere = false;
    for (let g = 0; g < 8; g++) {
      const st = env.start(task, g);
      env.applyTurn(st, 0, [[...sent, RELAY_EOS]]);
      const ctx = env.turn(st, 1)[0].context;
      const msg = ctx.slice(ctx.indexOf(T.SEP) + 1, -1);
      expect(msg).toHaveLength(6);
      for (let i = 0; i < 6; i++) expect(msg[i]).toBe(erased(task, g, 0, i, 0.5) ? T.MASK : sj);
      if (msg.includes(T.MASK)) maskedSomewhere = true;
      expect(env.score(st).extras.messageTokens).toBe(6);
      expect(env.score(st).extras.erasedTokens).toBe(msg.filter((x) => x === T.MASK).length);
    }
    expect(maskedSomewhere).toBe(true);
  });

  it('episodes of one group see different erasures; the same replica sees the same', () => {
    const env = createRelay({ channelNoise: 0.3 });
    const [task] = env.sampleTasks('eval', 1, 20251, 0);
    const pattern = (g: number) => Array.from({ length: 8 }, (_, i) => (erased(task, g, 0, i, 0.3) ? 1 : 0)).join('');
    const patterns = new Set(Array.from({ length: 8 }, (_, g) => pattern(g)));
    expect(patterns.size).toBeGreaterThan(1);
    const again = createRelay({ channelNoise: 0.3 }).sampleTasks('eval', 1, 20251, 0)[0];
    expect(again.noiseKey).toBe(task.noiseKey);
  });

  it('n copies are read right with probability 1 - 0.9 * 0.3^n (a Solver that guesses when all are erased)', () => {
    const eps = 0.3, N = 6000;
    const env = createRelay({ channelNoise: eps });
    const tasks = env.sampleTasks('train', N, 5, 0).filter((t) => !t.known);
    const guess = mulberry32(11);
    for (const n of [1, 2, 3]) {
      let right = 0;
      for (const task of tasks) {
        const st = env.start(task, 0);
        const sj = d(task.secret[task.j - 1]);
        env.applyTurn(st, 0, [[...Array(n).fill(sj), RELAY_EOS]]);
        const ctx = env.turn(st, 1)[0].context;
        const heard = ctx.slice(ctx.indexOf(T.SEP) + 1, -1).find((x) => x !== T.MASK);
        env.applyTurn(st, 1, [[heard ?? d(Math.floor(guess() * 10)), RELAY_EOS]]);
        right += env.score(st).rTask;
      }
      const p = 1 - 0.9 * eps ** n, m = tasks.length;
      expect(Math.abs(right - m * p), `n = ${n}: ${right}/${m} vs ${p}`).toBeLessThan(5 * Math.sqrt(m * p * (1 - p)) + 1);
    }
  });

  it('copy demonstrations: six copies (NOTE first when the Solver knows), Solver demos only when a copy survives or it knows', () => {
    const eps = 0.3;
    const env = createRelay({ channelNoise: eps, demoCopies: 6, demoSilence: 0.1, flagAwareDemos: true });
    const demos = env.demonstrations(4000, 1);
    let six = 0, scouts = 0, masked = 0, solverTokens = 0;
    for (const demo of demos) {
      const first = demo.target.indexOf(1);
      const ctx = demo.tokens.slice(0, first), gen = demo.tokens.slice(first);
      if (ctx[1] === T.SCOUT) {
        scouts++;
        const sj = ctx[2 + (ctx[ctx.length - 3] - d(0)) - 1];
        const known = ctx[ctx.length - 2] === T.KNOWN;
        const copies = [...(known ? [T.NOTE] : []), ...Array(6).fill(sj), RELAY_EOS];
        if (gen.join() === copies.join()) six++;
      } else {
        const sep = ctx.indexOf(T.SEP);
        const msg = ctx.slice(sep + 1, -1);
        const known = ctx[4] !== T.MASK;
        const answer = gen[0];
        masked += msg.filter((x) => x === T.MASK).length;
        solverTokens += msg.length;
        if (!known) expect(msg, 'an unknown-task Solver demo must hold a surviving copy of its answer').toContain(answer);
      }
    }
    // 90% non-silent x 80% verbose of the Scout demos are the six-copy protocol
    expect(six / scouts).toBeGreaterThan(0.68);
    expect(six / scouts).toBeLessThan(0.76);
    // the Solver trained on messages that went through the channel (erasure rate near eps, minus demos dropped for total erasure)
    expect(masked / solverTokens).toBeGreaterThan(0.2);
    expect(masked / solverTokens).toBeLessThan(0.32);
  });
});

describe('relay copy demonstrations of every length (demoLengths every)', () => {
  it('unknown tasks: 1..demoCopies copies of s_j, each count about as often; known tasks: NOTE s_1..s_k REPEAT s_1..s_k, no copy count', () => {
    const M = 8, most = 6;
    const env = createRelay({ channelNoise: 0.3, demoCopies: most, demoLengths: 'every', demoSilence: 0.1, flagAwareDemos: true, maxMessage: M });
    const counts = new Array(M + 1).fill(0);
    let unknown = 0, silentUnknown = 0, known = 0, knownVerbose = 0, other = 0;
    for (const demo of env.demonstrations(8000, 1)) {
      const first = demo.target.indexOf(1);
      const ctx = demo.tokens.slice(0, first), gen = demo.tokens.slice(first, -1); // EOS off
      if (ctx[1] !== T.SCOUT) continue;
      const secret = ctx.slice(2, 5), j = ctx[6] - d(0), sj = secret[j - 1];
      if (ctx[7] === T.UNKNOWN) {
        unknown++;
        if (gen.length === 0) { silentUnknown++; continue; }
        if (gen.every((x) => x === sj)) counts[gen.length]++; else other++;
      } else {
        known++;
        if (gen.join() === [T.NOTE, ...secret, T.REPEAT, ...secret].join()) knownVerbose++;
      }
    }
    expect(other, 'an unknown-task demo that is not copies of s_j').toBe(0);
    // each count 1..6: 1 / 6 of the unknown demos that speak (binomial, 5 sigma); none longer
    const spoke = unknown - silentUnknown, p = 1 / most;
    expect(counts[7] + counts[8]).toBe(0);
    for (let n = 1; n <= most; n++) expect(Math.abs(counts[n] - spoke * p), `${n} copies: ${counts[n]} of ${spoke}`).toBeLessThan(5 * Math.sqrt(spoke * p * (1 - p)));
    expect(silentUnknown / unknown).toBeGreaterThan(0.07);
    expect(silentUnknown / unknown).toBeLessThan(0.13);
    // known: 90% non-silent x 80% verbose
    expect(knownVerbose / known).toBeGreaterThan(0.68);
    expect(knownVerbose / known).toBeLessThan(0.76);
  });

  it('refuses a demoLengths it does not know', () => {
    expect(() => createRelay({ demoCopies: 6, demoLengths: 'uniform' as never })).toThrow(/demoLengths must be 'verbose' or 'every', got "uniform"/);
  });
});

describe('relay with several Scouts', () => {
  it('splits the secret into contiguous parts, sizes differing by at most one', () => {
    const parts = (k: number, N: number) => Array.from({ length: k }, (_, p) => holderOf(p, k, N));
    expect(parts(6, 4)).toEqual([0, 0, 1, 2, 2, 3]);
    expect(parts(6, 6)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(parts(3, 1)).toEqual([0, 0, 0]);
    expect(parts(4, 2)).toEqual([0, 0, 1, 1]);
  });

  it('lays out N Scout contexts (own part, MASK elsewhere) and the Solver reading every message', () => {
    const env = createRelay({ digits: 4, scouts: 2, maxMessage: 4 });
    const task: RelayTask = { secret: [4, 7, 1, 9], j: 3, known: false };
    const st = env.start(task);
    const turns = env.turn(st, 0);
    expect(turns.map((t) => t.agent)).toEqual([0, 1]);
    expect(turns[0].context).toEqual([T.BOS, T.SCOUT, d(4), d(7), T.MASK, T.MASK, T.Q, d(3), T.UNKNOWN, T.SEP]);
    expect(turns[1].context).toEqual([T.BOS, T.SCOUT, T.MASK, T.MASK, d(1), d(9), T.Q, d(3), T.UNKNOWN, T.SEP]);
    env.applyTurn(st, 0, [[RELAY_EOS], [T.DIGIT, d(1), RELAY_EOS]]);
    const solver = env.turn(st, 1)[0];
    expect(solver.agent).toBe(2);
    expect(solver.context).toEqual([T.BOS, T.SOLVER, T.Q, d(3), T.MASK, T.MASK, T.MASK, T.MASK, T.SEP, T.SEP, T.DIGIT, d(1), T.ANS]);
    env.applyTurn(st, 1, [[d(1), RELAY_EOS]]);
    // the holder of s_3 is Scout 2 (it spoke); Scout 1 (not the holder) was silent
    expect(env.score(st)).toEqual({ rTask: 1, extras: { known: 0, silent: 0, messageTokens: 2, othersSilent: 1 } });
    expect(env.blockSize).toBe(relayBlockSize(4, 4, 2));
    expect(relayBlockSize(4, 4, 2)).toBe(Math.ceil((4 + 6 + 2 * 4 + 1 + 2) / 8) * 8);
  });

  it('reports the silence of Scouts that do not hold the queried digit', () => {
    const env = createRelay({ digits: 4, scouts: 4, maxMessage: 4 });
    const s = (othersSilent: number) => ({ rTask: 1, extras: { known: 0, silent: 0, messageTokens: 1, othersSilent } });
    expect(env.evalExtras([s(1), s(2 / 3), s(0)])).toEqual({ silenceKnown: 0, silenceUnknown: 0, silenceOthers: (1 + 2 / 3) / 3 });
  });

  it('every Scout gets a demo, the holder\'s short formats name s_j, and the Solver demo reads all N messages', () => {
    const env = createRelay({ digits: 6, scouts: 3, maxMessage: 8 });
    const demos = env.demonstrations(600, 2);
    let solverDemos = 0;
    for (const demo of demos) {
      const first = demo.target.indexOf(1);
      const ctx = demo.tokens.slice(0, first);
      if (ctx[1] === T.SOLVER) {
        solverDemos++;
        const seps = ctx.filter((x) => x === T.SEP).length;
        expect(seps).toBe(3); // after the view, and between the three messages
      } else {
        expect(ctx.slice(2, 8).filter((x) => x === T.MASK)).toHaveLength(4); // each Scout sees 2 of 6 digits
      }
    }
    expect(solverDemos).toBeGreaterThan(100);
  });
});
