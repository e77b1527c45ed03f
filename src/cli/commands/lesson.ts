// `lesson --list` | `lesson NAME|FILE --check [--steps-scale F] [--out DIR]`: the shipped lessons, one a
// line; or a lesson run headless on the CPU engine, each step's setting trained by the train command's
// run loop (trainMembers) and its check evaluated by the page's own evaluator (src/lessons/checks.ts),
// one line per step. Exit 0 when every check passes, 1 when one fails, 2 for bad input.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clip, escapeControls, InputError, quote, RunFault } from '../../contract/errors';
import { decodeSetup, populationAxis } from '../../store/urlState';
import {
  checkLessonText, comparisonOf, evaluateCheck, findLesson, scaleCheck, SHIPPED_LESSONS, TRAINING_ACTIONS,
  stepRowOf, type Lesson, type LessonMember, type LessonRunView, type LessonStep,
} from '../../lessons';
import type { Trainer } from '../../rl/trainer';
import { parseFlags, type FlagSpec } from '../args';
import { checkBackendFlag, chooseBackend, log } from '../io';
import { readInputText } from '../inputFile';
import { recipeOverrides, setup, type RunSetup } from './runSetup';
import { trainMembers } from './train';

export const lessonFlags: FlagSpec = {
  list: { kind: 'bool', help: 'the shipped lessons, one a line (name first)' },
  check: { kind: 'bool', help: 'run every step\'s setting on the CPU engine and evaluate its check (NAME or FILE first)' },
  'steps-scale': { kind: 'number', help: 'train each setting for F x its steps (0 < F <= 1; the checks\' "within" steps scale too), e.g. 0.25 in the test suite' },
  out: { kind: 'string', help: 'keep each step\'s run under DIR/step-N (default: a temporary folder, removed)' },
  backend: { kind: 'string', help: 'cpu (the default: the CPU engine) | reference (the plain TypeScript reference) | webgpu' },
};

const LESSON_FILE_MAX = 64 * 1024;

/** A shipped lesson's name, or a path to a lesson file (anything with a "/" or ending .json). */
function loadLesson(arg: string): Lesson {
  const isFile = arg.includes('/') || arg.includes('\\') || arg.endsWith('.json');
  if (!isFile) return findLesson(arg);
  const text = readInputText(arg, 'lesson', LESSON_FILE_MAX);
  const r = checkLessonText(text, decodeSetup);
  if (r.problems.length > 0) throw new InputError(`lesson ${clip(arg)}: ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}: ${r.problems.slice(0, 8).join('; ')}${r.problems.length > 8 ? `; and ${r.problems.length - 8} more` : ''}`);
  if (r.carriesCode) throw new InputError(`lesson ${clip(arg)} carries a task's code (a task= parameter); the CLI does not run a lesson's code: save the task as a file and run it with train --task FILE`);
  return r.lesson!;
}

