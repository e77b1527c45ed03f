// decodeSample (src/backend.ts) composed from the unfused ops: the reference's implementation (and the wasm engine's
// for a prefill), and the twin of WebGPU's fused kernel (shaders/sample.wgsl, decode_sample; test:
// test/gpu/decodeFused.test.ts) and of the wasm engine's decode step as one op (shaders/simd/decode.ts; test/simd/decodeStep.test.ts).
// The prefill is a full forward over all T positions of every row, its q, k, v written straight into the cache
// (rows past pos[b] - 1 hold whatever follows the context: causal, they change no row before them, and a decode
// step overwrites each before it reads it); a decode step is GPT.decode's chain. Both end in `sample`.
import { decodeCacheStride, memberRows, type Backend, type DecodeSampleArgs, type Members, type Tensor } from '../backend';

interface Scratch {
  ln1: Tensor; ln1Mean: Tensor; ln1Rstd: Tensor; qkv: Tensor; att: Tensor; atty: Tensor; residual2: Tensor;
  ln2: Tensor; ln2Mean: Tensor; ln2Rstd: Tensor; fch: Tensor; fchGelu: Tensor; residual3: Tensor;
  encoded: Tensor; lnf: Tensor; lnfMean: Tensor; lnfRstd: Tensor; logits: Tensor;
}

/** The composition's activations by shape (rows x T), and a population prefill's token-row offsets. */
export class DecodeScratch {
  private byShape = new Map<string, Scratch>();
  private rows = new Map<string, Members>();

  constructor(private readonly b: Backend) {}

  acts(prefill: boolean, B: number, T: number, C: number, NH: number, V: number): Scratch {
    const key = `${prefill}:${B}x${T}:${C}:${NH}:${V}`, N = prefill ? B * T : B;
    let s = this.byShape.get(key);
    if (!s) {
      const a = (n: number) => this.b.alloc(n);
      s = {
        ln1: a(N * C), ln1Mean: a(N), ln1Rstd: a(N), qkv: a(N * 3 * C), att: a(prefill ? B * NH * T * T : 1), atty: a(N * C), residual2: a(N * C),
        ln2: a(N * C), ln2Mean: a(N), ln2Rstd: a(N), fch: a(N * 4 * C), fchGelu: a(N * 4 * C), residual3: a(N * C),
        encoded: a(N * C), lnf: a(N * C), lnfMean: a(N), lnfRstd: a(N), logits: a(N * V),
      };
      this.byShape.set(key, s);
    }
    return s;
  }

  /** A population's members over token rows (T per sequence), from its members over sequences. */
  tokenRows(m: Members, T: number): Members {
    const counts = Array.from({ length: m.K }, (_, k) => (m.rowStartHost[k + 1] - m.rowStartHost[k]) * T);
    const key = `${m.paramStride}:${counts.join(',')}`;
    let r = this.rows.get(key);
    if (!r) { r = memberRows(this.b, counts, m.paramStride); this.rows.set(key, r); }
    return r;
  }

  destroy(): void {
    for (const s of this.byShape.values()) for (const t of Object.values(s)) this.b.free(t);
    for (const m of this.rows.values()) this.b.free(m.rowStart);
    this.byShape.clear();
    this.rows.clear();
  }
}

export function composeDecodeSample(b: Backend, scratch: DecodeScratch, a: DecodeSampleArgs): void {
  const { B, T, C, NH, V, weights: w } = a, L = w.layers.length, stride = decodeCacheStride(B, T, C);
  if (a.kv.size < L * stride) throw new Error(`decodeSample: the cache holds ${a.kv.size} values, not L x ${stride}`);
  const N = a.prefill ? B * T : B, s = scratch.acts(a.prefill, B, T, C, NH, V);
  const m = a.members && a.prefill ? scratch.tokenRows(a.members, T) : a.members;
  if (a.prefill) b.embeddingForward(s.encoded, a.tokens, w.wte, w.wpe, N, T, C, m);
  else b.embeddingLast(s.encoded, a.tokens, a.pos, w.wte, w.wpe, B, T, C, m);
  let residual = s.encoded;
  w.layers.forEach((lw, l) => {
    const cache = b.view(a.kv, l * stride, B * T * 3 * C);
    b.layernormForward(s.ln1, s.ln1Mean, s.ln1Rstd, residual, lw.ln1w, lw.ln1b, N, C, m);
    if (a.prefill) {
      b.matmulForward(cache, s.ln1, lw.qkvw, lw.qkvb, N, C, 3 * C, m); // the prefill's q, k, v are the cache's rows
      b.attentionForward(s.atty, s.att, cache, B, T, C, NH);
    } else {
      b.matmulForward(s.qkv, s.ln1, lw.qkvw, lw.qkvb, N, C, 3 * C, m);
      b.attentionDecode(s.atty, cache, s.qkv, a.pos, B, T, C, NH);
    }
    b.matmulResidualForward(s.residual2, s.atty, lw.attprojw, lw.attprojb, residual, N, C, C, m);
    b.layernormForward(s.ln2, s.ln2Mean, s.ln2Rstd, s.residual2, lw.ln2w, lw.ln2b, N, C, m);
    b.matmulGeluForward(s.fch, s.fchGelu, s.ln2, lw.fcw, lw.fcb, N, C, 4 * C, m);
    b.matmulResidualForward(s.residual3, s.fchGelu, lw.fcprojw, lw.fcprojb, s.residual2, N, 4 * C, C, m);
    residual = s.residual3; // the next layer reads it before its own residual3 is written
  });
  b.layernormForward(s.lnf, s.lnfMean, s.lnfRstd, residual, w.lnfw, w.lnfb, N, C, m);
  b.matmulForward(s.logits, s.lnf, w.wte, null, N, C, V, m);
  b.sample(a.tokens, a.logp, a.pos, a.done, a.limit, s.logits, B, T, V, a.temperature, a.eos, a.seed, a.counter, a.prefill ? T : 1, a.rowRng);
}
