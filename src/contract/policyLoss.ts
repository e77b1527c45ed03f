// policyLoss (src/backend.ts) composed from the four RL ops: the CPU engines' implementation, WebGPU's fallback, and
// the twin of WebGPU's one-dispatch kernel (shaders/rl.policy_loss.wgsl, policy_loss; test: test/gpu/rl.test.ts).
import type { Backend, PolicyLossArgs, Tensor } from '../backend';

export function composePolicyLoss(b: Backend, a: PolicyLossArgs): void {
  const { S, T, loss } = a;
  // with perSequenceNorm, seqAdv's first S values are the advantages and the divisors follow (read by clipLoss)
  const head = a.seqAdv.size === S ? a.seqAdv : b.view(a.seqAdv, 0, S);
  b.gather(head, a.adv, a.seqEpisode, S);
  b.seqRatio(a.logS, a.ratio, a.tokRatio, a.logp, a.oldLogp, a.mask, S, T);
  b.clipLoss(a.lossSeq, a.klSeq, a.clipSeq, a.dlogp, a.logp, a.ratio, a.tokRatio, a.seqAdv, a.mask, a.refLogp, S, T, loss);
  if (a.stats) b.rlStats(a.stats, a.lossSeq, a.klSeq, a.clipSeq, a.ratio, a.tokRatio, a.mask, S, T, loss.algorithm, loss.beta);
}

export type PolicyLossOutputs = Pick<PolicyLossArgs, 'seqAdv' | 'logS' | 'ratio' | 'tokRatio' | 'lossSeq' | 'klSeq' | 'clipSeq' | 'dlogp'>;

/**
 * policyLoss's outputs as views of one tensor (`base`, freed by the caller; the views with it), so WebGPU binds them as
 * one buffer: its one-dispatch kernel would otherwise bind more than the 8 storage buffers WebGPU's defaults allow.
 */
export function policyLossOutputs(b: Backend, S: number, T: number, advLength: number): PolicyLossOutputs & { base: Tensor } {
  const parts: [keyof PolicyLossOutputs, number][] = [
    ['seqAdv', advLength], ['logS', S], ['ratio', S], ['lossSeq', S], ['klSeq', S], ['clipSeq', S], ['tokRatio', S * T], ['dlogp', S * T]];
  const aligned = (n: number) => Math.ceil(n / b.viewAlign) * b.viewAlign; // each view's offset, as b.view requires
  const base = b.alloc(parts.reduce((n, [, size]) => n + aligned(size), 0));
  const out = { base } as PolicyLossOutputs & { base: Tensor };
  let at = 0;
  for (const [name, size] of parts) { out[name] = b.view(base, at, size); at += aligned(size); }
  return out;
}
