// policy/: a run's own weights as a transformers model beside the TRL recipe (docs/export.md), so a
// person continues *this* policy in TRL: config.json + model.safetensors (GPT2LMHeadModel, exact: see
// src/model/hfGpt2.ts), a word-level tokenizer of the task's vocabulary (tokenizer.json, its
// tokenizer_config.json with BOS, EOS and PAD named) and playground.json (what the recipe reads of it:
// the prompt format and the trained turn's token limit).
import type { RunConfig } from '../config';
import { createEnv } from '../envs/registry';
import { clip, InputError } from '../contract/errors';
import { readCheckpoint, type Checkpoint } from '../model/checkpoint';
import { gpt2Config, gpt2Tensors, tokenizerConfig, wordLevelTokenizer, type SpecialTokens } from '../model/hfGpt2';
import type { GPTConfig } from '../model/params';
import { SafetensorsError, serializeSafetensors } from '../model/safetensors';
import { ENV_PYTHON } from './python';

export const POLICY_DIR = 'policy';

export interface PolicyWeights {
  config: GPTConfig;
  weights: ArrayLike<number>; // flat, in paramSpecs order
  vocab: readonly string[];
  step?: number;
}

export interface PolicyFile { path: string; data: string | Uint8Array }

const json = (o: unknown) => `${JSON.stringify(o, null, 2)}\n`;

function specialTokens(vocab: readonly string[]): SpecialTokens {
  const id = (w: string) => {
    const i = vocab.indexOf(w);
    if (i < 0) throw new InputError(`the policy's vocabulary has no ${w} token`);
    return i;
  };
  return { bos: id('BOS'), eos: id('EOS'), pad: id('PAD') };
}

/** The files of policy/ (paths under it), for a run of preset `presetName` with config `c`. */
export function policyFiles(p: PolicyWeights, c: RunConfig, presetName: string): PolicyFile[] {
  if (p.vocab.length !== p.config.vocabSize) throw new InputError(`the policy's vocabulary has ${p.vocab.length} tokens, its model ${p.config.vocabSize}`);
  const special = specialTokens(p.vocab);
  const env = ENV_PYTHON[c.env];
  const tensors = gpt2Tensors(p.config, p.weights);
  const meta = {
    source: 'GSPO Playground',
    preset: presetName,
    env: c.env,
    step: p.step ?? null,
    prompt_format: 'tokens',
    max_completion_length: env.policyMaxNew(c),
    n_positions: p.config.blockSize,
  };
  return [
    { path: `${POLICY_DIR}/config.json`, data: json(gpt2Config(p.config, special)) },
    { path: `${POLICY_DIR}/generation_config.json`, data: json({ bos_token_id: special.bos, eos_token_id: special.eos, pad_token_id: special.pad }) },
    { path: `${POLICY_DIR}/model.safetensors`, data: serializeSafetensors(tensors, { format: 'pt' }) },
    { path: `${POLICY_DIR}/tokenizer.json`, data: json(wordLevelTokenizer(p.vocab, special)) },
    { path: `${POLICY_DIR}/tokenizer_config.json`, data: json(tokenizerConfig(p.vocab, special, p.config.blockSize)) },
    { path: `${POLICY_DIR}/special_tokens_map.json`, data: json({ bos_token: p.vocab[special.bos], eos_token: p.vocab[special.eos], pad_token: p.vocab[special.pad] }) },
    { path: `${POLICY_DIR}/playground.json`, data: json(meta) },
  ];
}

/**
 * policy/ from a stored checkpoint of a run of preset `presetName` with config `c`: the CLI's `export --run/--checkpoint`
 * and the page's TRL export both come here, so the two write the same bytes. `where` names the checkpoint in errors.
 */
export function checkpointPolicyFiles(ck: Checkpoint, c: RunConfig, presetName: string, where: string): PolicyFile[] {
  const env = createEnv(c);
  const vocab = ck.vocab ?? [...env.vocab];
  if (vocab.join('\u0000') !== env.vocab.join('\u0000')) throw new InputError(`${where}: its vocabulary is not the ${presetName} task's (${c.env})`);
  if (ck.config.blockSize < env.blockSize) throw new InputError(`${where}: block_size ${ck.config.blockSize} is shorter than the task's ${env.blockSize}`);
  const step = ck.extras.step === undefined ? undefined : Number(ck.extras.step);
  return policyFiles({ config: ck.config, weights: ck.weights, vocab, step }, c, presetName);
}

/** The same from a checkpoint's bytes (the page's stored best or last); a bad file is one InputError naming `where`. */
export function policyFilesFromBytes(bytes: Uint8Array, c: RunConfig, presetName: string, where: string): PolicyFile[] {
  let ck: Checkpoint;
  try {
    ck = readCheckpoint(bytes);
  } catch (e) {
    if (e instanceof SafetensorsError) throw new InputError(`${where}: ${clip(e.message, 300)}`);
    throw e;
  }
  return checkpointPolicyFiles(ck, c, presetName, where);
}
