// The CPU backend: the reference ops behind the Backend interface. With
// precision 'f64' it is the float64 oracle used by finite-difference tests.
// Kernel twins: of shaders/layernorm_matmul.wgsl, layernormMatmulForward (test: test/gpu/layernormMatmul.test.ts); of
// shaders/linear_backward.wgsl's GELU mode, matmulGeluBackward (test: test/gpu/linearBackward.test.ts): the ops composed.
import { checkMemberRows, checkRange, checkRepeat, memberStride, type AdamWParams, type AdvantageMode, type DecodeSampleArgs, type DecodeShape, type Algorithm, type Backend, type LossArgs, type DType, type FloatArray, type MemberOptim,
  type Members, type MemberStack, type PolicyLossArgs, type Tensor } from '../backend';
import { clipAdamwComposed, layernormMatmulComposed, matmulGeluBackwardComposed } from './composed';
import { composeDecodeSample, DecodeScratch } from './decodeSample';
import { composePolicyLoss } from '../contract/policyLoss';
import * as mem from './members';
import * as nn from './nn';
import * as ls from './logsoftmax';
import * as opt from './optim';
import * as rl from './rl';
import * as smp from './sample';

class CpuTensor implements Tensor {
  constructor(readonly data: FloatArray | Int32Array, readonly dtype: DType) {}
  get size(): number { return this.data.length; }
}

function f(t: Tensor): FloatArray {
  if (!(t instanceof CpuTensor) || t.dtype !== 'f32') throw new Error('cpu backend: expected a float tensor of this backend');
  return t.data as FloatArray;
}
function i32(t: Tensor): Int32Array {
  if (!(t instanceof CpuTensor) || t.dtype !== 'i32') throw new Error('cpu backend: expected an i32 tensor of this backend');
  return t.data as Int32Array;
}

/** The host row offsets of a member op, checked against its N (rows in all). */
function rowsOf(m: Members, N: number): Int32Array {
  checkMemberRows(m, N);
  return m.rowStartHost;
}
/** A stride shared by tensors of one shape (a weight and its gradient; a LayerNorm's weight and bias). */
function sameStride(m: Members, ...ts: Tensor[]): number {
  const s = memberStride(ts[0], m);
  for (const t of ts) if (memberStride(t, m) !== s) throw new Error('members: tensors of one shape with different member strides');
  return s;
}

export class CpuBackend implements Backend {
  readonly name = 'cpu' as const;
  readonly viewAlign = 64; // the same rule as WebGPU, so layouts are identical

  constructor(readonly precision: 'f32' | 'f64' = 'f32') {}

  alloc(size: number, dtype: DType = 'f32'): Tensor {
    const data = dtype === 'i32' ? new Int32Array(size) : this.precision === 'f64' ? new Float64Array(size) : new Float32Array(size);
    return new CpuTensor(data, dtype);
  }
  view(base: Tensor, offset: number, size: number): Tensor {
    if (offset % this.viewAlign !== 0) throw new Error(`view offset ${offset} is not a multiple of ${this.viewAlign}`);
    if (offset + size > base.size) throw new Error(`view [${offset}, ${offset + size}) is outside a tensor of ${base.size}`);
    const b = base as CpuTensor;
    return new CpuTensor(b.data.subarray(offset, offset + size), b.dtype);
  }
  write(t: Tensor, data: ArrayLike<number>, offset = 0): void {
    (t as CpuTensor).data.set(data, offset);
  }
  async read(t: Tensor, offset = 0, size = t.size - offset): Promise<FloatArray | Int32Array> {
    checkRange(t, offset, size);
    return (t as CpuTensor).data.slice(offset, offset + size);
  }
  zero(t: Tensor): void { (t as CpuTensor).data.fill(0); }
  copy(dst: Tensor, src: Tensor): void { (dst as CpuTensor).data.set((src as CpuTensor).data); }
  free(_t: Tensor): void { /* garbage collected */ }
  submit(): void {}
  async sync(): Promise<void> {}
  destroy(): void {}

