// The policy: nanoGPT's architecture, forward and backward composed from
// Backend ops (read top to bottom, after llm.c's gpt2_forward/gpt2_backward).
//   x = wte[tok] + wpe[pos]
//   per layer: x = x + c_proj(attn(c_attn(ln_1(x))));  x = x + mlp.c_proj(gelu(c_fc(ln_2(x))))
//   logits = ln_f(x) @ wte^T   (tied head, no bias)
// A GPT may hold K members (a population, docs/populations.md): K flat parameter vectors side by side,
// one batch of their sequences (member-major), every op that reads weights given the rows' members.
import { decodeCacheStride, memberRows, type Backend, type Members, type Tensor } from '../backend';
import { decayMask, initParams, paramSpecs, type GPTConfig, type ParamSpec } from './params';
import { evictOldest, KEEP_ACTS, KEEP_KV, MEMBERS_CACHED, ROOM_LEFT, touch } from './shapeCache';

interface LayerParams {
  ln1w: Tensor; ln1b: Tensor; qkvw: Tensor; qkvb: Tensor; attprojw: Tensor; attprojb: Tensor;
  ln2w: Tensor; ln2b: Tensor; fcw: Tensor; fcb: Tensor; fcprojw: Tensor; fcprojb: Tensor;
}
interface Params { wte: Tensor; wpe: Tensor; layers: LayerParams[]; lnfw: Tensor; lnfb: Tensor }

// Activations of one forward pass, kept for the backward. BT = B*T rows.
interface LayerActs {
  ln1: Tensor; ln1Mean: Tensor; ln1Rstd: Tensor; // (BT, C), (BT), (BT)
  qkv: Tensor; // (BT, 3C)
  att: Tensor; // (B, NH, T, T)
  atty: Tensor; // (BT, C)
  residual2: Tensor; // (BT, C) = residual + c_proj(atty), the projection fused with the add
  ln2: Tensor; ln2Mean: Tensor; ln2Rstd: Tensor;
  fch: Tensor; // (BT, 4C)
  fchGelu: Tensor; // (BT, 4C)
  residual3: Tensor; // (BT, C) = residual2 + mlp.c_proj(fchGelu)
}
interface Acts {
  B: number; T: number;
  members?: Members; // token rows per member (a population's forward)
  tokens: Tensor; // (BT) i32
  encoded: Tensor; // (BT, C)
  layers: LayerActs[];
  lnf: Tensor; lnfMean: Tensor; lnfRstd: Tensor;
  logits: Tensor; // (BT, V)
  // gradient scratch: zeroed before an op that accumulates into it, or overwritten by the one op that fills it
  dlogits: Tensor; dresidual: Tensor; dlnf: Tensor; dbt3c: Tensor; dbt4c: Tensor; dbt4c2: Tensor; dbtc: Tensor; dpreatt: Tensor;
}

/** Views of each parameter; with K members, from member 0's copy long enough to reach member K-1's (stride numParams). */
function viewParams(b: Backend, flat: Tensor, specs: ParamSpec[], nLayer: number, K = 1, numParams = 0): Params {
  const by = new Map(specs.map((s) => [s.name, b.view(flat, s.offset, (K - 1) * numParams + s.size)]));
  const get = (n: string) => by.get(n)!;
  const layers: LayerParams[] = [];
  for (let l = 0; l < nLayer; l++) {
    const p = `transformer.h.${l}.`;
    layers.push({
      ln1w: get(p + 'ln_1.weight'), ln1b: get(p + 'ln_1.bias'),
      qkvw: get(p + 'attn.c_attn.weight'), qkvb: get(p + 'attn.c_attn.bias'),
      attprojw: get(p + 'attn.c_proj.weight'), attprojb: get(p + 'attn.c_proj.bias'),
      ln2w: get(p + 'ln_2.weight'), ln2b: get(p + 'ln_2.bias'),
      fcw: get(p + 'mlp.c_fc.weight'), fcb: get(p + 'mlp.c_fc.bias'),
      fcprojw: get(p + 'mlp.c_proj.weight'), fcprojb: get(p + 'mlp.c_proj.bias'),
    });
  }
  return { wte: get('transformer.wte.weight'), wpe: get('transformer.wpe.weight'), layers, lnfw: get('transformer.ln_f.weight'), lnfb: get('transformer.ln_f.bias') };
}

