// The WebGPU implementation of the Backend interface (src/backend.ts).
// Memory and recording live in GpuRuntime; each op is a thin call into its
// kernel wrapper in ./kernels, the only code that knows a kernel's bindings. Loading (device, shaders,
// pipelines) is load.ts; members as the kernels take them, members.ts.
import { checkRange, checkRepeat, type AdamWParams, type AdvantageMode, type Algorithm, type Backend, type DecodeSampleArgs, type DecodeShape, type LossArgs,
  type DType, type FloatArray, type MemberOptim, type Members, type MemberStack, type PolicyLossArgs, type Tensor } from '../backend';
import { composePolicyLoss } from '../contract/policyLoss';
import * as adamwK from './kernels/adamw';
import * as attentionK from './kernels/attention';
import * as decodeK from './kernels/decode';
import * as decodeSampleK from './kernels/decodeSample';
import * as embeddingK from './kernels/embedding';
import * as geluK from './kernels/gelu';
import * as layernormK from './kernels/layernorm';
import * as lnMatmulK from './kernels/layernormMatmul';
import * as logsoftmaxK from './kernels/logsoftmax';
import * as matmulK from './kernels/matmul';
import * as residualK from './kernels/residual';
import * as rlK from './kernels/rl';
import * as sampleK from './kernels/sample';
import { loadRuntime, type BackendOptions } from './load';
import { embeddingMembers, linearMembers, lnLinearMembers, optimMembers, rowMembers, sameStride } from './members';
import type { GpuRuntime, GpuCounters } from './runtime';
import type { GpuProfiler } from './profiler';
import { asGpu, GpuTensor } from './tensor';

/** 64 f32 elements = 256 bytes = minStorageBufferOffsetAlignment. */
const VIEW_ALIGN = 64;

export class WebGpuBackend implements Backend {
  readonly name = 'webgpu' as const;
  readonly viewAlign = VIEW_ALIGN;

  /** The last training forward's folded sort of the tokens (embedding.ts), while the scratch still holds it. */
  private embeddingSorted: embeddingK.EmbeddingSorted | null = null;

  private constructor(
    private readonly rt: GpuRuntime,
    /** Vendor/architecture of the adapter, for logs and benchmarks. */
    readonly adapterInfo: string,
  ) {}

  /** `shaders` maps a module name to its WGSL (node.ts, shaders.browser.ts: shaderModules.ts); options: load.ts. */
  static async create(gpu: GPU, shaders: Record<string, string>, options: BackendOptions = {}): Promise<WebGpuBackend> {
    const { rt, adapterInfo } = await loadRuntime(gpu, shaders, options);
    return new WebGpuBackend(rt, adapterInfo);
  }

  /** The per-kernel GPU timer, when created with `profile: true` (measurement only). */
  get profiler(): GpuProfiler | null { return this.rt.profiler; }

  /** Pipelines created on first use rather than at load (variants the load list missed). */
  get lateCreatedPipelines(): number {
    return this.rt.pipelines.lateCreated;
  }

  /** The device's limits (binding and buffer sizes for the memory budget). */
  get limits(): GPUSupportedLimits {
    return this.rt.device.limits;
  }

  /** The watchdog's cap on commands per submission (runtime.ts `watchdogCap`; Infinity until one runs long); tests may set it. */
  get commandsPerSubmit(): number { return this.rt.commandsPerSubmit; }
  set commandsPerSubmit(n: number) { this.rt.commandsPerSubmit = n; }

  /** Dispatches, submissions, readbacks, uploads and GPU objects created so far (for benchmarks). */
  get counters(): Readonly<GpuCounters> {
    return { ...this.rt.counters };
  }

  /** True once the device is lost; every later read throws. */
  get lost(): boolean {
    return this.rt.health.lost;
  }

  /** Uncaptured WebGPU errors since the last call (validation, out of memory). */
  takeErrors(): string[] {
    return this.rt.takeErrors();
  }

  // ---- memory ----

  alloc(size: number, dtype: DType = 'f32'): Tensor {
    if (!Number.isInteger(size) || size < 0) throw new Error(`alloc: bad size ${size}`);
    return this.rt.allocate(size, dtype);
  }

  view(base: Tensor, offset: number, size: number): Tensor {
    const b = asGpu(base);
    if (offset % VIEW_ALIGN !== 0) throw new Error(`view: offset ${offset} is not a multiple of ${VIEW_ALIGN}`);
    if (offset < 0 || size < 0 || offset + size > b.size) throw new Error(`view: [${offset}, ${offset + size}) outside tensor of size ${b.size}`);
    return new GpuTensor(b.buffer, b.byteOffset + offset * 4, size, b.dtype, true);
  }

