// Facts about a setup the controls show: the model's parameter count for the
// environment's vocabulary and context, and which fields belong to which env.
import { ENV_IDS, FIELDS, type RunConfig } from '../config';
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

/** The environment a field belongs to (the config table's `env`), or null for a general field. */
export function fieldEnv(key: keyof RunConfig): string | null {
  return FIELDS[key].env ?? null;
}

// 'custom' (your own task) is chosen by writing or loading a task, not from this list (docs/your-task.md)
export const envIds = (): readonly string[] => ENV_IDS.filter((e) => e !== 'custom');

/** The accuracy-vs-tokens frontier (docs/rl.md section 8), the same code the Trainer uses. */
export const frontier = paretoFrontier;
