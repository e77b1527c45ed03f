// The page's own state: the first-run guide, the "best" rule, the accuracy
// axis, the middle column's tab, resuming a run that was training when the
// page closed (the same run goes on: its id, counters and optimizer state),
// and guided comparisons with a sister preset. What of it lasts
// across reloads is saved through deps.prefs (src/store/pagePrefs.ts).
import { findPreset, presetConfig } from '../envs/presets';
import type { RunConfig } from '../config';
import { errorText, type StoreContext } from './context';
import { DEFAULT_PREFS } from './pagePrefs';
import type { PageSlice } from './types';
import type { RunMeta } from './runTypes';
import type { ResumeState } from '../worker/protocol';
import { overridesOf } from './urlState';

export type PageState = Pick<PageSlice, 'guideDismissed' | 'bestRule' | 'bestTarget' | 'accuracyAxis' | 'middleTab' | 'resumable' | 'hoveredRun'>;

export const initialPage = (): PageState => ({
  guideDismissed: DEFAULT_PREFS.guideDismissed, bestRule: DEFAULT_PREFS.bestRule, bestTarget: DEFAULT_PREFS.bestTarget,
  accuracyAxis: DEFAULT_PREFS.accuracyAxis, middleTab: 'charts', resumable: null, hoveredRun: null,
});

/** The current run's overrides that a sister preset keeps (its size, eval settings...): not the fields the two presets differ in. */
export function sisterOverrides(from: string, to: string, config: RunConfig): Partial<RunConfig> {
  const a = presetConfig(findPreset(from)), b = presetConfig(findPreset(to));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(overridesOf(from, config))) if (a[k as keyof RunConfig] === b[k as keyof RunConfig]) out[k] = v;
  return out as Partial<RunConfig>;
}

/** A run record's counters at its last checkpoint's step, for runs stored without a resume state (no optimizer). */
export function countersOf(meta: RunMeta, step: number): ResumeState {
  const evals = meta.evals.filter((e) => e.step <= step);
  const at = evals.find((e) => e.step === step);
  return {
    step, config: meta.config, evals, bestEval: null, flags: meta.flags.filter((f) => f.step <= step),
    lambdaTok: at?.lambdaTok ?? meta.config.lambdaTok, skippedUpdates: 0,
  };
}

export function pageActions(ctx: StoreContext): Omit<PageSlice, keyof PageState> {
  const { set, get, deps } = ctx;
  return {
    dismissGuide() { set({ guideDismissed: true }); },
    setBestRule(rule, target) {
      const t = target ?? get().bestTarget;
      set({ bestRule: rule, bestTarget: Number.isFinite(t) && t >= 0 ? Math.min(1000, t) : get().bestTarget });
    },
    setAccuracyAxis(accuracyAxis) { set({ accuracyAxis }); },
    setMiddleTab(middleTab) { set({ middleTab }); },
    dismissResume() { set({ resumable: null }); },
    setHoveredRun(id) { if (get().hoveredRun !== id) set({ hoveredRun: id }); },

    async resume() {
      const r = get().resumable;
      if (!r) return;
      if (r.members !== undefined) { set({ resumable: null }); await get().resumeSweep(); return; } // a population goes on as one
      await ctx.guard(async () => {
        const meta = ctx.meta(r.id);
        if (!meta) throw new Error(`"${r.name}" is no longer stored; it cannot be resumed`);
        const last = await deps.storage.getCheckpoint(r.id, 'last');
        if (!last) throw new Error(`"${r.name}" has no last checkpoint stored; it cannot be resumed`);
        const best = await deps.storage.getCheckpoint(r.id, 'best');
        // stored with the last checkpoint; a run stored before that has only its record's counters (the optimizer restarts)
        const state = (await deps.storage.getResumeState(r.id)) ?? countersOf(meta, r.step);
        await ctx.finishCurrent();
        set({ population: null }); // the resumed run goes on alone
        set({ busy: `Resuming "${r.name}" from step ${r.step}…`, resumable: null });
        try {
          // its stored metrics on the charts; the worker's rows from the checkpoint's step on replace any after it
          if (!deps.hub.has(r.id)) deps.hub.set(r.id, await deps.storage.loadMetrics(r.id));
          ctx.applySnapshot(await ctx.api.resume(r.id, last, best, state));
        } finally {
          set({ busy: null });
        }
        const s = get().trainer;
        ctx.updateMeta(r.id, { steps: s?.stepCount ?? r.step }, true);
        if (get().overlay.includes(r.id)) set({ overlay: get().overlay.filter((x) => x !== r.id) }); // it is the current run now
        const restarted = !state.optimizer || /optimizer restarts/.test(s?.message ?? '');
        set({ notice: `Resumed "${r.name}" at step ${s?.stepCount ?? r.step}: the same run goes on${restarted ? ', but its optimizer restarts (no optimizer state was stored with this run, or it did not fit): the first updates may differ from an uninterrupted run' : ', with its optimizer state'}.` });
        await get().start();
      });
    },

    async runSister(name) {
      const { preset, config, runId } = get();
      let overrides: Partial<RunConfig>;
      try { overrides = sisterOverrides(preset, name, config); } catch (e) { set({ error: `no sister run: ${errorText(e)}` }); return; }
      const prev = runId && ctx.currentSteps() > 0 ? runId : null;
      set({ population: null });
      ctx.overlayForNewRun(); // the comparison: the sister, the run it is compared with, and the pinned runs
      await ctx.initRun(name, overrides);
      if (get().preset !== name || !get().trainer?.config) return; // initRun said why
      if (prev && prev !== get().runId && !get().overlay.includes(prev)) await get().toggleOverlay(prev);
      await get().start();
      set({ notice: `Training ${name} beside the run you had: both are on the charts (dashes and colours tell them apart).` });
    },
  };
}
