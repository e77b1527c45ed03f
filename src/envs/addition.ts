// addition: a collaborator for a frozen actor (docs/envs.md section 2, AgentPO).
//
// Task: a + b with a, b in 10..99; the Actor writes the sum's digits, then EOS.
// Roles: 'actor' is played by the frozen slot 'actor'; 'collaborator' (hint)
// and 'critic' by the trainable slot 'collaborator'. Both slots share this
// vocabulary, and the Actor's demonstrations are the same in every topology,
// so one Actor checkpoint serves 'alone', 'hint' and 'critic'.
//
// Layouts (P = a1 a2 + b1 b2, five tokens; ids in ADD_VOCAB):
//   actor alone / draft  BOS ACTOR P ANS                  8 tokens, then <= 4 generated (3 digits + EOS)
//   collaborator         BOS COLLAB P SEP                 8, then <= 5 (hint <= 4 tokens + EOS)
//   actor with a hint    BOS ACTOR P HINT h ANS           9+|h|, then <= 4; a silent hint gives the alone context
//   critic               BOS CRITIC P DRAFT d SEP         9+|d|, then <= 5 (critique <= 4 tokens + EOS)
//   actor revision       BOS ACTOR P DRAFT d CRIT c ANS   10+|d|+|c|, then <= 4
// A turn's text for the next one is its tokens before EOS, at most maxNew - 1
// (what reward.ts counts as a message), so |d| <= 3, |h|, |c| <= 4 and the
// longest sequence is 10+3+4+4 = 21 tokens: blockSize 24.
//
// The language the Actor was taught (anything else is outside its training):
//   hint      CARRY (the units column carries) | NOCARRY (it does not) | silence (no hint: it answers as alone)
//   critique  silence or a first token OK accept the draft, and the episode ends after two turns;
//             anything else makes the Actor answer again (a turn that counts in `turns`).
//             It was taught FIX CARRY | FIX NOCARRY, and follows the carry word.
// "Follows c" means it writes 10 (ta + tb + c) + (ua + ub) mod 10 (t: tens digit, u: units digit):
// the sum when c is the true carry, a+b-10 or a+b+10 otherwise.
//
// Actor demonstrations (slot 'actor'), whatever the topology:
//   40% alone: the sum, except on carry problems, where the carry is dropped (a+b-10) with
//       probability dropCarry (0.7), so greedy decoding drops every carry: ~55% right alone.
//   30% with a hint CARRY|NOCARRY drawn independently of the problem, the answer following it.
//       Only "follow the hint" explains these demos, so the Actor trusts hints, right or wrong.
//   30% revisions: a draft drawn as alone, FIX CARRY|FIX NOCARRY at random, the answer following it.
// Collaborator demonstrations (slot 'collaborator'): an untrained helper with a miscalibrated idea of
// carrying, like a base model that half-knows arithmetic: it believes the units column carries when
// the units digits add up to UNTRAINED_CARRY_FROM (5) or more, and says the other word with
// probability untrainedFlip (0.2); silent with probability untrainedSilence (0.1). It never reads the draft.
//   hint:   its belief, CARRY | NOCARRY;
//   critic: FIX CARRY when it believes the units carry, else OK.
// Greedy, it says CARRY / FIX CARRY on units sums 5..9 too, which breaks those 40% of problems:
// about 60% right, below the Actor alone. Training has to move its threshold from 5 to 10.
// (An uninformed helper, whose hints ignore the problem, was tried first: GRPO pulled it into total
// silence within 10 steps, the best problem-blind policy, before it could learn the carry.)
//
// Train / eval split: a hash of (a, b) puts one pair in EVAL_SHARE in the eval set (about 2000
// of the 8100). The eval stream is a seeded permutation of that set, so its first |eval set|
// tasks are distinct; the train stream samples train pairs by rejection.

