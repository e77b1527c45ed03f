// Presets: partial configs layered over the defaults, each with the warm start
// it starts from and a paragraph on what to watch for.
import { InputError, quote } from '../contract/errors';
import { DEFAULTS, validateConfig, type RunConfig } from '../config';
import type { DemoOptions } from './types';
import { PHIL_WEIGHTS, PHIL_WEIGHTS_ARITHMETIC } from './philosophers';

/**
 * A shipped warm start (public/checkpoints/<file>), and the demonstrations, seed and pretraining
 * steps that made it. `target`: the held-out greedy accuracy (r_task) a warm start must reach for
 * the preset's paragraph to hold; one made on the spot (the shipped file does not fit the run)
 * pretrains until it does, up to a cap (src/rl/warmStart.ts). Absent where the warm start is
 * meant to be weak (AgentPO's untrained collaborators) or accuracy is not the env's measure.
 */
export interface WarmStartSpec {
  file: string; demo: DemoOptions; seed: number; steps: number; target?: number;
  /** Shipped files of the same demonstrations for task options `file` does not fit (tried in order; how each was made: docs/robustness.md). */
  variants?: string[];
  /** No warm start: the run starts from random weights, and this says why (your own task without demonstrations). */
  random?: string;
  /** The most steps a warm start made on the spot takes (default CAP_FACTOR x steps: src/rl/warmStart.ts). */
  cap?: number;
}
/** A policy slot of a preset: trainable or frozen, and where its weights start. */
export interface SlotSpec { trainable: boolean; warmStart: WarmStartSpec }

export interface Preset {
  name: string;
  title: string;
  explain: string;
  config: Partial<RunConfig>;
  /** The warm start of the trainable policy (of the one slot 'policy' when `slots` is absent). */
  warmStart: WarmStartSpec;
  /** Envs with several slots (AgentPO: a frozen Actor and a trainable Collaborator). */
  slots?: Record<string, SlotSpec>;
  /** Your task's roles (1: the solver alone, no message: nothing for lambda_tok to charge; 2: a messenger and a solver). */
  taskRoles?: 1 | 2;
  /** Your task's vocabulary, EOS and block size (src/envs/userTask/shape.ts): what a thread that runs no task code plans with. */
  taskShape?: { vocab: string[]; eos: number; blockSize: number };
}

/** Every slot of a preset with its spec ('policy', trainable, when the preset names none). */
export function presetSlots(p: Preset): Record<string, SlotSpec> {
  return p.slots ?? { policy: { trainable: true, warmStart: p.warmStart } };
}

// 4 and 5 digits ship too: made on the spot they would take a while, and pretraining for 5 digits
// is sensitive to the schedule's length (docs/robustness.md)
const RELAY_WARM: WarmStartSpec = { file: 'relay-warm.safetensors', demo: { demoSilence: 0.1, flagAwareDemos: true }, seed: 1, steps: 1500, target: 0.95,
  variants: ['relay-warm-digits4.safetensors', 'relay-warm-digits5.safetensors'] };
const RELAY_BASE: Partial<RunConfig> = {
  env: 'relay', algorithm: 'gspo', groupSize: 8, promptsPerStep: 32, minibatches: 4, lr: 3e-4, epsLow: 3e-4, epsHigh: 4e-4,
  temperature: 1, advantage: 'group', gradClip: 1, lambdaTok: 0.1, lambdaMode: 'manual', pKnown: 0.3, pKnownTrain: 0.5,
  steps: 100, evalEvery: 10, evalEpisodes: 256,
};

