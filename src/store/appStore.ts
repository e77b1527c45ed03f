// The app store: one zustand store made of three slices (setup, session,
// runs). Built with zustand/vanilla so it runs in Node tests; React reads it
// through useApp (one value at a time).
import { createStore, type StoreApi } from 'zustand/vanilla';
import { StoreContext } from './context';
import { initialPage, pageActions } from './pageSlice';
import { type PagePrefs } from './pagePrefs';
import { initialRuns, runsActions } from './runsSlice';
import { initialSession, sessionActions } from './sessionSlice';
import { initialSetup, setupActions } from './setupSlice';
import type { AppDeps, AppState } from './types';

export type AppStore = StoreApi<AppState> & { ctx: StoreContext };

/** `initial` overrides the starting state (tests render components in a given state). */
export function createAppStore(deps: AppDeps, initial: Partial<AppState> = {}): AppStore {
  let ctx!: StoreContext;
  const store = createStore<AppState>()((set, get) => {
    ctx = new StoreContext(deps, set, get);
    return {
      ...initialSetup(), ...initialSession(), ...initialRuns(), ...initialPage(),
      ...setupActions(ctx), ...sessionActions(ctx), ...runsActions(ctx), ...pageActions(ctx),
      ...initial,
    };
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
  return { backend: s.backendChoice, overlay: s.overlay, guideDismissed: s.guideDismissed, bestRule: s.bestRule, bestTarget: s.bestTarget, accuracyAxis: s.accuracyAxis };
}
