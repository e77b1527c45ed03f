// Where a run's policies start: each slot's shipped checkpoint when it fits the
// run's model and environment, else a warm start pretrained on the spot (docs/rl.md
// section 9), until its held-out greedy accuracy reaches the preset's target
// (docs/trust.md). Shared by the worker (fetches public/checkpoints) and the CLI (reads them).
import type { Backend } from '../backend';
import type { RunConfig } from '../config';
import { presetSlots, type Preset, type WarmStartSpec } from '../envs/presets';
import { createEnv } from '../envs/registry';
import type { Environment, RepertoireRate } from '../envs/types';
import { GPT } from '../model/gpt';
import { fitCheckpointBytes, type FitWant } from './checkpointFit';
import { modelConfigFor, pretrain, PRETRAIN_DEFAULTS, type PretrainStop } from './pretrain';
import { Generator, rollout } from './rollout';
import { EVAL_SEED } from './runRecord';
import { slotNames, type TrainerSlots } from './slots';

/** The bytes of public/checkpoints/<file>, or null when there is none. */
export type CheckpointLoader = (file: string) => Promise<Uint8Array | null>;
export type ProgressFn = (message: string, fraction: number) => void;

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The checkpoint's weights when it fits this run's model, environment and slot (checkpointFit), else why not. */
export function fitCheckpoint(bytes: Uint8Array, file: string, config: RunConfig, env: Environment, want: FitWant = {}):
  { weights: Float32Array; notice: string | null } | { why: string } {
  const fit = fitCheckpointBytes(bytes, config, env, want);
  if ('why' in fit) return { why: `${file}: ${fit.why}` };
  return { weights: fit.weights, notice: fit.notice && `${file}: ${fit.notice}` };
}

/** Held-out tasks the on-the-spot check plays (greedy); fixed, so a warm start does not depend on the run's evalEpisodes. */
export const CHECK_EPISODES = 256;
/** The check's tasks: the eval split (never in the demonstrations), another draw than the Trainer's evals (EVAL_SEED). */
export const CHECK_SEED = EVAL_SEED + 1;
/** A warm start made on the spot is checked every this many steps. */
export const CHECK_EVERY = 200;
/** Its cap: this many times the steps the shipped warm start took (a changed task may be harder: relay with more digits). */
export const CAP_FACTOR = 2;

/** Greedy accuracy (mean r_task) of `model` playing every role of a one-slot env on `tasks`. */
export async function greedyAccuracy(backend: Backend, model: GPT, env: Environment, tasks: unknown[]): Promise<number> {
  const gen = new Generator(backend, model);
  try {
    const ro = await rollout(env, () => gen, tasks, 1, 0, CHECK_SEED, 0);
    return ro.scores.reduce((a, sc) => a + sc.rTask, 0) / Math.max(1, ro.scores.length);
  } finally {
    gen.destroy();
  }
}

/**
 * A repertoire rate holds when the warm start samples the behaviour at least this share of the rate
 * its demonstrations hold: RL compresses toward what it samples, and a behaviour sampled half as
 * often as demonstrated is still found in a few groups per step (relay: 10% silent demos -> 5%).
 */
export const REPERTOIRE_SHARE = 0.5;

/** The repertoire rates that fall short of REPERTOIRE_SHARE x their demonstrations' rate. */
export function repertoireShortfalls(rates: RepertoireRate[]): RepertoireRate[] {
  return rates.filter((r) => r.sampled < REPERTOIRE_SHARE * r.demos);
}

/** "silence on known tasks 0.08 (demos 0.10)", one per rate. */
export function formatRepertoire(rates: RepertoireRate[]): string {
  return rates.map((r) => `${r.label} ${r.sampled.toFixed(2)} (demos ${r.demos.toFixed(2)})`).join(', ');
}

/** What `model` samples at temperature 1 on `tasks` against its demonstrations (null: the env has no repertoire). */
export async function sampledRepertoire(backend: Backend, model: GPT, env: Environment, tasks: unknown[]): Promise<RepertoireRate[] | null> {
  if (!env.repertoire) return null;
  const gen = new Generator(backend, model);
  try {
    const ro = await rollout(env, () => gen, tasks, 1, 1, CHECK_SEED, 0);
    return env.repertoire(ro.states);
  } finally {
    gen.destroy();
  }
}

/**
 * A one-slot warm start's check on the held-out check tasks: greedy accuracy, and what it samples at
 * temperature 1 against its demonstrations (`spec.demo`). The test of the shipped warm starts and
 * `pretrain` report it.
 */