import { mulberry32 } from '../model/random';
import { hashInts } from './hash';
import type { Demonstration, Score, TranscriptLine, Turn } from './types';
import {
  accepts, actorContext, actorHintContext, actorRevisionContext, ADD_BLOCK_SIZE, ADD_EOS, ADD_ID, ADD_VOCAB, answerTokens, carryOf,
  collaboratorContext, criticContext, digitId, EVAL_PROBLEMS, evalOrder, followedAnswer, isCorrect, problemTokens, resolveOptions, textOf,
  trainTask, UNTRAINED_CARRY_FROM, type AdditionEnv, type AdditionOptions, type AddTask, type Topology,
} from './additionTasks';

export {
  accepts, actorContext, actorHintContext, actorRevisionContext, ADD_BLOCK_SIZE, ADD_EOS, ADD_ID, ADD_VOCAB, ADDITION_DEFAULTS, answerTokens,
  carryOf, collaboratorContext, criticContext, EVAL_PROBLEMS, followedAnswer, isCorrect, isEvalProblem, UNTRAINED_CARRY_FROM,
} from './additionTasks';
export type { AdditionEnv, AdditionOptions, AddState, AddTask, AddToken, Topology } from './additionTasks';

/** Share of the Actor's demonstrations of each kind (the rest are revisions). */
const ACTOR_ALONE_SHARE = 0.4;
const ACTOR_HINT_SHARE = 0.3;
const ANSWER_MAX_NEW = 4; // up to 3 digits + EOS
const MESSAGE_MAX_NEW = 5; // up to 4 tokens + EOS
/** Where each step's generation is kept, per topology. */
const TURN_FIELDS: Record<Topology, ('hint' | 'draft' | 'critique' | 'answer')[]> = {
  alone: ['answer'],
  hint: ['hint', 'answer'],
  critic: ['draft', 'critique', 'answer'],
};

// ---------------------------------------------------------------- environment

