// A lesson on the page (docs/lessons.md): its steps one at a time, each step's setting made the current run (as
// its link would), the controls it names shown and the rest hidden (ui/LessonPanel.tsx), and its check evaluated
// on the learner's own run with the same code the CLI uses (src/lessons/checks.ts). The link is `?lesson=NAME`
// (a shipped lesson) or `?lesson=~ENCODED` (a lesson of a teacher's own, src/lessons/link.ts), with `&step=N`.
import { findPreset, presetConfig } from '../envs/presets';
import { checkLessonText, encodeLesson, evaluateCheck, type Lesson } from '../lessons';
import { lessonOfParam, settingStep } from './lessonLink';
import { errorText, type StoreContext } from './context';
import { lessonRunView } from './lessonRun';
import { lifecycleOf, populationRun } from './currentRun';
import type { LessonSlice } from './types';
import { decodeSetup, overridesOf } from './urlState';

export type LessonState = Pick<LessonSlice, 'lesson'>;
export const initialLesson = (): LessonState => ({ lesson: null });

/**
 * A link with `lesson=`: the lesson opens at its `step` (from 1) and the page boots on that step's setting (the query
 * boot reads instead of the link's); a lesson that cannot be read is said, and the page boots on the link as it is.
 */
export function lessonAtBoot(ctx: StoreContext, search: string): string {
  const q = new URLSearchParams(search.replace(/^\?/, ''));
  const param = q.get('lesson');
  if (param === null) return search;
  try {
    const lesson = lessonOfParam(param);
    const n = lesson.steps.length, asked = Number(q.get('step') ?? '1');
    const index = Number.isInteger(asked) && asked >= 1 && asked <= n ? asked - 1 : 0;
    ctx.set({ lesson: { lesson, index, results: {}, explained: false } });
    return lesson.steps[settingStep(lesson, index)].setting ?? '';
  } catch (e) {
    ctx.set({ notice: `The lesson was not opened: ${errorText(e)}` }); // a notice: the run's loading clears errors
    return '';
  }
}

/** Whether the current run has done what a step's action asks: a started run finished, a stepped one took its steps. */
function stepDone(ctx: StoreContext, action: Lesson['steps'][number]['action']): boolean {
  const s = ctx.get();
  const pop = s.population ? populationRun(s) : null;
  const steps = pop ? Math.min(...pop.runs.map((r) => (r.runId ? ctx.meta(r.runId)?.steps ?? 0 : 0))) : ctx.currentSteps();
  const life = lifecycleOf(s, steps);
  if (action.do === 'start' || action.do === 'moveLambda') return life === 'finished';
  if (action.do === 'step') return life !== 'training' && steps >= (action.times ?? 1);
  return true; // acts on the run as it is
}

export function lessonActions(ctx: StoreContext): Omit<LessonSlice, keyof LessonState> {
  const { set, get } = ctx;

  /** The step's setting becomes the current run: the old run stops (it stays in the runs table), the new one loads. */
  const applySetting = async (query: string) => {
    const d = decodeSetup(query);
    await ctx.endCurrentPopulation();
    await ctx.finishCurrent();
    set({ preset: d.preset, config: presetConfig(findPreset(d.preset), d.overrides), population: d.population, untilPaused: d.untilPaused, recipeAtStart: d.recipeAtStart, fieldErrors: {}, sweepSelected: null });
    ctx.overlayForNewRun();
    await ctx.initRun(d.preset, overridesOf(d.preset, get().config));
    ctx.syncUrl();
  };

  const go = async (index: number, run: boolean) => {
    const l = get().lesson;
    if (!l) return;
    const i = Math.max(0, Math.min(l.lesson.steps.length - 1, index));
    set({ lesson: { ...l, index: i, explained: false } });
    const step = l.lesson.steps[i];
    if (run && step.setting !== undefined) await applySetting(step.setting);
    else ctx.syncUrl();
  };

  return {
    async openLesson(param, at = 0) {
      let lesson: Lesson;
      try { lesson = lessonOfParam(param); } catch (e) { set({ error: errorText(e) }); return; }
      set({ lesson: { lesson, index: 0, results: {}, explained: false } });
      const i = Math.max(0, Math.min(lesson.steps.length - 1, at));
      await go(i, false);
      await applySetting(lesson.steps[settingStep(lesson, i)].setting ?? '');
    },

    async openLessonText(text) {
      const c = checkLessonText(text, decodeSetup);
      if (!c.lesson) { set({ error: `The lesson was not opened: ${c.problems.slice(0, 3).join('; ')}` }); return; }
      if (c.carriesCode) { set({ error: 'The lesson carries a task\'s code: open the task\'s own link first (it asks before it runs), then the lesson.' }); return; }
      await get().openLesson(`~${encodeLesson(c.lesson)}`);
    },

    async lessonGo(index) { await go(index, true); },

    async lessonRerun() {
      const l = get().lesson;
      if (!l) return;
      const from = settingStep(l.lesson, l.index);
      const results = { ...l.results };
      for (let i = from; i <= l.index; i++) delete results[i]; // the steps on that run are checked anew
      set({ lesson: { ...l, results, explained: false } });
      await applySetting(l.lesson.steps[from].setting ?? '');
    },

    lessonCheck() {
      const l = get().lesson;
      if (!l) return null;
      const step = l.lesson.steps[l.index];
      const final = stepDone(ctx, step.action);
      const r = evaluateCheck(step.check, lessonRunView(ctx));
      // a training step is judged on its finished run: "no hack" or "little silence" hold trivially before it trains
      const result = { ...r, pass: r.pass && final, final };
      const had = l.results[l.index];
      if (!had || had.pass !== result.pass || had.got !== result.got || had.final !== final) set({ lesson: { ...l, results: { ...l.results, [l.index]: result } } });
      return result;
    },

    lessonExplain(on) { const l = get().lesson; if (l) set({ lesson: { ...l, explained: on } }); },

    closeLesson() { set({ lesson: null }); ctx.syncUrl(); },
  };
}
