// A population: K members of one sweep that share the model shape, the warm start
// and the eval set, and differ in one numeric field's value and/or the seed. On the
// CPU backend each member is today's Trainer on its own thread (a worker thread in
// the CLI, a Web Worker in the page), so a member is bit for bit the run it would be
// alone. This file holds what both sides share: how much memory a member needs,
// how many fit at once, and the live changes a person makes to one member or all.
import { checkLiveChange, validateConfig, type RunConfig } from '../config';
import { InputError } from '../errors';
import type { GPTConfig } from '../model/params';
import { paramCount } from '../model/params';

const MiB = 1 << 20;
const F32 = 4;

/** Floats one forward-and-backward keeps per row position (the GPT's activation set, gpt.ts `Acts`). */
function floatsPerPosition(m: GPTConfig, T: number): number {
  const C = m.nEmbd, NH = m.nHead, V = m.vocabSize;
  // per layer: ln1 C, qkv 3C, atty C, residual2 C, ln2 C, fch 4C, fchGelu 4C, residual3 C, two means/rstds; att NH*T
  const layer = 16 * C + 4 + NH * T;
  // embeddings, ln_f, logits; scratch: dlogits V, dresidual, dlnf, dbt3c, 2 x dbt4c, dbtc, dpreatt NH*T
  return m.nLayer * layer + 2 * C + 2 + V + V + 13 * C + NH * T;
}

/**
 * Bytes one member holds, estimated from the shapes: its parameters x (weights, gradients, AdamW's two
 * moments, the best checkpoint, the KL reference when beta > 0) per trainable slot plus the frozen slots'
 * weights, and the activation sets it keeps (rollout, each minibatch, eval) with their KV caches. An
 * estimate to refuse what cannot fit before anything starts, not an allocator's exact count.
 */
export function memberBytes(config: RunConfig, model: GPTConfig, slots = 1): number {
  const n = paramCount(model), T = model.blockSize;
  const copies = 5 + (config.beta > 0 ? 1 : 0);
  const params = n * copies + (slots - 1) * n;
  const rollout = config.promptsPerStep * config.groupSize;
  const minibatch = Math.ceil(rollout / config.minibatches);
  const acts = (rows: number) => rows * T * floatsPerPosition(model, T);
  const kv = (rows: number) => model.nLayer * rows * T * 3 * model.nEmbd;
  const perSlot = acts(rollout) + kv(rollout) + acts(config.evalEpisodes) + kv(config.evalEpisodes);
  return (params + slots * perSlot + acts(minibatch)) * F32;
}

/** How many members of `perMember` bytes fit in `limit` bytes at once (0 when not even one does). */
export function membersThatFit(perMember: number, limit: number): number {
  return Math.max(0, Math.floor(limit / Math.max(1, perMember)));
}

const mib = (b: number) => `${Math.ceil(b / MiB)} MiB`;

/**
 * The number of members to run at once: `asked` (or all K) when they fit in `limit`, else as many as fit
 * when nobody asked for a number. Throws naming K and the limit when even one does not fit, or when the
 * asked number does not.
 */
export function membersAtOnce(K: number, perMember: number, limit: number, asked?: number): number {
  const fit = membersThatFit(perMember, limit);
  if (fit < 1) {
    throw new InputError(`a population member needs about ${mib(perMember)} (weights, optimizer state, activations), more than the limit of ${mib(limit)}: `
      + 'lower promptsPerStep, groupSize, evalEpisodes or the model size');
  }
  if (asked !== undefined) {
    if (!Number.isInteger(asked) || asked < 1) throw new InputError(`members at once must be an integer >= 1, got ${asked}`);
    const want = Math.min(asked, K);
    if (want > fit) {
      throw new InputError(`a population of K=${want} members needs about ${mib(want * perMember)} (${mib(perMember)} each), more than the limit of ${mib(limit)}: `
        + `at most ${fit} fit at once`);
    }
    return want;
  }
  return Math.min(K, fit);
}

/** A live change to one member (its index) or to all (null), and the step from which it applies. */
export interface MemberChange { step: number; member: number | null; partial: Partial<RunConfig> }

/**
 * `STEP:key=value[@MEMBER]` (the CLI's --at): from step STEP, a live field takes `value`, in member MEMBER
 * (its index in the sweep's plan, from 0) or in every member. The value is checked like any config value.
 */
export function parseChange(text: string, K: number, base: RunConfig): MemberChange {
  const m = /^(\d+):([A-Za-z]+)=([^@]*)(?:@(\d+))?$/.exec(text);
  if (!m) throw new InputError(`--at expects STEP:key=value or STEP:key=value@MEMBER, got ${JSON.stringify(text.slice(0, 60))}`);
  const step = Number(m[1]), key = m[2], member = m[4] === undefined ? null : Number(m[4]);
  if (!Number.isSafeInteger(step)) throw new InputError(`--at ${text.slice(0, 60)}: the step is too large`);
  checkLiveChange([key]);
  if (member !== null && member >= K) throw new InputError(`--at ${text.slice(0, 60)}: member ${member} does not exist (members 0..${K - 1})`);
  const next = validateConfig({ [key]: m[3] }, base);
  return { step, member, partial: { [key]: next[key as keyof RunConfig] } as Partial<RunConfig> };
}

/** The changes that apply to `member`, in step order (a member's own record of them). */
export function changesFor(changes: MemberChange[], member: number): MemberChange[] {
  return changes.filter((c) => c.member === null || c.member === member).sort((a, b) => a.step - b.step);
}