export const PRESETS: Preset[] = [
  {
    name: 'relay-silence', title: 'Relay: strategic silence (GSPO)',
    explain: 'The Scout starts verbose (about 8 tokens: the whole secret, repeated) and the Solver answers from it. With a token penalty of 0.1, GSPO finds that one digit is enough, and that nothing at all is needed when the Solver already knows: watch tokens fall toward ~0.7 at full accuracy, and the silence rate split into ~1 on known tasks and ~0 on unknown ones. Nobody programmed the silence; the reward and a little silence in the warm start did.',
    config: { ...RELAY_BASE }, warmStart: RELAY_WARM,
  },
  {
    name: 'relay-budget', title: 'Relay: a token budget (dual lambda)',
    explain: 'Instead of a fixed penalty, ask for at most B = 4 tokens per episode. lambda_tok starts at 0 and the dual update raises it while the Scout is over budget, then lets it decay to 0 once the budget is slack: watch the lambda chart rise and fall while tokens drop below the budget line. A budget below ~0.7 (what full accuracy needs) with a large eta collapses the policy into total silence.',
    config: { ...RELAY_BASE, lambdaMode: 'budget', lambdaTok: 0, budget: 4, dualEta: 0.005, lambdaMax: 1 }, warmStart: RELAY_WARM,
  },
  {
    name: 'relay-grpo', title: 'Relay: token-level GRPO',
    explain: 'The same task with GRPO: a ratio per token and the usual clip range 0.2. At this scale it reaches the same end point as GSPO (the task does not separate them); compare how the clip fraction and ratio range behave with token-level ratios.',
    config: { ...RELAY_BASE, algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.2 }, warmStart: RELAY_WARM,
  },
  {
    name: 'relay-no-groupnorm', title: 'Relay: no group normalization',
    explain: 'Advantages are r - mean(group), without dividing by the group standard deviation (Dr. GRPO style). The gradient scale now follows the reward scale: with rewards in units of 0.1 per token, watch whether learning is slower and the grad norm smaller than with group normalization.',
    config: { ...RELAY_BASE, advantage: 'none' }, warmStart: RELAY_WARM,
  },
  {
    name: 'relay-never-silent', title: 'Relay: a warm start that is never silent',
    explain: 'The warm start never sent an empty message. RL compresses the message to the one digit that is needed, but silence does not emerge: a group with no silent sample has nothing to reinforce. Strategic silence needs silence to be explored first.',
    config: { ...RELAY_BASE }, warmStart: { file: 'relay-warm-never-silent.safetensors', demo: { demoSilence: 0, flagAwareDemos: true }, seed: 1, steps: 1500, target: 0.95 },
  },
];

// The noisy channel (eps 0.3): copies of s_j buy accuracy with diminishing returns,
// P(right | n copies, unknown) = 1 - 0.9 * 0.3^n, so the best n falls as lambda_tok rises.
// demos across channels eps 0 to 0.5: the warm start fits a run at any channelNoise in that range (checkpointFit DYNAMICS)
const NOISY_WARM = { file: 'relay-noisy-warm.safetensors', demo: { demoSilence: 0.1, flagAwareDemos: true, demoCopies: 6, demoLengths: 'every' as const, demoNoise: [0, 0.5] as const }, seed: 1, steps: 1500, target: 0.95 };
const NOISY_BASE: Partial<RunConfig> = { ...RELAY_BASE, channelNoise: 0.3, promptsPerStep: 16, lr: 5e-4, evalEpisodes: 512, steps: 80, evalEvery: 20 };

PRESETS.push(
  {
    name: 'relay-noisy', title: 'Relay: a noisy channel (GSPO, group normalization)',
    explain: 'Each message token is erased with probability 0.3 before the Solver reads it, so one copy of the needed digit is right 73% of the time, two 92%, three 98%: redundancy buys accuracy with diminishing returns, and the best number of copies should fall as lambda_tok rises. The warm start sends anywhere from one to eight copies when the Solver does not know (each count as often), so RL can compare every length. Watch what group normalization does: dividing by a group\'s reward std makes the token penalty nearly scale-free (a group where every episode succeeded has a tiny std, so its token differences are blown up), and every lambda_tok compresses to one or two copies. Compare with relay-noisy-dr, and sweep lambda_tok to see both frontiers.',
    config: { ...NOISY_BASE }, warmStart: NOISY_WARM,
  },
  {
    name: 'relay-noisy-dr', title: 'Relay: a noisy channel, advantage r - mean (Dr. GRPO)',
    explain: 'The noisy channel (eps 0.3) with advantages r - group mean, not divided by the group std. Now lambda_tok keeps its units: a copy is worth keeping while it adds more than lambda_tok of expected accuracy. At lambda_tok 0.1 the analytic optimum is two copies when the Solver does not know and silence when it does (accuracy about 0.95 at about 1.4 tokens); smaller penalties keep more copies, lambda 0 keeps long messages (the warm start sends 7 to 8 copies greedily). A lambda sweep traces a real accuracy-vs-tokens curve here.',
    config: { ...NOISY_BASE, advantage: 'none' }, warmStart: NOISY_WARM,
  },
  {
    name: 'relay-scouts', title: 'Relay: four Scouts, one of whom knows the answer',
    explain: 'A four-digit secret is split among four Scouts, one digit each; all four write at once and the Solver reads every message. Only the Scout holding the queried digit needs to speak, and nobody needs to when the Solver already knows. Watch the silence rate of the Scouts that do not hold the digit (silenceOthers) rise toward 1 while accuracy holds. Sweep scouts = 1..4 to see how the cost of talking grows with the number of agents.',
    config: { ...RELAY_BASE, scouts: 4, digits: 4, maxMessage: 4, promptsPerStep: 16 },
    warmStart: { file: 'relay-scouts-warm.safetensors', demo: { demoSilence: 0.1, flagAwareDemos: true }, seed: 1, steps: 1000, target: 0.95 },
  },
);

