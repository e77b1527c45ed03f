// A step's update phase (Trainer.stepAll, after the rollouts and the advantages): each member's episodes in its own
// seeded order, cut into `minibatches`; every minibatch's loss rows and pi_old before any update; then one optimizer
// update per minibatch, each member's stats settled one minibatch behind so the device never waits for the host.
import type { Backend, Tensor } from '../backend';
import type { RunConfig } from '../config';
import type { GPT } from '../model/gpt';
import type { AdamW } from '../model/optimizer';
import { mulberry32 } from '../model/random';
import { firstNonFiniteTensor } from './faults';
import type { Member } from './member';
import type { MemberSplit, ObjectiveStats, PolicyBatch, PolicyObjective } from './objective';
import type { Sequence } from './rollout';
import type { StepHooks } from './runRecord';
import { rowLength, sequencesToBatch } from './stepBatch';

/** A minibatch's loss rows: each member's own, all of them, as one batch (and the members' split of it, K > 1). */
export interface MinibatchPlan { own: Sequence[][]; seqs: Sequence[]; batch: PolicyBatch; split?: MemberSplit }

/**
 * Each member's E episodes in its own order (seeded by its seed and the step, as its lone run's). `kept`: dynamic
 * sampling's groups (of G episodes); the episodes of the others (all-equal rewards, A = 0) leave the loss.
 */
export function memberOrders(cs: readonly RunConfig[], E: number, G: number, step: number, kept: readonly number[] | null): number[][] {
  const inLoss = kept ? new Set(kept) : null;
  return cs.map((c) => {
    const all = Array.from({ length: E }, (_, i) => i), rand = mulberry32(c.seed * 7919 + step);
    for (let i = E - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [all[i], all[j]] = [all[j], all[i]]; }
    return inLoss ? all.filter((e) => inLoss.has(Math.floor(e / G))) : all;
  });
}

/**
 * Every minibatch's rows, made before any update (pi_old must come from the step's starting weights): minibatch mb
 * takes each member's mb-th share of its order. null: a minibatch no member has loss rows in (a lone run skips it;
 * stacked members cannot skip alone, so one member without rows beside others is an error).
 * `lossByEpisode`: the loss rows of every global episode (member k's episodes are k * E ...).
 */
export function minibatchPlans(orders: readonly number[][], lossByEpisode: readonly Sequence[][], E: number, nMb: number, blockSize: number,
  step: number): (MinibatchPlan | null)[] {
  const K = orders.length;
  return Array.from({ length: nMb }, (_, mb) => {
    const own = orders.map((order, k) => {
      const rows: Sequence[] = []; // a loop, not flatMap: this gathers every loss row of the step
      for (let i = Math.floor((mb * order.length) / nMb); i < Math.floor(((mb + 1) * order.length) / nMb); i++) for (const q of lossByEpisode[k * E + order[i]]) rows.push(q);
      return rows;
    });
    const empty = own.findIndex((s) => s.length === 0);
    if (empty >= 0) {
      if (own.every((s) => s.length === 0)) return null;
      throw new Error(`step ${step}: member ${empty} has no loss rows in minibatch ${mb} while others do`);
    }
    const seqs = ([] as Sequence[]).concat(...own); // concat, not flat(): V8's flat is slow on the step's every loss row
    const batch = sequencesToBatch(seqs, (e) => e, rowLength(seqs, blockSize));
    const split: MemberSplit | undefined = K === 1 ? undefined : { seqs: own.map((s) => s.length), tMax: own.map((s) => s.reduce((a, q) => Math.max(a, q.maxNew), 1)) };
    return { own, seqs, batch, split };
  });
}

/** What the updates change and read: the Trainer's model, optimizer, objective, members and KL reference. */
export interface UpdateParts<State> {
  backend: Backend;
  model: GPT;
  opt: AdamW;
  objective: PolicyObjective;
  members: readonly Member<State>[];
  ref: Tensor | null;
}

/**
 * One optimizer update per plan (pi_old already in each batch), in order. `hooks.stopRequested` is asked before every
 * minibatch after the first: a pause keeps the updates made so far. `updated` is called after each update is
 * submitted. `fracZeroStd`: each member's share of flat groups (K > 1, for its stats).
 */
export async function runUpdates<State>(u: UpdateParts<State>, plans: readonly (MinibatchPlan | null)[], cs: readonly RunConfig[], step: number,
  fracZeroStd: number[], hooks: StepHooks, updated: () => void): Promise<void> {
  const { backend: b, model, opt, objective, members } = u, c0 = cs[0], K = members.length, nMb = plans.length;
  // Minibatch m+1 is recorded and submitted before m's stats are awaited, so the device never idles while
  // the host reads back and builds the next batch. The read is issued at call time, before m+1 overwrites it.
  let pending: { reading: Promise<ObjectiveStats[]>; m: number } | null = null;
  const settle = async (p: NonNullable<typeof pending>) => {
    const stats = await p.reading;
    // which tensor: read back only on this rare path. The gradient buffer holds the last minibatch recorded
    // (m, or m + 1 when it was already on its way); when that one is finite, no tensor is named.
    for (let k = 0; k < K; k++) {
      await members[k].settle(step, stats[k], async () => firstNonFiniteTensor(model.config, await model.readMember(k, model.grads)));
    }
    hooks.progress?.(p.m + 1, nMb);
  };
  for (let mb = 0; mb < nMb; mb++) {
    if (mb > 0 && hooks.stopRequested?.()) break;
    const plan = plans[mb];
    if (!plan) continue;
    const { own, batch, split } = plan;
    own.forEach((s, k) => members[k].lossShapes.push({ rows: s.length, T: K === 1 ? batch.T : rowLength(s, model.config.blockSize) }));
    cs.forEach((c, k) => { opt.memberLr[k] = c.lr; });
    model.zeroGrad();
    objective.recordMinibatch(model, batch, c0, u.ref ?? undefined, split);
    opt.measure();
    objective.keepGradNormSq(opt.normSq); // the norms come back with the stats: one readback per minibatch
    opt.apply(); // a member whose gradient is not finite keeps its weights (the guard, per member)
    const next = { reading: split ? objective.readMemberStats(batch, split, c0, fracZeroStd) : objective.readStats(batch).then((s) => [s]), m: mb };
    b.submit(); // the minibatch and its stats' copy: one submission
    updated();
    if (pending) await settle(pending);
    pending = next;
  }
  if (pending) await settle(pending);
}