  embeddingForward(out: Tensor, tokens: Tensor, wte: Tensor, wpe: Tensor, N: number, T: number, C: number, members?: Members): void {
    if (members) {
      return mem.embeddingForward(f(out), i32(tokens), f(wte), f(wpe), rowsOf(members, N), T, C, memberStride(wte, members), memberStride(wpe, members));
    }
    nn.embeddingForward(f(out), i32(tokens), f(wte), f(wpe), N, T, C);
  }
  embeddingBackward(dwte: Tensor, dwpe: Tensor, dout: Tensor, tokens: Tensor, N: number, T: number, C: number, _V: number, members?: Members): void {
    if (members) {
      return mem.embeddingBackward(f(dwte), f(dwpe), f(dout), i32(tokens), rowsOf(members, N), T, C, memberStride(dwte, members),
        memberStride(dwpe, members));
    }
    nn.embeddingBackward(f(dwte), f(dwpe), f(dout), i32(tokens), N, T, C);
  }
  layernormForward(out: Tensor, mean: Tensor, rstd: Tensor, inp: Tensor, w: Tensor, b: Tensor, N: number, C: number, members?: Members): void {
    if (members) {
      return mem.layernormForward(f(out), f(mean), f(rstd), f(inp), f(w), f(b), rowsOf(members, N), C, sameStride(members, w, b));
    }
    nn.layernormForward(f(out), f(mean), f(rstd), f(inp), f(w), f(b), N, C);
  }
  layernormBackward(dinp: Tensor, dw: Tensor, db: Tensor, dout: Tensor, inp: Tensor, w: Tensor, mean: Tensor, rstd: Tensor, N: number, C: number,
    members?: Members, dinpOverwrite = false): void {
    if (dinpOverwrite) f(dinp).fill(0, 0, N * C); // the twin of the kernels' overwrite: zero, then the accumulating op
    if (members) {
      return mem.layernormBackward(f(dinp), f(dw), f(db), f(dout), f(inp), f(w), f(mean), f(rstd), rowsOf(members, N), C,
        sameStride(members, w, dw, db));
    }
    nn.layernormBackward(f(dinp), f(dw), f(db), f(dout), f(inp), f(w), f(mean), f(rstd), N, C);
  }
  layernormMatmulForward(ln: Tensor, mean: Tensor, rstd: Tensor, out: Tensor, geluOut: Tensor | null, inp: Tensor, lnWeight: Tensor, lnBias: Tensor,
    weight: Tensor, bias: Tensor | null, N: number, C: number, OC: number, members?: Members): void {
    layernormMatmulComposed(this, ln, mean, rstd, out, geluOut, inp, lnWeight, lnBias, weight, bias, N, C, OC, members);
  }
  matmulForward(out: Tensor, inp: Tensor, w: Tensor, bias: Tensor | null, N: number, IC: number, OC: number, members?: Members): void {
    if (members) return this.matmulMembers(out, inp, w, bias, N, IC, OC, members);
    nn.matmulForward(f(out), f(inp), f(w), bias ? f(bias) : null, N, IC, OC);
  }
  matmulResidualForward(out: Tensor, inp: Tensor, w: Tensor, bias: Tensor | null, residual: Tensor, N: number, IC: number, OC: number,
    members?: Members): void {
    // as the two ops: out = (inp @ w^T + bias), then out += residual (the same rounding as matmul then residual)
    this.matmulForward(out, inp, w, bias, N, IC, OC, members);
    nn.residualForward(f(out), f(residual), f(out), N * OC);
  }
  matmulGeluForward(pre: Tensor, out: Tensor, inp: Tensor, w: Tensor, bias: Tensor | null, N: number, IC: number, OC: number,
    members?: Members): void {
    this.matmulForward(pre, inp, w, bias, N, IC, OC, members);
    nn.geluForward(f(out), f(pre), N * OC);
  }
  private matmulMembers(out: Tensor, inp: Tensor, w: Tensor, bias: Tensor | null, N: number, IC: number, OC: number, m: Members): void {
    mem.matmulForward(f(out), f(inp), f(w), bias ? f(bias) : null, rowsOf(m, N), IC, OC, memberStride(w, m), bias ? memberStride(bias, m) : 0);
  }
  matmulBackward(dinp: Tensor, dw: Tensor, dbias: Tensor | null, dout: Tensor, inp: Tensor, w: Tensor, N: number, IC: number, OC: number,
    members?: Members, dinpOverwrite = false): void {
    if (dinpOverwrite) f(dinp).fill(0, 0, N * IC); // the twin of the kernels' overwrite: zero, then the accumulating op
    if (members) {
      return mem.matmulBackward(f(dinp), f(dw), dbias ? f(dbias) : null, f(dout), f(inp), f(w), rowsOf(members, N), IC, OC,
        sameStride(members, w, dw), dbias ? memberStride(dbias, members) : 0);
    }
    nn.matmulBackward(f(dinp), f(dw), dbias ? f(dbias) : null, f(dout), f(inp), f(w), N, IC, OC);
  }
  matmulGeluBackward(dpre: Tensor, dinpScratch: Tensor, dweight: Tensor, dbias: Tensor | null, dout: Tensor, inp: Tensor, pre: Tensor, weight: Tensor,
    N: number, IC: number, OC: number, members?: Members): void {
    matmulGeluBackwardComposed(this, (t, n) => f(t).fill(0, 0, n), dpre, dinpScratch, dweight, dbias, dout, inp, pre, weight, N, IC, OC, members);
  }
  attentionForward(out: Tensor, att: Tensor, qkv: Tensor, B: number, T: number, C: number, NH: number): void {
    nn.attentionForward(f(out), f(att), f(qkv), B, T, C, NH);
  }
  attentionBackward(dqkv: Tensor, dpreatt: Tensor, dout: Tensor, qkv: Tensor, att: Tensor, B: number, T: number, C: number, NH: number, dqkvOverwrite = false): void {
    if (dqkvOverwrite) f(dqkv).fill(0, 0, B * T * 3 * C); // the twin of the engine's overwrite: zero, then the accumulating op
    nn.attentionBackward(f(dqkv), f(dpreatt), f(dout), f(qkv), f(att), B, T, C, NH);
  }
  embeddingLast(out: Tensor, tokens: Tensor, pos: Tensor, wte: Tensor, wpe: Tensor, B: number, T: number, C: number, members?: Members): void {
    if (members) {
      return mem.embeddingLast(f(out), i32(tokens), i32(pos), f(wte), f(wpe), rowsOf(members, B), T, C, memberStride(wte, members),
        memberStride(wpe, members));
    }
    nn.embeddingLast(f(out), i32(tokens), i32(pos), f(wte), f(wpe), B, T, C);
  }
  attentionDecode(out: Tensor, qkvCache: Tensor, qkvNew: Tensor, pos: Tensor, B: number, T: number, C: number, NH: number): void {
    nn.attentionDecode(f(out), f(qkvCache), f(qkvNew), i32(pos), B, T, C, NH);
  }
  copyRows(dst: Tensor, src: Tensor, rows: number, width: number, dstStride: number, srcStride: number, repeat = 1): void {
    checkRepeat(repeat);
    nn.copyRows(f(dst), f(src), rows, width, dstStride, srcStride, repeat);
  }
  gatherLast(dst: Tensor, src: Tensor, pos: Tensor, B: number, T: number, width: number, repeat = 1): void {
    checkRepeat(repeat);
    nn.gatherLast(f(dst), f(src), i32(pos), B, T, width, repeat);
  }
  geluForward(out: Tensor, inp: Tensor, n: number): void { nn.geluForward(f(out), f(inp), n); }
  geluBackward(dinp: Tensor, inp: Tensor, dout: Tensor, n: number): void { nn.geluBackward(f(dinp), f(inp), f(dout), n); }
  residualForward(out: Tensor, a: Tensor, b: Tensor, n: number): void { nn.residualForward(f(out), f(a), f(b), n); }
  accumulate(dst: Tensor, src: Tensor, n: number): void { nn.accumulate(f(dst), f(src), n); }

