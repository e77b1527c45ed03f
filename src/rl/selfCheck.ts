// One whole training step (forward, GSPO loss, backward, AdamW) on a backend and
// on the CPU reference, compared. The page runs it to show the engine is right
// on this very GPU; the tests run it in a real browser.
import { decodeCacheStride, type Backend, type ModelWeights, type Tensor } from '../backend';
import { CpuBackend } from '../reference/cpuBackend';
import { GPT } from '../model/gpt';
import { AdamW, ADAMW_RL } from '../model/optimizer';
import { paramSpecs, type GPTConfig } from '../model/params';
import { PolicyObjective, type ObjectiveConfig, type PolicyBatch } from './objective';
import { randomPolicyBatch } from './randomBatch';
import { policyLossOutputs } from '../contract/policyLoss';

export interface SelfCheckResult {
  backend: string;
  lossBackend: number;
  lossCpu: number;
  maxGradError: number; // max |g - g_cpu| / max |g_cpu|, over the whole gradient
  maxParamError: number; // after one AdamW step, max |p - p_cpu| / lr
  stepMs: number;
}

const CONFIG: GPTConfig = { nLayer: 2, nHead: 2, nEmbd: 32, blockSize: 16, vocabSize: 16 };

async function step(b: Backend, batch: PolicyBatch, cfg: ObjectiveConfig) {
  const model = new GPT(b, CONFIG, undefined, 11), obj = new PolicyObjective(b), opt = new AdamW(b, model, ADAMW_RL);
  const t0 = performance.now();
  model.zeroGrad();
  obj.record(model, batch, cfg);
  opt.measure();
  b.submit();
  const grads = await b.read(model.grads);
  opt.apply();
  b.submit();
  const stats = await obj.readStats(batch);
  const params = await b.read(model.params);
  const ms = performance.now() - t0;
  obj.destroy(); opt.destroy(); model.destroy();
  return { loss: stats.loss, grads, params, ms };
}

export async function selfCheck(backend: Backend): Promise<SelfCheckResult> {
  const batch = randomPolicyBatch({ vocabSize: CONFIG.vocabSize, S: 16, T: CONFIG.blockSize, groupSize: 4, maskFrom: 4, oldLogpNoise: 0.4, seed: 5 });
  const cfg: ObjectiveConfig = { algorithm: 'gspo', epsLow: 0.2, epsHigh: 0.2, beta: 0, advantage: 'group', temperature: 1 };
  const ref = await step(new CpuBackend(), batch, cfg);
  const got = await step(backend, batch, cfg);
  let gMax = 0, gErr = 0, pErr = 0;
  for (let i = 0; i < ref.grads.length; i++) {
    gMax = Math.max(gMax, Math.abs(ref.grads[i]));
    gErr = Math.max(gErr, Math.abs(got.grads[i] - ref.grads[i]));
    pErr = Math.max(pErr, Math.abs(got.params[i] - ref.params[i]));
  }
  return { backend: backend.name, lossBackend: got.loss, lossCpu: ref.loss, maxGradError: gErr / gMax, maxParamError: pErr / ADAMW_RL.lr, stepMs: got.ms };
}

// ---- per-kernel checks: which kernel is wrong, not only that a step is ----

/** Each op family at small odd shapes (off every tile and workgroup size), on the backend and on the CPU reference. */
export interface KernelCheckFailure {
  kernel: string; // the op, as the Backend interface names it
  shader: string; // its WGSL module
  error: number; // max |got - cpu| / (1 + max |cpu|) over its outputs (NaN when not finite)
}

type Inputs = Record<string, Float32Array | Int32Array>;
interface KernelCase {
  kernel: string;
  shader: string;
  inputs: Inputs;
  outputs: string[];
  run(b: Backend, t: Record<string, Tensor>): void;
  /** Run only where this holds (a fused op's case, on the backends that fuse it). */
  when?(b: Backend): boolean;
}

