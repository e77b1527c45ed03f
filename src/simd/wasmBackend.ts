// The CPU engine: the Backend interface over tensors in WebAssembly memory. The matmul family,
// attention (forward, backward, decode), LayerNorm, GELU, the embeddings, the log-softmax heads,
// AdamW, the sum of squares, the residual add and row copies run as f32x4 kernels (shaders/simd, instantiated by kernels.ts); every other op runs the
// reference code (src/reference) on Float32Array views of the same memory, so the engine is
// complete and agrees with the oracle from the first op, and ops move to wasm one at a time.
// With threads > 1 the matmul family, attention and the GELU backward are split over worker threads (src/simd/threads.ts).
// Tensors, memory and the kernels' instances: wasmMemory.ts. Twin tests: test/simd/*.test.ts.
import { checkMemberRows, checkRepeat, decodeCacheStride, memberStride, type AdamWParams, type AdvantageMode, type Algorithm, type Backend, type DecodeSampleArgs, type DecodeShape,
  type LossArgs, type MemberOptim, type Members, type MemberStack, type PolicyLossArgs, type Tensor } from '../backend';
import { clipAdamwComposed, layernormMatmulComposed } from '../reference/composed';
import { composeDecodeSample, DecodeScratch } from '../reference/decodeSample';
import { composePolicyLoss } from '../contract/policyLoss';
import * as mem from '../reference/members';
import * as opt from '../reference/optim';
import * as rl from '../reference/rl';
import * as smp from '../reference/sample';
import { MAX_BYTES } from './arena';
import { ThreadPool, checkThreads } from './threads';
import { defaultVariant, WasmMemory, type WasmBackendOptions, type WasmTensor } from './wasmMemory';

export type { WasmBackendOptions } from './wasmMemory';

/** decodeRows's block (shaders/simd/decode.ts): u32 fields before the layers, a layer's; sequences a chunk; the most a member fused. */
const DECODE_HEAD = 33, DECODE_PER_LAYER = 12, DECODE_CHUNK = 16, DECODE_FUSED_ROWS = 128;

export class WasmBackend extends WasmMemory implements Backend {
  readonly name = 'wasm' as const;
  readonly precision = 'f32' as const;

  /**
   * The engine on any host, its thread pool started without blocking the calling thread (a page's worker must not
   * block while its thread workers start: they would not). Rejects when the pool does not start (its workers ended).
   */
  static async start(opts: Omit<WasmBackendOptions, 'pool'> = {}): Promise<WasmBackend> {
    const threads = checkThreads(opts.threads ?? 1);
    if (threads === 1) return new WasmBackend(opts);
    const { pool } = await ThreadPool.start(threads, opts.maxBytes ?? MAX_BYTES, opts.threadMinWork, opts.threadCallerIdle, opts.variant ?? defaultVariant(), opts.threadSpin);
    return new WasmBackend({ ...opts, pool });
  }

