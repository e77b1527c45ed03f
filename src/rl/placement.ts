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
import { InputError } from '../contract/errors';
import { memberBytes, membersAtOnce, type MemberChange } from './population';
import { checkStackedChanges, stackRefusal } from './populationPlan';
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
  /** Lanes that may run at once (the page's workers; the CLI's one device on WebGPU). */
  lanesAtOnce: number;
  /** Bytes the members may use together (the page's share of memory, the CLI's --memory-limit). */
  memoryBytes: number;
  /**
   * Members a person asked to train at once (the CLI's --members; --sequential is 1): refused, naming the limit,
   * when more than fit in memoryBytes (a cap such as lanesAtOnce is silently met instead); on WebGPU the most
   * members one stacked lane holds, the lanes then running one after another.
   */
  asked?: number;
  /** Live changes (member: an index into the configs): a shared field changed in one member keeps them apart. */
  changes?: readonly MemberChange[];
  /** What a member takes where it trains, from memberBytes' tensors (the CLI's member threads: cpuThreadBytes); default the tensors. */
  memberCost?: (tensorBytes: number) => number;
}

export interface Placement {
  /** Each lane's members (indices into the configs), in order. */
  lanes: number[][];
  /** How many lanes run at once (the rest wait for a free one). */
  atOnce: number;
  /** Where they train, in words for the page and the CLI. */
  layout: string;
  /** Why the members do not stack (null when they do, or when there is one). */
  refusal: string | null;
  /** The heaviest member's estimate in bytes (population.ts memberBytes, through PlaceWhere.memberCost). */
  memberBytes: number;
}

/** `env`: the members' environment, or each member's (members of different presets stack only if they agree). */
export function placeMembers(configs: readonly RunConfig[], env: Environment<any, any> | readonly Environment<any, any>[], where: PlaceWhere): Placement {
  const K = configs.length;
  if (K < 1 || K > MAX_MEMBERS) throw new InputError(`a population has 1 to ${MAX_MEMBERS} members; got ${K}`);
  const envs: readonly Environment<any, any>[] = Array.isArray(env) ? env : configs.map(() => env as Environment<any, any>);
  const alone = configs.map((_, k) => [k]);
  const refusal = K > 1 ? stackRefusal(configs, envs[0], where.changes) : null;
  // throws, naming the limit, when not even one member fits the memory given, or fewer than asked (the GPU's own
  // budget is checked where it runs)
  const tensors = Math.max(...configs.map((c, k) => memberBytes(c, modelConfigFor(envs[k], c), slotNames(envs[k]).length)));
  const perMember = where.memberCost ? where.memberCost(tensors) : tensors;
  const fit = membersAtOnce(K, perMember, where.memoryBytes, where.asked);
  const stack = where.asked ?? K;
  if (where.backend === 'webgpu' && stack > 1 && refusal === null) {
    const lanes = Array.from({ length: Math.ceil(K / stack) }, (_, l) => alone.flat().slice(l * stack, (l + 1) * stack));
    // a live change a lane could not apply at its step is refused now, before any member trains
    for (const lane of lanes) {
      if (lane.length < 2) continue;
      const local = (where.changes ?? []).filter((c) => c.member === null || lane.includes(c.member)).map((c) => ({ ...c, member: c.member === null ? null : lane.indexOf(c.member) }));
      checkStackedChanges(lane.map((k) => configs[k]), envs[lane[0]], local);
    }
    const layout = lanes.length === 1 ? `${K} members stacked in one worker on WebGPU: one set of dispatches per step for all of them`
      : `${K} members stacked ${stack} at a time on WebGPU: one set of dispatches per step for each ${stack}`;
    return { lanes, atOnce: 1, layout, refusal, memberBytes: perMember };
  }
  const atOnce = Math.min(Math.max(1, where.lanesAtOnce), fit);
  const layout = where.backend === 'cpu' ? `one worker per member on the CPU backend, ${Math.min(atOnce, K)} at once`
    : refusal ? `one worker per member, as they cannot stack: ${refusal}` : 'one worker';
  return { lanes: alone, atOnce, layout, refusal, memberBytes: perMember };
}
