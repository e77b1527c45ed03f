import { describe, expect, it } from 'vitest';
import {
  ADD_EOS, ADD_VOCAB, createAddition, isEvalProblem, type AddState, type AddTask, type Topology,
} from '../../src/envs/addition';
import type { Demonstration, Environment, Turn } from '../../src/envs/types';
import { messageParts } from '../../src/rl/reward';

/** Token ids of space-separated vocabulary words (the layouts as written in the file header). */
function ids(words: string): number[] {
  return words.split(' ').filter((w) => w !== '').map((w) => {
    const id = ADD_VOCAB.indexOf(w as (typeof ADD_VOCAB)[number]);
    if (id < 0) throw new Error(`no word ${w}`);
    return id;
  });
}
const words = (tokens: number[]) => tokens.map((t) => ADD_VOCAB[t]);
const EOS = ids('EOS')[0];
const task = (a: number, b: number): AddTask => ({ a, b });

/** Runs an episode as the Trainer does (turn k until []), feeding the scripted generations in order. */
function play(env: Environment<AddTask, AddState>, t: AddTask, script: string[]) {
  const state = env.start(t);
  const turns: Turn[] = [];
  let k = 0;
  for (; ; k++) {
    const ts = env.turn(state, k);
    if (ts.length === 0) break;
    expect(ts.length).toBe(1);
    if (k >= script.length) throw new Error(`turn ${k} was not scripted`);
    turns.push(ts[0]);
    env.applyTurn(state, k, [ids(script[k])]);
  }
  expect(k).toBe(script.length); // every scripted generation was asked for
  return { state, turns, score: env.score(state), lines: env.render(state) };
}

const alone = createAddition({ topology: 'alone' });
const hint = createAddition({ topology: 'hint' });
const critic = createAddition({ topology: 'critic' });

describe('addition vocabulary and shape', () => {
  it('unique words, digits in order, EOS, small block, the slots of the brief', () => {
    expect(new Set(ADD_VOCAB).size).toBe(ADD_VOCAB.length);
    expect(ADD_VOCAB[ADD_EOS]).toBe('EOS');
    const zero = ADD_VOCAB.indexOf('0');
    for (let d = 0; d < 10; d++) expect(ADD_VOCAB[zero + d]).toBe(String(d));
    for (const env of [alone, hint, critic]) {
      expect(env.vocab).toBe(ADD_VOCAB);
      expect(env.eos).toBe(EOS);
      expect(env.blockSize).toBe(24); // the same for every topology: one Actor checkpoint serves all
      expect(env.roleSlot).toEqual({ actor: 'actor', collaborator: 'collaborator', critic: 'collaborator' });
    }
  });

  it('rejects unknown options, topologies and out-of-range rates', () => {
    expect(() => createAddition({ topology: 'hint', dropCary: 0.5 } as never)).toThrow(/unknown option/);
    expect(() => createAddition({ topology: 'chat' as Topology })).toThrow(/topology/);
    expect(() => createAddition({ topology: 'hint', dropCarry: 1.5 })).toThrow(/dropCarry/);
  });
});

describe('scorer: the digits of a+b, then EOS, nothing else', () => {
  const score = (a: number, b: number, answer: string) => play(alone, task(a, b), [answer]).score.rTask;
  it('37 + 48 = 85', () => {
    expect(score(37, 48, '8 5 EOS')).toBe(1);
    expect(score(37, 48, '7 5 EOS')).toBe(0); // carry dropped
    expect(score(37, 48, '8 4 EOS')).toBe(0);
    expect(score(37, 48, '8 5')).toBe(0); // no EOS
    expect(score(37, 48, '8 5 0 EOS')).toBe(0); // extra digit
    expect(score(37, 48, '0 8 5 EOS')).toBe(0); // leading zero
    expect(score(37, 48, '8 EOS')).toBe(0);
    expect(score(37, 48, 'EOS')).toBe(0);
    expect(score(37, 48, 'CARRY 8 5 EOS')).toBe(0);
  });
  it('three-digit sums: 99 + 99 = 198, 55 + 45 = 100', () => {
    expect(score(99, 99, '1 9 8 EOS')).toBe(1);
    expect(score(99, 99, '9 8 EOS')).toBe(0);
    expect(score(99, 99, '1 8 8 EOS')).toBe(0);
    expect(score(55, 45, '1 0 0 EOS')).toBe(1);
    expect(score(55, 45, '9 0 EOS')).toBe(0);
  });
  it('extras: correct and carry (units 7 + 8 carry; 1 + 4 do not; 5 + 5 do)', () => {
    expect(play(alone, task(37, 48), ['8 5 EOS']).score.extras).toMatchObject({ correct: 1, carry: 1 });
    expect(play(alone, task(21, 34), ['5 5 EOS']).score.extras).toMatchObject({ correct: 1, carry: 0 });
    expect(play(alone, task(15, 25), ['3 0 EOS']).score.extras).toMatchObject({ correct: 0, carry: 1 });
  });
});