export class GPT {
  readonly specs: ParamSpec[];
  readonly numParams: number; // flat length (with alignment padding), of one member
  readonly K: number; // members (1: a lone model)
  readonly params: Tensor; // flat, K x numParams member-major
  readonly grads: Tensor; // flat, same layout
  readonly decayMask: Tensor; // [numParams], shared by the members (it follows the shape)
  private p: Params;
  private g: Params;
  private acts: Acts | null = null; // of the last forward
  private actsByShape = new Map<string, Acts>(); // rollouts, training and eval each keep their shape
  private kvByShape = new Map<string, { all: Tensor; layers: Tensor[] }>(); // KV caches [B,T,3C] per layer, by B x T
  private kvFilled: string | null = null; // the cache the last prefill filled
  private membersByCounts = new Map<string, Members>(); // row offsets by member row counts (written once, never rewritten)
  /** Passes recorded so far: full forwards (a prefill is one) and decode steps; tests count the work a step saves with them. */
  readonly passes = { forward: 0, decode: 0 };

  /**
   * `weights`: one member's flat vector (absent: nanoGPT's init from `seed`), or K members' vectors (a population;
   * its forward, prefill and decode then take each member's sequence count).
   */
  constructor(readonly backend: Backend, readonly config: GPTConfig, weights?: Float32Array | Float32Array[], seed = 0) {
    const { specs, total } = paramSpecs(config);
    const stack = Array.isArray(weights) ? weights : [weights ?? initParams(config, seed)];
    if (stack.length < 1) throw new Error('GPT: a population needs at least one member');
    stack.forEach((w, k) => { if (w.length !== total) throw new Error(`GPT: member ${k} has ${w.length} weights; this shape has ${total}`); });
    this.specs = specs;
    this.numParams = total;
    this.K = stack.length;
    this.params = backend.alloc(this.K * total);
    stack.forEach((w, k) => backend.write(this.params, w, k * total));
    this.grads = backend.alloc(this.K * total);
    this.decayMask = backend.alloc(total);
    backend.write(this.decayMask, decayMask(config));
    this.p = this.viewOf(this.params);
    this.g = this.viewOf(this.grads);
  }

  private viewOf(flat: Tensor): Params {
    return viewParams(this.backend, flat, this.specs, this.config.nLayer, this.K, this.numParams);
  }

  /**
   * The members of B rows of `per` each (`seqs`: each member's sequence count, summing to B); none for a lone model.
   * Cached by counts, so a recorded op never sees its offsets rewritten before it runs.
   */
  private members(seqs: readonly number[] | undefined, B: number, per: number): Members | undefined {
    if (this.K === 1 && seqs === undefined) return undefined;
    if (!seqs || seqs.length !== this.K) throw new Error(`GPT: a population of ${this.K} members needs each member's sequence count, got ${seqs ? seqs.length : 'none'}`);
    const total = seqs.reduce((a, x) => a + x, 0);
    if (total !== B) throw new Error(`GPT: the members' sequences (${seqs.join(' + ')} = ${total}) are not the batch's ${B}`);
    const key = `${per}:${seqs.join(',')}`;
    let m = touch(this.membersByCounts, key);
    if (!m) {
      // minibatches' counts vary step to step: the least recently used offsets go, long since submitted (every step submits)
      evictOldest(this.membersByCounts, MEMBERS_CACHED, () => false, (old) => this.backend.free(old.rowStart));
      m = memberRows(this.backend, seqs.map((s) => s * per), this.numParams);
      this.membersByCounts.set(key, m);
    }
    return m;
  }