/** The weights of a GPT of shape `cfg` as views of one flat tensor (the names of src/model/params.ts). */
function weightViews(b: Backend, flat: Tensor, cfg: GPTConfig): ModelWeights {
  const by = new Map(paramSpecs(cfg).specs.map((s) => [s.name, b.view(flat, s.offset, s.size)]));
  const get = (n: string) => by.get(n)!;
  const layers = Array.from({ length: cfg.nLayer }, (_, l) => {
    const p = `transformer.h.${l}.`;
    return {
      ln1w: get(p + 'ln_1.weight'), ln1b: get(p + 'ln_1.bias'), qkvw: get(p + 'attn.c_attn.weight'), qkvb: get(p + 'attn.c_attn.bias'),
      attprojw: get(p + 'attn.c_proj.weight'), attprojb: get(p + 'attn.c_proj.bias'), ln2w: get(p + 'ln_2.weight'), ln2b: get(p + 'ln_2.bias'),
      fcw: get(p + 'mlp.c_fc.weight'), fcb: get(p + 'mlp.c_fc.bias'), fcprojw: get(p + 'mlp.c_proj.weight'), fcprojb: get(p + 'mlp.c_proj.bias'),
    };
  });
  return { wte: get('transformer.wte.weight'), wpe: get('transformer.wpe.weight'), layers, lnfw: get('transformer.ln_f.weight'), lnfb: get('transformer.ln_f.bias') };
}

/** The rollout's fused step (decodeSample) where a backend fuses it: a prefill, then a decode step, of a 2-layer model. */
function decodeSampleCase(r: ReturnType<typeof filler>): KernelCase {
  const cfg: GPTConfig = { nLayer: 2, nHead: 3, nEmbd: 12, blockSize: 8, vocabSize: 11 }, B = 3, T = cfg.blockSize, C = cfg.nEmbd;
  const shape = { B, T, C, NH: cfg.nHead, L: cfg.nLayer, V: cfg.vocabSize, K: 1 };
  return { kernel: 'decodeSample', shader: 'sample', outputs: ['tokens', 'logp', 'pos', 'done'],
    when: (b) => b.decodeSampleFused(shape),
    inputs: { params: r.f(paramSpecs(cfg).total, 0.6), tokens: r.i(B * T, cfg.vocabSize), logp: new Float32Array(B * T), pos: Int32Array.from([1, 4, 3]),
      done: new Int32Array(B), limit: Int32Array.from([T, 5, T]), kv: new Float32Array(cfg.nLayer * decodeCacheStride(B, T, C)) },
    run: (b, t) => {
      const weights = weightViews(b, t.params, cfg);
      for (let k = 0; k < 2; k++) {
        b.decodeSample({ tokens: t.tokens, logp: t.logp, pos: t.pos, done: t.done, limit: t.limit, kv: t.kv, weights, B, T, C, NH: cfg.nHead,
          V: cfg.vocabSize, prefill: k === 0, temperature: 1, eos: 3, seed: 9, counter: k });
      }
    } };
}

// Deterministic inputs (a small LCG: the checks must give the same numbers in every browser).
function filler(seed: number) {
  let s = seed >>> 0;
  const next = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
  return {
    f: (n: number, scale = 1) => Float32Array.from({ length: n }, () => (next() * 2 - 1) * scale),
    i: (n: number, hi: number) => Int32Array.from({ length: n }, () => Math.floor(next() * hi)),
  };
}

