// philosophers: coordination and a hackable reward (docs/envs.md section 3).
//
// Table. N philosophers P_0..P_{N-1} sit in a ring with N forks. Fork f lies
// between P_f and P_{f+1 mod N}: it is P_f's RIGHT fork and P_{f+1}'s LEFT fork.
// So P_i's left fork is f_{i-1 mod N} and its right fork is f_i; drawn as a row,
// f_{N-1} P_0 f_0 P_1 f_1 ... P_{N-1} f_{N-1} (the last fork wraps round).
// All forks start free. One episode lasts R rounds.
//
// Round. Every philosopher generates, at the same time: an action token
// (THINK, TAKE_L, TAKE_R, EAT, DROP), then a message of at most M tokens, then
// EOS. A malformed action (EOS first, or any non-action token) counts as THINK.
// The message is whatever comes between the action and EOS (at most M tokens,
// passed to the neighbours verbatim). Every action reads the state at the START
// of the round, then all resolve together:
//   TAKE_L / TAKE_R  succeeds when that fork is free; otherwise a no-op. When
//                    both neighbours of a free fork take it in the same round,
//                    exactly one wins: conflictWinner(seed, round, fork) (a hash
//                    of the task seed, the round and the fork), so the G
//                    episodes of a group resolve identically for the same actions.
//   EAT              succeeds (one meal) when it holds both its forks; it then
//                    puts both down (free from the next round). Otherwise a no-op.
//   DROP             puts down every fork it holds; a no-op when it holds none.
//   THINK            nothing.
// Forks put down in round r are free from round r+1: a TAKE in round r of a fork
// being put down in round r fails (it was held at the start of the round).
//
// Deadlock: the state after a round in which every philosopher holds exactly one
// fork. Then every fork is held, nobody holds two, no TAKE or EAT can succeed and
// only a DROP gets out. It is detected from the state, never from the actions;
// the penalty applies once per episode however many rounds stay deadlocked.
//
// Observation (what P_i reads before acting in round r):
//   FORKS  one of 9 tokens LxRy, x/y in f (free) m (mine) t (taken by the neighbour)
//   HUNGER H0 (ate 0-1 rounds ago) | H1 (2-3) | H2 (4 or more), rounds counted since
//          its last meal, seeded at the start of the task
//   MSG    its left neighbour's message of round r-1, then its right neighbour's,
//          each padded with NONE to M tokens (round 0: all NONE)
// History in context: P_i's sequence is all its rounds, so
//   round 0 context  BOS (HEAD|PHIL) obs_0
//   round r context  round r-1 context + its round r-1 generation + obs_r   (continues: true)
// HEAD is P_0's role token and PHIL everyone else's: P_0 is the one seat whose
// lower-numbered fork is its right one, the single asymmetry the classic
// resource-hierarchy solution needs (a shared greedy policy could not break the
// ring's symmetry otherwise). The token set does not depend on N, so one model
// serves the whole curriculum 3 -> 5 -> 7.
// Longest sequence = 2 + R * (obs 2+2M + generated M+2) = 58 at the defaults
// (R = 8, M = 1); blockSize rounds it up to a multiple of 8 (64).
//
// Reward (shared by the team): mealReward*meals - deadlockPenalty*[deadlock]
//   - starvePenalty*(philosophers who never ate) - actionCost*(non-THINK actions,
//   no-ops included). Score.terms holds the four signed parts (they sum to the
//   reward); the Trainer adds lambda_tok on message tokens. rTask = the fraction
//   of philosophers who ate at least once (fairness-aware: one philosopher eating
//   every round does not score).
//
// Tasks: per philosopher an initial hunger (0..5 rounds since it last ate) and a
// conflict seed. The held-out eval stream owns the hunger-bucket patterns (what
// a philosopher can see) whose hash is 0 mod 5; the train stream never sees them.

import { mulberry32 } from '../model/random';
import { hashInts } from './hash';
import type { BaselineResult, Demonstration, Environment, Score, TranscriptLine, Turn } from './types';
import {
  ACTIONS, actionOf, forksToken, hungerBucket, INITIAL_HUNGER_MAX, isDeadlock, isEvalTask, leftFork, messageOf, PHIL_EOS, PHIL_ID, PHIL_VOCAB,
  philBlockSize, philTokenText, possibleActions, resolveOptions, resolveRound, resourceHierarchyAction, rightFork,
  type Action, type PhilosophersOptions, type PhilState, type PhilTask,
} from './philosophersRules';

