// `pretrain --preset NAME [--slot S] [--out F] [--steps N] [--seed S] [--set k=v]`: the supervised warm
// start of each policy slot of a preset (or of one), written where the preset ships it.
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { writeCheckpoint } from '../../model/checkpoint';
import { presetSlots } from '../../envs/presets';
import { PRETRAIN_DEFAULTS, modelConfigFor } from '../../rl/pretrain';
import { slotNames, type TrainerSlots } from '../../rl/slots';
import { Trainer } from '../../rl/trainer';
import { CHECK_EVERY, checkWarmStart, formatRepertoire, pretrainSlot } from '../../rl/warmStart';
import { envRecord } from '../../rl/checkpointFit';
import { engineName, type FlagSpec, parseFlags, requireFlag } from '../args';
import { chooseBackend, log, prepareOutFile, writeAtomic, BACKEND_HELP } from '../io';
import { CHECKPOINT_DIR, parseSets, setup, startSlots } from './runSetup';
import { InputError } from '../../contract/errors';
import { WebGpuBackend } from '../../gpu/webgpuBackend';
import { checkCpuBudget, cpuLimitBytes } from '../cpuBudget';

export const pretrainFlags: FlagSpec = {
  preset: { kind: 'string', help: 'preset whose warm start(s) to make' },
  slot: { kind: 'string', help: 'only this policy slot (default: every slot of the preset)' },
  out: { kind: 'string', help: 'output .safetensors (one slot only; default: public/checkpoints/<the slot\'s warm start>)' },
  steps: { kind: 'int', help: `optimizer steps (default ${PRETRAIN_DEFAULTS.steps})` },
  seed: { kind: 'int', help: 'seed (default: the slot\'s warm-start seed)' },
  set: { kind: 'list', help: 'config override key=value (model size, env fields)' },
  backend: { kind: 'string', help: BACKEND_HELP },
  'until-target': { kind: 'bool', help: 'stop at the first check (every 200 steps) where the preset\'s accuracy target and the repertoire hold; --steps is the cap' },
};

export async function pretrainCmd(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, pretrainFlags, 'pretrain');
  const s = setup(requireFlag(flags, 'preset', 'pretrain'), parseSets(flags.set as string[] | undefined));
  const steps = (flags.steps as number | undefined) ?? PRETRAIN_DEFAULTS.steps;
  if (steps < 1) throw new InputError(`--steps must be >= 1, got ${steps}`);
  const specs = presetSlots(s.preset), all = slotNames(s.env);
  const only = flags.slot as string | undefined;
  if (only !== undefined && !all.includes(only)) throw new InputError(`--slot must be one of ${all.join(', ')} for ${s.preset.name}; got "${only}"`);
  const todo = only ? [only] : all;
  if (flags.out !== undefined && todo.length > 1) throw new InputError(`--out needs --slot: ${s.preset.name} has slots ${all.join(', ')}`);
  if (flags.out !== undefined) prepareOutFile(String(flags.out));
  const backend = await chooseBackend(flags.backend);
  try {
    // its last step builds the run's Trainer and evaluates: on the CPU that run's estimate must fit, as train's does
    if (!(backend instanceof WebGpuBackend)) checkCpuBudget(s.config, modelConfigFor(s.env, s.config), all.length, cpuLimitBytes(undefined));
    const t0 = performance.now();
    const made: Record<string, unknown> = {};
    const start: TrainerSlots = {};
    for (const slot of todo) {
      const spec = specs[slot].warmStart;
      const seed = (flags.seed as number | undefined) ?? spec.seed;
      // with a target (one-slot presets): stop at the first check where accuracy and repertoire hold, --steps the cap
      const target = spec.target !== undefined && all.length === 1 && flags['until-target'] === true
        ? { accuracy: spec.target, every: CHECK_EVERY, onCheck: (at: number, acc: number, rep: Parameters<typeof formatRepertoire>[0] | null) => log(`pretrain ${slot}: check after ${at} steps: greedy accuracy ${acc.toFixed(3)}${rep ? `; at temperature 1: ${formatRepertoire(rep)}` : ''}`) }
        : undefined;
      const w = await pretrainSlot(backend, s.config, slot, { ...spec, seed }, steps, (step, l) => log(`pretrain ${slot} step ${step}/${steps} loss ${l.toFixed(4)}`), target);
      const out = (flags.out as string | undefined) ?? join(CHECKPOINT_DIR, spec.file);
      mkdirSync(dirname(out), { recursive: true });
      writeAtomic(out, writeCheckpoint({ config: modelConfigFor(s.env, s.config), weights: w.weights, vocab: [...s.env.vocab], extras: {
        ...envRecord(s.config, slot, spec.demo), preset: s.preset.name, slot, kind: 'warm-start', pretrain: JSON.stringify({ steps: w.steps, seed, ...spec.demo }),
      } }));
      log(`wrote ${out}`);
      start[slot] = { trainable: specs[slot].trainable, weights: w.weights };
      made[slot] = { out, seed, steps: w.steps, finalLoss: w.loss };
      if (all.length === 1) {
        // what RL can compress toward: the rates it samples at temperature 1 beside its demonstrations'
        const check = await checkWarmStart(backend, s.config, { ...spec, seed }, w.weights);
        if (check.repertoire) log(`pretrain ${slot}: held-out greedy accuracy ${check.accuracy.toFixed(3)}; at temperature 1: ${formatRepertoire(check.repertoire)}`);
        Object.assign(made[slot] as object, { check });
      }
    }
    // the warm start's greedy eval, with the other slots' shipped (or freshly made) starts
    const others = all.some((x) => !start[x]) ? (await startSlots(backend, s)).slots : {};
    const trainer = new Trainer(backend, s.env, s.config, { ...others, ...start });
    const ev = await trainer.evaluate();
    trainer.destroy();
    return { preset: s.preset.name, backend: engineName(backend.name), steps, slots: made, wallSeconds: (performance.now() - t0) / 1000, eval: ev };
  } finally {
    backend.destroy();
  }
}