function kernelCases(): KernelCase[] {
  const r = filler(7);
  const [N, IC, OC] = [37, 19, 53]; // off the 16/32/64 tiles in every dimension
  const [B, T, C, NH, V] = [2, 7, 12, 3, 11];
  const LN = [29, 24] as const;
  return [
    { kernel: 'matmulForward', shader: 'matmul', outputs: ['out'],
      inputs: { inp: r.f(N * IC), w: r.f(OC * IC), bias: r.f(OC), out: r.f(N * OC) },
      run: (b, t) => b.matmulForward(t.out, t.inp, t.w, t.bias, N, IC, OC) },
    { kernel: 'matmulBackward', shader: 'matmul', outputs: ['dinp', 'dw', 'dbias'],
      inputs: { inp: r.f(N * IC), w: r.f(OC * IC), dout: r.f(N * OC), dinp: r.f(N * IC), dw: r.f(OC * IC), dbias: r.f(OC) },
      run: (b, t) => b.matmulBackward(t.dinp, t.dw, t.dbias, t.dout, t.inp, t.w, N, IC, OC) },
    { kernel: 'layernormForward/Backward', shader: 'layernorm', outputs: ['out', 'dinp', 'dw', 'db'],
      inputs: { inp: r.f(LN[0] * LN[1], 2), w: r.f(LN[1]), bias: r.f(LN[1]), out: r.f(LN[0] * LN[1]), mean: r.f(LN[0]), rstd: r.f(LN[0]),
        dout: r.f(LN[0] * LN[1]), dinp: r.f(LN[0] * LN[1]), dw: r.f(LN[1]), db: r.f(LN[1]) },
      run: (b, t) => {
        b.layernormForward(t.out, t.mean, t.rstd, t.inp, t.w, t.bias, LN[0], LN[1]);
        b.layernormBackward(t.dinp, t.dw, t.db, t.dout, t.inp, t.w, t.mean, t.rstd, LN[0], LN[1]);
      } },
    { kernel: 'attentionForward/Backward', shader: 'attention', outputs: ['out', 'att', 'dqkv'],
      inputs: { qkv: r.f(B * T * 3 * C), out: r.f(B * T * C), att: r.f(B * NH * T * T), dout: r.f(B * T * C), dqkv: r.f(B * T * 3 * C),
        dpreatt: r.f(B * NH * T * T) },
      run: (b, t) => {
        b.attentionForward(t.out, t.att, t.qkv, B, T, C, NH);
        b.attentionBackward(t.dqkv, t.dpreatt, t.dout, t.qkv, t.att, B, T, C, NH);
      } },
    { kernel: 'embeddingForward/Backward', shader: 'embedding', outputs: ['out', 'dwte', 'dwpe'],
      inputs: { tokens: r.i(B * T, V), wte: r.f(V * C), wpe: r.f(T * C), out: r.f(B * T * C), dout: r.f(B * T * C), dwte: r.f(V * C), dwpe: r.f(T * C) },
      run: (b, t) => {
        b.embeddingForward(t.out, t.tokens, t.wte, t.wpe, B * T, T, C);
        b.embeddingBackward(t.dwte, t.dwpe, t.dout, t.tokens, B * T, T, C, V);
      } },
    { kernel: 'geluForward/Backward', shader: 'gelu', outputs: ['out', 'dinp'],
      inputs: { inp: r.f(301, 3), out: r.f(301), dout: r.f(301), dinp: r.f(301) },
      run: (b, t) => { b.geluForward(t.out, t.inp, 301); b.geluBackward(t.dinp, t.inp, t.dout, 301); } },
    { kernel: 'residualForward', shader: 'residual', outputs: ['out'],
      inputs: { a: r.f(301), c: r.f(301), out: r.f(301) },
      run: (b, t) => b.residualForward(t.out, t.a, t.c, 301) },
    // AdamW with gradients well away from 0 (a whole step compares updates of ~0 gradients, whose
    // direction f32 rounding may flip, so the optimizer is judged here), the norm clip included
    { kernel: 'sumSquares/clipScale/adamw', shader: 'adamw', outputs: ['p', 'm', 'v', 'normSq'],
      inputs: { p: r.f(301), g: Float32Array.from(r.f(301), (x) => x + Math.sign(x) * 0.5), m: r.f(301, 0.1),
        v: Float32Array.from(r.f(301), (x) => 0.01 + Math.abs(x)), mask: Float32Array.from({ length: 301 }, (_, i) => i % 2),
        normSq: r.f(1), scale: r.f(1) },
      run: (b, t) => {
        b.sumSquares(t.normSq, t.g, 301);
        b.clipScale(t.scale, t.normSq, 5, undefined);
        b.adamw(t.p, t.g, t.m, t.v, t.mask, t.scale, 301, { lr: 0.01, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: 3 });
      } },
    { kernel: 'logprobForward/Backward', shader: 'logsoftmax', outputs: ['logp', 'entropy', 'dlogits'],
      inputs: { logits: r.f(B * T * V, 3), targets: r.i(B * T, V), logp: r.f(B * T), entropy: r.f(B * T), dlogp: r.f(B * T), dlogits: r.f(B * T * V) },
      run: (b, t) => {
        b.logprobForward(t.logp, t.entropy, t.logits, t.targets, B * T, V, 0.9);
        b.logprobBackward(t.dlogits, t.dlogp, t.logits, t.targets, B * T, V, 0.9);
      } },
    policyLossCase(r),
    decodeSampleCase(r),
  ];
}