  /** Activations for B sequences of T positions; reused while the shape fits. */
  private activations(B: number, T: number): Acts {
    const key = `${B}x${T}`;
    const cached = touch(this.actsByShape, key);
    if (cached) return cached;
    let floats = 0;
    this.makeActs(B, T, (n) => { floats += n; return null as unknown as Tensor; }); // counted, not allocated
    // never the last forward's: a backward or decode steps may still read it
    if (this.evicts()) evictOldest(this.actsByShape, KEEP_ACTS, (_, a) => a === this.acts, (a) => this.freeActs(a), this.room, 4 * floats + ROOM_LEFT);
    const acts = this.makeActs(B, T, (n, dtype) => this.backend.alloc(n, dtype));
    this.actsByShape.set(key, acts);
    return acts;
  }

  /** An activation set's tensors from `alloc`. */
  private makeActs(B: number, T: number, alloc: (n: number, dtype?: 'i32') => Tensor): Acts {
    const b = { alloc }, { nLayer, nHead: NH, nEmbd: C, vocabSize: V } = this.config, BT = B * T;
    const layers: LayerActs[] = [];
    for (let l = 0; l < nLayer; l++) {
      layers.push({
        ln1: b.alloc(BT * C), ln1Mean: b.alloc(BT), ln1Rstd: b.alloc(BT), qkv: b.alloc(BT * 3 * C), att: b.alloc(B * NH * T * T),
        atty: b.alloc(BT * C), residual2: b.alloc(BT * C), ln2: b.alloc(BT * C), ln2Mean: b.alloc(BT), ln2Rstd: b.alloc(BT),
        fch: b.alloc(BT * 4 * C), fchGelu: b.alloc(BT * 4 * C), residual3: b.alloc(BT * C),
      });
    }
    const acts: Acts = {
      B, T, tokens: b.alloc(BT, 'i32'), encoded: b.alloc(BT * C), layers,
      lnf: b.alloc(BT * C), lnfMean: b.alloc(BT), lnfRstd: b.alloc(BT), logits: b.alloc(BT * V),
      dlogits: b.alloc(BT * V), dresidual: b.alloc(BT * C), dlnf: b.alloc(BT * C), dbt3c: b.alloc(BT * 3 * C),
      dbt4c: b.alloc(BT * 4 * C), dbt4c2: b.alloc(BT * 4 * C), dbtc: b.alloc(BT * C), dpreatt: b.alloc(B * NH * T * T),
    };
    return acts;
  }

  private readonly room = () => this.backend.memoryRoom?.() ?? Infinity;

  /** Whether shapes not in use are freed (KEEP_ACTS): on the CPU engines, whose ops are done when they return. */
  private evicts(): boolean { return this.backend.name !== 'webgpu'; }

  private freeActs(a: Acts): void {
    for (const v of Object.values(a)) if (typeof v === 'object' && v !== null && 'size' in v) this.backend.free(v as Tensor);
    for (const l of a.layers) for (const t of Object.values(l)) this.backend.free(t);
  }

  /**
   * Forward over tokens (B*T i32, row-major). Returns logits (BT, V), valid until the next forward.
   * With `params`, runs another weight set of the same layout (e.g. the frozen reference policy).
   * A population's `seqs`: each member's sequence count (member-major rows, summing to B). `forBackward`: a `backward`
   * may follow (the default with the model's own weights); pass false where none does (rollouts, log-probs, prefill),
   * so WebGPU skips the embedding backward's sort it would otherwise fold into this forward.
   */
  forward(tokens: ArrayLike<number> | Tensor, B: number, T: number, params?: Tensor, seqs?: readonly number[],
    forBackward = params === undefined): Tensor {
    const p = params ? this.viewOf(params) : this.p, a = this.embed(tokens, B, T, p, seqs, forBackward), { nHead: NH, nEmbd: C } = this.config;
    // attention works per sequence: it needs no member
    return this.layersAndHead(p, a, B * T, (la) => this.backend.attentionForward(la.atty, la.att, la.qkv, B, T, C, NH), a.members);
  }