  // ---- the matmul family, in wasm ----
  matmulForward(out: Tensor, inp: Tensor, w: Tensor, bias: Tensor | null, N: number, IC: number, OC: number, members?: Members): void {
    this.linear(out, inp, w, bias, null, null, N, IC, OC, members);
  }
  matmulResidualForward(out: Tensor, inp: Tensor, w: Tensor, bias: Tensor | null, residual: Tensor, N: number, IC: number, OC: number,
    members?: Members): void {
    this.linear(out, inp, w, bias, residual, null, N, IC, OC, members);
  }
  matmulGeluForward(pre: Tensor, out: Tensor, inp: Tensor, w: Tensor, bias: Tensor | null, N: number, IC: number, OC: number,
    members?: Members): void {
    this.linear(out, inp, w, bias, null, pre, N, IC, OC, members);
  }
  /** out = inp @ w^T + bias (+ residual) (pre = that and out = gelu(pre)); a member's rows with its own weights. */
  private linear(out: Tensor, inp: Tensor, w: Tensor, bias: Tensor | null, residual: Tensor | null, pre: Tensor | null,
    N: number, IC: number, OC: number, m?: Members): void {
    const K = m ? m.K : 1, ws = m ? memberStride(w, m) : 0, bs = m && bias ? memberStride(bias, m) : 0;
    if (m) checkMemberRows(m, N);
    const o = this.ptr(out, N * OC, 'out'), x = this.ptr(inp, N * IC, 'inp'), wp = this.ptr(w, (K - 1) * ws + OC * IC, 'weight');
    const bp = this.ptr(bias, (K - 1) * bs + OC, 'bias'), rp = this.ptr(residual, N * OC, 'residual'), pp = this.ptr(pre, N * OC, 'pre');
    for (let k = 0; k < K; k++) {
      const r0 = m ? m.rowStartHost[k] : 0, rows = m ? m.rowStartHost[k + 1] - r0 : N;
      if (rows === 0) continue;
      const at = r0 * OC * 4;
      const args = [o + at, x + r0 * IC * 4, wp + k * ws * 4, bp && bp + k * bs * 4, rp && rp + at, pp && pp + at, rows, IC, OC] as const;
      if (!this.pool?.forward(...args)) this.k.matmulForward(...args);
    }
  }
  matmulBackward(dinp: Tensor, dw: Tensor, dbias: Tensor | null, dout: Tensor, inp: Tensor, w: Tensor, N: number, IC: number, OC: number,
    members?: Members, dinpOverwrite = false): void {
    // overwriting, the kernels write dinp = 0 + the sums and zero the rows they skip (no pass of zeros first)
    const m = members, K = m ? m.K : 1, ws = m ? memberStride(w, m) : 0, bs = m && dbias ? memberStride(dbias, m) : 0;
    if (m) {
      checkMemberRows(m, N);
      if (memberStride(dw, m) !== ws) throw new Error('members: tensors of one shape with different member strides');
    }
    const rowsAt = this.scratch(Math.max(1, m ? m.maxRows : N));
    const di = this.ptr(dinp, N * IC, 'dinp'), dwp = this.ptr(dw, (K - 1) * ws + OC * IC, 'dweight');
    const dbp = this.ptr(dbias, (K - 1) * bs + OC, 'dbias'), g = this.ptr(dout, N * OC, 'dout');
    const x = this.ptr(inp, N * IC, 'inp'), wp = this.ptr(w, (K - 1) * ws + OC * IC, 'weight');
    for (let k = 0; k < K; k++) {
      const r0 = m ? m.rowStartHost[k] : 0, rows = m ? m.rowStartHost[k + 1] - r0 : N;
      // rows of dout that are all zero (masked positions) contribute nothing and are skipped, as in the reference
      const gk = g + r0 * OC * 4, xk = x + r0 * IC * 4, dik = di + r0 * IC * 4;
      const R = this.nonzeroRows(rowsAt, gk, rows, OC);
      if (R === 0) {
        if (dinpOverwrite) this.k.zeroFloats(dik, rows * IC);
        continue;
      }
      const over = dinpOverwrite ? rows : -1; // the rows dinp's kernels overwrite, or -1: accumulate
      const dbk = dbp ? dbp + k * bs * 4 : 0;
      if (!this.pool?.backward(dik, dwp + k * ws * 4, gk, xk, wp + k * ws * 4, rowsAt, R, IC, OC, over, dbk)) { // dbias in the dw chunks
        this.k.matmulDinp(dik, gk, wp + k * ws * 4, rowsAt, R, IC, OC, over);
        this.k.matmulDweight(dwp + k * ws * 4, gk, xk, rowsAt, R, IC, OC);
        if (dbk) this.k.matmulDbias(dbk, gk, rowsAt, R, OC);
      }
    }
  }
  layernormMatmulForward(ln: Tensor, mean: Tensor, rstd: Tensor, out: Tensor, geluOut: Tensor | null, inp: Tensor, lnWeight: Tensor, lnBias: Tensor,
    weight: Tensor, bias: Tensor | null, N: number, C: number, OC: number, members?: Members): void {
    layernormMatmulComposed(this, ln, mean, rstd, out, geluOut, inp, lnWeight, lnBias, weight, bias, N, C, OC, members);
  }
  /** matmulGeluBackwardComposed's ops, each writing its output (dinpScratch, then dpre = 0 + the GELU's): no pass of zeros. */
  matmulGeluBackward(dpre: Tensor, dinpScratch: Tensor, dweight: Tensor, dbias: Tensor | null, dout: Tensor, inp: Tensor, pre: Tensor, weight: Tensor,
    N: number, IC: number, OC: number, members?: Members): void {
    this.matmulBackward(dinpScratch, dweight, dbias, dout, inp, weight, N, IC, OC, members, true);
    this.geluBackward(dpre, pre, dinpScratch, N * IC, true);
  }
  layernormForward(out: Tensor, mean: Tensor, rstd: Tensor, inp: Tensor, w: Tensor, b: Tensor, N: number, C: number, members?: Members): void {
    const m = members, K = m ? m.K : 1, ws = m ? sameStride(m, w, b) : 0;
    if (m) checkMemberRows(m, N);
    const o = this.ptr(out, N * C, 'out'), mp = this.ptr(mean, N, 'mean'), rp = this.ptr(rstd, N, 'rstd'), x = this.ptr(inp, N * C, 'inp');
    const wp = this.ptr(w, (K - 1) * ws + C, 'weight'), bp = this.ptr(b, (K - 1) * ws + C, 'bias');
    for (let k = 0; k < K; k++) {
      const r0 = m ? m.rowStartHost[k] : 0, rows = m ? m.rowStartHost[k + 1] - r0 : N;
      if (rows === 0) continue;
      const args = [o + r0 * C * 4, mp + r0 * 4, rp + r0 * 4, x + r0 * C * 4, wp + k * ws * 4, bp + k * ws * 4, rows, C] as const;
      if (!this.pool?.layernormForward(...args)) this.k.layernormForward(...args);
    }
  }
  layernormBackward(dinp: Tensor, dw: Tensor, db: Tensor, dout: Tensor, inp: Tensor, w: Tensor, mean: Tensor, rstd: Tensor, N: number, C: number,
    members?: Members, dinpOverwrite = false): void {
    const m = members, K = m ? m.K : 1, ws = m ? sameStride(m, w, dw, db) : 0;
    if (m) checkMemberRows(m, N);
    // scratch (taken before any view: growth would detach them): the one-pass kernel's 2C sums, or on threads the
    // list of rows with a nonzero gradient and the 3 pointers the split op reads
    const maxRows = m ? m.maxRows : N, sc = this.scratch(Math.max(1, 2 * C, this.pool ? maxRows + 4 : 0)), block = sc + maxRows * 4;
    const di = this.ptr(dinp, N * C, 'dinp'), dwp = this.ptr(dw, (K - 1) * ws + C, 'dweight'), dbp = this.ptr(db, (K - 1) * ws + C, 'dbias');
    const g = this.ptr(dout, N * C, 'dout'), x = this.ptr(inp, N * C, 'inp'), wp = this.ptr(w, (K - 1) * ws + C, 'weight');
    const mp = this.ptr(mean, N, 'mean'), rp = this.ptr(rstd, N, 'rstd');
    for (let k = 0; k < K; k++) {
      const r0 = m ? m.rowStartHost[k] : 0, rows = m ? m.rowStartHost[k + 1] - r0 : N;
      if (rows === 0) continue;
      const at = r0 * C * 4, off = k * ws * 4;
      // on threads: the rows with a nonzero gradient listed, then dinp by rows and dw, db by features (the same sums)
      if (this.pool?.layernormBackward(di + at, dwp + off, dbp + off, g + at, x + at, wp + off, block, rows, C, dinpOverwrite ? rows : -1, () => {
        const R = this.nonzeroRows(sc, g + at, rows, C);
        new Uint32Array(this.memory.buffer, block, 3).set([mp + r0 * 4, rp + r0 * 4, sc]);
        return R;
      })) continue;
      if (dinpOverwrite) this.k.zeroFloats(di + at, rows * C); // zero, then accumulate (the reference's composition)
      this.k.layernormBackward(di + at, dwp + off, dbp + off, g + at, x + at, wp + off, mp + r0 * 4, rp + r0 * 4, sc, rows, C);
    }
  }
  copyRows(dst: Tensor, src: Tensor, rows: number, width: number, dstStride: number, srcStride: number, repeat = 1): void {
    checkRepeat(repeat);
    if (rows <= 0) return;
    const need = (n: number, stride: number) => (n - 1) * stride + width;
    const args = [this.ptr(dst, need(rows, dstStride), 'dst'), this.ptr(src, need(Math.ceil(rows / repeat), srcStride), 'src'), rows, width, dstStride, srcStride, repeat] as const;
    if (!this.pool?.copyRows(...args)) this.k.copyRows(...args);
  }
  residualForward(out: Tensor, a: Tensor, b: Tensor, n: number): void {
    this.k.residualForward(this.ptr(out, n, 'out'), this.ptr(a, n, 'a'), this.ptr(b, n, 'b'), n);
  }
  accumulate(dst: Tensor, src: Tensor, n: number): void {
    const d = this.ptr(dst, n, 'dst');
    this.k.residualForward(d, d, this.ptr(src, n, 'src'), n);
  }
  logprobForward(logp: Tensor, entropy: Tensor, logits: Tensor, targets: Tensor, N: number, V: number, temperature: number): void {
    const e = this.scratch(Math.max(V + 1, this.pool?.logprobScratch(N, V) ?? 0)); // before any view: growth would detach them
    const args = [this.ptr(logp, N, 'logp'), this.ptr(entropy, N, 'entropy'), this.ptr(logits, N * V, 'logits'), this.targets(targets, N, V), e, N, V, temperature] as const;
    if (!this.pool?.logprob(false, ...args)) this.k.logprobForward(...args);
  }
  logprobBackward(dlogits: Tensor, dlogp: Tensor, logits: Tensor, targets: Tensor, N: number, V: number, temperature: number): void {
    const e = this.scratch(Math.max(V + 1, this.pool?.logprobScratch(N, V) ?? 0));
    const args = [this.ptr(dlogits, N * V, 'dlogits'), this.ptr(dlogp, N, 'dlogp'), this.ptr(logits, N * V, 'logits'), this.targets(targets, N, V), e, N, V, temperature] as const;
    if (!this.pool?.logprob(true, ...args)) this.k.logprobBackward(...args);
  }
  crossEntropyForward(losses: Tensor, logits: Tensor, targets: Tensor, N: number, V: number): void {
    const e = this.scratch(V + 1);
    this.k.crossEntropyForward(this.ptr(losses, N, 'losses'), this.ptr(logits, N * V, 'logits'), this.targets(targets, N, V), e, N, V);
  }
  crossEntropyBackward(dlogits: Tensor, dloss: Tensor, logits: Tensor, targets: Tensor, N: number, V: number): void {
    const e = this.scratch(V + 1);
    this.k.crossEntropyBackward(this.ptr(dlogits, N * V, 'dlogits'), this.ptr(dloss, N, 'dloss'), this.ptr(logits, N * V, 'logits'), this.targets(targets, N, V),
      e, N, V);
  }
  /** The targets' address, every target checked below V: a kernel would read past its row. */
  private targets(t: Tensor, N: number, V: number): number {
    const a = this.i32(t);
    if (a.length < N) throw new Error(`wasm backend: targets holds ${a.length} elements, the op needs ${N}`);
    for (let n = 0; n < N; n++) if (a[n] >= V) throw new Error(`wasm backend: targets[${n}] = ${a[n]} is outside the vocabulary [0, ${V})`);
    return (t as WasmTensor).ptr;
  }
  adamw(params: Tensor, grads: Tensor, m: Tensor, v: Tensor, decayMask: Tensor, scale: Tensor, n: number, hp: AdamWParams,
    members?: MemberOptim): void {
    const K = members ? members.K : 1, stride = members ? members.paramStride ?? n : 0, len = (K - 1) * stride + n;
    const h = this.pool && n > this.pool.adamwChunk ? this.scratch(8) : 0; // before any view: growth would detach them
    const p = this.ptr(params, len, 'params'), g = this.ptr(grads, len, 'grads'), mp = this.ptr(m, len, 'm'), vp = this.ptr(v, len, 'v');
    const mask = this.ptr(decayMask, n, 'decayMask'), k = this.f(scale, K, 'scale'), lr = members ? this.f(members.lr, K, 'lr') : null;
    const bc1 = 1 - Math.pow(hp.beta1, hp.step), bc2 = 1 - Math.pow(hp.beta2, hp.step);
    for (let j = 0; j < K; j++) {
      if (k[j] < 0) continue; // a non-finite gradient (clipScale's guard): this member's weights and moments untouched
      const at = j * stride * 4, hyper = [lr ? lr[j] : hp.lr, hp.beta1, hp.beta2, hp.eps, hp.weightDecay, bc1, bc2, k[j]] as const;
      if (h) {
        // the threads read the hyperparameters from memory (f32, as the one-thread call's arguments)
        new Float32Array(this.memory.buffer, h, 8).set(hyper);
        if (this.pool!.adamw(p + at, g + at, mp + at, vp + at, mask, h, n)) continue;
      }
      this.k.adamw(p + at, g + at, mp + at, vp + at, mask, n, ...hyper);
    }
  }
  clipAdamw(params: Tensor, grads: Tensor, m: Tensor, v: Tensor, decayMask: Tensor, scale: Tensor, normSq: Tensor, maxNorm: number, n: number,
    hp: AdamWParams, members?: MemberOptim): void {
    clipAdamwComposed(this, params, grads, m, v, decayMask, scale, normSq, maxNorm, n, hp, members);
  }
  embeddingForward(out: Tensor, tokens: Tensor, wte: Tensor, wpe: Tensor, N: number, T: number, C: number, members?: Members): void {
    this.embed(out, tokens, wte, wpe, null, null, N, T, C, members);
  }
  embeddingBackward(dwte: Tensor, dwpe: Tensor, dout: Tensor, tokens: Tensor, N: number, T: number, C: number, _V: number, members?: Members): void {
    this.embed(null, tokens, dwte, dwpe, dout, null, N, T, C, members);
  }
  embeddingLast(out: Tensor, tokens: Tensor, pos: Tensor, wte: Tensor, wpe: Tensor, B: number, T: number, C: number, members?: Members): void {
    this.embed(out, tokens, wte, wpe, null, pos, B, T, C, members);
  }
  /**
   * The three embedding ops, a member at a time (its rows, its copies of wte and wpe, positions counted from its first
   * row): forward (out), backward (dout: wte and wpe are the gradients), last (pos: one row per sequence). Tokens are
   * checked against the vocabulary (wte's rows) and positions against 1..T before any kernel reads a row.
   */
  private embed(out: Tensor | null, tokens: Tensor, wte: Tensor, wpe: Tensor, dout: Tensor | null, pos: Tensor | null,
    N: number, T: number, C: number, m?: Members): void {
    const K = m ? m.K : 1, es = m ? memberStride(wte, m) : wte.size, ps = m ? memberStride(wpe, m) : 0;
    if (m) checkMemberRows(m, N);
    // wte's rows: a member tensor reaches from member 0's copy to the end of member K-1's
    const V = Math.floor((wte.size - (K - 1) * es) / C);
    this.checkTokens(tokens, pos, N, T, V);
    const o = out ? this.ptr(out, N * C, 'out') : 0, g = dout ? this.ptr(dout, N * C, 'dout') : 0;
    const e = this.ptr(wte, (K - 1) * es + V * C, 'wte'), p = this.ptr(wpe, (K - 1) * ps + T * C, 'wpe');
    const t = (tokens as WasmTensor).ptr, q = pos ? (pos as WasmTensor).ptr : 0;
    for (let k = 0; k < K; k++) {
      const r0 = m ? m.rowStartHost[k] : 0, rows = m ? m.rowStartHost[k + 1] - r0 : N;
      if (rows === 0) continue;
      const ek = e + k * es * 4, pk = p + k * ps * 4;
      if (pos) this.k.embeddingLast(o + r0 * C * 4, t + r0 * T * 4, q + r0 * 4, ek, pk, rows, T, C);
      else if (dout) this.k.embeddingBackward(ek, pk, g + r0 * C * 4, t + r0 * 4, rows, T, C);
      else this.k.embeddingForward(o + r0 * C * 4, t + r0 * 4, ek, pk, rows, T, C);
    }
  }
  /** Lists at `rows` the rows of x [N, M] with a nonzero (the backward skips the others): on the threads where worth it. */
  private nonzeroRows(rows: number, x: number, N: number, M: number): number {
    const pooled = this.pool ? this.pool.nonzeroRows(rows, x, N, M) : -1;
    return pooled >= 0 ? pooled : this.k.nonzeroRows(rows, x, N, M);
  }
  attentionForward(out: Tensor, att: Tensor, qkv: Tensor, B: number, T: number, C: number, NH: number): void {
    heads(C, NH);
    const BT = B * T;
    const args = [this.ptr(out, BT * C, 'out'), this.ptr(att, BT * NH * T, 'att'), this.ptr(qkv, BT * 3 * C, 'qkv'), B, T, C, NH] as const;
    if (!this.pool?.attentionForward(...args)) this.k.attentionForward(...args);
  }
  attentionBackward(dqkv: Tensor, dpreatt: Tensor, dout: Tensor, qkv: Tensor, att: Tensor, B: number, T: number, C: number, NH: number, dqkvOverwrite = false): void {
    heads(C, NH);
    const BT = B * T;
    const args = [this.ptr(dqkv, BT * 3 * C, 'dqkv'), this.ptr(dpreatt, BT * NH * T, 'dpreatt'), this.ptr(dout, BT * C, 'dout'),
      this.ptr(qkv, BT * 3 * C, 'qkv'), this.ptr(att, BT * NH * T, 'att'), B, T, C, NH] as const;
    if (!this.pool?.attentionBackward(...args, dqkvOverwrite)) this.k.attentionBackward(...args, dqkvOverwrite ? 1 : 0);
  }
  /** Tokens in [0, V) (a row's, or with pos row n's token at pos[n] - 1 of its T) and positions in 1..T, before any kernel reads a row. */
  private checkTokens(tokens: Tensor, pos: Tensor | null, N: number, T: number, V: number): void {
    const perRow = pos ? T : 1, tk = this.i32(tokens); // perRow: tokens per output row
    if (tk.length < N * perRow) throw new Error(`wasm backend: tokens holds ${tk.length} elements, the op needs ${N * perRow}`);
    const at = pos ? this.i32(pos) : null;
    if (at && at.length < N) throw new Error(`wasm backend: pos holds ${at.length} elements, the op needs ${N}`);
    for (let n = 0; n < N; n++) {
      let i = n;
      if (at) {
        if (!(at[n] >= 1 && at[n] <= T)) throw new Error(`embeddingLast: pos[${n}] = ${at[n]} outside 1..${T}`);
        i = n * T + at[n] - 1;
      }
      if (!(tk[i] >= 0 && tk[i] < V)) throw new Error(`wasm backend: token ${tk[i]} at ${i} is outside the vocabulary [0, ${V})`);
    }
  }
  attentionDecode(out: Tensor, qkvCache: Tensor, qkvNew: Tensor, pos: Tensor, B: number, T: number, C: number, NH: number): void {
    heads(C, NH);
    // T floats of scratch per sequence (threads: each its own), taken before any view: growth would detach them
    const p = this.scratch(Math.max(1, this.pool ? B * T : T));
    const at = this.i32(pos);
    if (at.length < B) throw new Error(`wasm backend: pos holds ${at.length} elements, the op needs ${B}`);
    for (let b = 0; b < B; b++) if (!(at[b] >= 1 && at[b] <= T)) throw new Error(`attentionDecode: pos[${b}] = ${at[b]} outside 1..${T}`);
    const args = [this.ptr(out, B * C, 'out'), this.ptr(qkvCache, B * T * 3 * C, 'qkvCache'), this.ptr(qkvNew, B * 3 * C, 'qkvNew'),
      (pos as WasmTensor).ptr, p, B, T, C, NH] as const;
    if (!this.pool?.attentionDecode(...args)) this.k.attentionDecode(...args);
  }
  geluForward(out: Tensor, inp: Tensor, n: number): void {
    this.k.geluForward(this.ptr(out, n, 'out'), this.ptr(inp, n, 'inp'), n);
  }
  /** overwrite (the engine's own matmulGeluBackward): dinp = 0 + the gradient, as zeroing it first would give. */
  geluBackward(dinp: Tensor, inp: Tensor, dout: Tensor, n: number, overwrite = false): void {
    const args = [this.ptr(dinp, n, 'dinp'), this.ptr(inp, n, 'inp'), this.ptr(dout, n, 'dout'), n] as const;
    if (!this.pool?.geluBackward(...args, overwrite)) this.k.geluBackward(...args, overwrite ? 1 : 0);
  }