describe('train / eval split', () => {
  const all: AddTask[] = [];
  for (let a = 10; a <= 99; a++) for (let b = 10; b <= 99; b++) all.push(task(a, b));
  const key = (t: AddTask) => `${t.a}+${t.b}`;
  const evalSet = new Set(all.filter(isEvalProblem).map(key));

  it('holds out at least 1000 of the 8100 problems, about 45% of them with a carry', () => {
    expect(evalSet.size).toBeGreaterThanOrEqual(1000);
    expect(evalSet.size).toBeLessThan(8100 / 2);
    const carries = all.filter((t) => isEvalProblem(t) && (t.a % 10) + (t.b % 10) >= 10).length;
    expect(carries / evalSet.size).toBeGreaterThan(0.4);
    expect(carries / evalSet.size).toBeLessThan(0.5);
  });

  it('the eval stream gives 1000 distinct held-out problems, and all of them before repeating', () => {
    const first = hint.sampleTasks('eval', 1000, 7, 0);
    expect(new Set(first.map(key)).size).toBe(1000);
    for (const t of first) expect(evalSet.has(key(t))).toBe(true);
    const whole = critic.sampleTasks('eval', evalSet.size, 7, 0);
    expect(new Set(whole.map(key))).toEqual(evalSet);
  });

  it('train tasks are never eval tasks, and both streams are positioned by index', () => {
    const train = hint.sampleTasks('train', 5000, 3, 0);
    for (const t of train) {
      expect(evalSet.has(key(t))).toBe(false);
      expect(t.a >= 10 && t.a <= 99 && t.b >= 10 && t.b <= 99).toBe(true);
    }
    expect(new Set(train.map(key)).size).toBeGreaterThan(3000); // spread over the train set
    expect(hint.sampleTasks('train', 5, 3, 10)).toEqual(train.slice(10, 15));
    expect(hint.sampleTasks('eval', 5, 3, 10)).toEqual(hint.sampleTasks('eval', 20, 3, 0).slice(10, 15));
    expect(hint.sampleTasks('eval', 20, 4, 0)).not.toEqual(hint.sampleTasks('eval', 20, 3, 0));
  });
});