const ADD_ACTOR = { file: 'addition-actor.safetensors', demo: {}, seed: 1, steps: 1500 };
const ADD_BASE: Partial<RunConfig> = {
  env: 'addition', algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.2, groupSize: 8, promptsPerStep: 16, minibatches: 2, lr: 1e-3,
  temperature: 1, advantage: 'group', gradClip: 1, lambdaTok: 0.01, lambdaTurn: 0, lambdaMode: 'manual', steps: 40, evalEvery: 10, evalEpisodes: 1000,
};

PRESETS.push(
  {
    name: 'agentpo-hint', title: 'AgentPO: a hint writer for a frozen Actor (GRPO)',
    explain: 'A frozen Actor adds two 2-digit numbers but drops carries (about 55% right alone); it trusts a hint CARRY or NOCARRY. Only the Collaborator trains, with GRPO and a binary reward. It starts untrained, with a miscalibrated idea of carrying (it says CARRY from a units sum of 5 up, and greedily nearly everywhere), which makes the Actor worse than alone. Watch accuracy climb past the Actor alone as the Collaborator learns when the units column carries; the comparison shows alone / untrained / trained with 95% intervals.',
    config: { ...ADD_BASE, topology: 'hint' }, warmStart: { file: 'agentpo-hint-collaborator.safetensors', demo: {}, seed: 2, steps: 300 },
    slots: { actor: { trainable: false, warmStart: ADD_ACTOR }, collaborator: { trainable: true, warmStart: { file: 'agentpo-hint-collaborator.safetensors', demo: {}, seed: 2, steps: 300 } } },
  },
  {
    name: 'agentpo-critic', title: 'AgentPO: a critic for a frozen Actor (GRPO)',
    explain: 'The Actor drafts an answer; the Critic reads it and says OK (or nothing) or FIX CARRY / FIX NOCARRY, and on a FIX the Actor answers again, which costs a turn (lambda_turn 0.02 per turn taken). The untrained Critic says FIX CARRY almost everywhere, breaking right drafts. (With lambda_turn 0.1 or lr 1e-3, GRPO pulls it into total silence within 10 steps: quiet, but no help.) Watch it learn to stay quiet when the draft is right and to speak only when a carry was dropped: the OK rates on right and wrong drafts pull apart.',
    config: { ...ADD_BASE, topology: 'critic', lambdaTok: 0, lambdaTurn: 0.02, lr: 3e-4 }, warmStart: { file: 'agentpo-critic-collaborator.safetensors', demo: {}, seed: 3, steps: 300 },
    slots: { actor: { trainable: false, warmStart: ADD_ACTOR }, collaborator: { trainable: true, warmStart: { file: 'agentpo-critic-collaborator.safetensors', demo: {}, seed: 3, steps: 300 } } },
  },
);

