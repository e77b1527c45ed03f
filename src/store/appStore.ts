// The app store: one zustand store made of five slices (setup, session,
// runs, page, sweep). Built with zustand/vanilla so it runs in Node tests;
// React reads it through useApp (one value at a time).
import { createStore, type StoreApi } from 'zustand/vanilla';
import { StoreContext } from './context';
import { populationRun } from './currentRun';
import { releaseLanes } from './sweepPopulation';
import { initialPage, pageActions } from './pageSlice';
import { type PagePrefs } from './pagePrefs';
import { initialRuns, runsActions } from './runsSlice';
import { initialSession, sessionActions } from './sessionSlice';
import { initialSetup, setupActions } from './setupSlice';
import { initialSweep, sweepActions, type KeyValueStore } from './sweepSlice';
import { initialTask, taskActions } from './taskSlice';
import { initialLesson, lessonActions } from './lessonSlice';
import type { AppDeps, AppState } from './types';

export type AppStore = StoreApi<AppState> & { ctx: StoreContext };

/** `initial` overrides the starting state (tests render components in a given state). */
export function createAppStore(deps: AppDeps, initial: Partial<AppState> = {}): AppStore {
  let ctx!: StoreContext;
  const kv = deps.kv ?? memoryKv();
  const store = createStore<AppState>()((set, get) => {
    ctx = new StoreContext(deps, set, get);
    return {
      ...initialSetup(), ...initialSession(), ...initialRuns(), ...initialPage(), ...initialSweep(kv), ...initialTask(), ...initialLesson(),
      ...setupActions(ctx), ...sessionActions(ctx), ...runsActions(ctx), ...pageActions(ctx), ...sweepActions(ctx, kv), ...taskActions(ctx), ...lessonActions(ctx),
      ...initial,
    };
  });
  // a population's members load ahead of Start when the setup, backend or sweep changes (not on every update)
  let planned = '';
  store.subscribe((s) => {
    const key = JSON.stringify([s.population, s.preset, s.config, s.backendChoice, s.trainer?.config != null, s.busy === null, s.sweep === null]);
    if (key !== planned) { planned = key; s.preparePopulation(); }
  });
  // the current population's kept workers go when it is no longer the current run (one run, or another population)
  store.subscribe((s) => {
    const kept = ctx.lanes;
    if (kept && s.sweep?.status !== 'running' && populationRun(s)?.id !== kept.sweepId) releaseLanes(ctx);
  });
  // the page's own choices are saved when they change (after boot has read them back)
  let saved = '';
  store.subscribe((s) => {
    if (!ctx.booted) return;
    const p = prefsOf(s);
    const json = JSON.stringify(p);
    if (json !== saved) { saved = json; ctx.deps.prefs.save(p); }
  });
  return Object.assign(store, { ctx });
}

export function prefsOf(s: AppState): PagePrefs {
  return { backend: s.backendPref, overlay: s.overlay, pinned: s.pinned, guideDismissed: s.guideDismissed, bestRule: s.bestRule, bestTarget: s.bestTarget, accuracyAxis: s.accuracyAxis };
}

/** A key-value store that forgets on reload (where the page has no localStorage). */
export function memoryKv(): KeyValueStore {
  const m = new Map<string, string>();
  return { get: (k) => m.get(k) ?? null, set: (k, v) => { m.set(k, v); }, remove: (k) => { m.delete(k); } };
}
