// The AgentPO comparison (docs/envs.md section 2): the frozen Actor alone, with the
// untrained Collaborator, and with the trained one, on the held-out set.
import type { Backend } from '../backend';
import { validateConfig, type RunConfig } from '../config';
import { createEnv } from '../envs/registry';
import type { Environment } from '../envs/types';
import { InputError } from '../contract/errors';
import { comparisonRow, type ComparisonRow } from './interval';
import { messageParts } from './reward';
import { sequencesByEpisode } from './rollout';
import { Trainer } from './trainer';
import { type TrainerSlots } from './slots';

export type { ComparisonRow } from './interval';

export interface Comparison { step: number; rows: ComparisonRow[] }

/** The three arms' starts: the frozen Actor, and the Collaborator before and after training. */
export interface ComparisonStarts { actor: Float32Array; untrained: Float32Array; trained: Float32Array }

/**
 * Greedy evaluation of each arm on the same held-out problems (`episodes` of them),
 * with a 95% Wilson interval on accuracy. Only the Actor plays in "actor alone".
 */
export async function compareCollaborators(backend: Backend, config: RunConfig, starts: ComparisonStarts, episodes: number, step: number,
  trainedName = 'trained collaborator'): Promise<Comparison> {
  const c = validateConfig({ evalEpisodes: episodes }, config);
  const arm = async (name: string, topology: RunConfig['topology'], collaborator: Float32Array | null): Promise<ComparisonRow> => {
    const cfg = validateConfig({ topology }, c);
    const env = createEnv(cfg);
    const slots: TrainerSlots = { actor: { trainable: false, weights: starts.actor } };
    if (collaborator) slots.collaborator = { trainable: false, weights: collaborator };
    const tr = new Trainer(backend, env, cfg, slots);
    try {
      await tr.evaluate();
      const ro = tr.lastEval!.rollout;
      const tokens = sequencesByEpisode(ro).map((seqs) => messageParts(seqs, env.eos).tokens);
      return comparisonRow(name, ro.scores, tokens, env.evalExtras(ro.scores));
    } finally {
      tr.destroy();
    }
  };
  return {
    step,
    rows: [
      await arm('actor alone', 'alone', null),
      await arm('untrained collaborator', config.topology, starts.untrained),
      await arm(trainedName, config.topology, starts.trained),
    ],
  };
}

/**
 * The env's comparison of players (Environment.comparison): its frozen player alone, with the
 * helper's start (`warm`), and with `trained` (the helper's weights after training). Callers need
 * not know which env has one: an env without it is an InputError.
 */
export function comparePlayers(backend: Backend, env: Environment, config: RunConfig, warm: TrainerSlots, trained: Float32Array,
  step: number, trainedName: string, episodes?: number): Promise<Comparison> {
  const cmp = env.comparison;
  if (!cmp) throw new InputError(`the ${env.id} environment (as configured) has no comparison of players; the AgentPO presets (agentpo-hint, agentpo-critic) have one`);
  const frozen = warm[cmp.frozen]?.weights, helper = warm[cmp.helper]?.weights;
  if (!frozen || !helper) throw new InputError(`comparison: the run has no start for the slots "${cmp.frozen}" and "${cmp.helper}"`);
  return compareCollaborators(backend, config, { actor: frozen, untrained: helper, trained }, episodes ?? cmp.episodes, step, trainedName);
}