  write(t: Tensor, data: ArrayLike<number>, offset = 0): void {
    const g = asGpu(t);
    if (offset < 0 || offset + data.length > g.size) throw new Error(`write: ${data.length} values at ${offset} exceed tensor size ${g.size}`);
    const arr = g.dtype === 'i32' ? Int32Array.from(data) : Float32Array.from(data);
    this.rt.upload(g, offset * 4, arr);
  }

  async read(t: Tensor, offset = 0, size = t.size - offset): Promise<FloatArray | Int32Array> {
    const g = asGpu(t);
    checkRange(t, offset, size);
    const bytes = await this.rt.read(g, offset * 4, size * 4);
    return g.dtype === 'i32' ? new Int32Array(bytes) : new Float32Array(bytes);
  }

  zero(t: Tensor): void {
    this.rt.clear(asGpu(t));
  }

  copy(dst: Tensor, src: Tensor): void {
    const d = asGpu(dst);
    const s = asGpu(src);
    if (d.size !== s.size) throw new Error(`copy: sizes differ (${d.size} vs ${s.size})`);
    if (s.size === 0) return;
    // A buffer-to-buffer copy may not read and write one buffer; a kernel may (disjoint ranges).
    if (d.buffer === s.buffer) residualK.copyKernel(this.rt, d, s, s.size);
    else this.rt.copyBuffer(d, s);
  }

  free(t: Tensor): void {
    const g = asGpu(t);
    if (!g.isView) this.rt.release(g);
  }

  submit(): void {
    this.rt.submit();
  }

  sync(): Promise<void> {
    return this.rt.sync();
  }

  destroy(): void {
    this.rt.destroy();
  }

  // ---- model ops ----

  embeddingForward(out: Tensor, tokens: Tensor, wte: Tensor, wpe: Tensor, N: number, T: number, C: number, members?: Members,
    backwardV?: number): void {
    const g = asGpu(tokens);
    const sorted = embeddingK.embeddingForward(this.rt, asGpu(out), g, asGpu(wte), asGpu(wpe), N, T, C,
      embeddingMembers(members, N, wte, wpe), backwardV);
    if (sorted) { // the scratch now holds this sort; valid until the tokens' buffer is written (the runtime's watch)
      this.embeddingSorted = sorted;
      this.rt.watched = g.buffer;
    }
  }

  embeddingBackward(dwte: Tensor, dwpe: Tensor, dout: Tensor, tokens: Tensor, N: number, T: number, C: number, V: number, members?: Members): void {
    const s = this.embeddingSorted && this.rt.watched === this.embeddingSorted.tokens.buffer ? this.embeddingSorted : null;
    // a sort of its own overwrites the scratch: the forward's is gone
    if (!embeddingK.embeddingBackward(this.rt, asGpu(dwte), asGpu(dwpe), asGpu(dout), asGpu(tokens), N, T, C, V,
      embeddingMembers(members, N, dwte, dwpe), s)) this.embeddingSorted = null;
  }

  layernormForward(out: Tensor, mean: Tensor, rstd: Tensor, inp: Tensor, weight: Tensor, bias: Tensor, N: number, C: number, members?: Members): void {
    layernormK.layernormForward(this.rt, asGpu(out), asGpu(mean), asGpu(rstd), asGpu(inp), asGpu(weight), asGpu(bias), N, C,
      rowMembers(members, N, weight));
  }

  layernormBackward(dinp: Tensor, dweight: Tensor, dbias: Tensor, dout: Tensor, inp: Tensor, weight: Tensor, mean: Tensor, rstd: Tensor,
    N: number, C: number, members?: Members, dinpOverwrite = false): void {
    layernormK.layernormBackward(this.rt, asGpu(dinp), asGpu(dweight), asGpu(dbias), asGpu(dout), asGpu(inp), asGpu(weight),
      asGpu(mean), asGpu(rstd), N, C, rowMembers(members, N, weight, dweight, dbias), !dinpOverwrite);
  }

