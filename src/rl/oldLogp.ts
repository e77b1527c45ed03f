// pi_old's log-probs for the loss (docs/rl.md section 1). The sampler already computed them with the
// step's starting weights, so the update reuses them instead of a second forward over the loss rows
// (what TRL does when it can). The reuse is exact only when the sampler's distribution is the loss's:
// the same temperature and no other logit processing (this sampler has no top-k or top-p). Where that
// does not hold, a forward of the starting weights recomputes them (TRL's old-logprob pass).
import type { Backend } from '../backend';
import type { GPT } from '../model/gpt';
import type { MemberSplit, PolicyBatch } from './objective';
import type { Sequence } from './rollout';

/** 'sampling': reuse the sampler's log-probs where exact, else a forward; 'forward': always the forward (the oracle for tests). */
export type OldLogpSource = 'sampling' | 'forward';

/** Whether the sampler's log-probs of these sequences are pi_old at the loss's temperature (a rollout of the step's weights). */
export function samplingLogpReusable(seqs: readonly Sequence[], temperature: number): boolean {
  return seqs.every((s) => s.logpTemperature === temperature);
}

/**
 * The old-logprob pass: a forward of the model's current weights (call it before the step's first update) over the
 * batch's rows; their log-probs at `temperature` replace batch.oldLogp at the trained (mask > 0) positions.
 * `seqs`: a population's per-member sequence counts. Reads back (a sync point).
 */
export async function forwardOldLogp(b: Backend, model: GPT, batch: PolicyBatch, temperature: number, seqs?: readonly number[]): Promise<void> {
  const { S, T } = batch, N = S * T, V = model.config.vocabSize;
  const targets = b.alloc(N, 'i32'), logp = b.alloc(N), entropy = b.alloc(N);
  b.write(targets, batch.targets);
  const logits = model.forward(batch.tokens, S, T, undefined, seqs, false);
  b.logprobForward(logp, entropy, logits, targets, N, V, temperature);
  const got = await b.read(logp);
  for (let i = 0; i < N; i++) if (batch.mask[i] > 0) batch.oldLogp[i] = got[i];
  for (const t of [targets, logp, entropy]) b.free(t);
}

/**
 * pi_old of a step's minibatches (null: one the step skips): the sampler's log-probs where they are exact (the same
 * temperature; every minibatch then saves the forward TRL's old-logprob pass would run), else a forward of the
 * starting weights each. Call before the step's first update. Returns how many minibatches took which.
 */
export async function oldLogpOf(b: Backend, model: GPT, plans: readonly ({ seqs: Sequence[]; batch: PolicyBatch; split?: MemberSplit } | null)[],
  temperature: number, source: OldLogpSource): Promise<{ reused: number; forward: number }> {
  const live = plans.filter((p) => p !== null);
  const reuse = source === 'sampling' && live.every((p) => samplingLogpReusable(p.seqs, temperature));
  if (!reuse) for (const p of live) await forwardOldLogp(b, model, p.batch, temperature, p.split?.seqs);
  return { reused: reuse ? live.length : 0, forward: reuse ? 0 : live.length };
}
