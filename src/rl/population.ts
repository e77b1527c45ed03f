// A population: K members of one sweep that share the model shape, the warm start
// and the eval set, and differ in one numeric field's value and/or the seed. On the
// CPU backend each member is today's Trainer on its own thread (a worker thread in
// the CLI, a Web Worker in the page), so a member is bit for bit the run it would be
// alone. This file holds what both sides share: how much memory a member needs,
// how many fit at once, and the live changes a person makes to one member or all.
import { checkLiveChange, validateConfig, type RunConfig } from '../config';
import { InputError } from '../contract/errors';
import type { GPTConfig } from '../model/params';
import { paramCount } from '../model/params';

const MiB = 1 << 20;
const F32 = 4;

/**
 * The float counts of one activation set's tensors for `rows` sequences of T positions (gpt.ts `Acts`, one
 * entry per allocation; the layer tensors repeated per layer), named for the budget's messages.
 */
export function activationTensors(m: GPTConfig, rows: number): { name: string; floats: number }[] {
  const C = m.nEmbd, NH = m.nHead, V = m.vocabSize, T = m.blockSize, BT = rows * T;
  const layer = [['ln1', BT * C], ['ln1Mean', BT], ['ln1Rstd', BT], ['qkv', BT * 3 * C], ['att', rows * NH * T * T], ['atty', BT * C],
    ['residual2', BT * C], ['ln2', BT * C], ['ln2Mean', BT], ['ln2Rstd', BT], ['fch', BT * 4 * C], ['fchGelu', BT * 4 * C], ['residual3', BT * C]] as const;
  const top = [['tokens', BT], ['encoded', BT * C], ['lnf', BT * C], ['lnfMean', BT], ['lnfRstd', BT], ['logits', BT * V], ['dlogits', BT * V],
    ['dresidual', BT * C], ['dlnf', BT * C], ['dbt3c', BT * 3 * C], ['dbt4c', BT * 4 * C], ['dbt4c2', BT * 4 * C], ['dbtc', BT * C],
    ['dpreatt', rows * NH * T * T]] as const;
  const out: { name: string; floats: number }[] = [];
  for (let l = 0; l < m.nLayer; l++) for (const [name, floats] of layer) out.push({ name, floats });
  for (const [name, floats] of top) out.push({ name, floats });
  return out;
}

/** One layer's KV cache for `rows` sequences (gpt.ts: nLayer of them per decoding set). */
export const kvCacheFloats = (m: GPTConfig, rows: number): number => rows * m.blockSize * 3 * m.nEmbd;

/**
 * Bytes one member holds, estimated from the shapes: its parameters x (weights, gradients, AdamW's two
 * moments, the best checkpoint, the KL reference when beta > 0) per trainable slot plus the frozen slots'
 * weights, and the activation sets it keeps (rollout, each minibatch, eval) with their KV caches. An
 * estimate to refuse what cannot fit before anything starts, not an allocator's exact count.
 */
export function memberBytes(config: RunConfig, model: GPTConfig, slots = 1, round: (bytes: number) => number = (b) => b, chunkRows = Infinity): number {
  // `round`: what one allocation of that many bytes costs (the GPU buffer pool's size classes; exact by default)
  // `chunkRows`: the rows generated at once (a rollout or eval larger than that is generated in chunks)
  const n = paramCount(model);
  const copies = 5 + (config.beta > 0 ? 1 : 0);
  const params = (copies + slots - 1) * round(n * F32);
  const rollout = config.promptsPerStep * config.groupSize;
  const minibatch = Math.ceil(rollout / config.minibatches);
  const generated = Math.min(rollout, chunkRows), evaluated = Math.min(config.evalEpisodes, chunkRows);
  const acts = (rows: number) => activationTensors(model, rows).reduce((a, t) => a + round(t.floats * F32), 0);
  const kv = (rows: number) => model.nLayer * round(kvCacheFloats(model, rows) * F32);
  const perSlot = acts(generated) + kv(generated) + acts(evaluated) + kv(evaluated);
  return params + slots * perSlot + acts(minibatch);
}

/**
 * What a member takes in a CLI member thread on the CPU engine, from memberBytes' tensors: the arena's high-water
 * mark runs above the live tensors (a freed block serves other sizes up to 2x, gpt.ts keeps the shapes it used
 * last), and the thread has its own V8 isolate, compiled kernels and the run's JavaScript. Measured on
 * relay-noisy-dr (236 MiB of tensors): the arena peaked at 271 MiB in one member, and a 4-member sweep took about
 * 410 MB a member more than one (docs/cpu-engine.md, "Memory").
 */
export function cpuThreadBytes(tensorBytes: number): number {
  return Math.ceil(tensorBytes * 1.25) + 128 * MiB;
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

/**
 * Runs work(i) for every i < count, at most `atOnce` at a time: the next starts when one ends, so members of
 * unequal cost share the slots. `more()` is asked before each start (a stopped sweep starts no more).
 */
export async function inLanes(count: number, atOnce: number, work: (i: number) => Promise<void>, more: () => boolean = () => true): Promise<void> {
  let next = 0;
  const lane = async () => { while (next < count && more()) await work(next++); };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(atOnce, count)) }, lane));
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