  layernormMatmulForward(ln: Tensor, mean: Tensor, rstd: Tensor, out: Tensor, geluOut: Tensor | null, inp: Tensor, lnWeight: Tensor, lnBias: Tensor,
    weight: Tensor, bias: Tensor | null, N: number, C: number, OC: number, members?: Members): void {
    // one stride for the four parameters (the model's flat vectors); else the two ops
    const { one, lm } = lnLinearMembers(members, N, [weight, lnWeight, lnBias, ...(bias ? [bias] : [])]);
    if (one && lnMatmulK.layernormMatmulForward(this.rt, asGpu(ln), asGpu(mean), asGpu(rstd), asGpu(out), geluOut ? asGpu(geluOut) : null,
      asGpu(inp), asGpu(lnWeight), asGpu(lnBias), asGpu(weight), bias ? asGpu(bias) : null, N, C, OC, lm,
      this.rt.device.limits.maxStorageBufferBindingSize)) return;
    this.layernormForward(ln, mean, rstd, inp, lnWeight, lnBias, N, C, members);
    if (geluOut) this.matmulGeluForward(out, geluOut, ln, weight, bias, N, C, OC, members);
    else this.matmulForward(out, ln, weight, bias, N, C, OC, members);
  }

  matmulForward(out: Tensor, inp: Tensor, weight: Tensor, bias: Tensor | null, N: number, IC: number, OC: number, members?: Members): void {
    matmulK.matmulForward(this.rt, asGpu(out), asGpu(inp), asGpu(weight), bias ? asGpu(bias) : null, N, IC, OC,
      linearMembers(members, N, weight, bias));
  }

  matmulResidualForward(out: Tensor, inp: Tensor, weight: Tensor, bias: Tensor | null, residual: Tensor, N: number, IC: number, OC: number,
    members?: Members): void {
    matmulK.matmulResidualForward(this.rt, asGpu(out), asGpu(inp), asGpu(weight), bias ? asGpu(bias) : null, asGpu(residual), N, IC, OC,
      linearMembers(members, N, weight, bias));
  }

  matmulGeluForward(pre: Tensor, out: Tensor, inp: Tensor, weight: Tensor, bias: Tensor | null, N: number, IC: number, OC: number,
    members?: Members): void {
    matmulK.matmulGeluForward(this.rt, asGpu(pre), asGpu(out), asGpu(inp), asGpu(weight), bias ? asGpu(bias) : null, N, IC, OC,
      linearMembers(members, N, weight, bias));
  }

  matmulGeluBackward(dpre: Tensor, dinpScratch: Tensor, dweight: Tensor, dbias: Tensor | null, dout: Tensor, inp: Tensor, pre: Tensor, weight: Tensor,
    N: number, IC: number, OC: number, members?: Members): void {
    if (members) sameStride(members, [weight, dweight]);
    if (!dbias || layernormK.spanGrads(asGpu(dweight), asGpu(dbias))) {
      matmulK.matmulBackward(this.rt, asGpu(dpre), asGpu(dweight), dbias ? asGpu(dbias) : null, asGpu(dout), asGpu(inp), asGpu(weight),
        N, IC, OC, linearMembers(members, N, weight, dbias), false, undefined, asGpu(pre));
      return;
    }
    this.matmulBackward(dinpScratch, dweight, dbias, dout, inp, weight, N, IC, OC, members, true); // not one buffer: the two ops
    this.zero(dpre);
    this.geluBackward(dpre, pre, dinpScratch, N * IC);
  }

  matmulBackward(dinp: Tensor, dweight: Tensor, dbias: Tensor | null, dout: Tensor, inp: Tensor, weight: Tensor,
    N: number, IC: number, OC: number, members?: Members, dinpOverwrite = false): void {
    if (members) sameStride(members, [weight, dweight]); // dweight is written at the weight's stride
    matmulK.matmulBackward(this.rt, asGpu(dinp), asGpu(dweight), dbias ? asGpu(dbias) : null, asGpu(dout), asGpu(inp), asGpu(weight),
      N, IC, OC, linearMembers(members, N, weight, dbias), !dinpOverwrite);
  }

  attentionForward(out: Tensor, att: Tensor, qkv: Tensor, B: number, T: number, C: number, NH: number): void {
    attentionK.attentionForward(this.rt, asGpu(out), asGpu(att), asGpu(qkv), B, T, C, NH);
  }

  attentionBackward(dqkv: Tensor, dpreatt: Tensor, dout: Tensor, qkv: Tensor, att: Tensor, B: number, T: number, C: number, NH: number, dqkvOverwrite = false): void {
    if (dqkvOverwrite) this.zero(dqkv); // a clear, then the accumulating kernel (the clear is its own dispatch, as before)
    attentionK.attentionBackward(this.rt, asGpu(dqkv), asGpu(dpreatt), asGpu(dout), asGpu(qkv), asGpu(att), B, T, C, NH);
  }

  embeddingLast(out: Tensor, tokens: Tensor, pos: Tensor, wte: Tensor, wpe: Tensor, B: number, T: number, C: number, members?: Members): void {
    decodeK.embeddingLast(this.rt, asGpu(out), asGpu(tokens), asGpu(pos), asGpu(wte), asGpu(wpe), B, T, C, embeddingMembers(members, B, wte, wpe));
  }