export {
  ACTIONS, conflictWinner, hungerBucket, isDeadlock, isEvalTask, leftFork, PHIL_DEFAULTS, PHIL_EOS, PHIL_ID, PHIL_STAGES, PHIL_VOCAB, PHIL_WEIGHTS,
  PHIL_WEIGHTS_ARITHMETIC, philBlockSize, philosophersCurriculum, philTokenText, resolveRound, resourceHierarchyAction, rewardHackable, rightFork,
} from './philosophersRules';
export type { Action, Outcome, PhilosophersOptions, PhilState, PhilTask, PhilToken, PhilWeights } from './philosophersRules';

// ---------------------------------------------------------------- environment

export function createPhilosophers(opts: Partial<PhilosophersOptions> = {}): Environment<PhilTask, PhilState> {
  const p = resolveOptions(opts);
  const N = p.philosophers, R = p.rounds, M = p.maxMessage;

  function sampleTask(split: 'train' | 'eval', seed: number, index: number): PhilTask {
    const rand = mulberry32(hashInts(seed, split === 'eval' ? 0xe7a1 : 0x7a1, index));
    for (let tries = 0; tries < 10_000; tries++) {
      const hunger = Array.from({ length: N }, () => Math.floor(rand() * (INITIAL_HUNGER_MAX + 1)));
      const task = { philosophers: N, hunger, seed: Math.floor(rand() * 2 ** 32) };
      if (isEvalTask(task) === (split === 'eval')) return task;
    }
    throw new Error(`philosophers: no ${split} task found by rejection (N=${N})`);
  }

  function observation(s: PhilState, i: number): number[] {
    const pad = (msg: number[]) => [...msg, ...new Array<number>(M - msg.length).fill(PHIL_ID.NONE)];
    return [
      forksToken(s.holder, i), PHIL_ID.H0 + hungerBucket(s.hunger[i]),
      ...pad(s.lastMessage[(i - 1 + N) % N]), ...pad(s.lastMessage[(i + 1) % N]),
    ];
  }

  const env: Environment<PhilTask, PhilState> = {
    id: 'philosophers',
    taskMeasure: { key: 'mealsPerPhilosopher', label: 'meals per philosopher' },
    vocab: PHIL_VOCAB,
    eos: PHIL_EOS,
    blockSize: philBlockSize(R, M),

    sampleTasks(split, count, seed, index) {
      return Array.from({ length: count }, (_, i) => sampleTask(split, seed, index + i));
    },

    start(task) {
      if (task.philosophers !== N) throw new Error(`philosophers: task for N=${task.philosophers} given to an env with N=${N}`);
      return {
        task, round: 0,
        holder: new Array<number>(N).fill(-1),
        hunger: task.hunger.slice(),
        lastMessage: Array.from({ length: N }, () => []),
        sequences: Array.from({ length: N }, (_, i) => [PHIL_ID.BOS, i === 0 ? PHIL_ID.HEAD : PHIL_ID.PHIL]),
        meals: new Array<number>(N).fill(0),
        actions: 0, noops: 0, messageTokens: 0, deadlockRounds: 0, history: [],
      };
    },

    turn(state, k): Turn[] {
      if (k >= R) return [];
      if (k !== state.round) throw new Error(`philosophers: turn ${k} asked at round ${state.round}`);
      return Array.from({ length: N }, (_, i) => ({
        role: 'philosopher', agent: i, context: [...state.sequences[i], ...observation(state, i)],
        maxNew: M + 2, message: M > 0, messageFrom: 1, continues: k > 0,
      }));
    },

    applyTurn(state, k, generated) {
      if (k !== state.round || k >= R) throw new Error(`philosophers: applyTurn ${k} at round ${state.round} of ${R}`);
      if (generated.length !== N) throw new Error(`philosophers: ${generated.length} generations for ${N} philosophers`);
      const actions = generated.map((g) => actionOf(g[0]));
      const messages = generated.map((g) => messageOf(g, M));
      for (let i = 0; i < N; i++) state.sequences[i].push(...observation(state, i), ...generated[i]);
      const before = state.holder;
      const { holder, outcome } = resolveRound(before, actions, state.task.seed, k);
      const hungerBefore = state.hunger.slice();
      actions.forEach((a, i) => {
        const ate = a === 'EAT' && outcome[i] === 'ok';
        if (ate) state.meals[i]++;
        state.hunger[i] = ate ? 0 : state.hunger[i] + 1;
        if (a !== 'THINK') state.actions++;
        if (outcome[i] !== 'ok') state.noops++;
      });
      state.holder = holder;
      state.lastMessage = messages;
      state.messageTokens += messages.reduce((s, m) => s + m.length, 0);
      const deadlock = isDeadlock(holder);
      if (deadlock) state.deadlockRounds++;
      state.history.push({ holderBefore: before, hungerBefore, actions, outcome, messages, generated: generated.map((g) => g.slice()), deadlock });
      state.round++;
    },

    score(state): Score {
      const meals = state.meals.reduce((a, b) => a + b, 0);
      const ate = state.meals.filter((m) => m > 0).length;
      const starved = N - ate;
      const deadlock = state.deadlockRounds > 0 ? 1 : 0;
      const cost = (weight: number, count: number) => (count === 0 ? 0 : -weight * count); // no -0 in the logs
      const terms = {
        meals: p.mealReward * meals,
        deadlock: cost(p.deadlockPenalty, deadlock),
        starvation: cost(p.starvePenalty, starved),
        actionCost: cost(p.actionCost, state.actions),
      };
      const slots = N * R;
      return {
        rTask: ate / N,
        reward: terms.meals + terms.deadlock + terms.starvation + terms.actionCost,
        terms,
        extras: {
          meals, mealsPerPhilosopher: meals / N, ate: ate / N, starved: starved / N, deadlock,
          actionRate: state.actions / slots, illegalRate: state.noops / slots,
          messageRate: state.messageTokens / slots, messageTokens: state.messageTokens,
        },
      };
    },

    evalExtras(scores) {
      const mean = (key: string) => (scores.length === 0 ? 0 : scores.reduce((a, s) => a + (s.extras[key] ?? 0), 0) / scores.length);
      return {
        mealsPerPhilosopher: mean('mealsPerPhilosopher'), ate: mean('ate'), starved: mean('starved'),
        deadlockRate: mean('deadlock'), actionRate: mean('actionRate'), illegalRate: mean('illegalRate'),
        messageRate: mean('messageRate'),
      };
    },

    demonstrations(count, seed) {
      // Whole episodes on training tasks, one demo per philosopher (its merged
      // sequence, targets on every round's generation). An episode is played by
      // resource hierarchy or, with probability demoRandomShare, by uniformly
      // random possible actions; every message is verbose (M tokens), so the warm
      // policy is active and talkative but not optimal.
      const rand = mulberry32(hashInts(seed, 0xde70));
      const demos: Demonstration[] = [];
      for (let episode = 0; demos.length < count; episode++) {
        const state = env.start(sampleTask('train', seed, episode));
        const random = rand() < p.demoRandomShare;
        const targets: number[][] = state.sequences.map((s) => s.map(() => 0));
        for (let k = 0; k < R; k++) {
          const turns = env.turn(state, k);
          const generated = turns.map((_, i) => {
            const options = possibleActions(state.holder, i);
            const a = random ? options[Math.floor(rand() * options.length)] : resourceHierarchyAction(state, i);
            return [PHIL_ID.THINK + ACTIONS.indexOf(a), ...verboseMessage(a, state.hunger[i], M), PHIL_EOS];
          });
          turns.forEach((t, i) => targets[i].push(...new Array<number>(t.context.length - targets[i].length).fill(0), ...generated[i].map(() => 1)));
          env.applyTurn(state, k, generated);
        }
        for (let i = 0; i < N && demos.length < count; i++) demos.push({ tokens: state.sequences[i].slice(), target: targets[i] });
      }
      return demos;
    },

    render(state): TranscriptLine[] {
      const hungerText = state.task.hunger.map((h, i) => `P${i} ${h}`).join(', ');
      const lines: TranscriptLine[] = [{
        role: 'table', generated: false, tokens: [],
        text: `${N} philosophers, ${R} rounds; fork f lies between P_f (its right fork) and P_f+1 (its left); rounds since last meal at the start: ${hungerText}`,
      }];
      state.history.forEach((h, r) => {
        const rows = h.actions.map((a, i) => {
          const l = h.holderBefore[leftFork(i, N)] === i ? 'L' : '-', rr = h.holderBefore[rightFork(i, N)] === i ? 'R' : '-';
          const result = h.outcome[i] === 'lost' ? 'lost' : h.outcome[i] === 'noop' ? 'no-op' : a === 'EAT' ? 'eats' : '';
          const msg = h.messages[i].length > 0 ? `"${philTokenText(h.messages[i])}"` : '';
          return `  P${i} [${l}${rr}] H${hungerBucket(h.hungerBefore[i])}  ${a.padEnd(6)} ${result.padEnd(5)} ${msg}`.trimEnd();
        });
        const after = state.history[r + 1]?.holderBefore ?? state.holder;
        const forks = after.map((q, f) => `f${f}:${q === -1 ? '-' : `P${q}`}`).join(' ');
        lines.push({
          role: 'table', generated: true, tokens: h.generated.flat(),
          text: [`round ${r}  forks after: ${forks}${h.deadlock ? '  DEADLOCK' : ''}`, ...rows].join('\n'),
        });
      });
      const s = env.score(state);
      const t = s.terms!;
      lines.push({
        role: 'table', generated: false, tokens: [],
        text: `meals ${s.extras.meals} (${state.meals.map((m, i) => `P${i}:${m}`).join(' ')}), ate ${Math.round(s.rTask * N)}/${N}, ` +
          `deadlock ${s.extras.deadlock ? 'yes' : 'no'}, actions ${state.actions}; reward ${fmt(s.reward!)} = ` +
          `meals ${fmt(t.meals)} deadlock ${fmt(t.deadlock)} starvation ${fmt(t.starvation)} actions ${fmt(t.actionCost)}`,
      });
      return lines;
    },

    baselines(tasks, seed) {
      const rand = mulberry32(hashInts(seed, 0xba5e));
      const policies: [string, (state: PhilState, i: number) => Action][] = [
        ['random', () => ACTIONS[Math.floor(rand() * ACTIONS.length)]],
        ['resource hierarchy', resourceHierarchyAction],
      ];
      return policies.map(([name, policy]): BaselineResult => {
        const scores = tasks.map((task) => {
          const state = env.start(task);
          for (let k = 0; k < R; k++) {
            const gen = env.turn(state, k).map((_, i) => [PHIL_ID.THINK + ACTIONS.indexOf(policy(state, i)), PHIL_EOS]);
            env.applyTurn(state, k, gen);
          }
          return env.score(state);
        });
        const mean = (f: (s: Score) => number) => (scores.length === 0 ? 0 : scores.reduce((a, s) => a + f(s), 0) / scores.length);
        return {
          name,
          accuracy: mean((s) => s.rTask),
          tokens: mean((s) => s.extras.messageTokens),
          extras: {
            ...env.evalExtras(scores), reward: mean((s) => s.reward!),
            meals: mean((s) => s.terms!.meals), deadlock: mean((s) => s.terms!.deadlock),
            starvation: mean((s) => s.terms!.starvation), actionCost: mean((s) => s.terms!.actionCost),
          },
        };
      });
    },
  };
  return env;
}

/** The verbose demo message: what it is doing, then how hungry it is (truncated to M). */
function verboseMessage(a: Action, hunger: number, maxMessage: number): number[] {
  const intent = a === 'TAKE_L' || a === 'TAKE_R' ? PHIL_ID.WAIT : a === 'EAT' ? PHIL_ID.DONE
    : a === 'DROP' ? PHIL_ID.GO : hungerBucket(hunger) > 0 ? PHIL_ID.HUNGRY : PHIL_ID.GO;
  const mood = hungerBucket(hunger) > 0 ? PHIL_ID.HUNGRY : PHIL_ID.GO;
  return [intent, mood].slice(0, maxMessage);
}

const fmt = (x: number): string => (Math.round(x * 100) / 100).toString();
