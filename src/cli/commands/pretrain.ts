// `pretrain --preset NAME [--out F] [--steps N] [--seed S] [--set k=v]`: the supervised warm start.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Backend } from '../../backend';
import { GPT } from '../../model/gpt';
import { writeCheckpoint } from '../../model/checkpoint';
import { createEnv } from '../../envs/registry';
import { PRETRAIN_DEFAULTS, pretrain as runPretrain, modelConfigFor } from '../../rl/pretrain';
import { Trainer } from '../../rl/trainer';
import { parseFlags, requireFlag, type FlagSpec } from '../args';
import { chooseBackend, log, writeAtomic } from '../io';
import { CHECKPOINT_DIR, parseSets, setup, type RunSetup } from './runSetup';
import { InputError } from '../../errors';

export const pretrainFlags: FlagSpec = {
  preset: { kind: 'string', help: 'preset whose warm start to make' },
  out: { kind: 'string', help: 'output .safetensors (default: public/checkpoints/<the preset\'s warm start>)' },
  steps: { kind: 'int', help: `optimizer steps (default ${PRETRAIN_DEFAULTS.steps})` },
  seed: { kind: 'int', help: 'seed (default: the preset\'s warm-start seed)' },
  set: { kind: 'list', help: 'config override key=value (model size, env fields)' },
  backend: { kind: 'string', help: 'webgpu | cpu' },
};

/** Makes a warm start for a setup; returns the weights and its greedy eval. */
export async function makeWarmStart(backend: Backend, s: RunSetup, steps: number, seed: number) {
  const env = createEnv(s.config, s.preset.warmStart.demo);
  const model = new GPT(backend, modelConfigFor(env, s.config), undefined, seed);
  const t0 = performance.now();
  const loss = await runPretrain(backend, model, env, { ...PRETRAIN_DEFAULTS, steps, seed }, (step, l) => log(`pretrain step ${step}/${steps} loss ${l.toFixed(4)}`));
  const weights = Float32Array.from(await backend.read(model.params));
  model.destroy();
  const trainer = new Trainer(backend, s.env, s.config, weights);
  const ev = await trainer.evaluate();
  trainer.destroy();
  return { weights, loss, eval: ev, seconds: (performance.now() - t0) / 1000, config: modelConfigFor(env, s.config) };
}

export async function pretrainCmd(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, pretrainFlags, 'pretrain');
  const s = setup(requireFlag(flags, 'preset', 'pretrain'), parseSets(flags.set as string[] | undefined));
  const steps = (flags.steps as number | undefined) ?? PRETRAIN_DEFAULTS.steps;
  if (steps < 1) throw new InputError(`--steps must be >= 1, got ${steps}`);
  const seed = (flags.seed as number | undefined) ?? s.preset.warmStart.seed;
  const out = (flags.out as string | undefined) ?? join(CHECKPOINT_DIR, s.preset.warmStart.file);
  const backend = await chooseBackend(flags.backend);
  try {
    const w = await makeWarmStart(backend, s, steps, seed);
    mkdirSync(dirname(out), { recursive: true });
    writeAtomic(out, writeCheckpoint({ config: w.config, weights: w.weights, vocab: [...s.env.vocab], extras: {
      env: s.env.id, preset: s.preset.name, kind: 'warm-start', pretrain: JSON.stringify({ steps, seed, ...s.preset.warmStart.demo }),
    } }));
    log(`wrote ${out}`);
    return { preset: s.preset.name, backend: backend.name, out, steps, seed, finalLoss: w.loss, wallSeconds: w.seconds, eval: w.eval };
  } finally {
    backend.destroy();
  }
}
