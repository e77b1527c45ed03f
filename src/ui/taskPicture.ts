// What the task is, for the first screen: who the agents are, what each one
// knows, what passes between them and what is rewarded; one entry per
// environment, filled in from the run's config (the numbers the run uses).
import { findPreset } from '../envs/presets';
import type { RunConfig } from '../config';

export interface TaskAgent {
  name: string;
  /** What it sees before it writes. */
  knows: string;
  /** What it writes, and whether it learns. */
  does: string;
}

export interface TaskPicture {
  title: string;
  agents: TaskAgent[];
  /** What passes between the agents (the channel), when something does. */
  channel: string | null;
  /** What earns reward: the task's part and the token penalty. */
  reward: string;
  /** What "eval accuracy" measures in this environment (its r_task on the held-out tasks). */
  accuracy: AccuracyMeaning;
}

export interface AccuracyMeaning {
  /** A few words, for the chart's axis: "eval accuracy: <short>". */
  short: string;
  /** One sentence, for the task card and the chart's caption. */
  long: string;
}

/**
 * What eval accuracy is in each environment: the mean of its r_task (src/envs: relay's score, addition's
 * `correct`, philosophers' share who ate) over the held-out eval tasks, decoded greedily.
 */
export const ACCURACY: Readonly<Record<RunConfig['env'], AccuracyMeaning>> = {
  relay: { short: 'Solver right', long: "the share of held-out episodes in which the Solver answers the asked digit of the secret correctly" },
  addition: { short: 'sum right', long: "the share of held-out problems whose final sum, after any hint or critique, is correct" },
  philosophers: {
    short: 'share who ate',
    long: 'the share of philosophers who ate at least once in the episode (one eating every round scores 1/N), averaged over the held-out tables; the true score, apart from the reward, which the weights may let the policy raise without eating',
  },
  custom: { short: 'score', long: "the mean of your task's score (in [0, 1]) over its held-out episodes" },
};

const pct = (x: number) => `${Math.round(x * 100)}%`;

function relay(c: RunConfig): Omit<TaskPicture, 'accuracy'> {
  const k = c.digits, n = c.scouts, eps = c.channelNoise;
  const scout: TaskAgent = n > 1
    ? { name: `${n} Scouts`, knows: `each holds one part of a ${k}-digit secret, sees which digit is asked and whether the Solver already knows the secret`, does: `a message of up to ${c.maxMessage} tokens each, or silence (trained)` }
    : { name: 'Scout', knows: `the ${k}-digit secret, which digit is asked, and whether the Solver already knows the secret (${pct(c.pKnownTrain)} of training tasks)`, does: `a message of up to ${c.maxMessage} tokens, or silence (trained)` };
  return {
    title: 'Relay: say only what the Solver needs',
    agents: [scout, { name: 'Solver', knows: 'the question (which digit), the secret only when it already knows it, and the message as received', does: 'answers the asked digit (one trained model plays both roles)' }],
    channel: eps > 0
      ? `a noisy channel: each message token is erased with probability eps = ${eps} before the Solver reads it (it reads "?"); erased tokens still count as sent`
      : 'a clean channel: the Solver reads the message as sent',
    reward: `1 when the Solver's digit is right, minus lambda_tok = ${c.lambdaTok} per message token: silence is worth it when the Solver already knows`,
  };
}

function addition(c: RunConfig): Omit<TaskPicture, 'accuracy'> {
  const helper: Record<RunConfig['topology'], TaskAgent | null> = {
    alone: null,
    hint: { name: 'Collaborator (hint writer)', knows: 'the problem a + b', does: 'a short hint for the Actor (CARRY, NOCARRY) or silence (trained)' },
    critic: { name: 'Collaborator (critic)', knows: "the problem and the Actor's draft answer", does: 'OK to accept it, or a critique (FIX CARRY, FIX NOCARRY) that makes the Actor answer again (trained)' },
  };
  const h = helper[c.topology];
  return {
    title: 'AgentPO: help a frozen Actor add',
    agents: [
      { name: 'Actor', knows: `the problem a + b (two-digit numbers)${h ? ` and the ${c.topology === 'hint' ? 'hint' : 'critique'}` : ''}`, does: 'writes the sum; frozen: it often drops the carry alone' },
      ...(h ? [h] : []),
    ],
    channel: h ? (c.topology === 'hint' ? "the hint goes into the Actor's prompt before it answers" : 'the draft goes to the critic, the critique back to the Actor') : null,
    reward: `1 when the Actor's sum is right, minus lambda_tok = ${c.lambdaTok} per Collaborator token`,
  };
}

function philosophers(c: RunConfig): Omit<TaskPicture, 'accuracy'> {
  const n = c.philosophers;
  return {
    title: `Dining philosophers: ${n} at a round table`,
    agents: [{ name: `${n} philosophers (one shared policy)`, knows: 'its two forks (free, mine, taken), how hungry it is, and its neighbours\' last messages', does: 'each round, at once: THINK, TAKE_L, TAKE_R, EAT or DROP, then a short message (trained)' }],
    channel: `a fork lies between each pair of neighbours (${n} forks); messages go to the two neighbours, read next round`,
    reward: `meals, minus a deadlock penalty, minus philosophers who never ate, minus a cost per action, minus lambda_tok = ${c.lambdaTok} per message token; over ${c.rounds} rounds`,
  };
}

// your own task: the editor shows the code; this is the minimum the first screen needs (docs/your-task.md)
function custom(c: RunConfig): Omit<TaskPicture, 'accuracy'> {
  return {
    title: 'Your task', agents: [{ name: 'Your policy', knows: 'what your task shows each role', does: 'answers (and, with a messenger, sends a message) (trained)' }],
    channel: null, reward: `your score, minus lambda_tok = ${c.lambdaTok} per message token`,
  };
}

/**
 * Why lambda_tok does nothing for the run of `preset` (null: it charges tokens): your task with one role sends no
 * message, so every episode has 0 tokens to charge.
 */
export function noTokensReason(preset: string, env: RunConfig['env']): string | null {
  if (env !== 'custom') return null;
  let roles: number | undefined;
  try { roles = findPreset(preset).taskRoles; } catch { return null; }
  return roles === 1 ? 'this task has one role and no message: there are no tokens for lambda_tok to charge (every episode has 0 tokens; give it a messenger to trade accuracy for tokens)' : null;
}

const PICTURES: Record<RunConfig['env'], (c: RunConfig) => Omit<TaskPicture, 'accuracy'>> = { relay, addition, philosophers, custom };

/** `population`: the lambda_tok values a population trains (each run its own), said in the reward. */
export function taskPicture(c: RunConfig, population: readonly number[] | null = null): TaskPicture {
  const p = { ...PICTURES[c.env](c), accuracy: ACCURACY[c.env] };
  if (!population || c.lambdaMode === 'budget') return p;
  return { ...p, reward: p.reward.replace(`lambda_tok = ${c.lambdaTok}`, `lambda_tok (${population.join(', ')}: one value per run)`) };
}