const PHIL_BASE: Partial<RunConfig> = {
  env: 'philosophers', algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.2, groupSize: 8, promptsPerStep: 4, minibatches: 2, lr: 1e-3,
  temperature: 1, advantage: 'group', gradClip: 1, lambdaTok: 0.02, lambdaMode: 'manual', philosophers: 3, rounds: 8, philMessage: 1,
  nLayer: 2, nHead: 2, nEmbd: 32, steps: 40, evalEvery: 5, evalEpisodes: 64,
};
const PHIL_WARM = { file: 'philosophers-warm.safetensors', demo: {}, seed: 1, steps: 600 };

PRESETS.push(
  {
    name: 'philosophers-hackable', title: 'Dining philosophers: a hackable reward (GRPO)',
    explain: `Three philosophers share three forks; the warm start eats (half resource hierarchy, half random play). The reward has four terms: meals, a deadlock penalty, a starvation penalty and a cost per action, and these weights make doing nothing the maximum. ${PHIL_WEIGHTS_ARITHMETIC.hackable} Watch actions and meals fall while the reward rises: the trainer flags the run as degenerate, and the best checkpoint (by meals) is an early one, not the final.`,
    config: { ...PHIL_BASE, ...PHIL_WEIGHTS.hackable, lr: 3e-3 }, warmStart: PHIL_WARM,
  },
  {
    name: 'philosophers-fixed', title: 'Dining philosophers: a fixed reward (GRPO)',
    explain: `The same table with the starvation penalty raised so that feeding everyone is worth it. ${PHIL_WEIGHTS_ARITHMETIC.fixed} Compare meals per philosopher with the random and resource-hierarchy baselines: GRPO improves on random but does not close the gap to the scripted solution.`,
    config: { ...PHIL_BASE, ...PHIL_WEIGHTS.fixed }, warmStart: PHIL_WARM,
  },
  {
    name: 'philosophers-curriculum', title: 'Dining philosophers: a curriculum 3 -> 5 -> 7',
    explain: 'The fixed reward with a curriculum: the table grows from 3 to 5 to 7 philosophers when the share of philosophers who ate passes 0.6 in two evals in a row. The charts mark where N changed; the best checkpoint restarts at each stage (evals at different N do not compare).',
    config: { ...PHIL_BASE, ...PHIL_WEIGHTS.fixed, curriculum: 'on', curriculumThreshold: 0.6, curriculumPatience: 2, steps: 60 }, warmStart: PHIL_WARM,
  },
);

/** Presets made at run time (your own task: src/envs/userTask/preset.ts), by name; findPreset finds them after the shipped ones. */
const REGISTERED = new Map<string, Preset>();
export function registerPreset(p: Preset): void { REGISTERED.set(p.name, p); }

export function findPreset(name: string): Preset {
  const p = typeof name === 'string' ? PRESETS.find((x) => x.name === name) ?? REGISTERED.get(name) : undefined;
  // the name is clipped: it can come from a flag, a link or stored state of any length
  if (!p) throw new InputError(`unknown preset ${quote(name)} (presets: ${PRESETS.map((x) => x.name).join(', ')})`);
  return p;
}

export function presetConfig(p: Preset, overrides: Record<string, unknown> = {}): RunConfig {
  return validateConfig(overrides, validateConfig(p.config as Record<string, unknown>, DEFAULTS));
}

// The first screen's population: the noisy channel with advantages r - mean (lambda_tok keeps its
// units) at a size where K members move within seconds on a 2-core CPU: 8 prompts a step, a larger
// step size, and a short eval.
PRESETS.push({
  name: 'relay-noisy-quick', title: 'Relay: a noisy channel, small and quick',
  explain: 'relay-noisy-dr made small enough to train several runs at once on a laptop CPU: 8 tasks of 8 episodes a step, a larger step size, 64 eval episodes, 40 steps. Each message token is erased with probability 0.3, so copies of the asked digit buy accuracy with diminishing returns (one copy is right 73% of the time, two 92%, three 98%), and a copy is worth its token while it adds more than lambda_tok of expected accuracy. Train one run per lambda_tok side by side: the larger the penalty, the fewer copies, and the runs spread along an accuracy-vs-tokens frontier.',
  config: { ...NOISY_BASE, advantage: 'none', promptsPerStep: 8, minibatches: 2, lr: 7e-4, evalEpisodes: 64, evalEvery: 10, steps: 40 },
  warmStart: NOISY_WARM,
});