  logprobForward(logp: Tensor, entropy: Tensor, logits: Tensor, targets: Tensor, N: number, V: number, temperature: number): void {
    ls.logprobForward(f(logp), f(entropy), f(logits), i32(targets), N, V, temperature);
  }
  logprobBackward(dlogits: Tensor, dlogp: Tensor, logits: Tensor, targets: Tensor, N: number, V: number, temperature: number): void {
    ls.logprobBackward(f(dlogits), f(dlogp), f(logits), i32(targets), N, V, temperature);
  }
  crossEntropyForward(losses: Tensor, logits: Tensor, targets: Tensor, N: number, V: number): void {
    ls.crossEntropyForward(f(losses), f(logits), i32(targets), N, V);
  }
  crossEntropyBackward(dlogits: Tensor, dloss: Tensor, logits: Tensor, targets: Tensor, N: number, V: number): void {
    ls.crossEntropyBackward(f(dlogits), f(dloss), f(logits), i32(targets), N, V);
  }

  sumSquares(out: Tensor, x: Tensor, n: number, members?: MemberStack): void {
    if (members) return mem.sumSquares(f(out), f(x), n, members.K, members.paramStride ?? n);
    opt.sumSquares(f(out), f(x), n);
  }
  clipScale(scale: Tensor, normSq: Tensor, maxNorm: number, members?: MemberStack): void {
    if (members) return mem.clipScale(f(scale), f(normSq), maxNorm, members.K);
    opt.clipScale(f(scale), f(normSq), maxNorm);
  }
  adamw(params: Tensor, grads: Tensor, m: Tensor, v: Tensor, decayMask: Tensor, scale: Tensor, n: number, hp: AdamWParams,
    members?: MemberOptim): void {
    if (members) {
      return mem.adamw(f(params), f(grads), f(m), f(v), f(decayMask), f(scale), f(members.lr), n, hp, members.K, members.paramStride ?? n);
    }
    opt.adamw(f(params), f(grads), f(m), f(v), f(decayMask), f(scale), n, hp);
  }