  /** A forward's first op: the activations of B x T (they become the last forward's) and the rows' embedding in a.encoded. */
  private embed(tokens: ArrayLike<number> | Tensor, B: number, T: number, p: Params, seqs: readonly number[] | undefined, forBackward: boolean): Acts {
    if (T > this.config.blockSize) throw new Error(`sequence length ${T} exceeds block_size ${this.config.blockSize}`);
    const b = this.backend, a = (this.acts = this.activations(B, T)), { nEmbd: C } = this.config, BT = B * T;
    this.passes.forward++;
    const m = (a.members = this.members(seqs, B, T));
    if ('dtype' in tokens && 'size' in tokens) b.copy(a.tokens, tokens as Tensor);
    else b.write(a.tokens, tokens as ArrayLike<number>);
    b.embeddingForward(a.encoded, a.tokens, p.wte, p.wpe, BT, T, C, m, forBackward ? this.config.vocabSize : undefined);
    return a;
  }

  /**
   * The blocks from layer `from` on and the head over N rows whose embedding (or layer `from`'s input) is `residual`
   * (nanoGPT's Block, with the residual adds fused into the projections): x = x + c_proj(attn(ln_1(x)));
   * x = x + mlp.c_proj(gelu(c_fc(ln_2(x)))). `attend` fills la.atty from la.qkv: causal attention over the rows
   * (forward) or over the KV cache (decode).
   */
  private layersAndHead(p: Params, a: Acts, N: number, attend: (la: LayerActs, l: number) => void, m: Members | undefined,
    from = 0, residual = a.encoded): Tensor {
    const b = this.backend, { nEmbd: C, vocabSize: V } = this.config;
    for (let l = from; l < p.layers.length; l++) {
      const lp = p.layers[l], la = a.layers[l];
      this.qkvOf(lp, la, residual, N, m);
      attend(la, l);
      residual = this.projAndMlp(lp, la, residual, N, m);
    }
    b.layernormMatmulForward(a.lnf, a.lnfMean, a.lnfRstd, a.logits, null, residual, p.lnfw, p.lnfb, p.wte, null, N, C, V, m);
    return a.logits;
  }

  /** The block past its attention (la.atty): x + c_proj(attn), then that + mlp; returns la.residual3. */
  private projAndMlp(lp: LayerParams, la: LayerActs, x: Tensor, N: number, m: Members | undefined): Tensor {
    const b = this.backend, { nEmbd: C } = this.config;
    b.matmulResidualForward(la.residual2, la.atty, lp.attprojw, lp.attprojb, x, N, C, C, m);
    b.layernormMatmulForward(la.ln2, la.ln2Mean, la.ln2Rstd, la.fch, la.fchGelu, la.residual2, lp.ln2w, lp.ln2b, lp.fcw, lp.fcb, N, C, 4 * C, m);
    b.matmulResidualForward(la.residual3, la.fchGelu, lp.fcprojw, lp.fcprojb, la.residual2, N, 4 * C, C, m);
    return la.residual3;
  }

  /** la.qkv = c_attn(ln_1(x)) over N rows: the LayerNorm in the prologue of the Linear that reads it (ln, mean and rstd kept for the backward). */
  private qkvOf(lp: LayerParams, la: LayerActs, x: Tensor, N: number, m: Members | undefined): void {
    const { nEmbd: C } = this.config;
    this.backend.layernormMatmulForward(la.ln1, la.ln1Mean, la.ln1Rstd, la.qkv, null, x, lp.ln1w, lp.ln1b, lp.qkvw, lp.qkvb, N, C, 3 * C, m);
  }

