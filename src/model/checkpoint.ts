// Checkpoints: nanoGPT-named safetensors <-> the flat parameter layout.
// Reading is strict and all-or-nothing: a bad file throws one clear line.
import { parseSafetensors, serializeSafetensors, SafetensorsError } from './safetensors';
import { paramSpecs, validateGPTConfig, type GPTConfig } from './params';
import { clip } from '../contract/errors';
import { firstBeyond, MAX_WEIGHT } from './magnitude';

export interface Checkpoint {
  config: GPTConfig;
  weights: Float32Array; // flat, in paramSpecs order
  vocab: string[] | null;
  extras: Record<string, string>; // other __metadata__ keys (env id, step, run config)
}

const fail = (msg: string): never => { throw new SafetensorsError(msg); };

/** The config JSON as docs/model.md writes it (snake_case, as nanoGPT's GPTConfig). */
function configFromJson(text: string | undefined): GPTConfig {
  if (text === undefined) fail('__metadata__.config is missing (expected {"n_layer","n_head","n_embd","block_size","vocab_size"})');
  let o: unknown;
  try { o = JSON.parse(text!); } catch { fail('__metadata__.config is not valid JSON'); }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) fail('__metadata__.config must be a JSON object');
  const r = o as Record<string, unknown>;
  const keys = ['n_layer', 'n_head', 'n_embd', 'block_size', 'vocab_size'];
  for (const k of keys) if (typeof r[k] !== 'number') fail(`__metadata__.config.${k} is missing or not a number`);
  const c: GPTConfig = { nLayer: r.n_layer as number, nHead: r.n_head as number, nEmbd: r.n_embd as number, blockSize: r.block_size as number, vocabSize: r.vocab_size as number };
  const bad = validateGPTConfig(c);
  if (bad) fail(`__metadata__.config: ${bad}`);
  return c;
}

export function configToJson(c: GPTConfig): string {
  return JSON.stringify({ n_layer: c.nLayer, n_head: c.nHead, n_embd: c.nEmbd, block_size: c.blockSize, vocab_size: c.vocabSize });
}

export function readCheckpoint(bytes: Uint8Array): Checkpoint {
  const { tensors, metadata } = parseSafetensors(bytes);
  const config = configFromJson(metadata.config);
  const { specs, total } = paramSpecs(config);
  const expected = new Set(specs.map((s) => s.name));
  for (const name of tensors.keys()) {
    if (!expected.has(name) && name !== 'lm_head.weight') fail(`unexpected tensor "${clip(name)}" for a model with n_layer ${config.nLayer}`);
  }
  // names and shapes first: the flat buffer is allocated only once the file is known to hold it
  // (a small file whose config declares a large model must not allocate the model)
  for (const s of specs) {
    const t = tensors.get(s.name) ?? fail(`tensor "${s.name}" is missing`);
    if (t!.shape.join(',') !== s.shape.join(',')) fail(`tensor "${s.name}" has shape [${t!.shape}], expected [${s.shape}]`);
  }
  const head = tensors.get('lm_head.weight');
  if (head && head.shape.join(',') !== `${config.vocabSize},${config.nEmbd}`) fail(`tensor "lm_head.weight" has shape [${head.shape}], expected [${config.vocabSize},${config.nEmbd}]`);
  for (const [name, t] of tensors) {
    const i = firstNonFinite(t.data);
    if (i >= 0) fail(`tensor "${clip(name)}" holds ${t.data[i]} at index ${i}: every weight must be finite (a diverged or corrupt checkpoint)`);
    const j = firstBeyond(t.data, MAX_WEIGHT);
    if (j >= 0) fail(`tensor "${clip(name)}" holds ${t.data[j]} at index ${j}: beyond +-${MAX_WEIGHT}, a weight that large overflows float32 arithmetic (a corrupt checkpoint)`);
  }
  const weights = new Float32Array(total);
  for (const s of specs) weights.set(tensors.get(s.name)!.data, s.offset);
  let vocab: string[] | null = null;
  if (metadata.vocab !== undefined) {
    let v: unknown;
    try { v = JSON.parse(metadata.vocab); } catch { fail('__metadata__.vocab is not valid JSON'); }
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) fail('__metadata__.vocab must be a JSON array of strings');
    if ((v as string[]).length !== config.vocabSize) fail(`__metadata__.vocab has ${(v as string[]).length} tokens, config.vocab_size is ${config.vocabSize}`);
    vocab = v as string[];
  }
  // own entries only (an assignment to extras["__proto__"] would vanish)
  const extras: Record<string, string> = Object.fromEntries(Object.entries(metadata).filter(([k]) => k !== 'config' && k !== 'vocab'));
  return { config, weights, vocab, extras };
}

/** Index of the first NaN or infinity, or -1. */
export function firstNonFinite(data: ArrayLike<number>): number {
  for (let i = 0; i < data.length; i++) if (!Number.isFinite(data[i])) return i;
  return -1;
}

/** Named tensors (weights or gradients) of a flat buffer laid out by paramSpecs. */
export function namedTensors(config: GPTConfig, flat: ArrayLike<number>): Array<[string, { shape: number[]; data: Float32Array }]> {
  return paramSpecs(config).specs.map((s) => [s.name, { shape: s.shape, data: Float32Array.from({ length: s.size }, (_, i) => flat[s.offset + i]) }]);
}

export function writeCheckpoint(ck: Checkpoint): Uint8Array {
  const metadata: Record<string, string> = { ...ck.extras, config: configToJson(ck.config) };
  if (ck.vocab) metadata.vocab = JSON.stringify(ck.vocab);
  return serializeSafetensors(namedTensors(ck.config, ck.weights), metadata);
}
