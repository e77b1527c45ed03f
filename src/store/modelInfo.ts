// Facts about a setup the controls show: the model's parameter count for the
// environment's vocabulary and context, and which fields belong to which env.
import { FIELDS, type RunConfig } from '../config';
import { createEnv } from '../envs/registry';
import { paramSpecs } from '../model/params';
import { paretoFrontier } from '../rl/pareto';

/** Parameters of one policy (embeddings, blocks, final LayerNorm; the head is tied to wte). */
export function parameterCount(config: RunConfig): number | null {
  try {
    const env = createEnv(config);
    const { specs } = paramSpecs({ nLayer: config.nLayer, nHead: config.nHead, nEmbd: config.nEmbd, blockSize: env.blockSize, vocabSize: env.vocab.length });
    return specs.reduce((a, s) => a + s.size, 0);
  } catch {
    return null;
  }
}

const ENVS = (FIELDS.env.kind === 'enum' ? FIELDS.env.values : []) as readonly string[];

/** The environment a field belongs to (its help starts with "relay:", "philosophers:", ...), or null for a general field. */
export function fieldEnv(key: keyof RunConfig): string | null {
  const prefix = /^([a-zA-Z]+):/.exec(FIELDS[key].help)?.[1];
  if (!prefix) return null;
  if (ENVS.includes(prefix)) return prefix;
  if (prefix in FIELDS && prefix !== key) return fieldEnv(prefix as keyof RunConfig); // "curriculum: ..." belongs with the curriculum field
  return null;
}

export const envIds = (): readonly string[] => ENVS;

/** The accuracy-vs-tokens frontier (rl.md section 8), the same code the Trainer uses. */
export const frontier = paretoFrontier;
