// `eval --preset NAME [--checkpoint F] [--episodes N] [--compare]`: greedy evaluation on the held-out set.
// Without --checkpoint it evaluates the preset's warm start. With several policy slots the checkpoint
// is the trainable slot's; the frozen ones come from the preset. --compare (AgentPO presets): the
// Actor alone, with the untrained Collaborator, and with the checkpoint's, with 95% intervals.
import { engineName, type FlagSpec, parseFlags, requireFlag } from '../args';
import { chooseBackend, loadCheckpoint, log, BACKEND_HELP } from '../io';
import { parseSets, setup, startSlots } from './runSetup';
import { Trainer } from '../../rl/trainer';
import { type TrainerSlots } from '../../rl/slots';
import { comparePlayers } from '../../rl/compare';
import { trainableSlot } from '../../rl/warmStart';
import { checkpointFit, presetTrainableSlot } from '../../rl/checkpointFit';
import { InputError } from '../../contract/errors';
import { checkShorthands } from '../flagChecks';
import { checkCpuBudget, cpuLimitBytes } from '../cpuBudget';
import { CpuBackend } from '../../reference/cpuBackend';
import { modelConfigFor } from '../../rl/pretrain';
import { slotNames } from '../../rl/slots';

export const evalFlags: FlagSpec = {
  checkpoint: { kind: 'string', help: 'a .safetensors checkpoint (default: the preset\'s warm start)' },
  preset: { kind: 'string', help: 'the preset (environment and its parameters)' },
  episodes: { kind: 'int', help: 'held-out tasks (default the preset\'s evalEpisodes; --compare: every held-out problem)' },
  compare: { kind: 'bool', help: 'AgentPO: actor alone vs untrained vs trained collaborator, 95% intervals' },
  seed: { kind: 'int', help: 'ignored for the held-out set (fixed), kept for symmetry' },
  set: { kind: 'list', help: 'config override key=value' },
  backend: { kind: 'string', help: BACKEND_HELP },
};

export async function evaluate(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, evalFlags, 'eval');
  const overrides: Record<string, unknown> = parseSets(flags.set as string[] | undefined);
  checkShorthands('eval', flags, overrides, { episodes: 'evalEpisodes' });
  if (flags.episodes !== undefined) overrides.evalEpisodes = flags.episodes;
  const path = flags.checkpoint as string | undefined;
  const ck = path !== undefined ? loadCheckpoint(path) : null;
  if (ck) Object.assign(overrides, { nLayer: ck.config.nLayer, nHead: ck.config.nHead, nEmbd: ck.config.nEmbd });
  const s = setup(requireFlag(flags, 'preset', 'eval'), overrides);
  if (ck) {
    // the one fit check (model, environment, the env options it records); the model size is the checkpoint's
    const fit = checkpointFit(ck, s.config, s.env, { slot: presetTrainableSlot(s.preset) });
    if (!fit.fits) throw new InputError(`checkpoint "${path}" does not fit ${s.preset.name}: ${fit.why}`);
    if (fit.notice) log(`notice: checkpoint "${path}": ${fit.notice}`);
  }
  if (flags.compare && !s.env.comparison) throw new InputError(`--compare is for the AgentPO presets (agentpo-hint, agentpo-critic: an environment with a comparison of players); ${s.preset.name} has none`);
  const backend = await chooseBackend(flags.backend);
  // an eval allocates the model and the eval's activations (no rollout batch): refused up front when over the machine
  if (backend instanceof CpuBackend) {
    try { checkCpuBudget({ ...s.config, promptsPerStep: 1, groupSize: 1, minibatches: 1 }, modelConfigFor(s.env, s.config), slotNames(s.env).length, cpuLimitBytes(undefined)); } catch (e) { backend.destroy(); throw e; }
  }
  try {
    const warm = (await startSlots(backend, s)).slots;
    const slot = trainableSlot(warm)!;
    const start: TrainerSlots = ck ? { ...warm, [slot]: { ...warm[slot], weights: ck.weights } } : warm;
    if (flags.compare) {
      const episodes = (flags.episodes as number | undefined) ?? s.env.comparison!.episodes;
      const cmp = await comparePlayers(backend, s.env, s.config, warm, start[s.env.comparison!.helper].weights!,
        Number(ck?.extras.step ?? 0), ck ? `collaborator of ${path}` : 'collaborator (= the untrained one: no --checkpoint)', episodes);
      return { backend: engineName(backend.name), preset: s.preset.name, episodes, comparison: cmp.rows };
    }
    const trainer = new Trainer(backend, s.env, s.config, start);
    const e = await trainer.evaluate();
    trainer.destroy();
    const { step: _s, lambdaTok: _l, ...rest } = e;
    return { backend: engineName(backend.name), episodes: s.config.evalEpisodes, ...rest };
  } finally {
    backend.destroy();
  }
}