  // ---- the reference code on views of wasm memory (not in wasm yet) ----

  sumSquares(out: Tensor, x: Tensor, n: number, members?: MemberStack): void {
    const K = members ? members.K : 1, stride = members ? members.paramStride ?? n : 0;
    const p = this.ptr(x, (K - 1) * stride + n, 'x'), o = this.f(out, K, 'out');
    for (let k = 0; k < K; k++) o[k] = this.k.sumSquares(p + k * stride * 4, n);
  }
  clipScale(scale: Tensor, normSq: Tensor, maxNorm: number, members?: MemberStack): void {
    if (members) return mem.clipScale(this.f(scale), this.f(normSq), maxNorm, members.K);
    opt.clipScale(this.f(scale), this.f(normSq), maxNorm);
  }
  sample(tokens: Tensor, logp: Tensor, pos: Tensor, done: Tensor, limit: Tensor, logits: Tensor,
    B: number, T: number, V: number, temperature: number, eos: number, seed: number, counter: number, logitsT = T, rowRng?: Tensor): void {
    smp.sample(this.i32(tokens), this.f(logp), this.i32(pos), this.i32(done), this.i32(limit), this.f(logits), B, T, V, temperature, eos, seed,
      counter, logitsT, rowRng ? this.i32(rowRng) : undefined);
  }