describe('turn protocols on hand-made generations', () => {
  it('alone: one Actor turn on the problem', () => {
    const { turns, score } = play(alone, task(37, 48), ['7 5 EOS']);
    expect(turns).toEqual([{ role: 'actor', agent: 0, context: ids('BOS ACTOR 3 7 + 4 8 ANS'), maxNew: 4, message: false, countsAsTurn: false }]);
    expect(score.rTask).toBe(0);
  });

  it('hint: the Collaborator speaks, then the Actor answers from [problem; hint]', () => {
    const { turns, score } = play(hint, task(37, 48), ['CARRY EOS', '8 5 EOS']);
    expect(turns.map((t) => [t.role, words(t.context).join(' '), t.maxNew, t.message])).toEqual([
      ['collaborator', 'BOS COLLAB 3 7 + 4 8 SEP', 5, true],
      ['actor', 'BOS ACTOR 3 7 + 4 8 HINT CARRY ANS', 4, false],
    ]);
    expect(turns[0].agent).not.toBe(turns[1].agent);
    expect(score.rTask).toBe(1);
    expect(score.extras).toMatchObject({ hintGiven: 1, hintCorrect: 1 });
  });

  it('hint: silence leaves the Actor the alone context; a hint is read up to 4 tokens', () => {
    const silent = play(hint, task(21, 34), ['EOS', '5 5 EOS']);
    expect(words(silent.turns[1].context).join(' ')).toBe('BOS ACTOR 2 1 + 3 4 ANS');
    expect(silent.score.extras).toMatchObject({ correct: 1, hintGiven: 0, hintCorrect: 0 });
    const long = play(hint, task(21, 34), ['NOCARRY OK OK OK OK', '5 5 EOS']); // 5 tokens, no EOS
    expect(words(long.turns[1].context).join(' ')).toBe('BOS ACTOR 2 1 + 3 4 HINT NOCARRY OK OK OK ANS');
    expect(long.score.extras.hintCorrect).toBe(0); // only the bare right word counts as a correct hint
    expect(play(hint, task(21, 34), ['CARRY EOS', '6 5 EOS']).score.extras).toMatchObject({ hintCorrect: 0, correct: 0 });
  });

  it('critic: OK ends the episode after two turns; the draft is the final answer', () => {
    const { turns, score } = play(critic, task(21, 34), ['5 5 EOS', 'OK EOS']);
    expect(turns.map((t) => [t.role, words(t.context).join(' '), t.maxNew, t.message])).toEqual([
      ['actor', 'BOS ACTOR 2 1 + 3 4 ANS', 4, false],
      ['critic', 'BOS CRITIC 2 1 + 3 4 DRAFT 5 5 SEP', 5, true],
    ]);
    expect(score.rTask).toBe(1);
    expect(score.extras).toMatchObject({ draftCorrect: 1, criticOk: 1, criticSilent: 0 });
    // OK on a wrong draft keeps it wrong
    expect(play(critic, task(37, 48), ['7 5 EOS', 'OK EOS']).score.extras).toMatchObject({ correct: 0, draftCorrect: 0, criticOk: 1 });
  });

  it('critic: silence also accepts the draft', () => {
    const { turns, score } = play(critic, task(37, 48), ['8 5 EOS', 'EOS']);
    expect(turns.length).toBe(2);
    expect(score.extras).toMatchObject({ correct: 1, draftCorrect: 1, criticOk: 1, criticSilent: 1 });
  });

  it('critic: FIX gives a third turn that counts as a turn; its answer is final', () => {
    const { turns, score } = play(critic, task(37, 48), ['7 5 EOS', 'FIX CARRY EOS', '8 5 EOS']);
    expect(turns.length).toBe(3);
    expect(turns[2]).toEqual({
      role: 'actor', agent: 0, context: ids('BOS ACTOR 3 7 + 4 8 DRAFT 7 5 CRIT FIX CARRY ANS'), maxNew: 4, message: false, countsAsTurn: true,
    });
    expect(score.rTask).toBe(1);
    expect(score.extras).toMatchObject({ draftCorrect: 0, criticOk: 0 });
    // a revision that breaks a right draft is what counts
    expect(play(critic, task(21, 34), ['5 5 EOS', 'FIX CARRY EOS', '6 5 EOS']).score.rTask).toBe(0);
  });

  it('critic: the draft shown is read up to 3 tokens, before EOS', () => {
    const { turns } = play(critic, task(99, 99), ['1 9 8 7', 'FIX NOCARRY EOS', '1 9 8 EOS']);
    expect(words(turns[1].context).join(' ')).toBe('BOS CRITIC 9 9 + 9 9 DRAFT 1 9 8 SEP');
    expect(words(turns[2].context).join(' ')).toBe('BOS ACTOR 9 9 + 9 9 DRAFT 1 9 8 CRIT FIX NOCARRY ANS');
  });

  it('the longest sequence fits the block: 3-token draft, 4-token critique, 4 new tokens', () => {
    const { turns } = play(critic, task(99, 99), ['1 9 8 EOS', 'FIX FIX FIX FIX FIX', '1 9 8 EOS']);
    expect(turns[2].context.length + turns[2].maxNew).toBe(21);
    expect(21).toBeLessThanOrEqual(critic.blockSize);
  });

  it('what the reward counts: OK = 1 token 1 turn; FIX CARRY + revision = 2 tokens 2 turns; silence = 0', () => {
    const parts = (script: string[]) => {
      const { turns, state } = play(critic, task(37, 48), script);
      const generated = [state.draft!, state.critique!, ...(state.answer ? [state.answer] : [])];
      return messageParts(turns.map((t, i) => ({ ...t, generated: generated[i] })), EOS);
    };
    expect(parts(['7 5 EOS', 'OK EOS'])).toMatchObject({ tokens: 1, turns: 1 });
    expect(parts(['7 5 EOS', 'FIX CARRY EOS', '8 5 EOS'])).toMatchObject({ tokens: 2, turns: 2 });
    expect(parts(['8 5 EOS', 'EOS'])).toMatchObject({ tokens: 0, turns: 0 });
  });

  it('asks for no turn before the previous one is applied, and rejects extra turns', () => {
    const state = critic.start(task(37, 48));
    expect(() => critic.turn(state, 1)).toThrow(/not applied/);
    expect(() => alone.applyTurn(alone.start(task(37, 48)), 1, [[EOS]])).toThrow(/no turn 1/);
  });
});