  /**
   * The KV cache of B sequences of T positions: each layer's q, k, v [B,T,3C], as views of one tensor at
   * decodeCacheStride apart (all, as decodeSample binds it), so the per-op and the fused steps share it.
   */
  private kvCache(B: number, T: number): { all: Tensor; layers: Tensor[] } {
    const key = `${B}x${T}`, { nLayer: L, nEmbd: C } = this.config, stride = decodeCacheStride(B, T, C);
    let kv = touch(this.kvByShape, key);
    if (!kv) {
      // never the cache the last prefill filled: decode steps read it
      if (this.evicts()) evictOldest(this.kvByShape, KEEP_KV, (k) => k === this.kvFilled, (c) => this.backend.free(c.all), this.room, 4 * Math.max(1, L) * stride + ROOM_LEFT);
      const all = this.backend.alloc(Math.max(1, L) * stride);
      kv = { all, layers: Array.from({ length: L }, (_, l) => this.backend.view(all, l * stride, B * T * 3 * C)) };
      this.kvByShape.set(key, kv);
    }
    return kv;
  }

  /**
   * The prefill of incremental decoding (docs/rl.md section 1): a forward over the contexts' rows (tokens [B,Tp], each
   * context left-aligned, pos[b] its length, 1..Tp; rows past a context are never read) whose q, k, v fill the first
   * Tp rows of the KV cache for B x T. Returns the logits [B, V] of each context's last row (those a sample reads),
   * valid until the next forward; `decode` continues from here. Every layer's q, k, v need every row, but nothing
   * else of the last layer does: it runs past its q, k, v as a decode step on the B last rows (a 1/Tp of its work).
   * repeat > 1 (a lone model's groups): tokens hold B / repeat contexts, each shared by `repeat` sequences in a row
   * (a group's G episodes of one prompt); the forward runs those rows once and its q, k, v are copied to every
   * sequence of the group. Rows do not depend on the batch they are in, so the cache and logits are those of a
   * prefill over all B rows, for 1 / repeat of its work.
   */
  prefill(tokens: ArrayLike<number> | Tensor, B: number, Tp: number, T: number, pos: Tensor, seqs?: readonly number[], repeat = 1): Tensor {
    if (Tp > T) throw new Error(`prefill: ${Tp} context rows exceed the cache's ${T}`);
    if (!Number.isInteger(repeat) || repeat < 1 || B % repeat !== 0) throw new Error(`prefill: repeat ${repeat} does not divide the ${B} sequences`);
    if (repeat > 1 && seqs) throw new Error('prefill: repeat is for a lone model (a population\'s members run their own rows)');
    const b = this.backend, p = this.p, U = B / repeat, { nLayer: L, nHead: NH, nEmbd: C } = this.config, C3 = 3 * C;
    const a = this.embed(tokens, U, Tp, p, seqs, false), kv = this.kvCache(B, T).layers;
    let residual = a.encoded;
    for (let l = 0; l < L; l++) {
      const la = a.layers[l];
      this.qkvOf(p.layers[l], la, residual, U * Tp, a.members);
      b.copyRows(kv[l], la.qkv, B, Tp * C3, T * C3, Tp * C3, repeat);
      if (l === L - 1) break;
      b.attentionForward(la.atty, la.att, la.qkv, U, Tp, C, NH);
      residual = this.projAndMlp(p.layers[l], la, residual, U * Tp, a.members);
    }
    this.kvFilled = `${B}x${T}`;
    // the last layer's input at each context's last row; its q, k, v there are recomputed (the decode step's own row)
    const d = this.activations(B, 1);
    b.gatherLast(d.encoded, residual, pos, B, Tp, C, repeat);
    return this.layersAndHead(p, d, B, (la, l) => b.attentionDecode(la.atty, kv[l], la.qkv, pos, B, T, C, NH), this.members(seqs, B, 1), Math.max(0, L - 1));
  }