export async function checkWarmStart(backend: Backend, config: RunConfig, spec: WarmStartSpec, weights: Float32Array):
  Promise<{ accuracy: number; repertoire: RepertoireRate[] | null }> {
  const env = createEnv(config), demoEnv = createEnv(config, spec.demo);
  const model = new GPT(backend, modelConfigFor(demoEnv, config), weights);
  try {
    const tasks = env.sampleTasks('eval', CHECK_EPISODES, CHECK_SEED, 0);
    return { accuracy: await greedyAccuracy(backend, model, env, tasks), repertoire: await sampledRepertoire(backend, model, demoEnv, tasks) };
  } finally {
    model.destroy();
  }
}

/** When a warm start made here is good enough: held-out greedy accuracy `target` (and, where the env has one, its repertoire), checked every `every` steps. */
export interface WarmStartTarget {
  accuracy: number; every: number;
  onCheck?: (step: number, accuracy: number, repertoire: RepertoireRate[] | null) => void;
}

export interface MadeWarmStart {
  weights: Float32Array;
  loss: number;
  /** Steps taken (fewer than asked when the target was reached sooner). */
  steps: number;
  /** With a target: the held-out greedy accuracy of the weights returned, and whether it reached the target. */
  accuracy?: number;
  reached?: boolean;
  /** With a target, where the env has one: the repertoire sampled at temperature 1 against the demonstrations'. */
  repertoire?: RepertoireRate[] | null;
}

/**
 * A slot's warm start made here: cross-entropy on that slot's demonstrations, `steps` steps (the
 * schedule's length). With `target` (one-slot envs), the held-out greedy accuracy is checked every
 * `target.every` steps and pretraining stops once it reaches `target.accuracy`. Deterministic from
 * the spec's seed.
 */
export async function pretrainSlot(backend: Backend, config: RunConfig, slot: string, spec: WarmStartSpec, steps: number,
  onProgress?: (step: number, loss: number) => void, target?: WarmStartTarget): Promise<MadeWarmStart> {
  const demoEnv = createEnv(config, spec.demo);
  const model = new GPT(backend, modelConfigFor(demoEnv, config), undefined, spec.seed);
  try {
    type Check = { accuracy: number; repertoire: RepertoireRate[] | null };
    let stop: PretrainStop | undefined, check: (() => Promise<Check>) | undefined;
    let last: (Check & { step: number }) | null = null; // the latest check
    const holds = (c: Check) => c.accuracy >= target!.accuracy && (c.repertoire === null || repertoireShortfalls(c.repertoire).length === 0);
    if (target) {
      const env = createEnv(config);
      if (slotNames(env).length > 1) throw new Error(`a warm-start accuracy target needs a one-slot environment; ${env.id} has slots ${slotNames(env).join(', ')}`);
      const tasks = env.sampleTasks('eval', CHECK_EPISODES, CHECK_SEED, 0);
      // the repertoire is played on the demo env: it knows which message is the verbose one
      check = async () => ({ accuracy: await greedyAccuracy(backend, model, env, tasks), repertoire: await sampledRepertoire(backend, model, demoEnv, tasks) });
      stop = {
        every: target.every,
        check: async (done) => {
          const c = await check!();
          last = { ...c, step: done };
          target.onCheck?.(done, c.accuracy, c.repertoire);
          return holds(c);
        },
      };
    }
    const r = await pretrain(backend, model, demoEnv, { ...PRETRAIN_DEFAULTS, steps, seed: spec.seed, slot }, onProgress, stop);
    const made: MadeWarmStart = { weights: Float32Array.from(await backend.read(model.params)), loss: r.loss, steps: r.steps };
    if (target && check) {
      // the weights returned: when pretraining stopped at a check, that check measured them
      const seen = last as (Check & { step: number }) | null;
      let c: Check;
      if (seen && seen.step === r.steps) c = seen;
      else { c = await check(); target.onCheck?.(r.steps, c.accuracy, c.repertoire); }
      Object.assign(made, { accuracy: c.accuracy, reached: c.accuracy >= target.accuracy, repertoire: c.repertoire });
    }
    return made;
  } finally {
    model.destroy();
  }
}

export interface WarmStarts {
  slots: TrainerSlots;
  source: string;
  /** What a person should know about them: a warm start made here that fell short of its preset's target. */
  notices: string[];
}

/** What a warm start depends on: the config without the fields only RL reads (seed, lambda_tok, the budget, the steps). */
export function warmKey(c: RunConfig): string {
  const { seed: _s, lambdaTok: _l, budget: _b, lambdaMode: _m, steps: _n, ...rest } = c;
  return JSON.stringify(rest);
}

/**
 * Every slot's start: shipped when it fits, else pretrained here with progress. `steps`: how many
 * pretraining steps (a cap when the spec has a target); undefined: CAP_FACTOR x the shipped warm
 * start's steps. A spec with a `target` pretrains until the held-out greedy accuracy reaches it; one
 * that falls short is used anyway, and a notice names the accuracy reached.
 */