  private decodeScratch: DecodeScratch | null = null;
  /**
   * A decode step: one op through every layer and the head (shaders/simd/decode.ts; on threads one hand-off, each
   * thread a chunk of sequences of one member), then `sample`. The prefill is the ops composed
   * (src/reference/decodeSample.ts). The same numbers either way: each row through the same kernels.
   */
  decodeSample(a: DecodeSampleArgs): void {
    const scratch = (this.decodeScratch ??= new DecodeScratch(this));
    if (a.prefill || (a.members && a.members.paramStride === undefined)) { composeDecodeSample(this, scratch, a); return; }
    const s = scratch.acts(false, a.B, a.T, a.C, a.NH, a.V);
    this.decodeStep(s, a);
    this.sample(a.tokens, a.logp, a.pos, a.done, a.limit, s.logits, a.B, a.T, a.V, a.temperature, a.eos, a.seed, a.counter, 1, a.rowRng);
  }
  /**
   * Decode steps of up to DECODE_FUSED_ROWS sequences a member are one op (decodeSample); the prefill and larger steps
   * are the ops (scripts/decodeAB.ts on 2 threads: 1.14x at 64 sequences, 1.03x at 128, 0.93x at 256).
   */
  decodeSampleFused(s: DecodeShape): boolean { return !s.prefill && s.B <= DECODE_FUSED_ROWS * s.K; }