  /**
   * One decode step with the KV cache, after a `prefill` for the same B x T (tokens [B,T] and pos [B] i32): for
   * each sequence b, runs the model on its last token (at pos[b] - 1) alone, attending over the cached q, k, v of
   * the rows before it, and appends its own q, k, v to the cache. Returns logits [B, V] (row b for sequence b),
   * valid until the next call; equal to rows b*T + pos[b] - 1 of a full forward over the same tokens.
   */
  decode(tokens: Tensor, pos: Tensor, B: number, T: number, seqs?: readonly number[]): Tensor {
    if (this.kvFilled !== `${B}x${T}`) throw new Error(`decode(${B}x${T}) needs a prefill of that shape first (the KV cache)`);
    const b = this.backend, { nHead: NH, nEmbd: C } = this.config, p = this.p, kv = this.kvCache(B, T).layers;
    const d = this.activations(B, 1); // one row per sequence; a later backward still belongs to the last forward
    this.passes.decode++;
    const m = this.members(seqs, B, 1); // one row per sequence: the members' rows are their sequences
    b.embeddingLast(d.encoded, tokens, pos, p.wte, p.wpe, B, T, C, m);
    return this.layersAndHead(p, d, B, (la, l) => b.attentionDecode(la.atty, kv[l], la.qkv, pos, B, T, C, NH), m);
  }

  /** Whether the backend runs decodeSample fused (one dispatch per call) for B sequences of T positions: the prefill, or a decode step. */
  fusedDecode(B: number, T: number, prefill: boolean): boolean {
    const { nEmbd: C, nHead: NH, nLayer: L, vocabSize: V } = this.config;
    return this.backend.decodeSampleFused({ B, T, C, NH, L, V, K: this.K, prefill });
  }

  /**
   * The prefill (`prefill`: every row's positions 0..pos[b]-1) or one decode step over the KV cache, and the sampling
   * of the next token, in one backend op (Backend.decodeSample; `s` is `sample`'s state [B,T] and options). The
   * cache is `prefill`'s and `decode`'s too: a decode step here may follow either prefill, and `decode` either.
   */
  decodeSample(s: { tokens: Tensor; logp: Tensor; pos: Tensor; done: Tensor; limit: Tensor; rowRng?: Tensor },
    B: number, T: number, prefill: boolean, temperature: number, eos: number, seed: number, counter: number, seqs?: readonly number[]): void {
    if (T > this.config.blockSize) throw new Error(`sequence length ${T} exceeds block_size ${this.config.blockSize}`);
    const { nHead: NH, nEmbd: C, vocabSize: V } = this.config, key = `${B}x${T}`, kv = this.kvCache(B, T).all;
    if (!prefill && this.kvFilled !== key) throw new Error(`decodeSample(${B}x${T}) needs a prefill of that shape first (the KV cache)`);
    this.passes[prefill ? 'forward' : 'decode']++;
    this.backend.decodeSample({ ...s, kv, weights: this.p, B, T, C, NH, V, prefill, temperature, eos, seed, counter,
      members: this.members(seqs, B, 1) });
    if (prefill) this.kvFilled = key;
  }

  /** The zeroed gradient of the logits of the last forward; a loss head accumulates into it before `backward`. */
  dlogits(): Tensor {
    const a = this.acts;
    if (!a) throw new Error('dlogits() before forward()');
    this.backend.zero(a.dlogits);
    return a.dlogits;
  }

  zeroGrad(): void { this.backend.zero(this.grads); }