  attentionDecode(out: Tensor, qkvCache: Tensor, qkvNew: Tensor, pos: Tensor, B: number, T: number, C: number, NH: number): void {
    decodeK.attentionDecode(this.rt, asGpu(out), asGpu(qkvCache), asGpu(qkvNew), asGpu(pos), B, T, C, NH);
  }

  copyRows(dst: Tensor, src: Tensor, rows: number, width: number, dstStride: number, srcStride: number, repeat = 1): void {
    checkRepeat(repeat);
    decodeK.copyRows(this.rt, asGpu(dst), asGpu(src), rows, width, dstStride, srcStride, repeat);
  }

  gatherLast(dst: Tensor, src: Tensor, pos: Tensor, B: number, T: number, width: number, repeat = 1): void {
    checkRepeat(repeat);
    decodeK.gatherLast(this.rt, asGpu(dst), asGpu(src), asGpu(pos), B, T, width, repeat);
  }

  geluForward(out: Tensor, inp: Tensor, n: number): void {
    geluK.geluForward(this.rt, asGpu(out), asGpu(inp), n);
  }

  geluBackward(dinp: Tensor, inp: Tensor, dout: Tensor, n: number): void {
    geluK.geluBackward(this.rt, asGpu(dinp), asGpu(inp), asGpu(dout), n);
  }

  residualForward(out: Tensor, a: Tensor, b: Tensor, n: number): void {
    residualK.residualForward(this.rt, asGpu(out), asGpu(a), asGpu(b), n);
  }

  accumulate(dst: Tensor, src: Tensor, n: number): void {
    residualK.accumulate(this.rt, asGpu(dst), asGpu(src), n);
  }

  logprobForward(logp: Tensor, entropy: Tensor, logits: Tensor, targets: Tensor, N: number, V: number, temperature: number): void {
    logsoftmaxK.logprobForward(this.rt, asGpu(logp), asGpu(entropy), asGpu(logits), asGpu(targets), N, V, temperature);
  }

  logprobBackward(dlogits: Tensor, dlogp: Tensor, logits: Tensor, targets: Tensor, N: number, V: number, temperature: number): void {
    logsoftmaxK.logprobBackward(this.rt, asGpu(dlogits), asGpu(dlogp), asGpu(logits), asGpu(targets), N, V, temperature);
  }

  crossEntropyForward(losses: Tensor, logits: Tensor, targets: Tensor, N: number, V: number): void {
    logsoftmaxK.crossEntropyForward(this.rt, asGpu(losses), asGpu(logits), asGpu(targets), N, V);
  }

  crossEntropyBackward(dlogits: Tensor, dloss: Tensor, logits: Tensor, targets: Tensor, N: number, V: number): void {
    logsoftmaxK.crossEntropyBackward(this.rt, asGpu(dlogits), asGpu(dloss), asGpu(logits), asGpu(targets), N, V);
  }

  // ---- optimizer ----

  sumSquares(out: Tensor, x: Tensor, n: number, members?: MemberStack): void {
    adamwK.sumSquares(this.rt, asGpu(out), asGpu(x), n, optimMembers(members, n));
  }

  clipScale(scale: Tensor, normSq: Tensor, maxNorm: number, members?: MemberStack): void {
    adamwK.clipScale(this.rt, asGpu(scale), asGpu(normSq), maxNorm, optimMembers(members, 0));
  }

  adamw(params: Tensor, grads: Tensor, m: Tensor, v: Tensor, decayMask: Tensor, scale: Tensor, n: number, hp: AdamWParams,
    members?: MemberOptim): void {
    const om = optimMembers(members, n);
    adamwK.adamw(this.rt, asGpu(params), asGpu(grads), asGpu(m), asGpu(v), asGpu(decayMask), asGpu(scale), n, hp,
      om && members ? { ...om, lr: asGpu(members.lr) } : undefined);
  }

  clipAdamw(params: Tensor, grads: Tensor, m: Tensor, v: Tensor, decayMask: Tensor, scale: Tensor, normSq: Tensor, maxNorm: number, n: number,
    hp: AdamWParams, members?: MemberOptim): void {
    const om = optimMembers(members, n);
    adamwK.clipAdamw(this.rt, asGpu(params), asGpu(grads), asGpu(m), asGpu(v), asGpu(decayMask), asGpu(scale), asGpu(normSq), maxNorm, n, hp,
      om && members ? { ...om, lr: asGpu(members.lr) } : undefined);
  }

  // ---- RL objective ----