  /**
   * decodeRows over the B sequences (a member's rows with its weights), its pointers in a block of the scratch after
   * the attention's T floats a sequence, and its chunks for the threads (first row, rows, member) after it.
   */
  private decodeStep(s: ReturnType<DecodeScratch['acts']>, a: DecodeSampleArgs): void {
    const { B, T, C, NH, V, weights: w } = a, L = w.layers.length, stride = decodeCacheStride(B, T, C), blockAt = B * T;
    const m = a.members, K = m ? m.K : 1, ps = m?.paramStride ?? 0, fields = DECODE_HEAD + DECODE_PER_LAYER * L;
    heads(C, NH);
    if (m) checkMemberRows(m, B);
    if (a.kv.size < L * stride) throw new Error(`decodeSample: the cache holds ${a.kv.size} values, not L x ${stride}`);
    const spans: number[] = []; // [first row, rows, member] of each chunk: CHUNK rows, none across two members
    for (let k = 0; k < K; k++) {
      const end = m ? m.rowStartHost[k + 1] : B;
      for (let r = m ? m.rowStartHost[k] : 0; r < end; r += DECODE_CHUNK) spans.push(r, Math.min(DECODE_CHUNK, end - r), k);
    }
    const sc = this.scratch(blockAt + fields + spans.length); // before any view: growth would detach them
    this.checkTokens(a.tokens, a.pos, B, T, V);
    const f = (t: Tensor, n: number, what: string) => this.ptr(t, n, what), N = B * C;
    const mw = (t: Tensor, n: number, what: string) => f(t, (K - 1) * ps + n, what); // member 0's pointer, room for every member
    const head = [B, T, C, NH, L, V, (a.tokens as WasmTensor).ptr, (a.pos as WasmTensor).ptr, f(a.kv, L * stride, 'kv'), stride * 4, sc,
      f(s.encoded, N, 'encoded'), f(s.ln1, N, 'ln1'), f(s.ln1Mean, B, 'mean'), f(s.ln1Rstd, B, 'rstd'), f(s.qkv, 3 * N, 'qkv'), f(s.atty, N, 'atty'),
      f(s.residual2, N, 'residual2'), f(s.ln2, N, 'ln2'), f(s.ln2Mean, B, 'mean'), f(s.ln2Rstd, B, 'rstd'), f(s.fch, 4 * N, 'fch'),
      f(s.fchGelu, 4 * N, 'fchGelu'), f(s.residual3, N, 'residual3'), f(s.lnf, N, 'lnf'), f(s.lnfMean, B, 'mean'), f(s.lnfRstd, B, 'rstd'),
      f(s.logits, B * V, 'logits'), mw(w.wte, V * C, 'wte'), mw(w.wpe, T * C, 'wpe'), mw(w.lnfw, C, 'weight'), mw(w.lnfb, C, 'bias'), ps * 4];
    const layers = w.layers.flatMap((l) => [mw(l.ln1w, C, 'weight'), mw(l.ln1b, C, 'bias'), mw(l.qkvw, 3 * C * C, 'weight'), mw(l.qkvb, 3 * C, 'bias'),
      mw(l.attprojw, C * C, 'weight'), mw(l.attprojb, C, 'bias'), mw(l.ln2w, C, 'weight'), mw(l.ln2b, C, 'bias'), mw(l.fcw, 4 * C * C, 'weight'),
      mw(l.fcb, 4 * C, 'bias'), mw(l.fcprojw, 4 * C * C, 'weight'), mw(l.fcprojb, C, 'bias')]);
    const block = sc + blockAt * 4, table = block + fields * 4;
    new Uint32Array(this.memory.buffer, block, fields).set([...head, ...layers]);
    new Int32Array(this.memory.buffer, table, spans.length).set(spans);
    const work = B * (L * (12 * C * C + T * C) + C * V); // multiply-adds: the matmuls and the attention over the cache
    if (this.pool?.decodeStep(block, table, spans.length / 3, B, work)) return;
    for (let k = 0; k < K; k++) { // one thread: each member's rows in one call
      const r0 = m ? m.rowStartHost[k] : 0, rows = m ? m.rowStartHost[k + 1] - r0 : B;
      if (rows > 0) this.k.decodeRows(block, r0, rows, k);
    }
  }