export function createAddition(opts: AdditionOptions): AdditionEnv {
  const o = resolveOptions(opts);
  const topology = o.topology;

  /** The Actor's answer written alone: drops a carry with probability dropCarry. */
  const aloneAnswer = (t: AddTask, rand: () => number): number =>
    carryOf(t) === 1 && rand() < o.dropCarry ? followedAnswer(t, 0) : t.a + t.b;
  const carryWord = (c: number) => (c === 1 ? ADD_ID.CARRY : ADD_ID.NOCARRY);

  function actorDemo(t: AddTask, rand: () => number): Demonstration {
    const kind = rand();
    if (kind < ACTOR_ALONE_SHARE) return withTargets(actorContext(t), answerTokens(aloneAnswer(t, rand)));
    const c = rand() < 0.5 ? 1 : 0;
    if (kind < ACTOR_ALONE_SHARE + ACTOR_HINT_SHARE) {
      return withTargets(actorHintContext(t, [carryWord(c)]), answerTokens(followedAnswer(t, c)));
    }
    const draft = answerTokens(aloneAnswer(t, rand)).slice(0, -1);
    return withTargets(actorRevisionContext(t, draft, [ADD_ID.FIX, carryWord(c)]), answerTokens(followedAnswer(t, c)));
  }

  /** The untrained collaborator: a miscalibrated carry belief (units sum >= 5), never reading the draft. */
  function collaboratorDemo(t: AddTask, rand: () => number): Demonstration {
    const silent = rand() < o.untrainedSilence;
    const believes = ((t.a % 10) + (t.b % 10) >= UNTRAINED_CARRY_FROM) !== (rand() < o.untrainedFlip);
    if (topology === 'hint') return withTargets(collaboratorContext(t), silent ? [ADD_EOS] : [believes ? ADD_ID.CARRY : ADD_ID.NOCARRY, ADD_EOS]);
    const draft = answerTokens(aloneAnswer(t, rand)).slice(0, -1);
    const critique = silent ? [] : believes ? [ADD_ID.FIX, ADD_ID.CARRY] : [ADD_ID.OK];
    return withTargets(criticContext(t, draft), [...critique, ADD_EOS]);
  }

  const env: AdditionEnv = {
    id: 'addition',
    topology,
    vocab: ADD_VOCAB,
    eos: ADD_EOS,
    blockSize: ADD_BLOCK_SIZE,
    roleSlot: { actor: 'actor', collaborator: 'collaborator', critic: 'collaborator' },
    // AgentPO's comparison: the frozen Actor alone, with the untrained and the trained Collaborator
    ...(topology !== 'alone' ? { comparison: { frozen: 'actor', helper: 'collaborator', episodes: EVAL_PROBLEMS.length } } : {}),

    sampleTasks(split, count, seed, index) {
      const order = split === 'eval' ? evalOrder(seed) : null;
      return Array.from({ length: count }, (_, i) =>
        order ? { ...order[(index + i) % order.length] } : trainTask(seed, index + i));
    },

    start(task) {
      return { task, hint: null, draft: null, critique: null, answer: null };
    },

    turn(state, k): Turn[] {
      const t = state.task;
      const answer = (context: number[], countsAsTurn = false): Turn[] =>
        [{ role: 'actor', agent: 0, context, maxNew: ANSWER_MAX_NEW, message: false, countsAsTurn }];
      const speak = (role: string, context: number[]): Turn[] =>
        [{ role, agent: 1, context, maxNew: MESSAGE_MAX_NEW, message: true }];
      if (topology === 'alone') return k === 0 ? answer(actorContext(t)) : [];
      if (topology === 'hint') {
        if (k === 0) return speak('collaborator', collaboratorContext(t));
        if (k === 1) return answer(actorHintContext(t, need(state.hint, 'hint', MESSAGE_MAX_NEW)));
        return [];
      }
      if (k === 0) return answer(actorContext(t));
      const draft = need(state.draft, 'draft', ANSWER_MAX_NEW);
      if (k === 1) return speak('critic', criticContext(t, draft));
      const critique = need(state.critique, 'critique', MESSAGE_MAX_NEW);
      if (k === 2 && !accepts(critique)) return answer(actorRevisionContext(t, draft, critique), true);
      return [];
    },

    applyTurn(state, k, generated) {
      if (generated.length !== 1) throw new Error(`addition: step ${k} has one turn, got ${generated.length} generations`);
      const field = TURN_FIELDS[topology][k];
      if (field === undefined) throw new Error(`addition (${topology}): no turn ${k}`);
      state[field] = generated[0].slice();
    },

    score(state): Score {
      const t = state.task;
      const final = topology === 'critic' ? state.answer ?? state.draft : state.answer;
      const extras: Record<string, number> = { correct: isCorrect(t, final) ? 1 : 0, carry: carryOf(t) };
      if (topology === 'hint' && state.hint !== null) {
        const hint = textOf(state.hint, MESSAGE_MAX_NEW);
        extras.hintGiven = hint.length > 0 ? 1 : 0;
        extras.hintCorrect = hint.length === 1 && hint[0] === carryWord(carryOf(t)) ? 1 : 0;
      }
      if (topology === 'critic' && state.critique !== null) {
        const critique = textOf(state.critique, MESSAGE_MAX_NEW);
        extras.draftCorrect = isCorrect(t, state.draft) ? 1 : 0;
        extras.criticOk = accepts(critique) ? 1 : 0;
        extras.criticSilent = critique.length === 0 ? 1 : 0;
      }
      return { rTask: extras.correct, extras };
    },

    evalExtras(scores) {
      const out: Record<string, number> = {
        accuracyCarry: meanWhere(scores, 'correct', 'carry', 1),
        accuracyNoCarry: meanWhere(scores, 'correct', 'carry', 0),
      };
      if (topology === 'hint') {
        out.hintRate = meanWhere(scores, 'hintGiven');
        out.hintRateCarry = meanWhere(scores, 'hintGiven', 'carry', 1);
        out.hintRateNoCarry = meanWhere(scores, 'hintGiven', 'carry', 0);
        out.hintAccuracy = meanWhere(scores, 'hintCorrect', 'hintGiven', 1);
      }
      if (topology === 'critic') {
        out.draftAccuracy = meanWhere(scores, 'draftCorrect');
        out.okWhenRight = meanWhere(scores, 'criticOk', 'draftCorrect', 1);
        out.okWhenWrong = meanWhere(scores, 'criticOk', 'draftCorrect', 0);
        out.silenceRate = meanWhere(scores, 'criticSilent');
      }
      return out;
    },

    demonstrations(count, seed, slot = 'policy') {
      if (slot !== 'actor' && slot !== 'collaborator') {
        throw new Error(`addition: demonstrations are per slot ('actor' or 'collaborator'), got '${slot}'`);
      }
      if (slot === 'collaborator' && topology === 'alone') {
        throw new Error("addition: topology 'alone' has no collaborator; take its demonstrations from 'hint' or 'critic'");
      }
      const rand = mulberry32(hashInts(seed, 0xde70, slot === 'actor' ? 1 : 2));
      return Array.from({ length: count }, (_, i) => {
        const t = trainTask(seed ^ 0xde70, i);
        return slot === 'actor' ? actorDemo(t, rand) : collaboratorDemo(t, rand);
      });
    },

    render(state): TranscriptLine[] {
      const t = state.task;
      const lines: TranscriptLine[] = [
        { role: 'problem', text: `${t.a} + ${t.b} = ?`, generated: false, tokens: problemTokens(t) },
      ];
      const said = (role: string, generated: number[], text: string) => lines.push({ role, text, generated: true, tokens: generated.slice() });
      const message = (g: number[]) => {
        const m = textOf(g, MESSAGE_MAX_NEW);
        return m.length === 0 ? '(silent)' : tokenText(m);
      };
      if (topology === 'hint') {
        if (state.hint === null) return lines;
        said('collaborator', state.hint, `hint: ${message(state.hint)}`);
      }
      if (topology === 'critic') {
        if (state.draft === null) return lines;
        said('actor', state.draft, `drafts ${answerText(t, state.draft)}`);
        if (state.critique === null) return lines;
        const c = textOf(state.critique, MESSAGE_MAX_NEW);
        said('critic', state.critique, `${message(state.critique)}${accepts(c) ? ' (accepts the draft)' : ''}`);
      }
      if (state.answer !== null) said('actor', state.answer, `answers ${answerText(t, state.answer)}`);
      return lines;
    },
  };
  return env;
}

