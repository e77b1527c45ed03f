// Which populations stack: K members in one GPT (one set of dispatches) need one shape
// and one value of every number the stacked kernels take once for all rows. A member
// may differ in its seed, its learning rate (a tensor [K]) and the reward's fields (the
// host computes each member's rewards). Anything else makes the plan run member after
// member instead, with the reason said.
import { checkLiveChange, FIELDS, validateConfig, type RunConfig } from '../config';
import { InputError } from '../contract/errors';
import type { Environment } from '../envs/types';
import { slotNames } from './slots';
import type { MemberChange } from './population';

/** Fields a stacked member may hold its own value of. */
export const MEMBER_FIELDS: ReadonlySet<keyof RunConfig> = new Set(
  (Object.keys(FIELDS) as (keyof RunConfig)[]).filter((k) => k === 'seed' || k === 'lr' || FIELDS[k].group === 'reward'));

/** Fields that fix the batch's or the model's shape (the rest of the shared ones are kernel scalars or the run's length). */
const SHAPE_FIELDS: ReadonlySet<string> = new Set(['groupSize', 'promptsPerStep', 'minibatches', 'evalEpisodes', 'nLayer', 'nHead', 'nEmbd', 'env']);

function why(key: string): string {
  if (SHAPE_FIELDS.has(key) || FIELDS[key as keyof RunConfig]?.group === 'env') return 'it fixes the shape of the batch or the model';
  if (FIELDS[key as keyof RunConfig]?.group === 'algorithm') return 'the stacked kernels take one value for every member';
  return 'the members step and evaluate in lock step';
}

/** Why these members cannot stack (null when they can). */
export function stackRefusal(configs: readonly RunConfig[], env: Environment<any, any>, changes: readonly MemberChange[] = []): string | null {
  if (configs.length === 0) return 'a population needs at least one member';
  const first = configs[0];
  for (const key of Object.keys(FIELDS) as (keyof RunConfig)[]) {
    if (MEMBER_FIELDS.has(key)) continue;
    const k = configs.findIndex((c) => c[key] !== first[key]);
    if (k > 0) return `members 0 and ${k} differ in ${key} (${String(first[key])} vs ${String(configs[k][key])}), and ${why(key)}`;
  }
  const slots = slotNames(env);
  if (slots.length > 1) return `${env.id} has policy slots ${slots.join(', ')}; a stacked population trains one-slot environments`;
  if (env.curriculum) return 'a curriculum changes the environment per member as it advances; a stacked population keeps one';
  if (first.advantage === 'batch') return 'advantage=batch normalises by the whole batch, which would mix the members';
  if (first.dynamicSampling === 'on') return 'dynamic sampling drops different groups per member, so members would take different numbers of updates';
  for (const c of changes) {
    const shared = Object.keys(c.partial).filter((k) => !MEMBER_FIELDS.has(k as keyof RunConfig));
    if (c.member !== null && shared.length) return `a live change of ${shared.join(', ')} to member ${c.member} alone (${why(shared[0])})`;
  }
  return null;
}

/** Throws an InputError naming the reason when the members cannot stack. */
export function checkStackable(configs: readonly RunConfig[], env: Environment<any, any>, changes: readonly MemberChange[] = []): void {
  const reason = stackRefusal(configs, env, changes);
  if (reason) throw new InputError(`these runs cannot train as one stacked population: ${reason}`);
}

/**
 * The members' configs after live changes (`partials[k]` to member k), or an InputError naming the members and
 * fields the rules refuse: a shared field changed for some members only, or a result that cannot stack.
 */
export function plannedConfigs(current: readonly RunConfig[], partials: readonly Partial<RunConfig>[], env: Environment<any, any>): RunConfig[] {
  const K = current.length;
  if (partials.length !== K) throw new Error(`a population of ${K} members got ${partials.length} changes`);
  partials.forEach((p) => checkLiveChange(Object.keys(p)));
  const next = current.map((c, k) => (Object.keys(partials[k]).length ? validateConfig(partials[k] as Record<string, unknown>, c) : c));
  if (K === 1) return next;
  const changed = partials.map((p, k) => (Object.keys(p).length ? k : -1)).filter((k) => k >= 0);
  const fields = [...new Set(changed.flatMap((k) => Object.keys(partials[k])))];
  const all = changed.length === K, who = all ? 'for every member' : `for member ${changed.join(', ')}`;
  const shared = fields.filter((key) => !MEMBER_FIELDS.has(key as keyof RunConfig));
  if (!all && shared.length) throw new InputError(`${shared.join(', ')} ${who}: one value for every member of a population; change it for all members`);
  const reason = stackRefusal(next, env);
  if (reason) throw new InputError(`${fields.join(', ')} ${who}: refused, ${reason}`);
  return next;
}

/**
 * Refuses, before any member trains, live changes a stacked population could not apply when their step comes
 * (`changes[i].member`: an index into `configs`, or null for every member): each is applied in step order through
 * plannedConfigs, the rule the Trainer applies at the step, so a change to every member that makes the members
 * unstackable (advantage=batch, dynamicSampling=on) is an InputError now, not every member's fault at that step.
 */
export function checkStackedChanges(configs: readonly RunConfig[], env: Environment<any, any>, changes: readonly MemberChange[]): void {
  let now: RunConfig[] = [...configs];
  for (const c of [...changes].sort((a, b) => a.step - b.step)) {
    const partials = now.map((_, k) => (c.member === null || c.member === k ? c.partial : {}));
    try {
      now = plannedConfigs(now, partials, env);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      const what = Object.entries(c.partial).map(([k, v]) => `${k}=${String(v)}`).join(',');
      throw new InputError(`--at ${c.step}:${what}${c.member === null ? '' : `@${c.member}`}: a stacked population cannot apply this live change: ${e.message}`);
    }
  }
}