  gather(out: Tensor, src: Tensor, index: Tensor, n: number): void { rl.gather(this.f(out), this.f(src), this.i32(index), n); }
  groupNormalize(adv: Tensor, stats: Tensor, rewards: Tensor, groupStart: Tensor, E: number, P: number, mode: AdvantageMode): void {
    rl.groupNormalize(this.f(adv), this.f(stats), this.f(rewards), this.i32(groupStart), E, P, mode);
  }
  seqRatio(logS: Tensor, ratio: Tensor, tokRatio: Tensor, logp: Tensor, oldLogp: Tensor, mask: Tensor, S: number, T: number): void {
    rl.seqRatio(this.f(logS), this.f(ratio), this.f(tokRatio), this.f(logp), this.f(oldLogp), this.f(mask), S, T);
  }
  clipLoss(lossSeq: Tensor, klSeq: Tensor, clipSeq: Tensor, dlogp: Tensor, logp: Tensor, ratio: Tensor, tokRatio: Tensor, seqAdv: Tensor,
    mask: Tensor, refLogp: Tensor | null, S: number, T: number, loss: LossArgs): void {
    const f = (t: Tensor) => this.f(t);
    rl.clipLoss(f(lossSeq), f(klSeq), f(clipSeq), f(dlogp), f(logp), f(ratio), f(tokRatio), f(seqAdv), f(mask), refLogp ? f(refLogp) : null, S, T, loss);
  }
  rlStats(stats: Tensor, lossSeq: Tensor, klSeq: Tensor, clipSeq: Tensor, ratio: Tensor, tokRatio: Tensor, mask: Tensor,
    S: number, T: number, algorithm: Algorithm, beta: number): void {
    const f = (t: Tensor) => this.f(t);
    rl.rlStats(f(stats), f(lossSeq), f(klSeq), f(clipSeq), f(ratio), f(tokRatio), f(mask), S, T, algorithm, beta);
  }
  /** The four ops composed (src/contract/policyLoss.ts): on a CPU fusing them would save nothing. */
  policyLoss(a: PolicyLossArgs): void { composePolicyLoss(this, a); }
}

/** The kernels split C into NH heads of C / NH. */
function heads(C: number, NH: number): void {
  if (!(NH >= 1 && Number.isInteger(C / NH))) throw new Error(`wasm backend: C = ${C} does not split into NH = ${NH} heads`);
}

/** A stride shared by tensors of one shape (a weight and its gradient; a LayerNorm's weight and bias). */
function sameStride(m: Members, ...ts: Tensor[]): number {
  const s = memberStride(ts[0], m);
  for (const t of ts) if (memberStride(t, m) !== s) throw new Error('members: tensors of one shape with different member strides');
  return s;
}