export async function lesson(argv: string[]): Promise<unknown> {
  const [first, ...rest] = argv;
  const named = first !== undefined && !first.startsWith('--');
  const flags = parseFlags(named ? rest : argv, lessonFlags, 'lesson');
  if (flags.list === true) {
    if (named || flags.check === true) throw new InputError('lesson: --list takes no lesson and no --check');
    for (const l of SHIPPED_LESSONS) process.stdout.write(`${l.name.padEnd(22)} ${l.title} (${l.steps.length} steps, about ${l.minutes ?? '?'} min)\n`);
    return undefined;
  }
  if (!named) throw new InputError('lesson: give a lesson (a shipped name or a FILE) and --check, or --list');
  if (flags.check !== true) throw new InputError(`lesson ${clip(first)}: add --check to run it (or --list to list the shipped lessons)`);
  const scale = flags['steps-scale'] === undefined ? 1 : (flags['steps-scale'] as number);
  if (!(scale > 0 && scale <= 1)) throw new InputError(`lesson: --steps-scale must be a number in (0, 1], got ${scale}`);
  checkBackendFlag(flags.backend);
  const l = loadLesson(first);
  const keep = flags.out as string | undefined;
  const root = keep ?? mkdtempSync(join(tmpdir(), 'gspo-lesson-'));
  const backend = await chooseBackend(flags.backend ?? 'wasm'); // the CPU engine unless --backend says otherwise (parseFlags reads cpu as wasm)
  const t0 = performance.now();
  let failed = 0;
  try {
    let view: LessonRunView | null = null;
    for (const [i, step] of l.steps.entries()) {
      const s0 = performance.now();
      if (step.setting !== undefined) view = await runStep(backend, step, scale, join(root, `step-${i + 1}`));
      if (step.action.do === 'chooseMember' && view) view = { ...view, chosen: step.action.member };
      if (!view) throw new InputError(`lesson ${l.name} step ${i + 1}: no run to check (the first step needs a setting)`);
      const r = evaluateCheck(scaleCheck(step.check, scale), view);
      if (!r.pass) failed++;
      const line = `step ${i + 1} ${r.pass ? 'pass' : 'FAIL'} ${step.title}: expected ${r.expected}, got ${r.got} (${((performance.now() - s0) / 1000).toFixed(1)} s)`;
      process.stdout.write(escapeControls(line) + '\n');
    }
  } finally {
    backend.destroy();
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
  const wall = ((performance.now() - t0) / 1000).toFixed(1);
  if (failed > 0) throw new RunFault(`lesson ${l.name}: ${failed} of ${l.steps.length} checks failed (${wall} s${scale !== 1 ? `, steps x ${scale}` : ''})`);
  log(`lesson ${l.name}: all ${l.steps.length} checks passed (${wall} s${scale !== 1 ? `, steps x ${scale}` : ''})`);
  return undefined;
}

/** The steps a training action takes at this scale: Step's `times` as given; Start's the setting's steps x scale. */
export function stepsOf(step: LessonStep, settingSteps: number, scale: number): number {
  if (step.action.do === 'step') return step.action.times ?? 1;
  return Math.max(1, Math.round(settingSteps * scale));
}

/** One step's setting trained as the page's Start would (the recipe for a lone run unless recipe=off), read back as a run view. */
async function runStep(backend: Parameters<typeof trainMembers>[0], step: LessonStep, scale: number, out: string): Promise<LessonRunView> {
  if (!TRAINING_ACTIONS.includes(step.action.do)) throw new InputError(`a step with a setting trains (start, step, moveLambda), got ${step.action.do}`);
  const d = decodeSetup(step.setting!);
  if (d.problems.length > 0) throw new InputError(`setting ${quote(step.setting, 60)}: ${d.problems.join('; ')}`);
  if (d.taskCode !== undefined) throw new InputError('a setting carries a task\'s code; the CLI does not run a lesson\'s code');
  let overrides: Record<string, unknown> = { ...d.overrides };
  if (step.action.do === 'moveLambda') overrides.lambdaTok = step.action.to;
  if (d.recipeAtStart && d.population === null) overrides = recipeOverrides(d.preset, overrides).overrides;
  const base = setup(d.preset, overrides);
  const steps = stepsOf(step, base.config.steps, scale);
  overrides.steps = steps;
  overrides.evalEvery = Math.max(1, Math.min(steps, Math.round(base.config.evalEvery * (step.action.do === 'step' ? 1 : scale))));
  const axis = populationAxis(base.config);
  const values = d.population ?? [null];
  const members: { s: RunSetup; out: string; label: string }[] = values.map((v, k) => ({
    s: setup(d.preset, v === null ? overrides : { ...overrides, [axis]: v }),
    out: join(out, `member-${k}`),
    label: v === null ? d.preset : `${axis === 'budget' ? 'B' : 'lambda_tok'} ${v}`,
  }));
  let trainer: Trainer | null = null;
  const results = await trainMembers(backend, members, [], { quiet: true, inspect: (t) => { trainer = t; } });
  const lessonMembers: LessonMember[] = members.map((m, k) => {
    const r = results[k];
    if ('fault' in r) throw new RunFault(`${m.label}: ${r.fault}`);
    const tm = (trainer as Trainer | null)?.members[k];
    const metrics = readFileSync(join(m.out, 'metrics.jsonl'), 'utf8').split('\n').filter((x) => x.trim() !== '')
      .map((x) => stepRowOf(JSON.parse(x) as Record<string, unknown>));
    return {
      label: m.label,
      evals: (tm?.evals ?? []).map((e) => ({ ...e })),
      metrics,
      flags: (tm?.flags ?? []).map((f) => ({ kind: f.kind, step: f.step, message: f.message })),
      bestStep: tm?.bestEval?.step ?? null,
      comparison: comparisonOf(r.summary.comparison as { accuracy: number; lo: number; hi: number; n: number }[] | undefined),
    };
  });
  return { members: lessonMembers, chosen: 0, groupsPerStep: base.config.promptsPerStep };
}