  sample(tokens: Tensor, logp: Tensor, pos: Tensor, done: Tensor, limit: Tensor, logits: Tensor,
    B: number, T: number, V: number, temperature: number, eos: number, seed: number, counter: number, logitsT = T, rowRng?: Tensor): void {
    sampleK.sample(this.rt, asGpu(tokens), asGpu(logp), asGpu(pos), asGpu(done), asGpu(limit), asGpu(logits), B, T, V, temperature, eos, seed, counter,
      logitsT, rowRng ? asGpu(rowRng) : null);
  }

  decodeSample(a: DecodeSampleArgs): void {
    decodeSampleK.decodeSample(this.rt, a);
  }

  /**
   * One kernel per call for small models (kernels/decodeSample.ts), on a CPU adapter only, where a dispatch is what
   * costs. On a GPU a workgroup per row leaves the chip idle (H200, 2x4x64, 256 rows): with the prefill, 614 us a
   * token against 235 us for the per-op kernels (step 27.8 -> 19.7 ms per-op); decode steps alone after a per-op
   * prefill (`prefill` false here; GPT shares the cache), 214 us a step, still slower (step 29.0 against 22.4 ms,
   * K = 16: 186 against 157 ms). scripts/gpuProfile.ts --decode fused|hybrid|per-op measures the three.
   */
  decodeSampleFused(s: DecodeShape): boolean {
    return this.rt.cpuAdapter && decodeSampleK.decodeSampleFits(s) && this.rt.device.limits.maxStorageBuffersPerShaderStage >= 8;
  }

  /** One dispatch when the outputs are views of one buffer (policyLossOutputs), else the four ops (src/contract/policyLoss.ts). */
  policyLoss(a: PolicyLossArgs): void {
    if (rlK.policyLoss(this.rt, a)) return;
    // The outputs the later ops read back (seqAdv with its divisors, ratio, tokRatio) go through scratch tensors, then
    // are copied out: when the outputs are views of one buffer, a dispatch would read and write it, which WebGPU forbids.
    const via = (name: string, t: Tensor) => this.view(this.rt.scratch(`policyLoss.${name}`, t.size), 0, t.size);
    const seqAdv = via('seqAdv', a.seqAdv), ratio = via('ratio', a.ratio), tokRatio = via('tokRatio', a.tokRatio);
    this.copy(seqAdv, a.seqAdv);
    composePolicyLoss(this, { ...a, seqAdv, ratio, tokRatio });
    for (const [to, from] of [[a.seqAdv, seqAdv], [a.ratio, ratio], [a.tokRatio, tokRatio]]) this.copy(to, from);
  }

  gather(out: Tensor, src: Tensor, index: Tensor, n: number): void {
    rlK.gather(this.rt, asGpu(out), asGpu(src), asGpu(index), n);
  }

  groupNormalize(adv: Tensor, stats: Tensor, rewards: Tensor, groupStart: Tensor, E: number, P: number, mode: AdvantageMode): void {
    rlK.groupNormalize(this.rt, asGpu(adv), asGpu(stats), asGpu(rewards), asGpu(groupStart), E, P, mode);
  }

  seqRatio(logS: Tensor, ratio: Tensor, tokRatio: Tensor, logp: Tensor, oldLogp: Tensor, mask: Tensor, S: number, T: number): void {
    rlK.seqRatio(this.rt, asGpu(logS), asGpu(ratio), asGpu(tokRatio), asGpu(logp), asGpu(oldLogp), asGpu(mask), S, T);
  }

  clipLoss(lossSeq: Tensor, klSeq: Tensor, clipSeq: Tensor, dlogp: Tensor,
    logp: Tensor, ratio: Tensor, tokRatio: Tensor, seqAdv: Tensor, mask: Tensor, refLogp: Tensor | null,
    S: number, T: number, loss: LossArgs): void {
    rlK.clipLoss(this.rt, asGpu(lossSeq), asGpu(klSeq), asGpu(clipSeq), asGpu(dlogp), asGpu(logp), asGpu(ratio), asGpu(tokRatio),
      asGpu(seqAdv), asGpu(mask), refLogp ? asGpu(refLogp) : null, S, T, loss);
  }

  rlStats(stats: Tensor, lossSeq: Tensor, klSeq: Tensor, clipSeq: Tensor, ratio: Tensor, tokRatio: Tensor, mask: Tensor,
    S: number, T: number, algorithm: Algorithm, beta: number): void {
    rlK.rlStats(this.rt, asGpu(stats), asGpu(lossSeq), asGpu(klSeq), asGpu(clipSeq), asGpu(ratio), asGpu(tokRatio), asGpu(mask),
      S, T, algorithm, beta);
  }
}