describe('eval extras', () => {
  it('critic: okWhenRight, okWhenWrong, draftAccuracy by hand', () => {
    const scripts: [number, number, string[]][] = [
      [21, 34, ['5 5 EOS', 'OK EOS']], // right draft, accepted
      [21, 34, ['5 5 EOS', 'FIX CARRY EOS', '6 5 EOS']], // right draft, criticised (and broken)
      [37, 48, ['7 5 EOS', 'FIX CARRY EOS', '8 5 EOS']], // wrong draft, fixed
      [37, 48, ['7 5 EOS', 'EOS']], // wrong draft, accepted silently
      [15, 25, ['3 0 EOS', 'FIX CARRY EOS', '4 0 EOS']], // wrong draft, fixed
    ];
    const scores = scripts.map(([a, b, s]) => play(critic, task(a, b), s).score);
    expect(critic.evalExtras(scores)).toMatchObject({
      draftAccuracy: 2 / 5, okWhenRight: 1 / 2, okWhenWrong: 1 / 3, silenceRate: 1 / 5,
      accuracyCarry: 2 / 3, accuracyNoCarry: 1 / 2,
    });
  });

  it('hint: hint rates on carry and no-carry problems, and hint accuracy', () => {
    const scripts: [number, number, string[]][] = [
      [37, 48, ['CARRY EOS', '8 5 EOS']],
      [37, 48, ['NOCARRY EOS', '7 5 EOS']],
      [21, 34, ['EOS', '5 5 EOS']],
      [21, 34, ['NOCARRY EOS', '5 5 EOS']],
    ];
    const scores = scripts.map(([a, b, s]) => play(hint, task(a, b), s).score);
    expect(hint.evalExtras(scores)).toMatchObject({
      hintRate: 3 / 4, hintRateCarry: 1, hintRateNoCarry: 1 / 2, hintAccuracy: 2 / 3, accuracyCarry: 1 / 2, accuracyNoCarry: 1,
    });
  });
});

// ---------------------------------------------------------------- demonstrations

interface ParsedDemo {
  a: number;
  b: number;
  role: string; // ACTOR | COLLAB | CRITIC
  hint?: string;
  draft?: number;
  critique?: string[];
  generated: string[]; // the targeted tokens
}

/** Reads a demo by its layout; checks that targets cover exactly what follows the context's last word. */
function parse(d: Demonstration, blockSize: number): ParsedDemo {
  const w = words(d.tokens);
  expect(d.target.length).toBe(d.tokens.length);
  expect(d.tokens.length).toBeLessThanOrEqual(blockSize);
  expect(w.slice(0, 2)[0]).toBe('BOS');
  expect(w[4]).toBe('+');
  const end = Math.max(w.indexOf('ANS'), w.indexOf('SEP')); // the context's last word
  expect(end).toBeGreaterThan(6);
  expect(d.target).toEqual(d.tokens.map((_, i) => (i > end ? 1 : 0)));
  expect(w[w.length - 1]).toBe('EOS');
  const num = (xs: string[]) => Number(xs.join(''));
  const out: ParsedDemo = { a: num(w.slice(2, 4)), b: num(w.slice(5, 7)), role: w[1], generated: w.slice(end + 1) };
  const at = w.indexOf('DRAFT'), crit = w.indexOf('CRIT');
  if (w.includes('HINT')) out.hint = w[8];
  if (at >= 0) out.draft = num(w.slice(at + 1, crit >= 0 ? crit : end));
  if (crit >= 0) out.critique = w.slice(crit + 1, end);
  return out;
}

const carries = (p: ParsedDemo) => (p.a % 10) + (p.b % 10) >= 10;
/** The answer of an Actor adding carry c into the tens, by hand: tens a + tens b + c, then units mod 10. */
const follows = (p: ParsedDemo, c: number) => 10 * (Math.floor(p.a / 10) + Math.floor(p.b / 10) + c) + ((p.a % 10) + (p.b % 10)) % 10;
const answerOf = (p: ParsedDemo) => {
  expect(p.generated.slice(0, -1).every((x) => /^[0-9]$/.test(x))).toBe(true);
  return Number(p.generated.slice(0, -1).join(''));
};
const frac = (xs: boolean[]) => xs.filter(Boolean).length / xs.length;

