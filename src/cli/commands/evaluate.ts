// `eval --checkpoint F --preset NAME [--episodes N] [--seed S]`: greedy evaluation on the held-out set.
import { parseFlags, requireFlag, type FlagSpec } from '../args';
import { chooseBackend, loadCheckpoint } from '../io';
import { parseSets, setup } from './runSetup';
import { Trainer } from '../../rl/trainer';
import { InputError } from '../../errors';

export const evalFlags: FlagSpec = {
  checkpoint: { kind: 'string', help: 'a .safetensors checkpoint' },
  preset: { kind: 'string', help: 'the preset (environment and its parameters)' },
  episodes: { kind: 'int', help: 'held-out tasks (default the preset\'s evalEpisodes)' },
  seed: { kind: 'int', help: 'ignored for the held-out set (fixed), kept for symmetry' },
  set: { kind: 'list', help: 'config override key=value' },
  backend: { kind: 'string', help: 'webgpu | cpu' },
};

export async function evaluate(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, evalFlags, 'eval');
  const overrides: Record<string, unknown> = parseSets(flags.set as string[] | undefined);
  if (flags.episodes !== undefined) overrides.evalEpisodes = flags.episodes;
  const ck = loadCheckpoint(requireFlag(flags, 'checkpoint', 'eval'));
  Object.assign(overrides, { nLayer: ck.config.nLayer, nHead: ck.config.nHead, nEmbd: ck.config.nEmbd });
  const s = setup(requireFlag(flags, 'preset', 'eval'), overrides);
  if (ck.config.vocabSize !== s.env.vocab.length || ck.config.blockSize !== s.env.blockSize) {
    throw new InputError(`checkpoint (vocab ${ck.config.vocabSize}, block ${ck.config.blockSize}) does not fit the ${s.env.id} environment (vocab ${s.env.vocab.length}, block ${s.env.blockSize})`);
  }
  if (ck.vocab && ck.vocab.join(' ') !== s.env.vocab.join(' ')) throw new InputError(`checkpoint vocab does not match the ${s.env.id} environment`);
  const backend = await chooseBackend(flags.backend);
  try {
    const trainer = new Trainer(backend, s.env, s.config, ck.weights);
    const e = await trainer.evaluate();
    trainer.destroy();
    const { step: _s, lambdaTok: _l, ...rest } = e;
    return { backend: backend.name, episodes: s.config.evalEpisodes, ...rest };
  } finally {
    backend.destroy();
  }
}
