// The page's own state: the first-run guide, the "best" rule, the accuracy
// axis, the middle column's tab, resuming a run that was training when the
// page closed, and guided comparisons with a sister preset. What of it lasts
// across reloads is saved through deps.prefs (src/store/pagePrefs.ts).
import { findPreset, presetConfig } from '../envs/presets';
import type { RunConfig } from '../config';
import { errorText, type StoreContext } from './context';
import { DEFAULT_PREFS } from './pagePrefs';
import type { PageSlice } from './types';
import { overridesOf } from './urlState';

export type PageState = Pick<PageSlice, 'guideDismissed' | 'bestRule' | 'bestTarget' | 'accuracyAxis' | 'middleTab' | 'resumable'>;

export const initialPage = (): PageState => ({
  guideDismissed: DEFAULT_PREFS.guideDismissed, bestRule: DEFAULT_PREFS.bestRule, bestTarget: DEFAULT_PREFS.bestTarget,
  accuracyAxis: DEFAULT_PREFS.accuracyAxis, middleTab: 'charts', resumable: null,
});

/** The current run's overrides that a sister preset keeps (its size, eval settings...): not the fields the two presets differ in. */
export function sisterOverrides(from: string, to: string, config: RunConfig): Partial<RunConfig> {
  const a = presetConfig(findPreset(from)), b = presetConfig(findPreset(to));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(overridesOf(from, config))) if (a[k as keyof RunConfig] === b[k as keyof RunConfig]) out[k] = v;
  return out as Partial<RunConfig>;
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

    async resume() {
      const r = get().resumable;
      if (!r) return;
      await ctx.guard(async () => {
        const bytes = await deps.storage.getCheckpoint(r.id, 'last');
        if (!bytes) throw new Error(`"${r.name}" has no last checkpoint stored; it cannot be resumed`);
        await ctx.finishCurrent();
        set({ busy: `Resuming "${r.name}" from step ${r.step}…`, resumable: null });
        try {
          ctx.nextRunName = `${r.name} (resumed from step ${r.step})`;
          ctx.applySnapshot(await ctx.api.loadCheckpoint(bytes));
        } finally {
          set({ busy: null });
        }
        if (!get().overlay.includes(r.id)) await get().toggleOverlay(r.id);
        set({ notice: `Resumed "${r.name}": a new run goes on from its weights and settings at step ${r.step} (its step counter starts at 0); the old run is overlaid.` });
        await get().start();
      });
    },

    async runSister(name) {
      const { preset, config, runId } = get();
      let overrides: Partial<RunConfig>;
      try { overrides = sisterOverrides(preset, name, config); } catch (e) { set({ error: `no sister run: ${errorText(e)}` }); return; }
      const prev = runId && ctx.currentSteps() > 0 ? runId : null;
      await ctx.initRun(name, overrides);
      if (get().preset !== name || !get().trainer?.config) return; // initRun said why
      if (prev && prev !== get().runId && !get().overlay.includes(prev)) await get().toggleOverlay(prev);
      await get().start();
      set({ notice: `Training ${name} beside the run you had: both are on the charts (dashes and colours tell them apart).` });
    },
  };
}