  clipAdamw(params: Tensor, grads: Tensor, m: Tensor, v: Tensor, decayMask: Tensor, scale: Tensor, normSq: Tensor, maxNorm: number, n: number,
    hp: AdamWParams, members?: MemberOptim): void {
    clipAdamwComposed(this, params, grads, m, v, decayMask, scale, normSq, maxNorm, n, hp, members);
  }

  sample(tokens: Tensor, logp: Tensor, pos: Tensor, done: Tensor, limit: Tensor, logits: Tensor,
    B: number, T: number, V: number, temperature: number, eos: number, seed: number, counter: number, logitsT = T, rowRng?: Tensor): void {
    smp.sample(i32(tokens), f(logp), i32(pos), i32(done), i32(limit), f(logits), B, T, V, temperature, eos, seed, counter, logitsT,
      rowRng ? i32(rowRng) : undefined);
  }

  private decodeScratch: DecodeScratch | null = null;
  /** The ops composed (src/reference/decodeSample.ts): on a CPU a fused kernel would save no dispatch, so nothing is fused. */
  decodeSample(a: DecodeSampleArgs): void {
    composeDecodeSample(this, (this.decodeScratch ??= new DecodeScratch(this)), a);
  }
  decodeSampleFused(_s: DecodeShape): boolean { return false; }

  gather(out: Tensor, src: Tensor, index: Tensor, n: number): void { rl.gather(f(out), f(src), i32(index), n); }
  groupNormalize(adv: Tensor, stats: Tensor, rewards: Tensor, groupStart: Tensor, E: number, P: number, mode: AdvantageMode): void {
    rl.groupNormalize(f(adv), f(stats), f(rewards), i32(groupStart), E, P, mode);
  }
  seqRatio(logS: Tensor, ratio: Tensor, tokRatio: Tensor, logp: Tensor, oldLogp: Tensor, mask: Tensor, S: number, T: number): void {
    rl.seqRatio(f(logS), f(ratio), f(tokRatio), f(logp), f(oldLogp), f(mask), S, T);
  }
  clipLoss(lossSeq: Tensor, klSeq: Tensor, clipSeq: Tensor, dlogp: Tensor, logp: Tensor, ratio: Tensor, tokRatio: Tensor, seqAdv: Tensor,
    mask: Tensor, refLogp: Tensor | null, S: number, T: number, loss: LossArgs): void {
    rl.clipLoss(f(lossSeq), f(klSeq), f(clipSeq), f(dlogp), f(logp), f(ratio), f(tokRatio), f(seqAdv), f(mask),
      refLogp ? f(refLogp) : null, S, T, loss);
  }
  rlStats(stats: Tensor, lossSeq: Tensor, klSeq: Tensor, clipSeq: Tensor, ratio: Tensor, tokRatio: Tensor, mask: Tensor,
    S: number, T: number, algorithm: Algorithm, beta: number): void {
    rl.rlStats(f(stats), f(lossSeq), f(klSeq), f(clipSeq), f(ratio), f(tokRatio), f(mask), S, T, algorithm, beta);
  }
  /** The four ops composed (src/contract/policyLoss.ts): on a CPU fusing them would save nothing. */
  policyLoss(a: PolicyLossArgs): void { composePolicyLoss(this, a); }
}