  /** Backpropagates dlogits through the last forward, accumulating (+=) into this.grads. */
  backward(): void {
    const a = this.acts;
    if (!a) throw new Error('backward() before forward()');
    const b = this.backend, p = this.p, g = this.g, { nHead: NH, nEmbd: C, vocabSize: V } = this.config, { B, T, members: m } = a, BT = B * T;
    const L = this.config.nLayer;
    // a scratch gradient that one op fills is overwritten by it (dinpOverwrite), not zeroed first and accumulated into
    const fill = true;
    b.matmulBackward(a.dlnf, g.wte, null, a.dlogits, a.lnf, p.wte, BT, C, V, m, fill);
    const lastResidual = L > 0 ? a.layers[L - 1].residual3 : a.encoded;
    b.layernormBackward(a.dresidual, g.lnfw, g.lnfb, a.dlnf, lastResidual, p.lnfw, a.lnfMean, a.lnfRstd, BT, C, m, fill);
    // dresidual carries d(loss)/d(residual stream) down through the layers
    for (let l = L - 1; l >= 0; l--) {
      const lp = p.layers[l], lg = g.layers[l], la = a.layers[l];
      const residual = l === 0 ? a.encoded : a.layers[l - 1].residual3;
      // MLP branch: residual3 = residual2 + fcproj
      // c_proj's backward and the GELU's in one op: dbt4c2 = gelu'(fch) * (dresidual @ W) (dbt4c: the composing engines' scratch)
      b.matmulGeluBackward(a.dbt4c2, a.dbt4c, lg.fcprojw, lg.fcprojb, a.dresidual, la.fchGelu, la.fch, lp.fcprojw, BT, 4 * C, C, m);
      b.matmulBackward(a.dbtc, lg.fcw, lg.fcb, a.dbt4c2, la.ln2, lp.fcw, BT, C, 4 * C, m, fill);
      b.layernormBackward(a.dresidual, lg.ln2w, lg.ln2b, a.dbtc, la.residual2, lp.ln2w, la.ln2Mean, la.ln2Rstd, BT, C, m);
      // attention branch: residual2 = residual + attproj
      b.matmulBackward(a.dbtc, lg.attprojw, lg.attprojb, a.dresidual, la.atty, lp.attprojw, BT, C, C, m, fill);
      b.attentionBackward(a.dbt3c, a.dpreatt, a.dbtc, la.qkv, la.att, B, T, C, NH, fill);
      b.matmulBackward(a.dbtc, lg.qkvw, lg.qkvb, a.dbt3c, la.ln1, lp.qkvw, BT, C, 3 * C, m, fill);
      b.layernormBackward(a.dresidual, lg.ln1w, lg.ln1b, a.dbtc, residual, lp.ln1w, la.ln1Mean, la.ln1Rstd, BT, C, m);
    }
    b.embeddingBackward(g.wte, g.wpe, a.dresidual, a.tokens, BT, T, C, V, m);
  }

  /** Member k's flat vector of a stacked buffer (params, grads, moments), read back. */
  async readMember(k: number, flat: Tensor = this.params): Promise<Float32Array> {
    if (!Number.isInteger(k) || k < 0 || k >= this.K) throw new Error(`GPT: member ${k} is not one of the ${this.K}`);
    return Float32Array.from(await this.backend.read(flat, k * this.numParams, this.numParams)); // that member's range only
  }

  /** Named tensors of a flat buffer read back (checkpoints, gradients); member 0's of a population. */
  async readNamed(flat: Tensor = this.params): Promise<Map<string, { shape: number[]; data: Float32Array }>> {
    const all = await this.backend.read(flat);
    const out = new Map<string, { shape: number[]; data: Float32Array }>();
    for (const s of this.specs) out.set(s.name, { shape: s.shape, data: Float32Array.from(all.subarray(s.offset, s.offset + s.size)) });
    return out;
  }

  /** Frees activations of every shape seen so far (they are rebuilt on demand). */
  releaseActivations(): void {
    for (const a of this.actsByShape.values()) this.freeActs(a);
    this.actsByShape.clear();
    this.acts = null;
    for (const kv of this.kvByShape.values()) this.backend.free(kv.all); // the layers are views of it
    this.kvByShape.clear();
    this.kvFilled = null;
  }

  destroy(): void {
    this.releaseActivations();
    for (const m of this.membersByCounts.values()) this.backend.free(m.rowStart);
    this.membersByCounts.clear();
    for (const t of [this.params, this.grads, this.decayMask]) this.backend.free(t);
  }
}