/** The turn's text, failing loudly when the Trainer asks for a turn before applying the previous one. */
function need(generated: number[] | null, what: string, maxNew: number): number[] {
  if (generated === null) throw new Error(`addition: the ${what} turn was not applied yet`);
  return textOf(generated, maxNew);
}

/** Mean of extras[key] over the scores whose extras[where] === value (all when no filter); 0 when none. */
function meanWhere(scores: Score[], key: string, where?: string, value?: number): number {
  const xs = where === undefined ? scores : scores.filter((s) => s.extras[where] === value);
  return xs.length === 0 ? 0 : xs.reduce((acc, s) => acc + (s.extras[key] ?? 0), 0) / xs.length;
}

/** Context + generated part; targets exactly on the generated tokens. */
function withTargets(context: number[], generated: number[]): Demonstration {
  return { tokens: [...context, ...generated], target: [...context.map(() => 0), ...generated.map(() => 1)] };
}

/** Readable text of token ids (unknown ids as <id>). */
export function tokenText(tokens: number[]): string {
  return tokens.map((t) => ADD_VOCAB[t] ?? `<${t}>`).join(' ');
}

/** An answer as the viewer shows it: digits joined, EOS dropped, and whether it is right. */
function answerText(t: AddTask, generated: number[]): string {
  const body = generated[generated.length - 1] === ADD_EOS ? generated.slice(0, -1) : generated;
  const allDigits = body.length > 0 && body.every((x) => x >= digitId(0) && x <= digitId(9));
  const shown = allDigits ? body.map((x) => x - digitId(0)).join('') : body.length === 0 ? '(nothing)' : tokenText(body);
  const eos = generated[generated.length - 1] === ADD_EOS ? '' : ' (no EOS)';
  return `${shown}${eos} (${isCorrect(t, generated) ? 'correct' : `wrong, ${t.a + t.b}`})`;
}