export async function warmStarts(backend: Backend, preset: Preset, config: RunConfig, env: Environment, load: CheckpointLoader,
  steps: number | undefined, progress: ProgressFn = () => {}): Promise<WarmStarts> {
  const specs = presetSlots(preset), slots: TrainerSlots = {}, sources: string[] = [], notices: string[] = [];
  for (const slot of slotNames(env)) {
    const spec = specs[slot];
    if (!spec) throw new Error(`preset ${preset.name} gives no warm start for slot "${slot}" of ${env.id}`);
    if (spec.warmStart.random !== undefined) {
      progress(`warm start: none (${spec.warmStart.random}): the run starts from random weights`, 1);
      slots[slot] = { trainable: spec.trainable };
      sources.push('random weights (no demonstrations)');
      continue;
    }
    // the shipped file, then its variants for other task options (the first that fits wins)
    const whys: string[] = [];
    let found = false;
    for (const file of [spec.warmStart.file, ...(spec.warmStart.variants ?? [])]) {
      let bytes: Uint8Array | null = null, why = '';
      try { bytes = await load(file); } catch (e) { why = `loading ${file} failed (${errorMessage(e)})`; }
      if (bytes) {
        const fit = fitCheckpoint(bytes, file, config, env, { slot, demo: spec.warmStart.demo });
        if ('weights' in fit) {
          slots[slot] = { trainable: spec.trainable, weights: fit.weights };
          sources.push(`checkpoints/${file}${fit.notice ? ` (notice: ${fit.notice})` : ''}`);
          if (fit.notice) progress(`warm start: notice: ${fit.notice}`, 1);
          found = true;
          break;
        }
        why = fit.why;
      }
      whys.push(why || `there is no shipped ${file}`);
    }
    if (found) continue;
    const variants = spec.warmStart.variants ?? [];
    const why = whys[0] + (variants.length ? `; nor does a shipped variant (${variants.join(', ')})` : '');
    const who = slot === 'policy' ? '' : ` (${slot})`;
    const cap = steps ?? spec.warmStart.cap ?? CAP_FACTOR * spec.warmStart.steps;
    const goal = spec.warmStart.target;
    const target: WarmStartTarget | undefined = goal === undefined ? undefined : {
      accuracy: goal, every: CHECK_EVERY,
      onCheck: (s, a, rep) => progress(`warm start${who}: held-out greedy accuracy ${a.toFixed(3)} after ${s} steps (target ${goal})${rep ? `; at temperature 1: ${formatRepertoire(rep)}` : ''}`, s / cap),
    };
    progress(`warm start${who}: ${why}; pretraining ${goal === undefined ? `${cap} steps` : `until held-out greedy accuracy reaches ${goal} and, at temperature 1, it samples what its demonstrations hold (checked every ${CHECK_EVERY} steps, at most ${cap})`} on the demonstrations`, 0);
    const made = await pretrainSlot(backend, config, slot, spec.warmStart, cap,
      (s, l) => progress(`warm start${who}: pretraining step ${s + 1}/${cap}, loss ${l.toFixed(4)}`, (s + 1) / cap), target);
    slots[slot] = { trainable: spec.trainable, weights: made.weights };
    const acc = made.accuracy === undefined ? '' : `, held-out greedy accuracy ${made.accuracy.toFixed(3)}`;
    sources.push(`${made.steps} pretraining steps here${who} (final loss ${made.loss.toFixed(4)}${acc})`);
    const short = made.repertoire ? repertoireShortfalls(made.repertoire) : [];
    if (made.reached === false) {
      const notice = `warm start${who}: after ${made.steps} pretraining steps its held-out greedy accuracy is ${made.accuracy!.toFixed(3)}, below the ${goal} ${preset.name} expects; the run may not behave as the preset describes`;
      notices.push(notice);
      progress(`notice: ${notice}`, 1);
    } else if (made.reached) {
      progress(`warm start${who}: held-out greedy accuracy ${made.accuracy!.toFixed(3)} after ${made.steps} steps reaches the target ${goal}`, 1);
    }
    if (short.length > 0) {
      // RL compresses toward what the warm start samples: a behaviour it never samples cannot be found
      const notice = `warm start${who}: after ${made.steps} pretraining steps it samples too little of what its demonstrations hold (at temperature 1: ${formatRepertoire(short)}; needed at least ${REPERTOIRE_SHARE} x the demos' rate), so RL may not find ${short.map((r) => r.label).join(' or ')}`;
      notices.push(notice);
      progress(`notice: ${notice}`, 1);
    } else if (made.repertoire) {
      progress(`warm start${who}: at temperature 1 it samples ${formatRepertoire(made.repertoire)}`, 1);
    }
  }
  return { slots, source: sources.join('; '), notices };
}

/** The trainable slot's name (the one a checkpoint export/import is about). */
export function trainableSlot(slots: TrainerSlots): string | null {
  return Object.entries(slots).find(([, s]) => s.trainable)?.[0] ?? null;
}
