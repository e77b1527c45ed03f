// Where a population's members train: lanes. A lane is one worker (the page) or one
// process/thread (the CLI) holding one Trainer of the lane's members, stepping together.
// One rule for the page and the CLI:
// - on a GPU, one lane holds every member when they stack (populationPlan.ts): one set of
//   dispatches per step whatever K, which is where a GPU's time goes at these sizes;
// - otherwise (the CPU, or members that cannot stack) one lane per member, as many at once
//   as memory allows (and the caller's cap): lanes share the cores, so every member's trail
//   moves from the start (the page's lesson is the trails spreading apart), and a lane that
//   ends frees its core. Either way a member computes exactly what its lone run computes
//   (the population tests), so placement never changes results.
import type { RunConfig } from '../config';
import type { Environment } from '../envs/types';
import { InputError } from '../errors';
import { memberBytes, membersAtOnce } from './population';
import { stackRefusal } from './populationPlan';
import { modelConfigFor } from './pretrain';
import { slotNames } from './slots';

/**
 * The most members one population holds. Each stacked member's rows and parameters sit side by side in one
 * tensor per kind, so what really bounds K is memory, checked per run against the device (memoryBudget.ts);
 * this cap keeps a page's chart readable (one trail per member) and a sweep of every value on a slider's
 * range times a few seeds within it.
 */
export const MAX_MEMBERS = 64;

export interface PlaceWhere {
  backend: 'webgpu' | 'cpu';
  /** Lanes that may run at once (the page's workers; the CLI's --members). */
  lanesAtOnce: number;
  /** Bytes the members may use together (the page's share of memory, the CLI's --memory-limit). */
  memoryBytes: number;
}

export interface Placement {
  /** Each lane's members (indices into the configs), in order. */
  lanes: number[][];
  /** How many lanes run at once (the rest wait for a free one). */
  atOnce: number;
  /** Where they train, in words for the page and the CLI. */
  layout: string;
}

export function placeMembers(configs: readonly RunConfig[], env: Environment<any, any>, where: PlaceWhere): Placement {
  const K = configs.length;
  if (K < 1 || K > MAX_MEMBERS) throw new InputError(`a population has 1 to ${MAX_MEMBERS} members; got ${K}`);
  const alone = configs.map((_, k) => [k]);
  const refusal = K > 1 ? stackRefusal(configs, env) : null;
  // throws, naming the limit, when not even one member fits the memory given (the GPU's own budget is checked where it runs)
  const perMember = Math.max(...configs.map((c) => memberBytes(c, modelConfigFor(env, c), slotNames(env).length)));
  const fit = membersAtOnce(K, perMember, where.memoryBytes);
  if (where.backend === 'webgpu' && K > 1 && refusal === null) {
    return { lanes: [alone.flat()], atOnce: 1, layout: `${K} members stacked in one worker on WebGPU: one set of dispatches per step for all of them` };
  }
  const atOnce = Math.min(Math.max(1, where.lanesAtOnce), fit);
  const layout = where.backend === 'cpu' ? `one worker per member on the CPU backend, ${Math.min(atOnce, K)} at once`
    : refusal ? `one worker per member, as they cannot stack: ${refusal}` : 'one worker';
  return { lanes: alone, atOnce, layout };
}