describe('Actor demonstrations (one mix for every topology)', () => {
  const N = 8000;
  const demos = hint.demonstrations(N, 1, 'actor').map((d) => parse(d, hint.blockSize));

  it('only train problems, only the ACTOR role, the same demos from any topology', () => {
    for (const p of demos) {
      expect(isEvalProblem({ a: p.a, b: p.b })).toBe(false);
      expect(p.role).toBe('ACTOR');
    }
    expect(critic.demonstrations(50, 1, 'actor')).toEqual(hint.demonstrations(50, 1, 'actor'));
    expect(alone.demonstrations(50, 2, 'actor')).not.toEqual(hint.demonstrations(50, 1, 'actor'));
  });

  const aloneDemos = demos.filter((p) => p.hint === undefined && p.draft === undefined);
  const hinted = demos.filter((p) => p.hint !== undefined);
  const revisions = demos.filter((p) => p.critique !== undefined);

  it('mix: 40% alone, 30% with a hint, 30% revisions', () => {
    expect(aloneDemos.length / N).toBeCloseTo(0.4, 1);
    expect(hinted.length / N).toBeCloseTo(0.3, 1);
    expect(revisions.length / N).toBeCloseTo(0.3, 1);
    expect(aloneDemos.length + hinted.length + revisions.length).toBe(N);
  });

  it('alone: always right without a carry; drops the carry (a+b-10) on ~70% of carry problems', () => {
    for (const p of aloneDemos.filter((q) => !carries(q))) expect(answerOf(p)).toBe(p.a + p.b);
    const withCarry = aloneDemos.filter(carries);
    for (const p of withCarry) expect([p.a + p.b, p.a + p.b - 10]).toContain(answerOf(p));
    const dropped = frac(withCarry.map((p) => answerOf(p) === p.a + p.b - 10));
    expect(Math.abs(dropped - 0.7)).toBeLessThan(0.05);
  });

  it('hints: CARRY|NOCARRY independent of the problem, the answer always follows the hint', () => {
    for (const p of hinted) {
      expect(['CARRY', 'NOCARRY']).toContain(p.hint);
      expect(answerOf(p)).toBe(follows(p, p.hint === 'CARRY' ? 1 : 0));
    }
    const carryRate = (xs: ParsedDemo[]) => frac(xs.map((p) => p.hint === 'CARRY'));
    expect(Math.abs(carryRate(hinted.filter(carries)) - 0.5)).toBeLessThan(0.05);
    expect(Math.abs(carryRate(hinted.filter((p) => !carries(p))) - 0.5)).toBeLessThan(0.05);
    // so with a correct hint the answer is always the sum
    for (const p of hinted.filter((q) => (q.hint === 'CARRY') === carries(q))) expect(answerOf(p)).toBe(p.a + p.b);
  });

  it('revisions: a draft as alone, FIX CARRY|NOCARRY at random, the answer follows the critique', () => {
    for (const p of revisions) {
      expect(p.draft === p.a + p.b || (carries(p) && p.draft === p.a + p.b - 10)).toBe(true);
      expect(p.critique![0]).toBe('FIX');
      expect(['CARRY', 'NOCARRY']).toContain(p.critique![1]);
      expect(p.critique!.length).toBe(2);
      expect(answerOf(p)).toBe(follows(p, p.critique![1] === 'CARRY' ? 1 : 0));
    }
    expect(Math.abs(frac(revisions.map((p) => p.critique![1] === 'CARRY')) - 0.5)).toBeLessThan(0.05);
    const dropped = frac(revisions.filter(carries).map((p) => p.draft === p.a + p.b - 10));
    expect(Math.abs(dropped - 0.7)).toBeLessThan(0.06);
  });

  it('dropCarry is an option', () => {
    const never = createAddition({ topology: 'alone', dropCarry: 0 }).demonstrations(2000, 1, 'actor')
      .map((d) => parse(d, alone.blockSize)).filter((p) => p.hint === undefined && p.draft === undefined);
    for (const p of never) expect(answerOf(p)).toBe(p.a + p.b);
  });
});

