// GPT config and the parameter layout: every tensor's nanoGPT name, shape and
// offset in one flat buffer (so AdamW and the gradient norm see one vector).
import { mulberry32, normal } from './random';

export interface GPTConfig {
  nLayer: number;
  nHead: number;
  nEmbd: number;
  blockSize: number; // T max
  vocabSize: number; // V
}

export interface ParamSpec {
  name: string; // nanoGPT / PyTorch state_dict name
  shape: number[];
  size: number;
  offset: number; // in the flat buffer, a multiple of ALIGN
  decay: boolean; // weight decay applies to 2-D weights only
  init: 'normal' | 'proj' | 'zeros' | 'ones';
}

export const ALIGN = 64; // elements; 256 bytes = WebGPU's storage offset alignment

export function validateGPTConfig(c: GPTConfig): string | null {
  const ints: Array<[keyof GPTConfig, number, number]> = [['nLayer', 1, 12], ['nHead', 1, 16], ['nEmbd', 4, 512], ['blockSize', 1, 256], ['vocabSize', 2, 4096]];
  for (const [k, lo, hi] of ints) {
    const v = c[k];
    if (!Number.isInteger(v) || v < lo || v > hi) return `${k} must be an integer in [${lo}, ${hi}], got ${v}`;
  }
  if (c.nEmbd % c.nHead !== 0) return `nEmbd (${c.nEmbd}) must be divisible by nHead (${c.nHead})`;
  return null;
}

export function paramSpecs(c: GPTConfig): { specs: ParamSpec[]; total: number } {
  const C = c.nEmbd;
  const list: Array<[string, number[], ParamSpec['init']]> = [
    ['transformer.wte.weight', [c.vocabSize, C], 'normal'],
    ['transformer.wpe.weight', [c.blockSize, C], 'normal'],
  ];
  for (let l = 0; l < c.nLayer; l++) {
    const p = `transformer.h.${l}.`;
    list.push(
      [p + 'ln_1.weight', [C], 'ones'], [p + 'ln_1.bias', [C], 'zeros'],
      [p + 'attn.c_attn.weight', [3 * C, C], 'normal'], [p + 'attn.c_attn.bias', [3 * C], 'zeros'],
      [p + 'attn.c_proj.weight', [C, C], 'proj'], [p + 'attn.c_proj.bias', [C], 'zeros'],
      [p + 'ln_2.weight', [C], 'ones'], [p + 'ln_2.bias', [C], 'zeros'],
      [p + 'mlp.c_fc.weight', [4 * C, C], 'normal'], [p + 'mlp.c_fc.bias', [4 * C], 'zeros'],
      [p + 'mlp.c_proj.weight', [C, 4 * C], 'proj'], [p + 'mlp.c_proj.bias', [C], 'zeros'],
    );
  }
  list.push(['transformer.ln_f.weight', [C], 'ones'], ['transformer.ln_f.bias', [C], 'zeros']);
  let offset = 0;
  const specs = list.map(([name, shape, init]) => {
    const size = shape.reduce((a, b) => a * b, 1);
    const s: ParamSpec = { name, shape, size, offset, decay: shape.length === 2, init };
    offset += Math.ceil(size / ALIGN) * ALIGN;
    return s;
  });
  return { specs, total: offset };
}

/** Parameters a person would count (padding excluded). */
export function paramCount(c: GPTConfig): number {
  return paramSpecs(c).specs.reduce((a, s) => a + s.size, 0);
}

/** nanoGPT init: normal(0, 0.02); c_proj weights normal(0, 0.02 / sqrt(2 n_layer)); biases 0; LayerNorm weight 1. */
export function initParams(c: GPTConfig, seed: number): Float32Array {
  const { specs, total } = paramSpecs(c);
  const flat = new Float32Array(total);
  const randn = normal(mulberry32(seed));
  const projStd = 0.02 / Math.sqrt(2 * c.nLayer);
  for (const s of specs) {
    const v = flat.subarray(s.offset, s.offset + s.size);
    if (s.init === 'ones') v.fill(1);
    else if (s.init === 'normal' || s.init === 'proj') {
      const std = s.init === 'proj' ? projStd : 0.02;
      for (let i = 0; i < v.length; i++) v[i] = randn() * std;
    }
  }
  return flat;
}

export function decayMask(c: GPTConfig): Float32Array {
  const { specs, total } = paramSpecs(c);
  const m = new Float32Array(total);
  for (const s of specs) if (s.decay) m.fill(1, s.offset, s.offset + s.size);
  return m;
}