/** The whole policy loss (one dispatch on WebGPU), from outputs laid out as the objective lays them out. */
function policyLossCase(r: ReturnType<typeof filler>): KernelCase {
  const [S, T, E] = [13, 7, 5], names = ['lossSeq', 'klSeq', 'clipSeq', 'dlogp', 'ratio', 'tokRatio'] as const;
  const logp = r.f(S * T, 2).map((x) => x - 2.5), oldLogp = logp.map((x, i) => x + 0.3 * Math.sin(i)); // ratios on both sides of the clip
  return { kernel: 'policyLoss', shader: 'rl', outputs: [...names, 'stats'],
    inputs: { logp, oldLogp, mask: r.f(S * T).map((x) => (x > -0.4 ? 1 : 0)), refLogp: logp.map((x, i) => x + 0.2 * Math.cos(i)),
      adv: r.f(E), seqEpisode: r.i(S, E), stats: r.f(8), lossSeq: r.f(S), klSeq: r.f(S), clipSeq: r.f(S), ratio: r.f(S),
      dlogp: r.f(S * T), tokRatio: r.f(S * T) },
    run: (b, t) => {
      const o = policyLossOutputs(b, S, T, S);
      b.policyLoss({ S, T, loss: { algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.28, beta: 0.05, delta: 1.5, norm: S * T / 2 },
        adv: t.adv, seqEpisode: t.seqEpisode, logp: t.logp, oldLogp: t.oldLogp, mask: t.mask, refLogp: t.refLogp, stats: t.stats, ...o });
      for (const n of names) b.copy(t[n], o[n]);
      b.free(o.base);
    } };
}

async function runCase(b: Backend, c: KernelCase): Promise<Float64Array[]> {
  const t: Record<string, Tensor> = {};
  for (const [name, data] of Object.entries(c.inputs)) {
    t[name] = b.alloc(data.length, data instanceof Int32Array ? 'i32' : 'f32');
    b.write(t[name], data);
  }
  c.run(b, t);
  b.submit();
  const out: Float64Array[] = [];
  for (const name of c.outputs) out.push(Float64Array.from(await b.read(t[name])));
  for (const x of Object.values(t)) b.free(x);
  return out;
}

/** Errors above this (relative to 1 + the largest reference value) mean a wrong kernel, not rounding. */
export const KERNEL_TOLERANCE = 1e-3;

export async function kernelChecks(backend: Backend): Promise<KernelCheckFailure[]> {
  const cpu = new CpuBackend();
  const failures: KernelCheckFailure[] = [];
  for (const c of kernelCases()) {
    if (c.when && !c.when(backend)) continue;
    let error: number;
    try {
      const [got, want] = [await runCase(backend, c), await runCase(cpu, c)];
      error = 0;
      for (let o = 0; o < want.length; o++) {
        let scale = 0, diff = 0;
        for (let i = 0; i < want[o].length; i++) {
          scale = Math.max(scale, Math.abs(want[o][i]));
          const d = Math.abs(got[o][i] - want[o][i]);
          diff = Number.isNaN(d) ? NaN : Math.max(diff, d);
        }
        error = Number.isNaN(diff) || Number.isNaN(error) ? NaN : Math.max(error, diff / (1 + scale));
      }
    } catch {
      error = NaN; // a kernel that throws (a WebGPU error on read) is as wrong as one that miscomputes
    }
    if (!(error <= KERNEL_TOLERANCE)) failures.push({ kernel: c.kernel, shader: c.shader, error });
  }
  return failures;
}

/** The verdict on an engine: the kernels one by one, then a whole step; `message` names what failed. */
export interface EngineVerdict {
  ok: boolean;
  message: string;
  failures: KernelCheckFailure[];
  step: SelfCheckResult | null;
}

/**
 * A whole step's gradient or loss error above this means a wrong engine (SwiftShader's are ~1e-6). The
 * weights after AdamW are not judged on the step (kernelChecks covers AdamW): a gradient of ~0 moves its
 * weight by up to lr either way, so a rounding difference can flip it.
 */
export const STEP_TOLERANCE = 1e-3;

export async function verifyEngine(backend: Backend): Promise<EngineVerdict> {
  const failures = await kernelChecks(backend);
  if (failures.length > 0) {
    const list = failures.map((f) => `${f.kernel} (${f.shader}.wgsl, error ${Number.isNaN(f.error) ? 'not finite' : f.error.toExponential(1)})`).join(', ');
    return { ok: false, message: `the ${backend.name} self-check found wrong results from ${list}`, failures, step: null };
  }
  let step: SelfCheckResult;
  try {
    step = await selfCheck(backend);
  } catch (e) {
    return { ok: false, message: `the ${backend.name} self-check step failed: ${(e as Error).message}`, failures, step: null };
  }
  const ok = step.maxGradError <= STEP_TOLERANCE && Math.abs(step.lossBackend - step.lossCpu) <= STEP_TOLERANCE * (1 + Math.abs(step.lossCpu));
  const message = ok ? 'ok' : `the ${backend.name} self-check step differs from the CPU reference (in the RL objective's kernels, ` +
    `as the model's passed alone: gradient error ${step.maxGradError.toExponential(1)}, loss ${step.lossBackend} vs ${step.lossCpu})`;
  return { ok, message, failures, step };
}