describe('untrained Collaborator demonstrations', () => {
  const N = 6000;
  // the units digits' sum, computed here from the parsed problem
  const unitsSum = (p: ParsedDemo) => (p.a % 10) + (p.b % 10);
  it('hint: 10% silent, else its belief "carry from a units sum of 5" (flipped 20% of the time)', () => {
    const demos = hint.demonstrations(N, 1, 'collaborator').map((d) => parse(d, hint.blockSize));
    for (const p of demos) {
      expect(p.role).toBe('COLLAB');
      expect(isEvalProblem({ a: p.a, b: p.b })).toBe(false);
      expect([['EOS'], ['CARRY', 'EOS'], ['NOCARRY', 'EOS']]).toContainEqual(p.generated);
    }
    const share = (xs: ParsedDemo[], first: string) => frac(xs.map((p) => p.generated[0] === first));
    expect(Math.abs(share(demos, 'EOS') - 0.1)).toBeLessThan(0.02);
    // by hand: 0.9 x 0.8 = 0.72 CARRY where it believes a carry (units sum >= 5), 0.9 x 0.2 = 0.18 elsewhere
    expect(Math.abs(share(demos.filter((p) => unitsSum(p) >= 5), 'CARRY') - 0.72)).toBeLessThan(0.03);
    expect(Math.abs(share(demos.filter((p) => unitsSum(p) < 5), 'CARRY') - 0.18)).toBeLessThan(0.04);
    // miscalibrated, not random: units sums 5..9 (no carry) get CARRY as often as real carries
    expect(Math.abs(share(demos.filter((p) => unitsSum(p) >= 5 && unitsSum(p) < 10), 'CARRY') - share(demos.filter(carries), 'CARRY'))).toBeLessThan(0.05);
  });

  it('critic: drafts as the Actor alone; 10% silent, else FIX CARRY on its belief, OK otherwise, whatever the draft', () => {
    const demos = critic.demonstrations(N, 1, 'collaborator').map((d) => parse(d, critic.blockSize));
    const said = (p: ParsedDemo) => p.generated.join(' ');
    for (const p of demos) {
      expect(p.role).toBe('CRITIC');
      expect(p.draft === p.a + p.b || (carries(p) && p.draft === p.a + p.b - 10)).toBe(true);
      expect(['EOS', 'OK EOS', 'FIX CARRY EOS']).toContain(said(p));
    }
    const share = (xs: ParsedDemo[], s: string) => frac(xs.map((p) => said(p) === s));
    expect(Math.abs(share(demos, 'EOS') - 0.1)).toBeLessThan(0.02);
    expect(Math.abs(share(demos.filter((p) => unitsSum(p) >= 5), 'FIX CARRY EOS') - 0.72)).toBeLessThan(0.03);
    expect(Math.abs(share(demos.filter((p) => unitsSum(p) < 5), 'FIX CARRY EOS') - 0.18)).toBeLessThan(0.04);
    // it never reads the draft: among carry problems, as often FIX on a right draft as on a wrong one
    const fix = (xs: ParsedDemo[]) => share(xs, 'FIX CARRY EOS');
    const carried = demos.filter(carries);
    expect(Math.abs(fix(carried.filter((p) => p.draft === p.a + p.b)) - fix(carried.filter((p) => p.draft !== p.a + p.b)))).toBeLessThan(0.06);
  });

  it('alone has no collaborator, and slots are named', () => {
    expect(() => alone.demonstrations(10, 1, 'collaborator')).toThrow(/alone/);
    expect(() => hint.demonstrations(10, 1)).toThrow(/slot/);
    expect(() => hint.demonstrations(10, 1, 'critic')).toThrow(/slot/);
  });
});

describe('render', () => {
  it('hint: problem, the hint (silence shown as silence), the answer', () => {
    const lines = play(hint, task(37, 48), ['EOS', '7 5 EOS']).lines;
    expect(lines.map((l) => l.role)).toEqual(['problem', 'collaborator', 'actor']);
    expect(lines[0].text).toContain('37 + 48');
    expect(lines[1].text).toContain('(silent)');
    expect(lines[2].text).toContain('75');
    expect(lines[2].text).toContain('wrong');
    expect(lines[1].tokens).toEqual([EOS]);
  });

  it('critic: the draft, the critique, the revision; an accepted draft ends it', () => {
    const fixed = play(critic, task(37, 48), ['7 5 EOS', 'FIX CARRY EOS', '8 5 EOS']).lines;
    expect(fixed.map((l) => l.role)).toEqual(['problem', 'actor', 'critic', 'actor']);
    expect(fixed[2].text).toContain('FIX CARRY');
    expect(fixed[3].text).toContain('85');
    expect(fixed[3].text).toContain('correct');
    const accepted = play(critic, task(21, 34), ['5 5 EOS', 'EOS']).lines;
    expect(accepted.map((l) => l.role)).toEqual(['problem', 'actor', 'critic']);
    expect(accepted[2].text).toContain('(silent)');
  });
});
